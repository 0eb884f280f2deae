"""sqlite-vec (a SQLite extension, exact search in a ``vec0`` virtual table) as a peer.

The user is a ``partition key``: sqlite-vec's documented way to make a selective search
fast (it shards the vectors by the key, so a user-scoped search reads that user's chunks
only; https://alexgarcia.xyz/sqlite-vec/features/vec0.html). Measured at 100K, a plain
metadata column for the user scanned every vector (about 45 ms p50 against 1-2 ms). The
topic is a metadata column (filterable in the KNN query), id and content are auxiliary
columns returned with each hit, and the distance is cosine. Rows are inserted grouped by
user, which gives each user's chunks a contiguous place in the file: the peer's best case
(inserted in arrival order, the 100K copy took 41 s instead of 4, and searched no faster).

Python's ``sqlite3`` may be built without extension loading (``enable_load_extension``
missing); ``pysqlite3`` (``pysqlite3-binary``, its own SQLite) is used then.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

TABLE = "vec_records"
SCHEMA = f"""CREATE VIRTUAL TABLE {TABLE} USING vec0(
    seq integer primary key,
    user_id text partition key,
    topic text,
    embedding float[384] distance_metric=cosine,
    +id text,
    +content text
)"""
INSERT = (f"INSERT INTO {TABLE} (seq, user_id, topic, embedding, id, content) "
          "VALUES (?, ?, ?, ?, ?, ?)")
BATCH = 10_000


def driver() -> ModuleType:
    """A DB-API ``sqlite3`` module that can load extensions."""
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3
    from pysqlite3 import dbapi2  # type: ignore[import-not-found]

    return dbapi2


def connect(path: Path) -> Any:
    """A connection with sqlite-vec loaded (extension loading switched off again)."""
    import sqlite_vec  # type: ignore[import-not-found]

    db = driver().connect(str(path))
    db.enable_load_extension(True)
    sqlite_vec.load(db)
    db.enable_load_extension(False)
    return db


def versions(db: Any) -> dict[str, str]:
    vec, lite = db.execute("SELECT vec_version(), sqlite_version()").fetchone()
    return {"sqlite-vec": vec, "sqlite (its driver)": lite,
            "sqlite (ours)": sqlite3.sqlite_version}


def copy_from_store(store_path: Path, out_path: Path) -> dict[str, Any]:
    """Build the peer's file from the records and vectors of our embedded store (read only),
    so both search the same data; returns how long it took and how big it is."""
    source = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
    rows = source.execute(
        "SELECT seq, user_id, json_extract(metadata, '$.topic'), embedding, id, content "
        "FROM records WHERE embedding IS NOT NULL ORDER BY user_id, seq")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    partial = out_path.with_name(out_path.name + ".partial")
    partial.unlink(missing_ok=True)
    started = time.perf_counter()
    db = connect(partial)
    db.execute(SCHEMA)
    count = 0
    with db:
        while batch := rows.fetchmany(BATCH):
            db.executemany(INSERT, batch)
            count += len(batch)
    db.close()
    source.close()
    seconds = time.perf_counter() - started
    partial.rename(out_path)
    return {"records": count, "seconds": seconds, "records_per_second": count / seconds,
            "file_bytes": out_path.stat().st_size}


def search(db: Any, vector: np.ndarray, user: str | None, topic: str | None = None,
           k: int = 10) -> list[tuple[str, str, float]]:
    """(id, content, cosine distance) of the top ``k``, in the user's partition if given."""
    where = ["embedding MATCH ?", "k = ?"]
    params: list[Any] = [np.asarray(vector, dtype=np.float32).tobytes(), k]
    if user is not None:
        where.append("user_id = ?")
        params.append(user)
    if topic is not None:
        where.append("topic = ?")
        params.append(topic)
    return db.execute(f"SELECT id, content, distance FROM {TABLE} WHERE "
                      + " AND ".join(where) + " ORDER BY distance", params).fetchall()
