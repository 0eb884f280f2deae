"""Writing the vector file never releases the SQLite locks of the process writing it.

POSIX record locks belong to a (process, file) pair, and close(2) of any descriptor of the
file drops every lock the process holds on it (close(2): "Any record locks ... held on the
file it was associated with, and owned by the process, are removed regardless of the file
descriptor that was used to obtain the lock"). A WAL connection keeps a SHARED lock on the
database file; once it is gone, a connection of another process that closes believes it is
the last one, checkpoints and deletes the -wal and -shm files, and the commits this process
makes afterwards go to an unlinked log that no other process ever reads: lost, with no error.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend, vector_file
from tests.embedded.test_vector_file import DIM, records, searches

pytestmark = pytest.mark.skipif(vector_file.path_for("x.db") is None,
                                reason="no vector file on this platform")


def other_process(path: Path, code: str) -> str:
    program = (f"import sqlite3; c = sqlite3.connect({str(path)!r}); {code}; c.close()")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_commits_after_writing_the_vector_file_reach_other_processes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_file, "MIN_RECORDS", 1)
    path = tmp_path / "locks.db"
    store = EmbeddedBackend(path, embedding_dimension=DIM)
    store.write_records(records(0, 30))
    searches(store)  # a full reload: writes the vector file
    assert os.path.exists(f"{path}.vectors")
    # another process opens the store file, reads and closes (a short-lived reader)
    other_process(path, "c.execute('SELECT count(*) FROM records').fetchone()")
    store.write_records(records(30, 40))
    seen = other_process(path, "print(c.execute('SELECT count(*) FROM records').fetchone()[0])")
    store.close()
    assert seen == "40"
