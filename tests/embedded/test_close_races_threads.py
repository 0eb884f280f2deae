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
