"""Smoke test of the benchmark harness: one tiny run end to end, no peers, no timing claims.

It proves the one command still produces a report with the embedded backend and the numpy
floor side by side; speed itself is only ever measured by running the benchmarks.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import run


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
