"""An erased user's words must not stay in the store file (found by an attack on secrets).

``delete_user`` removes the user's records, and the vector file is cut to what remains
(docs/reliability.md). The SQLite file's FTS5 index still holds the deleted records' words
in live rows of its ``_data`` shadow table: FTS5 deletes by adding delete markers and
keeps the old segments until a merge (SQLite's PRAGMA secure_delete page: "the FTS3 and
FTS5 virtual tables ... might leave forensic traces in their shadow tables even if the
secure_delete pragma is enabled"; FTS5's 'secure-delete' option exists from 3.42).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from tests.support.embedders import HashingEmbedder

WORDS = (b"xylophonitis", b"quarkella", b"qwertzstrasse")


def on_disk(directory: Path) -> list[tuple[str, bytes]]:
    return [(entry.name, word) for entry in sorted(directory.iterdir()) if entry.is_file()
            for word in WORDS if word in entry.read_bytes()]


def test_an_erased_users_words_leave_every_file_of_the_store(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    client = OracleAgentMemory(connection=str(path), embedder=HashingEmbedder(),
                               extract_memories=False)
    thread = client.create_thread(user_id="victim", agent_id="a1")
    thread.add_messages([{"role": "user", "content": "my diagnosis is xylophonitis quarkella"}])
    client.add_memory("the user lives at qwertzstrasse 99", user_id="victim")
    for index in range(5):
        other = client.create_thread(user_id=f"other{index}", agent_id="a1")
        other.add_messages([{"role": "user", "content": f"hello world {index}"}])
    assert client.search("xylophonitis", user_id="victim")
    client.close()
    assert on_disk(tmp_path)  # the words were written

    client = OracleAgentMemory(connection=str(path), embedder=HashingEmbedder(),
                               extract_memories=False)
    client.delete_user("victim")
    assert client.search("xylophonitis qwertzstrasse", user_id="victim") == []
    client.close()
    assert on_disk(tmp_path) == []


def test_an_erased_users_text_leaves_the_file_where_sqlite_keeps_deleted_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Deleted rows stay in the file's free space unless ``PRAGMA secure_delete`` is on;
    its default is a build option (SQLITE_SECURE_DELETE: on in Debian's build, off in
    SQLite's own default, so on other builds), so the store must set it itself. Here every
    connection of the store starts with it off, as on such a build."""
    import sqlite3

    from oracleagentmemory.stores.embedded import schema

    connect = sqlite3.connect

    def connect_without_secure_delete(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)
        conn.execute("PRAGMA secure_delete = 0")
        return conn

    monkeypatch.setattr(schema.sqlite3, "connect", connect_without_secure_delete)
    path = tmp_path / "m.db"
    client = OracleAgentMemory(connection=str(path), embedder=HashingEmbedder(),
                               extract_memories=False)
    for user in range(20):
        thread = client.create_thread(user_id=f"user{user:02d}", agent_id="a1")
        thread.add_messages([{"role": "user", "content": f"Sentence {i} of user {user:02d} END",
                              "metadata": {"phone": f"PHONE-{user:02d}-{i}"}}
                             for i in range(20)])
    client.close()
    client = OracleAgentMemory(connection=str(path), embedder=HashingEmbedder(),
                               extract_memories=False)
    client.delete_user("user07")
    client.close()
    left = [entry.name for entry in tmp_path.iterdir()
            if b"of user 07 END" in entry.read_bytes() or b"PHONE-07-" in entry.read_bytes()]
    assert left == []


def test_an_erased_users_words_leave_the_write_ahead_log_of_a_store_left_open(
        tmp_path: Path) -> None:
    """A server keeps its store open: after ``delete_user`` (and writes after it) the
    ``-wal`` file still holds the frames that wrote the user's words, until a checkpoint
    that truncates it or the last connection's close. NOT FIXED (review of 42fdf52..00fd729):
    ``secure_delete`` zeroes pages of the database file only, and a WAL is overwritten
    from its start after a checkpoint restarts it, never shrunk without
    ``journal_size_limit`` or ``wal_checkpoint(TRUNCATE)``."""
    path = tmp_path / "m.db"
    client = OracleAgentMemory(connection=str(path), embedder=HashingEmbedder(),
                               extract_memories=False)
    try:
        thread = client.create_thread(user_id="victim", agent_id="a1")
        thread.add_messages([{"role": "user", "content": "ma maladie: xylophonitis quarkella"}])
        for index in range(5):
            other = client.create_thread(user_id=f"other{index}", agent_id="a1")
            other.add_messages([{"role": "user", "content": f"안녕하세요 {index} 你好"}])
        client.delete_user("victim")
        assert client.search("xylophonitis", user_id="victim") == []
        assert on_disk(tmp_path) == []
    finally:
        client.close()
