"""The embedded store's write path refuses what it cannot keep, whatever the batch, and a
refused write changes nothing a later write depends on (the write-path attack's finds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.errors import DimensionMismatchError


def memory(rid: str, embedding: list[float]) -> dict:
    return {"record_type": "memory", "id": rid, "content": rid, "embedding": embedding}


@pytest.mark.parametrize("how", ["write_records", "update_record"])
def test_an_empty_vector_never_becomes_the_stores_dimension(tmp_path: Path, how: str) -> None:
    # A store opened without a dimension takes the one of its first vectors; one of no
    # component is no vector (embedding_dimension=0 is refused at the opening) and must not
    # leave the file refusing every real vector after it.
    store = EmbeddedBackend(tmp_path / "s.db")
    if how == "write_records":
        with pytest.raises(DimensionMismatchError):
            store.write_records([memory("empty", [])])
    else:
        store.write_records([{"record_type": "memory", "id": "m", "content": "m"}])
        with pytest.raises(DimensionMismatchError):
            store.update_record("m", ["memory"], {"embedding": []})
    assert store.get_records({"ids": ["empty"]}) == []
    store.write_records([memory("real", [1.0, 0.0, 0.0])])
    assert store.describe()["embedding_dimension"] == 3
    store.close()
    reopened = EmbeddedBackend(tmp_path / "s.db")
    assert reopened.describe()["embedding_dimension"] == 3
    reopened.close()
