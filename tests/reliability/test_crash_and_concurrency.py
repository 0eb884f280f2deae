"""Crash safety (SIGKILL in the middle of writes) and concurrent writers on one file."""

from __future__ import annotations

import collections
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend
from tests.reliability.workers import DIMENSION, vector

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": f"{ROOT / 'python'}{os.pathsep}{ROOT}"}


def start(*arguments: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.reliability.workers", *arguments],
                            cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


@pytest.mark.parametrize("kill_after", [3, 10, 25])
def test_sigkill_during_batches_leaves_every_batch_whole_or_absent(tmp_path, kill_after):
    location = str(tmp_path / "crash.db")
    batch_size = 50
    writers = [start("batch", location, str(w), "10000", str(batch_size)) for w in range(2)]
    for writer in writers:  # wait until each has committed enough batches, then kill it
        for _ in range(kill_after):
            assert writer.stdout.readline() != "", writer.stderr.read()
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=60)
        assert writer.returncode == -signal.SIGKILL

    conn = sqlite3.connect(location)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    store = EmbeddedBackend(location, embedding_dimension=DIMENSION)
    per_batch = collections.Counter(r["metadata"]["batch"] for r in store.get_records({}))
    assert per_batch, "no batch survived at all"
    assert set(per_batch.values()) == {batch_size}
    fts = store._conn.execute("SELECT count(*) FROM records_fts WHERE records_fts MATCH 'batch'")
    assert fts.fetchone()[0] >= sum(per_batch.values())
    store.write_records([{"record_type": "memory", "id": "after", "embedding": vector(1)}])
    assert store.get_records({"ids": ["after"]})


def test_processes_and_threads_share_one_file_without_losing_writes(tmp_path):
    location = str(tmp_path / "shared.db")
    EmbeddedBackend(location, embedding_dimension=DIMENSION).close()
    operations = 120
    processes = [start("mixed", location, str(w), str(operations)) for w in range(3)]

    store = EmbeddedBackend(location, embedding_dimension=DIMENSION)
    errors: list[BaseException] = []
    thread_kept: list[str] = []
    lock = threading.Lock()

    def thread_worker(worker: int) -> None:
        try:
            for i in range(operations):
                rid = f"t{worker}-{i}"
                store.write_records([{"record_type": "memory", "id": rid,
                                      "user_id": f"tu{worker}", "embedding": vector(i)}])
                if i % 4 == 0:
                    store.delete_records([rid], ["memory"])
                else:
                    with lock:
                        thread_kept.append(rid)
                store.search({"query_vector": vector(i), "max_results": 3})
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=thread_worker, args=(w,)) for w in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    expected = set(thread_kept)
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        expected.update(out.split())
    assert errors == []
    stored = [r["id"] for r in store.get_records({})]
    assert len(stored) == len(set(stored))                  # nothing duplicated
    assert set(stored) == expected                          # nothing lost, nothing left over
    assert len(expected) == 3 * 90 + 3 * 96                 # 120 ops: 1/4 and 1/5 deleted
