"""Cost of the observability instrumentation per call, with and without listeners.

Run: ``PYTHONPATH=python python -m benchmarks.observability_overhead``

Prints nanoseconds per call for a bare method, the same method under ``@observed`` and
under ``observe_operation`` when no listener is registered (the cost every user pays), and
with one listener that ignores events (the cost of building and delivering two events).
Nothing here runs in CI.
"""

from __future__ import annotations

import argparse
import timeit

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
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
