"""What HYBRID (the default) costs next to VECTOR, paired in one run: user-scoped searches
through the public client and through the store contract, at one store size.

    PYTHONPATH=python:. python -m benchmarks.hybrid_cost --size 100000 \\
        --out benchmarks/results/hybrid_cost.json

The store is the scale benchmark's (``benchmarks.worker ingest``: 50 users, 12 words of a
Zipf vocabulary per record), made once under ``--workdir`` if missing. The client is
``OracleAgentMemory`` with an embedder that looks up each query's precomputed vector (the
model's cost is left out: it is the same for both strategies), one client per strategy on
the same file. Every query runs once per strategy in each round, the strategies in a
rotating order, so load from other work falls on all of them alike; the ratio of the
medians is the figure to read (target: HYBRID p50 <= 2x VECTOR p50 at 100K).

``HYBRID_FTS5`` and ``KEYWORD_FTS5`` are the same searches with the keyword half from FTS5
(the path before the scoped keyword index, ``stores/embedded/scope_keywords.py``), timed in
the same rotation. Each row has its wall-clock p50 and the p50 of the CPU time the
searching thread used (``time.thread_time``): on a machine shared with other work a search
that is descheduled midway reads long on the clock, not on the CPU, and the longer searches
are hit more often, so the CPU ratio is the steadier one under load. ``first_keyword_ms``
times the first KEYWORD search of each user (through the contract) beside a KEYWORD_FTS5
search of the same query: a user's terms are held by the record cache, so it costs what
the later ones do.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import machine
from benchmarks.dataset import generate, queries
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core import SearchStrategy
from oracleagentmemory.stores.protocol import Strategy

ROOT = Path(__file__).resolve().parent.parent
STRATEGIES: tuple[Strategy, ...] = ("VECTOR", "HYBRID", "KEYWORD")
ROWS: tuple[str, ...] = (*STRATEGIES, "HYBRID_FTS5", "KEYWORD_FTS5")


class LookupEmbedder(IEmbedder):
    """The precomputed vector of each benchmark query (by its text)."""

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    @property
    def embedding_dimension(self) -> int:
        return 384

    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        return np.stack([self.vectors[text] for text in texts])

    async def embed_async(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        return self.embed(texts, is_query=is_query)


def _percentiles(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"p50_ms": statistics.median(ordered) * 1e3,
            "p95_ms": ordered[int(0.95 * (len(ordered) - 1))] * 1e3, "n": len(ordered)}


@contextmanager
def keyword_half_from_fts5(row: str) -> Iterator[None]:
    """For a ``*_FTS5`` row, the in-memory scope scorer answers nothing (FTS5 does)."""
    from oracleagentmemory.stores.embedded import scope_keywords

    if not row.endswith("_FTS5"):
        yield
        return
    saved = scope_keywords.MAX_SCOPE_RECORDS
    scope_keywords.MAX_SCOPE_RECORDS = -1  # every scope is larger
    try:
        yield
    finally:
        scope_keywords.MAX_SCOPE_RECORDS = saved


def measure(store_path: Path, size: int, count: int, rounds: int) -> dict[str, Any]:
    """Median and p95 per row, through the client and through the store contract."""
    from oracleagentmemory.core import OracleAgentMemory
    from oracleagentmemory.stores.embedded import EmbeddedBackend

    items = queries(generate(size), count)
    vectors: dict[str, np.ndarray] = {}
    for item in items:
        vectors.setdefault(item.text, item.vector)
    clients = {strategy: OracleAgentMemory(connection=str(store_path),
                                           embedder=LookupEmbedder(vectors),
                                           search_strategy=SearchStrategy[strategy])
               for strategy in STRATEGIES}
    backend = EmbeddedBackend(store_path, embedding_dimension=384)

    def strategy_of(row: str) -> Strategy:
        return next(strategy for strategy in STRATEGIES if row.startswith(strategy))

    def client_search(row: str, index: int) -> None:
        item = items[index]
        with keyword_half_from_fts5(row):
            clients[strategy_of(row)].search(item.text, user_id=item.user, max_results=10)

    def contract_search(row: str, index: int) -> None:
        item = items[index]
        with keyword_half_from_fts5(row):
            backend.search({"query_text": item.text, "query_vector": vectors[item.text],
                            "strategy": strategy_of(row), "max_results": 10,
                            "scope": {"user_id": {"value": item.user, "exact": True}}})

    out: dict[str, Any] = {"first_keyword_ms": first_keyword(backend, items, contract_search)}
    for path, run in (("client", client_search), ("contract", contract_search)):
        for index in range(len(items)):  # caches loaded, every user's terms touched
            run("KEYWORD", index)
        for row in ROWS:  # first statements prepared
            run(row, 0)
        times: dict[str, list[float]] = {row: [] for row in ROWS}
        cpu: dict[str, list[float]] = {row: [] for row in ROWS}
        for round_number in range(rounds):
            for index in range(len(items)):
                shift = (round_number + index) % len(ROWS)
                for row in ROWS[shift:] + ROWS[:shift]:
                    started, cpu_started = time.perf_counter(), time.thread_time()
                    run(row, index)
                    cpu[row].append(time.thread_time() - cpu_started)
                    times[row].append(time.perf_counter() - started)
        summary: dict[str, Any] = {row: {**_percentiles(values),
                                         "cpu_p50_ms": statistics.median(cpu[row]) * 1e3}
                                   for row, values in times.items()}
        for row in ROWS[1:]:
            summary[f"{row.lower()}_over_vector_p50"] = (summary[row]["p50_ms"]
                                                         / summary["VECTOR"]["p50_ms"])
            summary[f"{row.lower()}_over_vector_cpu_p50"] = (
                summary[row]["cpu_p50_ms"] / summary["VECTOR"]["cpu_p50_ms"])
        out[path] = summary
    for client in clients.values():
        client.close()
    backend.close()
    return out


def first_keyword(backend: Any, items: list[Any], search: Any) -> dict[str, float]:
    """p50 of each user's first KEYWORD search and of a KEYWORD_FTS5 search of the same
    query, alternating which goes first."""
    seen: set[str] = set()
    build: list[float] = []
    fts5: list[float] = []
    search("VECTOR", 0)  # the record cache loaded
    for index, item in enumerate(items):
        if item.user in seen:
            continue
        seen.add(item.user)
        for row in ("KEYWORD", "KEYWORD_FTS5")[:: 1 if len(seen) % 2 else -1]:
            started = time.perf_counter()
            search(row, index)
            (build if row == "KEYWORD" else fts5).append(time.perf_counter() - started)
    return {"users": len(build), "build_p50_ms": statistics.median(build) * 1e3,
            "fts5_p50_ms": statistics.median(fts5) * 1e3}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=ROOT / "benchmarks" / ".work")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/hybrid_cost.json")
    args = parser.parse_args(argv)
    command = "PYTHONPATH=python:. python -m benchmarks.hybrid_cost " + shlex.join(
        sys.argv[1:] if argv is None else argv)
    base = args.workdir / f"hybrid-cost-{args.size}"
    store_path = base / "embedded" / "store.db"
    started = machine.describe()
    if not store_path.exists():
        base.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "benchmarks.worker", "ingest", "--size",
                        str(args.size), "--workdir", str(base / "embedded"), "--out",
                        str(base / "ingest.json")], check=True,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(
                           [str(ROOT / "python"), str(ROOT)])})
    result = {"command": command, "records": args.size,
              **measure(store_path, args.size, args.queries, args.rounds)}
    result["machine"] = machine.finish(started)
    args.out.write_text(json.dumps(result, indent=1))
    for path in ("client", "contract"):
        summary = result[path]
        print(f"{path:8} " + "  ".join(
            f"{row} p50 {summary[row]['p50_ms']:.2f} ms" for row in ROWS)
            + f"  HYBRID/VECTOR {summary['hybrid_over_vector_p50']:.2f}x"
            + f" (CPU {summary['hybrid_over_vector_cpu_p50']:.2f}x)"
            + f"  HYBRID_FTS5/VECTOR {summary['hybrid_fts5_over_vector_p50']:.2f}x"
            + f" (CPU {summary['hybrid_fts5_over_vector_cpu_p50']:.2f}x)")
    first = result["first_keyword_ms"]
    print(f"first KEYWORD search of a user p50 {first['build_p50_ms']:.1f} ms,"
          f" KEYWORD_FTS5 {first['fts5_p50_ms']:.1f} ms ({first['users']} users)")
    print(f"load average {started['load_average_start']:.2f} -> "
          f"{result['machine']['load_average_end']:.2f}")


if __name__ == "__main__":
    main()
