"""Erasing a user in a store file that an older library wrote leaves none of the user's
text in the file.

Libraries before every connection set ``PRAGMA secure_delete = ON`` left the bytes of
updated and deleted rows in the file's free space on a SQLite build whose default is off
(SQLITE_SECURE_DELETE unset, SQLite's own default). ``secure_delete`` zeroes only what is
freed while it is on, so an erasure by this library left the user's earlier text there.
SQLite's VACUUM page: running VACUUM "will clean the database of all traces of deleted
content" (https://www.sqlite.org/lang_vacuum.html)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from oracleagentmemory.stores.embedded import EmbeddedBackend


def _as_an_older_library_left_it(path: Path) -> None:
    """A store whose user 'victim' had text updated without secure_delete (older library,
    build default off), as every file written before the setting existed may be."""
    store = EmbeddedBackend(path)
    store.write_records(
        [{"record_type": "memory", "id": f"v{i}", "user_id": "victim",
          "content": f"VICTIMTEXT-{i} 台北秘密 " + "x" * 300,
          "metadata": {"phone": f"VICTIMPHONE-{i}"}} for i in range(30)]
        + [{"record_type": "memory", "id": f"o{i}", "user_id": "other",
            "content": f"other text {i} " + "y" * 300} for i in range(30)])
    store.close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA secure_delete = OFF")
    # the keys of store_meta the libraries of 2026-12-02 to 12-07 wrote (base-090 to 66a)
    conn.execute("DELETE FROM store_meta WHERE key NOT IN"
                 " ('schema_version', 'epoch', 'embedding_dimension')")
    # what the older library's update of these rows did
    conn.execute("UPDATE records SET content = 'replaced', keyword_text = NULL,"
                 " metadata = NULL WHERE user_id = 'victim'")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _left(directory: Path) -> list[str]:
    return sorted(entry.name for entry in directory.iterdir() if entry.is_file() and any(
        word in entry.read_bytes()
        for word in (b"VICTIMTEXT-", b"VICTIMPHONE-", "台北秘密".encode())))


def test_erasing_a_user_leaves_no_text_an_older_library_left_in_free_space(
        tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _as_an_older_library_left_it(path)
    assert _left(tmp_path) == ["old.db"]  # the older library's leftovers are there
    store = EmbeddedBackend(path)
    assert store.delete_cascade("user", "victim")["records"] == 30
    assert [record["id"] for record in store.get_records({"user_id": "other"})] == [
        f"o{i}" for i in range(30)]
    store.close()
    assert _left(tmp_path) == []
    store = EmbeddedBackend(path)  # and the store goes on working
    store.write_records([{"record_type": "memory", "id": "n1", "user_id": "other",
                          "content": "after the erasure"}])
    hits = store.search({"query_text": "erasure", "strategy": "KEYWORD"})
    assert [hit["record"]["id"] for hit in hits] == ["n1"]
    store.close()
