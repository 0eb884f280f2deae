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


def measure(store_path: Path, size: int, count: int, rounds: int) -> dict[str, Any]:
    """Median and p95 per strategy, through the client and through the store contract."""
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

    def client_search(strategy: Strategy, index: int) -> None:
        item = items[index]
        clients[strategy].search(item.text, user_id=item.user, max_results=10)

    def contract_search(strategy: Strategy, index: int) -> None:
        item = items[index]
        backend.search({"query_text": item.text, "query_vector": vectors[item.text],
                        "strategy": strategy, "max_results": 10,
                        "scope": {"user_id": {"value": item.user, "exact": True}}})

    out: dict[str, Any] = {}
    for path, run in (("client", client_search), ("contract", contract_search)):
        for strategy in STRATEGIES:  # caches loaded, first statements prepared
            run(strategy, 0)
        times: dict[Strategy, list[float]] = {strategy: [] for strategy in STRATEGIES}
        for round_number in range(rounds):
            for index in range(len(items)):
                shift = (round_number + index) % len(STRATEGIES)
                for strategy in STRATEGIES[shift:] + STRATEGIES[:shift]:
                    started = time.perf_counter()
                    run(strategy, index)
                    times[strategy].append(time.perf_counter() - started)
        summary: dict[str, Any] = {strategy: _percentiles(values)
                                   for strategy, values in times.items()}
        summary["hybrid_over_vector_p50"] = (summary["HYBRID"]["p50_ms"]
                                             / summary["VECTOR"]["p50_ms"])
        summary["keyword_over_vector_p50"] = (summary["KEYWORD"]["p50_ms"]
                                              / summary["VECTOR"]["p50_ms"])
        out[path] = summary
    for client in clients.values():
        client.close()
    backend.close()
    return out


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
            f"{strategy} p50 {summary[strategy]['p50_ms']:.2f} ms" for strategy in STRATEGIES)
            + f"  HYBRID/VECTOR {summary['hybrid_over_vector_p50']:.2f}x")
    print(f"load average {started['load_average_start']:.2f} -> "
          f"{result['machine']['load_average_end']:.2f}")


if __name__ == "__main__":
    main()
