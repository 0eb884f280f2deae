"""A writer interrupted (Ctrl-C: KeyboardInterrupt) between renaming its vector file into
place and checking for an erasure must not leave an erased user on disk either.

The erasure commits (and removes the file) in another process while this process writes
its file from a full reload made before it; the rename then lands after the eraser's
unlink, so only this writer's own check can remove the file. A KeyboardInterrupt raised
right after the rename (during the directory fsync that follows it, say) skips that check.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.embedded.test_erasure_and_stale_writers import (  # noqa: F401  (autouse fixture)
    a_store_writing_its_file,
    erase_in_another_process,
    held_on_disk,
    make_store,
    small_files,
)
from tests.embedded.test_vector_file import vec


def test_a_writer_interrupted_after_its_rename_does_not_leave_an_erased_user_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "erase.db"
    make_store(path)

    def interrupt() -> None:
        raise KeyboardInterrupt

    other = a_store_writing_its_file(path, monkeypatch, {
        "vector-file-begin": lambda: erase_in_another_process(path),
        "vector-file-renamed": interrupt})
    with pytest.raises(KeyboardInterrupt):
        other.search({"query_vector": vec(5)})
    try:
        # what a program that the interrupt ends leaves on disk (nothing closes the store
        # then: a later close would write the file again and check)
        assert not held_on_disk(path)
    finally:
        other.close()
