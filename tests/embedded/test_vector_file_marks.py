"""A vector file is used only beside the database state it was made from.

The file names the change-log version it holds and the random mark logged at that version;
a store uses it only when its change log holds the same mark there. Here two histories
branch from one backup and each changes the same record differently, so the same version
number stands for two states. The changed record sits in the middle of thousands, where a
check of a few sampled rows would not look: whichever file lies beside whichever database,
searches return what SQLite holds, never the other history's vector.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend, vector_file
from oracleagentmemory.stores.embedded.record_cache import RecordCache

pytestmark = pytest.mark.skipif(vector_file.path_for("x.db") is None,
                                reason="no vector file on this platform")
DIM = 8
COUNT = 3000
CHANGED = "m1500"
"""A record of user u1 in the middle of the store; each history gives it its own vector."""
TYPES = ["memory"]


@pytest.fixture(autouse=True)
def small_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_file, "MIN_RECORDS", 1)
    monkeypatch.setattr(vector_file, "REFRESH_CHANGES", 1)


def vec(seed: int) -> list[float]:
    return np.random.default_rng(seed).standard_normal(DIM).astype(np.float32).tolist()


QUERY_A, QUERY_B = vec(10_001), vec(10_002)


def copy_store(source: Path, target: Path) -> None:
    """A consistent copy of a store file, as a backup tool makes it."""
    with sqlite3.connect(source) as conn, sqlite3.connect(target) as copy:
        conn.backup(copy)


def search(store: EmbeddedBackend, query: list[float]) -> list[tuple[str, str, float]]:
    hits = store.search({"query_text": "", "query_vector": query, "strategy": "VECTOR",
                         "scope": {"user_id": {"value": "u1", "exact": True}},
                         "max_results": 5})
    return [(hit["record"]["id"], hit["record"]["user_id"], round(hit["distance"], 5))
            for hit in hits]


def branch(location: Path, embedding: list[float], later_changes: int = 0,
           early: Path | None = None, first_changed: int = 0) -> None:
    """One history: CHANGED gets ``embedding``, then ``later_changes`` other records change;
    each close writes the vector file of the state reached. ``early``: where to copy the
    store and its file as they were right after the first change; ``first_changed``: the
    number of the first record whose content changes (every other one after it)."""
    store = EmbeddedBackend(location)
    store.update_record(CHANGED, TYPES, {"embedding": embedding})
    search(store, QUERY_A)
    store.close()
    assert Path(f"{location}.vectors").exists()
    if early is not None:
        copy_store(location, early)
        shutil.copy(f"{location}.vectors", f"{early}.vectors")
    store = EmbeddedBackend(location)
    for number in range(later_changes):
        store.update_record(f"m{first_changed + number * 2}", TYPES,
                            {"content": f"changed {number}"})
    search(store, QUERY_A)
    store.close()


@pytest.fixture
def histories(tmp_path: Path) -> dict[str, Path]:
    """Store files of two histories from one backup, each beside the vector file it wrote:
    ``a`` changed CHANGED and then 5 other records, ``b`` (the backup restored) changed
    CHANGED otherwise. ``a_early`` is ``a``'s file of the state right after its first change
    (the same version number as ``b``'s)."""
    base = tmp_path / "base.db"
    store = EmbeddedBackend(base, embedding_dimension=DIM)
    store.write_records([{"record_type": "memory", "id": f"m{i}", "user_id": f"u{1 + i % 2}",
                          "content": f"note {i}", "embedding": vec(i)} for i in range(COUNT)])
    store.close()
    paths = {name: tmp_path / name / "store.db" for name in ("a", "a_early", "b")}
    for path in paths.values():
        path.parent.mkdir()
    copy_store(base, paths["a"])
    copy_store(base, paths["b"])
    branch(paths["a"], QUERY_A, later_changes=5, early=paths["a_early"])
    branch(paths["b"], QUERY_B)
    return paths


def beside(tmp_path: Path, database: Path, vectors_from: Path) -> Path:
    """A store file of ``database`` with the vector file of ``vectors_from`` beside it."""
    target = tmp_path / "restored" / "store.db"
    target.parent.mkdir()
    copy_store(database, target)
    shutil.copy(f"{vectors_from}.vectors", f"{target}.vectors")
    return target


def reference(location: Path) -> dict[str, list[tuple[str, str, float]]]:
    store = EmbeddedBackend(location, vector_file=False)
    try:
        return {"a": search(store, QUERY_A), "b": search(store, QUERY_B)}
    finally:
        store.close()


@pytest.mark.parametrize(("database", "vectors_from", "holds"), [
    ("b", "a_early", QUERY_B),  # a backup restored (and written to) beside a newer file
    ("a", "b", QUERY_A),  # a newer database beside the file of an abandoned history
])
def test_a_file_from_another_history_is_never_used(
    tmp_path: Path, histories: dict[str, Path], database: str, vectors_from: str,
    holds: list[float],
) -> None:
    location = beside(tmp_path, histories[database], histories[vectors_from])
    want = reference(location)
    assert want["a" if holds is QUERY_A else "b"][0][:2] == (CHANGED, "u1")  # SQLite's vector
    other = want["b" if holds is QUERY_A else "a"]
    assert CHANGED not in [hit_id for hit_id, _, _ in other]  # the other history's is gone
    store = EmbeddedBackend(location)
    try:
        assert {"a": search(store, QUERY_A), "b": search(store, QUERY_B)} == want
    finally:
        store.close()
    on_disk = vector_file.load(f"{location}.vectors", _epoch(location), _tag())
    assert on_disk is not None and on_disk.mark != _mark_of(histories[vectors_from])


def test_a_file_of_an_earlier_state_of_the_same_history_is_used(
    tmp_path: Path, histories: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mark check refuses other histories only: the file ``a`` wrote after its first
    change serves ``a``'s later state, caught up through the change log, no row re-read."""
    location = beside(tmp_path, histories["a"], histories["a_early"])
    want = reference(location)

    def refuse(self: RecordCache, conn: Any) -> None:
        raise AssertionError("the cache read every row instead of the vector file")

    monkeypatch.setattr(RecordCache, "_full_reload", refuse)
    store = EmbeddedBackend(location)
    try:
        assert {"a": search(store, QUERY_A), "b": search(store, QUERY_B)} == want
    finally:
        store.close()


def _epoch(location: Path) -> str:
    with sqlite3.connect(location) as conn:
        return str(conn.execute("SELECT value FROM store_meta WHERE key = 'epoch'").fetchone()[0])


def _tag() -> str:
    from oracleagentmemory.stores.embedded import record_cache

    return record_cache._FILE_TAG


def _mark_of(location: Path) -> bytes:
    snapshot = vector_file.load(f"{location}.vectors", _epoch(location), _tag())
    assert snapshot is not None
    return snapshot.mark


def test_a_version_4_change_log_is_marked_and_keeps_its_versions(tmp_path: Path) -> None:
    """Schema 4 -> 5 copies the change log into a table with marks: every version kept, the
    counter carried on (no version reused), the triggers writing marks again."""
    from oracleagentmemory.stores.embedded import changelog

    location = tmp_path / "v4.db"
    store = EmbeddedBackend(location, embedding_dimension=DIM)
    store.write_records([{"record_type": "memory", "id": f"m{i}", "user_id": "u1",
                          "content": f"note {i}", "embedding": vec(i)} for i in range(5)])
    store.delete_records(["m4"], TYPES)
    store.close()
    conn = sqlite3.connect(location, isolation_level=None)
    for trigger in changelog.TRIGGERS:
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.executescript(
        "ALTER TABLE record_changes RENAME TO marked;"
        "CREATE TABLE record_changes (version INTEGER PRIMARY KEY AUTOINCREMENT,"
        " seq INTEGER NOT NULL);"
        "INSERT INTO record_changes SELECT version, seq FROM marked; DROP TABLE marked;"
        "UPDATE store_meta SET value = '4' WHERE key = 'schema_version';"
        + changelog.DDL.split(";", 1)[1])  # the version-4 triggers are today's
    before = conn.execute("SELECT version, seq FROM record_changes ORDER BY version").fetchall()
    conn.close()
    assert [version for version, _ in before] == [1, 2, 3, 4, 5, 6]
    store = EmbeddedBackend(location)
    store.write_records([{"record_type": "memory", "id": "m9", "user_id": "u1",
                          "content": "later", "embedding": vec(9)}])
    assert [hit[0] for hit in search(store, vec(9))][:1] == ["m9"]
    store.close()
    conn = sqlite3.connect(location)
    after = conn.execute("SELECT version, seq, length(mark) FROM record_changes"
                         " ORDER BY version").fetchall()
    version = conn.execute("SELECT value FROM store_meta WHERE key = 'schema_version'"
                           ).fetchone()[0]
    conn.close()
    assert version == "5"
    assert [(v, s) for v, s, _ in after[:6]] == before
    assert after[6][0] == 7 and {length for _, _, length in after} == {8}


def test_a_backup_restored_into_the_live_file_is_read_again(tmp_path: Path) -> None:
    """A store stays open while another history (same schema epoch, a later version) is
    restored into its file through SQLite's backup API: its cache must not catch up through
    the restored log as if it were its own history, it reads SQLite again."""
    base = tmp_path / "base.db"
    store = EmbeddedBackend(base, embedding_dimension=DIM)
    store.write_records([{"record_type": "memory", "id": f"m{i}", "user_id": f"u{1 + i % 2}",
                          "content": f"note {i}", "embedding": vec(i)} for i in range(COUNT)])
    store.close()
    live, other = tmp_path / "live" / "store.db", tmp_path / "other" / "store.db"
    for path in (live, other):
        path.parent.mkdir()
        copy_store(base, path)
    branch(live, QUERY_A, later_changes=2, first_changed=1000)
    branch(other, QUERY_B, later_changes=8)
    want = reference(other)
    reader = EmbeddedBackend(other, vector_file=False)
    want_words = keyword_ids(reader)
    reader.close()
    store = EmbeddedBackend(live)
    try:
        assert search(store, QUERY_A)[0][0] == CHANGED  # the live history's vector
        assert len(keyword_ids(store)) == 2  # the live history's two changed contents
        copy_store(other, live)  # restored while the store is open
        assert {"a": search(store, QUERY_A), "b": search(store, QUERY_B)} == want
        assert keyword_ids(store) == want_words and len(want_words) == 8
    finally:
        store.close()


def keyword_ids(store: EmbeddedBackend) -> list[str]:
    """The records of user u1 whose content says "changed" (the keyword side's own index
    follows the change log too)."""
    hits = store.search({"query_text": "changed", "strategy": "KEYWORD",
                         "scope": {"user_id": {"value": "u1", "exact": True}},
                         "max_results": 20})
    return sorted(hit["record"]["id"] for hit in hits)
