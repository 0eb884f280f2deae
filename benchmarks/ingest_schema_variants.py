"""What each part of the embedded schema costs at ingestion: SQLite alone, parts removed.

    PYTHONPATH=python:. python -m benchmarks.ingest_schema_variants --size 100000 \\
        --variants base,noidx,onlytype_user,onlythread,onlyagent,idx=user_id,nofts,dnone

The records of the scale data set are prepared once by the store's own code (checks, JSON,
vector bytes, keyword text; kept under ``--workdir``), then inserted into a new file with
the store's DDL, a variant of it, and the store's statement shapes: multi-row INSERTs of
500 rows, one transaction per 1,000 records, the change log pruned before each commit
(no links: they go to another table). Per record: CPU time of the process, wall time,
bytes written through system calls (``wchar``, Linux: SQLite's log and checkpoints; not
affected by load) and the files' size. Variants (``+`` joins several):

``base`` the schema as it is; ``noidx`` no secondary index; ``onlyNAME`` only the secondary
indexes whose DDL line holds NAME; ``idx=a:b/c`` these indexes instead (``:`` between the
columns of one, ``/`` between indexes); ``nofts`` no keyword index; ``dnone`` / ``dcol``
FTS5 ``detail=none`` / ``detail=column``; ``noscope`` no scope tokens in the keyword index;
``nolog`` no change-log triggers; ``vtable`` vectors in a table of their own;
``uuid4`` / ``uuid7`` every id
replaced by a random UUID (what the library generates for a record the caller leaves
unnamed) / a time-ordered one (RFC 9562 version 7), made before the timing starts;
``novec`` the same schema with every vector NULL (the floor of vectors kept outside
SQLite); ``amN`` FTS5 automerge N; ``mmapN`` ``PRAGMA mmap_size`` of N MiB; ``pgN``
pages of N bytes.
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
import shutil
import sqlite3
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from benchmarks import machine
from benchmarks.backends.embedded import BATCH, records_of
from benchmarks.dataset import generate
from oracleagentmemory._ids import uuid7_at
from oracleagentmemory.stores.embedded import changelog, schema
from oracleagentmemory.stores.embedded import store as store_module

ROOT = Path(__file__).resolve().parent.parent
RUN = 500


def _written() -> int:
    with open("/proc/self/io") as handle:
        match = re.search(r"wchar: (\d+)", handle.read())
    return int(match.group(1)) if match else 0


def prepared(size: int, workdir: Path) -> list[list[tuple[Any, ...]]]:
    """The INSERT values of every record, by batch (made once, then read from a file)."""
    cache = workdir / f"prepared-rows-{size}.pickle"
    if cache.exists():
        loaded: list[list[tuple[Any, ...]]] = pickle.loads(cache.read_bytes())
        return loaded
    data = generate(size)
    store = store_module.EmbeddedBackend(":memory:", embedding_dimension=384)
    batches = []
    for start in range(0, size, BATCH):
        records, _ = records_of(data, start, min(start + BATCH, size))
        rows = store._prepare_records(records, "2026-01-01T00:00:00.000000Z")
        batches.append([store_module._record_values(row) for row in rows])
    workdir.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(pickle.dumps(batches))
    return batches


def ddl(variant: list[str]) -> str:
    records = schema.DDL
    for part in variant:
        if part.startswith("only"):
            records = "\n".join(line for line in records.splitlines()
                                if not line.startswith("CREATE INDEX") or part[4:] in line)
        if part.startswith("idx="):
            records = "\n".join(line for line in records.splitlines()
                                if not line.startswith("CREATE INDEX"))
            for number, columns in enumerate(part[4:].split("/")):
                records += (f"\nCREATE INDEX IF NOT EXISTS variant_{number} ON records"
                            f" ({columns.replace(':', ', ')});")
    if "noidx" in variant:
        records = "\n".join(line for line in records.splitlines()
                            if not line.startswith("CREATE INDEX"))
    if "vtable" in variant:
        records = records.replace("    embedding    BLOB,\n", "") + (
            "\nCREATE TABLE IF NOT EXISTS record_vectors"
            " (seq INTEGER PRIMARY KEY, embedding BLOB NOT NULL);")
    fts = schema.FTS_DDL
    if "dnone" in variant or "dcol" in variant:
        detail = "none" if "dnone" in variant else "column"
        fts = fts.replace("content_rowid='seq',", f"content_rowid='seq', detail={detail},")
    if "noscope" in variant:
        fts = (fts.replace("keyword_body, scope_tokens,", "keyword_body,")
               .replace(", scope_tokens)", ")").replace(", new.scope_tokens", "")
               .replace(", old.scope_tokens", ""))
    if "nofts" in variant:
        fts = ""
    log = changelog.DDL.split("CREATE TRIGGER")[0] if "nolog" in variant else changelog.DDL
    return records + schema.RELATIONS_DDL + fts + log


def _ids(count: int, variant: list[str]) -> list[str] | None:
    """Ids in insertion order for the ``uuid4`` / ``uuid7`` variants (None: keep the data
    set's own, ``rec-N``, which ascend)."""
    if "uuid4" in variant:
        return [str(uuid.uuid4()) for _ in range(count)]
    if "uuid7" in variant:
        start = time.time_ns() // 1_000_000
        # the library's layout (oracleagentmemory._ids), 100 records per millisecond
        return [uuid7_at(start + index // 100) for index in range(count)]
    return None


def run(batches: list[list[tuple[Any, ...]]], variant: list[str]) -> dict[str, float]:
    directory = tempfile.mkdtemp(prefix="ingest-variant-")
    path = os.path.join(directory, "store.db")
    try:
        for part in variant:
            if part.startswith("pg"):
                with sqlite3.connect(path) as first:
                    first.execute(f"PRAGMA page_size = {int(part[2:])}")
                    first.execute("VACUUM")
        conn = schema.connect(path)
        conn.execute("BEGIN")
        for statement in schema._statements(ddl(variant)):
            conn.execute(statement)
        conn.execute("COMMIT")
        for part in variant:
            if part.startswith("am"):
                conn.execute("INSERT INTO records_fts (records_fts, rank)"
                             f" VALUES ('automerge', {int(part[2:])})")
            if part.startswith("mmap"):
                conn.execute(f"PRAGMA mmap_size = {int(part[4:]) << 20}")
        separate = "vtable" in variant
        no_vector = "novec" in variant
        count = sum(len(batch) for batch in batches)
        ids = _ids(count, variant)
        head = store_module._INSERT_HEAD
        width = len(batches[0][0])
        embedding = 16  # position of the vector in the store's INSERT values
        if separate:
            head = head.replace(" embedding,", "")
            width -= 1
        values = "(" + ", ".join(["?"] * width) + ")"
        cpu, wall, written = machine.cpu_seconds(), time.perf_counter(), _written()
        done = 0
        for batch in batches:
            conn.execute("BEGIN IMMEDIATE")
            for start in range(0, len(batch), RUN):
                part_rows = batch[start:start + RUN]
                if ids is not None:
                    part_rows = [(ids[done + offset], *row[1:])
                                 for offset, row in enumerate(part_rows)]
                    done += len(part_rows)
                params = [None if no_vector and index == embedding else value
                          for row in part_rows for index, value in enumerate(row)
                          if not (separate and index == embedding)]
                cursor = conn.execute(head + ", ".join([values] * len(part_rows)), params)
                if separate:
                    first = cursor.lastrowid - len(part_rows) + 1
                    conn.executemany("INSERT INTO record_vectors (seq, embedding) VALUES (?, ?)",
                                     [(first + offset, row[embedding])
                                      for offset, row in enumerate(part_rows)])
            if "nolog" not in variant:
                changelog.prune(conn)
            conn.execute("COMMIT")
        cpu, wall, written = (machine.cpu_seconds() - cpu, time.perf_counter() - wall,
                              _written() - written)
        conn.close()
        disk = sum(entry.stat().st_size for entry in Path(directory).iterdir())
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return {"cpu_us": cpu / count * 1e6, "wall_us": wall / count * 1e6,
            "written_bytes": written / count, "disk_bytes": disk / count}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--variants", default="base,noidx,nofts")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workdir", type=Path, default=ROOT / "benchmarks" / ".work")
    args = parser.parse_args(argv)
    batches = prepared(args.size, args.workdir)
    variants = args.variants.split(",")
    results: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    for round_number in range(args.rounds):
        for name in variants if round_number % 2 == 0 else variants[::-1]:
            load = os.getloadavg()[0]
            result = run(batches, name.split("+"))
            results[name].append(result)
            print(f"{round_number} {name:32} cpu {result['cpu_us']:6.1f} us  wall "
                  f"{result['wall_us']:6.1f} us  written {result['written_bytes']:6,.0f} B  "
                  f"disk {result['disk_bytes']:5,.0f} B  load {load:.1f}", flush=True)
    for name, runs in results.items():
        print(f"{name:32} cpu min {min(run['cpu_us'] for run in runs):6.1f} us  written "
              f"{runs[0]['written_bytes']:6,.0f} B")


if __name__ == "__main__":
    main()
