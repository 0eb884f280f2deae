"""close() racing calls made from other threads on the same store object.

A call that passed the open check before close() and reached the store after it must fail
as every call on a closed store does (``StoreClosedError``, docs/store-contract.md), not
with another error type. The interleaving is forced by running close() inside the store's
own step between the two."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.errors import InvalidArgumentError, StoreClosedError

DIM = 4


def test_a_search_that_passed_the_open_check_before_close_fails_as_closed(
        tmp_path: Path) -> None:
    store = EmbeddedBackend(tmp_path / "store.db", embedding_dimension=DIM)
    store.write_records([{"record_type": "memory", "id": "m1", "user_id": "u",
                          "content": "hello", "embedding": [1.0, 0.0, 0.0, 0.0]}])
    readers = store._readers
    assert readers is not None
    take = readers.connection

    @contextmanager
    def close_first() -> Iterator[object]:
        store.close()  # another thread's close(), between the open check and the reader
        with take() as conn:
            yield conn

    readers.connection = close_first  # type: ignore[method-assign]
    with pytest.raises(StoreClosedError):
        store.search({"query_vector": [1.0, 0.0, 0.0, 0.0]})


def test_closed_store_error_is_not_an_invalid_argument() -> None:
    """(What the test above tells apart: the two are unrelated types.)"""
    assert not issubclass(StoreClosedError, InvalidArgumentError)


def test_a_cascade_racing_close_still_removes_the_vector_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/reliability.md: "a cascade that deletes rows removes the vector file before it
    returns". Here another thread's close() comes between the cascade's commit and its
    removal of the file (close() waits for the write lock, which the commit releases)."""
    from oracleagentmemory.stores.embedded import vector_file

    monkeypatch.setattr(vector_file, "MIN_RECORDS", 1)
    location = tmp_path / "store.db"
    store = EmbeddedBackend(location, embedding_dimension=DIM)
    store.write_records([
        {"record_type": "memory", "id": f"m{i}", "user_id": user, "content": "hello",
         "embedding": [1.0, float(i), 0.0, 0.0]}
        for i, user in enumerate(["kept", "erased-user-7f3a"] * 3)])
    store.search({"query_vector": [1.0, 0.0, 0.0, 0.0]})  # full reload: writes the file
    vectors = Path(f"{location}.vectors")
    assert b"erased-user-7f3a" in vectors.read_bytes()
    write = store._write

    @contextmanager
    def write_then_close() -> Iterator[object]:
        with write() as conn:
            yield conn
        store.close()  # another thread's close(), right after the cascade's commit

    monkeypatch.setattr(store, "_write", write_then_close)
    store.delete_cascade("user", "erased-user-7f3a")
    assert not vectors.exists() or b"erased-user-7f3a" not in vectors.read_bytes()


def test_a_search_still_running_when_the_store_closes_writes_no_vector_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A search that took the cache before another thread's close() and syncs it after:
    nothing of the store's is written once close() has returned."""
    from oracleagentmemory.stores.embedded import vector_file
    from oracleagentmemory.stores.embedded.record_cache import RecordCache

    monkeypatch.setattr(vector_file, "MIN_RECORDS", 1)
    location = tmp_path / "store.db"
    store = EmbeddedBackend(location, embedding_dimension=DIM)
    store.write_records([{"record_type": "memory", "id": f"m{i}", "user_id": "u",
                          "content": "x", "embedding": [1.0, float(i), 0.0, 0.0]}
                         for i in range(5)])
    taken = store._cache
    sync = RecordCache.sync
    closed: list[bool] = []

    def close_first(cache: RecordCache, conn: object) -> None:
        if cache is taken and not closed:
            closed.append(True)
            store.close()  # another thread's close(), while this search holds the cache
            closed.append(Path(f"{location}.vectors").exists())
        sync(cache, conn)

    monkeypatch.setattr(RecordCache, "sync", close_first)
    hits = store.search({"query_vector": [1.0, 0.0, 0.0, 0.0]})
    assert closed == [True, False]
    assert len(hits) == 5
    assert not Path(f"{location}.vectors").exists()
