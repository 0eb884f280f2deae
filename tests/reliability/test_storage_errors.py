"""Storage failures name the store file.

A missing directory, a read-only file and a full disk reached callers as a bare
``sqlite3.OperationalError`` without the path. Each is produced here with a real SQLite
condition (a path under a missing directory; ``PRAGMA query_only``, SQLite's read-only
switch; ``PRAGMA max_page_count``, a size limit SQLite answers exactly as a full disk) and
must be a StorageError (an OSError and an AgentMemoryError) naming the file, with nothing
half-written and the store usable again once the condition is gone.
"""

from __future__ import annotations

import sqlite3

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.errors import AgentMemoryError
from oracleagentmemory.stores.embedded import EmbeddedBackend, schema
from tests.support.embedders import HashingEmbedder


def memory(rid, content="x"):
    return {"record_type": "memory", "id": rid, "content": content, "embedding": [1, 0]}


def assert_names_the_file(error, path):
    assert isinstance(error, OSError) and isinstance(error, AgentMemoryError)
    assert not isinstance(error, sqlite3.Error)
    assert str(path) in str(error)


def test_a_missing_directory(tmp_path):
    path = tmp_path / "no" / "such" / "dir" / "memory.db"
    with pytest.raises(OSError, match="cannot be opened") as refused:
        EmbeddedBackend(path, embedding_dimension=2)
    assert_names_the_file(refused.value, path)
    with pytest.raises(OSError, match="cannot be opened"):
        OracleAgentMemory(connection=str(path), embedder=HashingEmbedder())


def with_pragma(monkeypatch, pragma):
    """Every connection the store opens from now on runs ``pragma`` first."""
    real_connect = schema.connect

    def connect(location):
        conn = real_connect(location)
        if location != ":memory:":
            conn.execute(pragma)
        return conn

    monkeypatch.setattr(schema, "connect", connect)


def test_a_read_only_file(tmp_path, monkeypatch):
    path = tmp_path / "memory.db"
    EmbeddedBackend(path, embedding_dimension=2).write_records([memory("kept")])
    with_pragma(monkeypatch, "PRAGMA query_only = ON")
    store = EmbeddedBackend(path, embedding_dimension=2)
    for write in (lambda: store.write_records([memory("new")]),
                  lambda: store.delete_records(["kept"], ["memory"]),
                  lambda: store.purge_expired()):
        with pytest.raises(OSError, match="is read-only") as refused:
            write()
        assert_names_the_file(refused.value, path)
    assert [r["id"] for r in store.get_records({})] == ["kept"]  # reads still work


def test_a_full_disk_writes_nothing_and_the_store_recovers(tmp_path, monkeypatch):
    path = tmp_path / "memory.db"
    EmbeddedBackend(path, embedding_dimension=2).write_records([memory("kept")])
    pages = sqlite3.connect(path).execute("PRAGMA page_count").fetchone()[0]
    with_pragma(monkeypatch, f"PRAGMA max_page_count = {pages}")
    store = EmbeddedBackend(path, embedding_dimension=2)
    batch = [memory(f"big{i}", "y" * 50_000) for i in range(4)]
    with pytest.raises(OSError, match="is full") as refused:
        store.write_records(batch)
    assert_names_the_file(refused.value, path)
    assert [r["id"] for r in store.get_records({})] == ["kept"]
    store._conn.execute(f"PRAGMA max_page_count = {pages * 100}")  # room again
    store.write_records(batch)  # the failed transaction left nothing open behind
    assert len(store.get_records({})) == 5
