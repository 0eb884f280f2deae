"""Smoke test of the benchmark harness: one tiny run end to end, no peers, no timing claims.

It proves the one command still produces a report with the embedded backend and the numpy
floor side by side; speed itself is only ever measured by running the benchmarks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from unittest import mock

from benchmarks import report, run


def test_one_tiny_run_writes_the_report(tmp_path: Path) -> None:
    out = tmp_path / "results"
    run.main([
        "--sizes", "600", "--backends", "embedded,numpy", "--out", str(out),
        "--workdir", str(tmp_path / "work"), "--queries", "20", "--seconds", "0.1",
        "--e2e-sample", "0", "--no-quality", "--no-blas-probe",
    ])
    text = (out / "report.md").read_text()
    assert "## Search latency" in text
    assert "| user scope + metadata filter | embedded |" in text
    assert "| unscoped | numpy |" in text
    results = json.loads((out / "results.json").read_text())
    runs = {r["backend"]: r for r in results["runs"]}
    assert runs["embedded"]["ingest"]["records"] == 600
    workloads = runs["embedded"]["search"]["workloads"]
    assert set(workloads) == {"user", "user_filter", "unscoped", "hops2", "hybrid_user"}
    assert all(w["count"] >= 20 for w in workloads.values())


def test_side_runs_refresh_only_their_own_sections(tmp_path: Path) -> None:
    machine = {"cpus": 2, "processor": "cpu", "python": "3.11", "threads": {},
               "load_average_start": 0.5, "load_average_end": 1.0,
               "started_utc": "2026-12-01 00:00"}
    main_part = "# Embedded backend benchmark\n\nmain sections\n\n" + report.SIDE_RUNS_START
    (tmp_path / "report.md").write_text(main_part + "\n\n## Local reranker (LoCoMo)\n\nold\n")
    (tmp_path / "rerank_quality.json").write_text(json.dumps({
        "command": "python -m benchmarks.rerank_quality data", "machine": machine,
        "questions": 4, "conversations": 1, "rows": [
            {"strategy": "VECTOR", "refinement": "none (top 10)",
             "recall@5": 0.4, "recall@10": 0.5},
            {"strategy": "VECTOR", "refinement": "rank fusion over top 20",
             "recall@5": 0.45, "recall@10": 0.6}]}))
    with mock.patch.object(sys, "argv", ["report", str(tmp_path)]):
        report.main()
    text = (tmp_path / "report.md").read_text()
    assert text.startswith(main_part)
    assert "old" not in text
    assert "| vector | rank fusion over top 20 | 0.450 | 0.600 | 1.20x |" in text
    assert "load average 0.50 at the start, 1.00 at the end" in text
    assert "## Observability cost" not in text
