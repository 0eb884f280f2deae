"""A store object opened with ``vector_file=False`` still erases: the vector file another
store object (or an earlier run) wrote beside the store holds the erased user's ids, and an
erasure removes it whatever this object's own setting (RECREATE already does)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend, vector_file
from tests.embedded.test_erasure_and_stale_writers import MARKER, held_on_disk, make_store
from tests.embedded.test_vector_file import DIM

pytestmark = pytest.mark.skipif(vector_file.path_for("x.db") is None,
                                reason="no vector file on this platform")


@pytest.fixture(autouse=True)
def small_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_file, "MIN_RECORDS", 1)
    monkeypatch.setattr(vector_file, "REFRESH_CHANGES", 1)


@pytest.mark.parametrize("owner_type", ["user", "thread"])
def test_an_erasure_by_a_store_without_a_vector_file_removes_the_file(
        tmp_path: Path, owner_type: str) -> None:
    path = tmp_path / "erase.db"
    make_store(path)  # the file holds MARKER's records
    store = EmbeddedBackend(path, embedding_dimension=DIM, vector_file=False)
    if owner_type == "user":
        assert store.delete_cascade("user", MARKER)["records"] == 30
    else:
        for thread in {f"t{i % 7}" for i in range(30)}:
            store.delete_cascade("thread", thread)
    store.close()
    assert not held_on_disk(path)
