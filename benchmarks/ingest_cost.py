"""Store-side ingestion cost per record, this checkout against another, interleaved in one run.

    PYTHONPATH=python:. python -m benchmarks.ingest_cost --size 1000000 \\
        --baseline PATH_TO_ANOTHER_CHECKOUT --rounds 1 --out benchmarks/results/ingest_cost.json

Each measurement is a fresh process running one checkout's library (its ``python/`` first on
the path) on the scale data set (``benchmarks.dataset``): ``write_records`` in batches of
1,000 records with their links, as the scale benchmark ingests, only the store calls timed.
Per record it reports the process's CPU time (user + system, steadier than the clock on a
shared machine), the wall time, the bytes the process wrote through system calls (SQLite's
log and checkpoints: ``wchar`` of ``/proc/self/io``, Linux; independent of load) and the
files' size at the end. The checkouts alternate within each round, so load from other work
falls on both alike; the load average is recorded at each start.

``--generated-ids`` gives every record the id the library makes for a record its caller
leaves unnamed (``new_id``, as the client does for messages, memories and threads), made in
insertion order before the timing starts, instead of the data set's ascending ``rec-N``:
each checkout's own ids, so a change in how ids are made shows in the store's cost.

``--pragma NAME=VALUE`` (repeatable) runs this checkout with the PRAGMA set on every
connection the store opens (after its own), the baseline as it is: a setting measured
without changing the library, e.g. ``--baseline . --pragma mmap_size=2147418112``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import machine

ROOT = Path(__file__).resolve().parent.parent


def _io(field: str) -> int:
    """``rchar`` or ``wchar``: bytes this process read or wrote through system calls."""
    with open("/proc/self/io") as handle:
        match = re.search(rf"{field}: (\d+)", handle.read())
    return int(match.group(1)) if match else 0


def _set_pragmas(pragmas: list[str]) -> None:
    """Every connection the store opens from now on gets ``PRAGMA`` of each setting."""
    from oracleagentmemory.stores.embedded import schema

    opened = schema.connect

    def connect(location: str) -> Any:
        conn = opened(location)
        for pragma in pragmas:
            name, value = pragma.split("=", 1)
            conn.execute(f"PRAGMA {name} = {value}")
        return conn

    schema.connect = connect


def _with_generated_ids(batches: list[tuple[list[dict], list[dict]]]) -> None:
    """Give every record (and the links naming it) an id the checkout's library makes."""
    from oracleagentmemory.apis.message import new_id

    made = {record["id"]: new_id() for records, _ in batches for record in records}
    for records, links in batches:
        for record in records:
            record["id"] = made[record["id"]]
        for link in links:
            link["source_id"], link["target_id"] = made[link["source_id"]], made[link["target_id"]]


def child(size: int, links: bool, pragmas: list[str], generated_ids: bool = False
          ) -> dict[str, Any]:
    """Ingest ``size`` records into a new store file with the library on the path."""
    from benchmarks.backends.embedded import BATCH, records_of
    from benchmarks.dataset import generate
    from oracleagentmemory.stores.embedded import EmbeddedBackend

    _set_pragmas(pragmas)

    data = generate(size)
    batches = [records_of(data, start, min(start + BATCH, size))
               for start in range(0, size, BATCH)]
    if generated_ids:
        _with_generated_ids(batches)
    directory = tempfile.mkdtemp(prefix="ingest-cost-")
    try:
        store = EmbeddedBackend(Path(directory) / "store.db", embedding_dimension=384)
        cpu, wall = machine.cpu_seconds(), time.perf_counter()
        written, read = _io("wchar"), _io("rchar")
        for records, batch_links in batches:
            store.write_records(records, batch_links if links else [])
        cpu, wall, written, read = (machine.cpu_seconds() - cpu, time.perf_counter() - wall,
                                    _io("wchar") - written, _io("rchar") - read)
        store.close()
        disk = sum(path.stat().st_size for path in Path(directory).iterdir())
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return {"cpu_us": cpu / size * 1e6, "wall_us": wall / size * 1e6,
            "records_per_second": size / wall, "written_bytes": written / size,
            "read_bytes": read / size, "disk_bytes": disk / size}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--baseline", type=Path, required=False,
                        help="another checkout of the project (its python/ is imported)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-links", action="store_true")
    parser.add_argument("--generated-ids", action="store_true",
                        help="ids made by each checkout's library instead of rec-N")
    parser.add_argument("--pragma", action="append", default=[], metavar="NAME=VALUE",
                        help="set on this checkout's connections only (repeatable)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", action="store_true")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.size, not args.no_links, args.pragma, args.generated_ids)))
        return
    sides: list[tuple[Path, list[str]]] = [(ROOT, args.pragma)] + (
        [(args.baseline.resolve(), [])] if args.baseline else [])
    started = machine.describe()
    runs: list[dict[str, Any]] = []
    for round_number in range(args.rounds):
        for root, pragmas in sides if round_number % 2 == 0 else sides[::-1]:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "python"),
                                                                str(ROOT)])}
            load = os.getloadavg()[0]
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks.ingest_cost", "--child", "--size",
                 str(args.size), *(["--no-links"] if args.no_links else []),
                 *(["--generated-ids"] if args.generated_ids else []),
                 *(f"--pragma={pragma}" for pragma in pragmas)],
                env=env, capture_output=True, text=True, check=True, cwd=ROOT)
            result = json.loads(done.stdout.strip().splitlines()[-1])
            result.update({"root": str(root), "pragmas": pragmas, "round": round_number,
                           "load_average": [load, os.getloadavg()[0]]})
            runs.append(result)
            label = root.name + (" +pragma" if pragmas else "")
            print(f"{round_number} {label:20} cpu {result['cpu_us']:6.1f} us  wall "
                  f"{result['wall_us']:6.1f} us  {result['records_per_second']:8,.0f}/s  "
                  f"written {result['written_bytes']:6,.0f} B  read {result['read_bytes']:6,.0f} B"
                  f"  load {load:.1f}", flush=True)
    if args.out:
        args.out.write_text(json.dumps({"machine": machine.finish(started), "size": args.size,
                                        "links": not args.no_links,
                                        "generated_ids": args.generated_ids, "runs": runs},
                                       indent=1))


if __name__ == "__main__":
    main()
