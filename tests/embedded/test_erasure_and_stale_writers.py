"""An erased user never comes back in the vector file, whichever process writes it.

``delete_cascade`` removes the vector file once its transaction commits; another process
whose cache was synced at a version before the erasure still holds the erased records. These
tests erase the user from a real second process, then let the first one write its file (at
close, or while it writes a file after a full reload), and look for the user's id in the
bytes left on disk. The eraser is a child process: no timing is involved, the order is
forced by running it to completion at the named point.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend, vector_file
from tests.embedded.test_vector_file import DIM, records, searches, vec

pytestmark = pytest.mark.skipif(vector_file.path_for("x.db") is None,
                                reason="no vector file on this platform")
ROOT = Path(__file__).resolve().parents[2]
MARKER = "erased-user-5f3a"


@pytest.fixture(autouse=True)
def small_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_file, "MIN_RECORDS", 1)
    monkeypatch.setattr(vector_file, "REFRESH_CHANGES", 1)


def erase_in_another_process(path: Path) -> None:
    code = textwrap.dedent(f"""
        from oracleagentmemory.stores.embedded import EmbeddedBackend
        store = EmbeddedBackend({str(path)!r})
        assert store.delete_cascade("user", {MARKER!r})["records"] == 30
        store.close()
        """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)])}
    env.pop(vector_file.FAULT_VARIABLE, None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr


def held_on_disk(path: Path) -> bool:
    """Whether any vector file (or leftover) beside the store holds the erased user's id."""
    return any(MARKER.encode() in entry.read_bytes() for entry in path.parent.iterdir()
               if entry.name.startswith(f"{path.name}.vectors"))


def make_store(path: Path) -> None:
    writer = EmbeddedBackend(path, embedding_dimension=DIM)
    writer.write_records([{**item, "user_id": MARKER} for item in records(0, 30, "x")]
                         + records(30, 90))
    searches(writer)
    writer.close()
    assert held_on_disk(path)


def a_store_writing_its_file(path: Path, monkeypatch: pytest.MonkeyPatch,
                             steps: dict[str, Callable[[], None]]) -> EmbeddedBackend:
    """A new store object whose next search reloads from SQLite and writes the vector file
    (the file is removed first); ``steps[name]()`` runs once when that writer reaches the
    step ``name`` of ``vector_file.fault_point``."""
    os.unlink(f"{path}.vectors")
    original = vector_file.fault_point
    pending = dict(steps)

    def at(step: str) -> None:
        run = pending.pop(step, None)
        if run is not None:
            run()
        original(step)

    monkeypatch.setattr(vector_file, "fault_point", at)
    return EmbeddedBackend(path, embedding_dimension=DIM)


def test_a_close_after_another_process_erased_a_user_does_not_write_it_back(
        tmp_path: Path) -> None:
    path = tmp_path / "erase.db"
    make_store(path)
    other = EmbeddedBackend(path, embedding_dimension=DIM)
    # a filter on a key the file has no column for: retire() writes the file at close
    other.search({"query_vector": vec(5), "metadata_filter": {"topic": "food"}})
    erase_in_another_process(path)
    assert not held_on_disk(path)
    other.close()
    assert not held_on_disk(path)


def test_a_file_written_while_another_process_erases_a_user_does_not_keep_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The erasure commits (and removes the file) while this process writes its file from a
    full reload made before it: the file it renames into place holds the user."""
    path = tmp_path / "erase.db"
    make_store(path)
    other = a_store_writing_its_file(path, monkeypatch, {
        "vector-file-begin": lambda: erase_in_another_process(path)})
    other.search({"query_vector": vec(5)})
    assert not held_on_disk(path)
    other.close()
    assert not held_on_disk(path)


def test_an_erasure_removes_what_a_killed_writer_left_of_a_file_holding_the_user(
        tmp_path: Path) -> None:
    """A writer killed between writing its temporary file and renaming it leaves the
    temporary behind, erased records and all; the erasure removes it with the file."""
    path = tmp_path / "erase.db"
    make_store(path)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True, timeout=60)
    leftover = tmp_path / f"erase.db.vectors.{int(gone.stdout)}-0badf00d.tmp"
    leftover.write_bytes(Path(f"{path}.vectors").read_bytes())
    store = EmbeddedBackend(path, embedding_dimension=DIM)
    assert store.delete_cascade("user", MARKER)["records"] == 30
    assert not held_on_disk(path)
    store.close()
    assert not held_on_disk(path)


def test_a_cache_older_than_an_erasure_does_not_write_a_file_only_to_remove_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Such a file would be removed once renamed into place: at a million records, 1.5 GB
    written for nothing at a close."""
    path = tmp_path / "erase.db"
    make_store(path)
    other = EmbeddedBackend(path, embedding_dimension=DIM)
    other.search({"query_vector": vec(5), "metadata_filter": {"topic": "food"}})
    erase_in_another_process(path)
    written: list[str] = []
    save = vector_file.save
    monkeypatch.setattr(vector_file, "save",
                        lambda *args, **kwargs: written.append("file") or save(*args, **kwargs))
    other.close()
    assert written == []
    assert not held_on_disk(path)


def test_a_store_file_removed_under_a_running_process_is_not_created_again(
        tmp_path: Path) -> None:
    """The check for an erasure reads the store on a connection of its own; where the file
    was removed meanwhile, that connection must not leave an empty database in its place."""
    path = tmp_path / "gone.db"
    make_store(path)
    other = EmbeddedBackend(path, embedding_dimension=DIM)
    other.search({"query_vector": vec(5), "metadata_filter": {"topic": "food"}})
    for leftover in tmp_path.iterdir():
        leftover.unlink()
    other.close()  # writes its file at the close: a filter key the file had no column for
    assert sorted(entry.name for entry in tmp_path.iterdir()) == []
