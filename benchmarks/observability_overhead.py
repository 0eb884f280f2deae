"""Cost of the observability instrumentation per call, with and without listeners.

Run: ``PYTHONPATH=python python -m benchmarks.observability_overhead``

Prints nanoseconds per call for a bare method, the same method under ``@observed`` and
under ``observe_operation`` when no listener is registered (the cost every user pays), and
with one listener that ignores events (the cost of building and delivering two events).
Then one client search on an embedded store, timed, with the number of instrumented calls
it makes: their no-listener cost as a share of the search. Nothing here runs in CI.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
import timeit
import zlib
from pathlib import Path

import numpy as np

from benchmarks import machine
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.observability import EventListener, OperationKind, register_event_listeners
from oracleagentmemory.observability.instrumentation import observe_operation, observed


class Thread:
    thread_id, user_id, agent_id = "t1", "u1", "a1"

    def bare(self, query: str, max_results: int = 10) -> list[str]:
        return [query]

    @observed("thread", operation_kind=OperationKind.READ)
    def decorated(self, query: str, max_results: int = 10) -> list[str]:
        return [query]

    def with_block(self, query: str, max_results: int = 10) -> list[str]:
        with observe_operation("thread", "with_block", operation_kind=OperationKind.READ,
                               concrete_class="Thread", instance=self) as operation:
            result = [query]
            operation.set_result(result)
            return result


class SeededEmbedder(IEmbedder):
    """Vectors from a hash of the text: embedding costs next to nothing, the store is measured."""

    @property
    def embedding_dimension(self) -> int:
        return 384

    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        rows = [np.random.default_rng(zlib.crc32(t.encode())).standard_normal(384)
                for t in texts]
        out = np.asarray(rows, dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    async def embed_async(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        return self.embed(texts, is_query=is_query)


class Count(EventListener):
    def __init__(self) -> None:
        self.started = 0

    def on_event(self, event) -> None:  # noqa: ANN001 - benchmark stub
        self.started += type(event).__name__.endswith("StartedEvent")


def search_cost(records: int, repeat: int) -> dict[str, float]:
    """One client search on the embedded store: its instrumented calls and its time."""
    with tempfile.TemporaryDirectory() as workdir, OracleAgentMemory(
            connection=str(Path(workdir) / "o.db"), embedder=SeededEmbedder()) as client:
        for i in range(records):
            client.add_memory(f"memory {i} about topic {i % 37}", user_id=f"u{i % 5}")
        counter = Count()
        with register_event_listeners([counter]):
            client.search("topic 3", user_id="u1", max_results=10)
        number = 200
        seconds = min(timeit.repeat(
            lambda: client.search("topic 3", user_id="u1", max_results=10),
            number=number, repeat=repeat)) / number
    return {"records": records, "instrumented_calls": counter.started,
            "search_ns": seconds * 1e9}


class Ignore(EventListener):
    def on_event(self, event) -> None:  # noqa: ANN001 - benchmark stub
        return None


def per_call_ns(statement, number: int, repeat: int) -> float:
    """Best of ``repeat`` runs, in nanoseconds per call (the least disturbed run)."""
    return min(timeit.repeat(statement, number=number, repeat=repeat)) / number * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--records", type=int, default=2000,
                        help="memories in the store whose search is measured")
    parser.add_argument("--out", type=Path,
                        help="also save the table as JSON here (benchmarks.report shows it)")
    args = parser.parse_args()
    started = machine.describe()
    thread = Thread()
    cases = {
        "bare method": lambda: thread.bare("q", max_results=5),
        "@observed, no listener": lambda: thread.decorated("q", max_results=5),
        "observe_operation, no listener": lambda: thread.with_block("q", max_results=5),
    }
    results = {name: per_call_ns(call, args.number, args.repeat) for name, call in cases.items()}
    with register_event_listeners([Ignore()]):
        heavy = max(args.number // 100, 1000)
        results["@observed, one listener"] = per_call_ns(
            lambda: thread.decorated("q", max_results=5), heavy, args.repeat)
    base = results["bare method"]
    print(f"{'case':34} {'ns/call':>9} {'overhead ns':>12}")
    for name, value in results.items():
        print(f"{name:34} {value:9.0f} {value - base:12.0f}")
    search = search_cost(args.records, args.repeat)
    added = search["instrumented_calls"] * (results["@observed, no listener"] - base)
    print(f"one client search over {args.records} records: {search['search_ns'] / 1e3:.0f} us, "
          f"{search['instrumented_calls']} instrumented calls, ~{added / 1e3:.1f} us of them "
          f"with no listener ({added / search['search_ns']:.1%})")
    if args.out:
        args.out.write_text(json.dumps({
            "command": f"{machine.interpreter()} -m benchmarks.observability_overhead "
                       + shlex.join(sys.argv[1:]),
            "machine": machine.finish(started), "ns_per_call": results,
            "search": search}, indent=1))


if __name__ == "__main__":
    main()
