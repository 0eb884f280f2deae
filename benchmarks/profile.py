"""Profile one phase of the embedded store with cProfile: where does the time go?

    python -m benchmarks.profile ingest --size 30000
    python -m benchmarks.profile search --size 100000 --workload user_filter

Prints the functions with the most own time. Used to decide what to optimise; the
numbers it prints include the profiler's overhead, so time with ``benchmarks.run``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
from pathlib import Path

from benchmarks.backends.embedded import BATCH, EmbeddedAdapter, records_of
from benchmarks.dataset import generate, queries


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("phase", choices=("ingest", "search"))
    parser.add_argument("--size", type=int, default=30_000)
    parser.add_argument("--workload", default="user_filter")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args(argv)
    data = generate(args.size)
    with tempfile.TemporaryDirectory() as tmp:
        adapter = EmbeddedAdapter(Path(tmp))
        profile = cProfile.Profile()
        if args.phase == "ingest":
            batches = [records_of(data, s, min(s + BATCH, data.size))
                       for s in range(0, data.size, BATCH)]
            from oracleagentmemory.stores.embedded import EmbeddedBackend

            store = EmbeddedBackend(Path(tmp) / "store.db", embedding_dimension=384)
            profile.enable()
            for records, links in batches:
                store.write_records(records, links)
            profile.disable()
            store.close()
        else:
            adapter.ingest(data)
            adapter.open()
            items = queries(data, args.queries)
            adapter.search(args.workload, items[0])  # cache load is not what we profile
            profile.enable()
            for query in items:
                adapter.search(args.workload, query)
            profile.disable()
            adapter.close()
    pstats.Stats(profile).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
