"""Two embedders of different dimensions opening one new file at once.

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
    """A real connection that runs ``pause`` once, right after its ``nth`` read of the
    stored dimension."""

    def __init__(self, conn: sqlite3.Connection, pause, nth: int) -> None:
        self._conn = conn
        self._pause = pause
        self._reads_left = nth

    def execute(self, sql, *args):
        cursor = self._conn.execute(sql, *args)
        if self._pause is not None and DIMENSION_READ in sql:
            self._reads_left -= 1
            if self._reads_left == 0:
                pause, self._pause = self._pause, None
                pause()
        return cursor

    def __getattr__(self, name):
        return getattr(self._conn, name)


def _open(path, dimension):
    try:
        return EmbeddedBackend(path, embedding_dimension=dimension)
    except (sqlite3.OperationalError, SchemaError, OSError) as error:
        return error


@pytest.mark.parametrize("pause_after_read", [1, 2])
def test_only_one_of_two_dimensions_opening_a_new_file_at_once_wins(
        tmp_path, monkeypatch, pause_after_read):
    """The first opener pauses after its first read of the stored dimension (the optimistic
    look, outside any transaction) or its second (inside the write transaction); the other
    opener, with no patience for a held lock, runs completely meanwhile."""
    path = str(tmp_path / "new.db")
    real_connect = schema.connect
    second: list[object] = []

    def open_the_other_one() -> None:
        monkeypatch.setattr(schema, "connect", real_connect)
        monkeypatch.setattr(schema, "BUSY_TIMEOUT_SECONDS", 0)
        second.append(_open(path, 8))
        monkeypatch.setattr(schema, "BUSY_TIMEOUT_SECONDS", 30.0)

    monkeypatch.setattr(schema, "connect", lambda location: PausingConnection(
        real_connect(location), open_the_other_one, pause_after_read))
    first = _open(path, 4)
    monkeypatch.setattr(schema, "connect", real_connect)
    assert len(second) == 1, "the other opener ran while the first was opening"
    winners = [opened for opened in (first, second[0]) if isinstance(opened, EmbeddedBackend)]
    assert len(winners) == 1, "both dimensions were settled: the file would mix sizes"
    stored = EmbeddedBackend(path).describe()["embedding_dimension"]
    assert stored == winners[0].embedding_dimension
    with pytest.raises(SchemaError, match=f"{stored}-dimensional"):
        EmbeddedBackend(path, embedding_dimension=12 - stored)
    winners[0].write_records([{"record_type": "memory", "id": "m",
                               "embedding": [1.0] + [0.0] * (stored - 1)}])
    winners[0].close()


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
