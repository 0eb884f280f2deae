"""Opening a store with schema_policy RECREATE drops every table, the records of every user
with them; the vector file beside the store, which holds those records' vectors, ids and
words, must not outlive them (a store left with fewer records than a vector file needs
writes no new one to replace it)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend, vector_file
from tests.embedded.test_erasure_and_stale_writers import (  # noqa: F401  (autouse fixture)
    ROOT,
    a_store_writing_its_file,
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


def test_a_file_written_while_another_process_recreates_the_schema_is_not_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The schema is recreated by another process while this one writes its file from a
    reload of the old schema: the rename lands after the recreating process removed the
    file, so only this writer's own check can remove it."""
    path = tmp_path / "recreate.db"
    make_store(path)
    other = a_store_writing_its_file(path, monkeypatch, {
        "vector-file-begin": lambda: recreate_in_another_process(path)})
    other.search({"query_vector": vec(5)})
    try:
        assert not held_on_disk(path)
    finally:
        other.close()
    assert not held_on_disk(path)


def recreate_in_another_process(path: Path) -> None:
    code = textwrap.dedent(f"""
        from oracleagentmemory.stores.embedded import EmbeddedBackend
        EmbeddedBackend({str(path)!r}, schema_policy="RECREATE").close()
        """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)])}
    env.pop(vector_file.FAULT_VARIABLE, None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
