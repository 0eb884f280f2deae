"""The change log of ``records``: how in-memory copies learn what other writers changed.

Every committed insert, update or delete of a ``records`` row leaves the row's ``seq`` in
``record_changes`` (by trigger, so whichever connection, process or library version wrote
it). ``version`` is AUTOINCREMENT, hence never reused: a reader that has seen everything up
to version V asks for the ``seq`` values logged after V and reloads just those rows. Old
entries are pruned; a reader that fell behind the pruned prefix reloads everything. The
``epoch`` in ``store_meta`` changes when the schema is recreated, which also forces a reload.

Each entry carries a ``mark``: 8 random bytes SQLite draws when the entry is written, in the
transaction that changed the row. A version number alone does not name a state: a restored
backup (or a file that lost its last commits) reaches the same numbers again with other rows.
(version, mark) does: a copy made from this database at version V (the vector file) proves
it in one lookup by comparing the mark it kept with the one logged at V.
"""

from __future__ import annotations

from typing import Any

DDL = """
CREATE TABLE IF NOT EXISTS record_changes (
    version INTEGER PRIMARY KEY AUTOINCREMENT,
    seq     INTEGER NOT NULL,
    mark    BLOB NOT NULL DEFAULT (randomblob(8))
);
CREATE TRIGGER IF NOT EXISTS record_changes_insert AFTER INSERT ON records BEGIN
    INSERT INTO record_changes (seq) VALUES (new.seq);
END;
CREATE TRIGGER IF NOT EXISTS record_changes_update AFTER UPDATE ON records BEGIN
    INSERT INTO record_changes (seq) VALUES (old.seq);
    INSERT INTO record_changes (seq) SELECT new.seq WHERE new.seq <> old.seq;
END;
CREATE TRIGGER IF NOT EXISTS record_changes_delete AFTER DELETE ON records BEGIN
    INSERT INTO record_changes (seq) VALUES (old.seq);
END;
"""

TRIGGERS = ("record_changes_insert", "record_changes_update", "record_changes_delete")

KEEP = 50_000
"""Entries kept after a prune; a reader more than this far behind reloads fully."""
PRUNE_SLACK = 50_000
"""Entries allowed to accumulate beyond KEEP before a prune, so pruning is rare."""

_STATE = (
    "SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'record_changes'),"
    " (SELECT value FROM store_meta WHERE key = 'epoch')"
)


def state(conn: Any) -> tuple[int, str | None]:
    """(latest version, epoch) as seen by the connection's current transaction."""
    version, epoch = conn.execute(_STATE).fetchone()
    return int(version or 0), epoch


def mark_at(conn: Any, version: int) -> bytes | None:
    """The mark logged at ``version`` (None: no such entry, or pruned)."""
    row = conn.execute("SELECT mark FROM record_changes WHERE version = ?",
                       (version,)).fetchone()
    return None if row is None else bytes(row[0])


ERASED_KEY = "erased_at"
"""``store_meta`` key: the change-log version of the last erasure (``delete_cascade``)."""


def record_erasure(conn: Any) -> None:
    """Inside the write transaction of an erasure, after its deletes: remember its version.
    A vector file of an earlier version still holds the erased rows; it is never used, and
    a writer that finds it has just written one removes it (``erased_at``)."""
    conn.execute("INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)",
                 (ERASED_KEY, str(state(conn)[0])))


def erased_at(conn: Any) -> int:
    """The version of the last erasure (0: none)."""
    row = conn.execute("SELECT value FROM store_meta WHERE key = ?", (ERASED_KEY,)).fetchone()
    return int(row[0]) if row else 0


def oldest_version(conn: Any) -> int | None:
    row = conn.execute("SELECT min(version) FROM record_changes").fetchone()
    return None if row[0] is None else int(row[0])


def changed_since(conn: Any, version: int) -> list[int]:
    """Distinct ``seq`` values logged after ``version``."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT seq FROM record_changes WHERE version > ?", (version,)
        )
    ]


def prune(conn: Any) -> None:
    """Inside a write transaction: drop old entries once there are many of them."""
    latest, _ = state(conn)
    oldest = oldest_version(conn)
    if oldest is not None and latest - oldest > KEEP + PRUNE_SLACK:
        conn.execute("DELETE FROM record_changes WHERE version <= ?", (latest - KEEP,))
