"""Opening a store with schema_policy RECREATE drops every table, the records of every user
with them; the vector file beside the store, which holds those records' vectors, ids and
words, must not outlive them (a store left with fewer records than a vector file needs
writes no new one to replace it)."""

from __future__ import annotations

from pathlib import Path

from oracleagentmemory.stores.embedded import EmbeddedBackend
from tests.embedded.test_erasure_and_stale_writers import (  # noqa: F401  (autouse fixture)
    held_on_disk,
    make_store,
    small_files,
)
from tests.embedded.test_vector_file import DIM, vec


def test_recreate_leaves_no_vector_file_holding_the_dropped_records(tmp_path: Path) -> None:
    path = tmp_path / "recreate.db"
    make_store(path)
    store = EmbeddedBackend(path, embedding_dimension=DIM, schema_policy="RECREATE")
    try:
        assert store.search({"query_vector": vec(5)}) == []
    finally:
        store.close()
    assert not held_on_disk(path)
