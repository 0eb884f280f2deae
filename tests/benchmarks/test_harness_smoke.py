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


def tiny_run(tmp_path: Path, size: int, backends: str) -> Path:
    """One run of the harness at ``size`` records, no end-to-end phase: its output folder."""
    out = tmp_path / "results"
    run.main([
        "--sizes", str(size), "--backends", backends, "--out", str(out),
        "--workdir", str(tmp_path / "work"), "--queries", "20", "--seconds", "0.1",
        "--e2e-sample", "0", "--no-quality", "--no-blas-probe",
    ])
    return out


def test_one_tiny_run_writes_the_report(tmp_path: Path) -> None:
    out = tiny_run(tmp_path, 600, "embedded,numpy")
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


def test_report_rows_say_the_load_and_the_cpu_time(tmp_path: Path) -> None:
    lines = (tiny_run(tmp_path, 300, "embedded") / "report.md").read_text().splitlines()
    rows = [next(line for line in lines if line.startswith(prefix))  # ingestion, search
            for prefix in ("| 300 | embedded |", "| user scope | embedded |")]
    for row in rows:
        load, cpu = [cell.strip() for cell in row.strip("|").split("|")][-2:]
        assert "→" in load and float(cpu) >= 0


def test_the_end_to_end_phase_adds_real_turns_with_alternating_roles(tmp_path: Path) -> None:
    from benchmarks.worker import E2E_BATCH, conversation_batches

    sessions = {}
    for number in (1, 2):
        sessions[f"session_{number}"] = [
            {"speaker": ("Ann", "Bo")[turn % 2], "dia_id": f"D{number}:{turn}",
             "text": f"turn {turn} of session {number}"} for turn in range(40)]
        sessions[f"session_{number}_date_time"] = "9:30 am on 14 March, 2024"
    (tmp_path / "7.json").write_text(json.dumps({**sessions, "qa": []}))
    batches, source = conversation_batches(tmp_path, 70)
    assert "alternating roles" in source
    assert sum(len(messages) for _, messages in batches) == 70
    assert all(len(messages) <= E2E_BATCH for _, messages in batches)
    first_key, first = batches[0]
    assert [message["role"] for message in first[:4]] == ["user", "assistant"] * 2
    assert first[1]["content"] == "turn 1 of session 1"
    assert len({key for key, _ in batches}) == 2  # one thread per session
    generated, where = conversation_batches(None, 40)
    assert "generated" in where and {m["role"] for _, ms in generated for m in ms} == {"user"}


def test_the_encoder_fusion_run_has_its_report_section(tmp_path: Path) -> None:
    machine = {"cpus": 2, "processor": "cpu", "python": "3.11", "threads": {},
               "load_average_start": 0.5, "load_average_end": 1.0,
               "started_utc": "2026-12-01 00:00"}
    cell = {"turns_per_s": {"p50": 100.0}, "query_ms": {"p50": 3.5},
            "min_cosine_vs_ours": 0.9999998}
    (tmp_path / "report.md").write_text("# Embedded backend benchmark\n\n"
                                        + report.SIDE_RUNS_START + "\n")
    (tmp_path / "encoder_fusion.json").write_text(json.dumps({
        "command": "python -m benchmarks.encoder_fusion data", "machine": machine,
        "texts": "LoCoMo turns", "turn_words": 20, "turns_per_round": 256, "rounds": 6,
        "results": {"all-MiniLM-L6-v2": {
            "nodes": {"ours": {"MatMul": 18, "Attention": 6}},
            "threads_2": {"ours": cell},
            "text_in_vectors_out": {"fastembed": {**cell, "query_ms": {"p50": 4.0}}},
            "load_average_start": 1.5, "load_average_end": 2.5, "cpu_seconds": 90.0}}}))
    with mock.patch.object(sys, "argv", ["report", str(tmp_path)]):
        report.main()
    text = (tmp_path / "report.md").read_text()
    assert "| all-MiniLM-L6-v2 | ours | 2 | 100.0 | 3.50 | 0.9999998 | 24 |" in text
    assert ("| all-MiniLM-L6-v2 | fastembed (text in, vectors out) | default | 100.0 | 4.00 |"
            in text)
    assert "load average 1.5 at the start of its rounds, 2.5 at the end; 90 s of CPU" in text


def test_the_run_log_shows_paths_inside_the_checkout_relative_to_it() -> None:
    from benchmarks.run import ROOT, shown_command

    command = [str(ROOT / "benchmarks" / ".venv" / "bin" / "python"), "-m", "benchmarks.worker",
               "--workdir", str(ROOT / "benchmarks" / ".work" / "10000"), "--size", "10000"]
    assert shown_command(command) == (
        "benchmarks/.venv/bin/python -m benchmarks.worker "
        "--workdir benchmarks/.work/10000 --size 10000")


def test_the_run_log_shows_paths_beside_the_checkout_relative_to_it() -> None:
    from benchmarks.run import ROOT, relative_to_checkout

    line = f'  File "{ROOT / "benchmarks" / "worker.py"}", line 3; data {ROOT.parent / "data"}'
    assert relative_to_checkout(line) == '  File "benchmarks/worker.py", line 3; data ../data'
