"""Two embedders of different dimensions opening one new file at once (issue 16, defect 2).

The race is replayed deterministically: the first opener is stopped right after it has read
the (still missing) stored dimension, and the second opener runs completely at that moment.
The dimension must be read and settled inside one write transaction, so the second opener
cannot settle its own dimension in between; once the first is done, the second is refused
with a SchemaError, and the file never mixes vector sizes.
"""

from __future__ import annotations

import sqlite3

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend, schema
from oracleagentmemory.stores.errors import DimensionMismatchError, SchemaError

DIMENSION_READ = "SELECT value FROM store_meta WHERE key = 'embedding_dimension'"


class PausingConnection:
    """A real connection that runs ``pause`` once, right after it read the dimension."""

    def __init__(self, conn: sqlite3.Connection, pause) -> None:
        self._conn = conn
        self._pause = pause

    def execute(self, sql, *args):
        cursor = self._conn.execute(sql, *args)
        if self._pause is not None and DIMENSION_READ in sql:
            pause, self._pause = self._pause, None
            pause()
        return cursor

    def __getattr__(self, name):
        return getattr(self._conn, name)


def test_a_second_dimension_cannot_settle_while_the_first_is_being_settled(
        tmp_path, monkeypatch):
    path = str(tmp_path / "new.db")
    real_connect = schema.connect
    second: list[object] = []

    def open_the_other_one() -> None:
        # the other process, with no patience: a held write lock is an immediate failure
        monkeypatch.setattr(schema, "connect", real_connect)
        monkeypatch.setattr(schema, "BUSY_TIMEOUT_SECONDS", 0)
        try:
            second.append(EmbeddedBackend(path, embedding_dimension=8))
        except (sqlite3.OperationalError, SchemaError, OSError) as error:
            second.append(error)
        monkeypatch.setattr(schema, "BUSY_TIMEOUT_SECONDS", 30.0)

    monkeypatch.setattr(schema, "connect",
                        lambda location: PausingConnection(real_connect(location),
                                                           open_the_other_one))
    first = EmbeddedBackend(path, embedding_dimension=4)
    assert len(second) == 1, "the second opener ran while the first was settling"
    assert not isinstance(second[0], EmbeddedBackend), (
        "both dimensions were settled: the file would mix 4- and 8-dimensional vectors")
    with pytest.raises(SchemaError, match="4-dimensional"):
        EmbeddedBackend(path, embedding_dimension=8)
    first.write_records([{"record_type": "memory", "id": "m", "embedding": [1, 0, 0, 0]}])
    reopened = EmbeddedBackend(path)
    assert reopened.describe()["embedding_dimension"] == 4
    for store in (first, reopened):
        store.close()


def test_a_store_opened_without_a_dimension_settles_it_with_its_first_vectors(tmp_path):
    path = tmp_path / "none.db"
    a, b = EmbeddedBackend(path), EmbeddedBackend(path)
    a.write_records([{"record_type": "memory", "id": "a", "embedding": [1, 0, 0]}])
    with pytest.raises(DimensionMismatchError, match="3-dimensional"):
        b.write_records([{"record_type": "memory", "id": "b", "embedding": [1, 0, 0, 0, 0]}])
    with pytest.raises(DimensionMismatchError, match="different dimensions"):
        EmbeddedBackend(tmp_path / "other.db").write_records([
            {"record_type": "memory", "id": "x", "embedding": [1, 0]},
            {"record_type": "memory", "id": "y", "embedding": [1, 0, 0]}])
    b.write_records([{"record_type": "memory", "id": "b", "embedding": [0, 1, 0]}])
    assert EmbeddedBackend(path).describe()["embedding_dimension"] == 3
    hits = a.search({"query_text": "", "query_vector": [0, 1, 0], "max_results": 5})
    assert [hit["record"]["id"] for hit in hits] == ["b", "a"]
