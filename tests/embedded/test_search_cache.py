"""The embedded store's in-memory search cache follows every write to its file.

Searches read scope columns and vectors from memory; these tests prove the copy never
serves stale results, whoever wrote: the same store object, a second store object on the
same file, or another process, including after log pruning, schema recreation and rowid
reuse. Expected results are computed here from the written data, not by the store.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend, changelog

DIM = 8


def vec(i: int) -> list[float]:
    """A deterministic unit-ish vector per integer."""
    rng = np.random.default_rng(i)
    return rng.standard_normal(DIM).astype(np.float32).tolist()


def record(i: int, user: str = "u1", **extra: object) -> dict:
    return {"record_type": "memory", "id": f"m{i}", "user_id": user, "thread_id": "t1",
            "content": f"memory number {i}", "embedding": vec(i), **extra}


def ids(store: EmbeddedBackend, query: list[float], **request: object) -> list[str]:
    hits = store.search({"query_vector": query, "max_results": 50, **request})
    return [hit["record"]["id"] for hit in hits]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "shared.db"


def test_writes_through_one_store_are_searched_by_another(path: Path) -> None:
    writer = EmbeddedBackend(path, embedding_dimension=DIM)
    reader = EmbeddedBackend(path, embedding_dimension=DIM)
    writer.write_records([record(1)])
    assert ids(reader, vec(1)) == ["m1"]  # cache loaded here
    writer.write_records([record(2)])
    assert ids(reader, vec(2))[0] == "m2"
    assert set(ids(reader, vec(2))) == {"m1", "m2"}
    writer.close()
    reader.close()


def test_updates_and_deletes_elsewhere_are_seen(path: Path) -> None:
    writer = EmbeddedBackend(path, embedding_dimension=DIM)
    reader = EmbeddedBackend(path, embedding_dimension=DIM)
    writer.write_records([record(i, metadata={"topic": "a" if i % 2 else "b"})
                          for i in range(1, 7)])
    topic_a = {"metadata_filter": {"topic": "a"}}
    assert set(ids(reader, vec(1), **topic_a)) == {"m1", "m3", "m5"}
    # New vector: m2 becomes the exact match of vec(100).
    writer.update_record("m2", ["memory"], {"content": "moved", "embedding": vec(100)})
    assert ids(reader, vec(100))[0] == "m2"
    # Metadata replaced: the filter column built above must follow.
    writer.update_record("m3", ["memory"], {"metadata": {"topic": "b"}})
    assert set(ids(reader, vec(1), **topic_a)) == {"m1", "m5"}
    writer.update_record("m5", ["memory"], {"status": "INVALID"})
    assert set(ids(reader, vec(1), include_invalid=False, **topic_a)) == {"m1"}
    assert writer.delete_records(["m1"], ["memory"]) == 1
    assert "m1" not in ids(reader, vec(1))
    assert set(ids(reader, vec(1), **topic_a)) == {"m5"}
    writer.close()
    reader.close()


def test_writes_by_another_process_are_seen(path: Path) -> None:
    reader = EmbeddedBackend(path, embedding_dimension=DIM)
    reader.write_records([record(1)])
    assert ids(reader, vec(1)) == ["m1"]
    script = textwrap.dedent(f"""
        from oracleagentmemory.stores.embedded import EmbeddedBackend
        store = EmbeddedBackend({str(path)!r}, embedding_dimension={DIM})
        store.write_records([{{"record_type": "fact", "id": "other", "user_id": "u1",
                               "content": "from another process",
                               "embedding": {vec(42)!r}}}])
        store.delete_records(["m1"], ["memory"])
        store.close()
    """)
    root = Path(__file__).resolve().parents[2]
    env_path = f"{root / 'python'}:{root}"
    subprocess.run([sys.executable, "-c", script], check=True,
                   env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"})
    assert ids(reader, vec(42)) == ["other"]
    reader.close()


def test_a_reader_behind_the_pruned_log_reloads(path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(changelog, "KEEP", 3)
    monkeypatch.setattr(changelog, "PRUNE_SLACK", 2)
    writer = EmbeddedBackend(path, embedding_dimension=DIM)
    reader = EmbeddedBackend(path, embedding_dimension=DIM)
    writer.write_records([record(1), record(2)])
    assert set(ids(reader, vec(1))) == {"m1", "m2"}
    for i in range(3, 13):
        writer.write_records([record(i)])
    writer.delete_records(["m2"], ["memory"])
    assert set(ids(reader, vec(1))) == {f"m{i}" for i in range(1, 13)} - {"m2"}
    writer.close()
    reader.close()


def test_recreated_schema_is_not_served_from_the_old_cache(path: Path) -> None:
    reader = EmbeddedBackend(path, embedding_dimension=DIM)
    reader.write_records([record(1), record(2)])
    assert set(ids(reader, vec(1))) == {"m1", "m2"}
    fresh = EmbeddedBackend(path, embedding_dimension=DIM, schema_policy="RECREATE")
    fresh.write_records([record(7), record(8)])
    assert set(ids(reader, vec(1))) == {"m7", "m8"}
    fresh.close()
    reader.close()


def test_a_reused_rowid_is_the_new_record(path: Path) -> None:
    store = EmbeddedBackend(path, embedding_dimension=DIM)
    other = EmbeddedBackend(path, embedding_dimension=DIM)
    store.write_records([record(1), record(2), record(3)])
    assert set(ids(other, vec(3))) == {"m1", "m2", "m3"}
    # Deleting the highest rowid lets SQLite hand the same seq to the next insert.
    store.delete_records(["m3"], ["memory"])
    store.write_records([record(9, user="u2")])
    assert ids(other, vec(9), scope={"user_id": {"value": "u2", "exact": True}}) == ["m9"]
    assert set(ids(other, vec(9))) == {"m1", "m2", "m9"}
    store.close()
    other.close()


def test_expiry_is_applied_at_search_time(path: Path) -> None:
    now = [datetime(2026, 1, 1, tzinfo=timezone.utc)]
    store = EmbeddedBackend(path, embedding_dimension=DIM, clock=lambda: now[0])
    store.write_records([record(1, ttl_days=1), record(2)])
    assert set(ids(store, vec(1))) == {"m1", "m2"}
    now[0] += timedelta(days=2)
    assert ids(store, vec(1)) == ["m2"]
    store.close()


def test_cached_search_matches_a_brute_force_reference(path: Path) -> None:
    rng = np.random.default_rng(3)
    writer = EmbeddedBackend(path, embedding_dimension=DIM)
    reader = EmbeddedBackend(path, embedding_dimension=DIM)
    rows = []
    for i in range(300):
        user = f"u{rng.integers(4)}"
        topic = ["x", "y", "z"][rng.integers(3)]
        tags = [f"t{rng.integers(5)}"]
        metadata = {"topic": topic, "n": int(rng.integers(3)), "tags": tags}
        rows.append((f"m{i}", user, metadata, np.array(vec(1000 + i), dtype=np.float32)))
    for start in range(0, 300, 50):  # interleave writes and searches
        writer.write_records([
            {"record_type": "memory", "id": rid, "user_id": user, "content": rid,
             "metadata": metadata, "embedding": vector.tolist()}
            for rid, user, metadata, vector in rows[start : start + 50]
        ])
        reader.search({"query_vector": vec(1), "max_results": 1})
    query = np.array(vec(5), dtype=np.float32)

    def reference(user: str, keep) -> list[str]:
        scored = [
            (1 - float(v @ query) / (np.linalg.norm(v) * np.linalg.norm(query)), rid)
            for rid, u, metadata, v in rows if u == user and keep(metadata)
        ]
        return [rid for _, rid in sorted(scored)[:10]]

    cases = [
        ({"topic": "x"}, lambda m: m["topic"] == "x"),
        ({"n": 1.0}, lambda m: m["n"] == 1),
        ({"topic": {"$not": "y"}}, lambda m: m["topic"] != "y"),
        ({"tags": {"$array_contains": "t2"}}, lambda m: "t2" in m["tags"]),
        ({"topic": "x", "n": {"$not": 0}}, lambda m: m["topic"] == "x" and m["n"] != 0),
        ({"missing": {"$not": 1}}, lambda m: True),
        ({"topic": "nowhere"}, lambda m: False),
    ]
    for user in ("u0", "u3"):
        scope = {"user_id": {"value": user, "exact": True}}
        for metadata_filter, keep in cases:
            hits = reader.search({"query_vector": query.tolist(), "scope": scope,
                                  "metadata_filter": metadata_filter, "max_results": 10})
            assert [hit["record"]["id"] for hit in hits] == reference(user, keep), (
                user, metadata_filter)
    writer.close()
    reader.close()


def test_a_fresh_store_loads_every_chunk_including_records_without_vectors(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full reload reads in chunks (a helper thread fetching ahead); records without a
    vector, or with one of another length, are loaded but never scored."""
    from oracleagentmemory.stores.embedded import record_cache

    monkeypatch.setattr(record_cache, "_CHUNK", 7)  # many chunks, some mixed
    writer = EmbeddedBackend(path, embedding_dimension=DIM)
    writer.write_records([record(i) if i % 5 else record(i, embedding=None) for i in range(40)])
    writer._conn.execute("UPDATE records SET embedding = x'00' WHERE id = 'm3'")
    writer.close()
    query = vec(11)
    expected = sorted(
        (i for i in range(40) if i % 5 and i != 3),
        key=lambda i: -float(np.dot(vec(i), query) / np.linalg.norm(vec(i))),
    )
    reader = EmbeddedBackend(path)
    assert ids(reader, query) == [f"m{i}" for i in expected]
    keyword = reader.search({"query_text": "number", "strategy": "KEYWORD", "max_results": 50})
    assert len(keyword) == 40
    reader.close()


CURRENT_VERSION = "5"
"""The embedded schema version these tests expect an upgraded file to have."""

V1_KEYWORD_INDEX = """
CREATE VIRTUAL TABLE records_fts USING fts5 (
    content, content='records', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
    INSERT INTO records_fts (rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
"""


def _write_version_1_file(path: Path, count: int) -> None:
    """A store file as version 1 wrote it: no scope tokens, the old keyword index."""
    import sqlite3

    from oracleagentmemory.stores.embedded import schema

    conn = sqlite3.connect(path)
    records_v1 = schema.DDL.replace(f"    scope_tokens TEXT GENERATED ALWAYS AS "
                                    f"({schema.SCOPE_TOKENS_SQL}) VIRTUAL,\n", "")
    records_v1 = records_v1.replace("    keyword_text TEXT,\n", "").replace(
        f"    keyword_body TEXT GENERATED ALWAYS AS ({schema.KEYWORD_BODY_SQL}) VIRTUAL,\n", "")
    assert "scope_tokens" not in records_v1 and "keyword_" not in records_v1
    relations_v1 = schema.RELATIONS_DDL.replace("thread_id              TEXT,",
                                                "thread_id              TEXT NOT NULL,")
    assert "TEXT NOT NULL," in relations_v1
    conn.executescript(records_v1 + relations_v1 + V1_KEYWORD_INDEX + changelog.DDL)
    conn.executemany("INSERT INTO store_meta VALUES (?, ?)",
                     [("schema_version", "1"), ("embedding_dimension", str(DIM))])
    conn.executemany(
        "INSERT INTO records (id, id_space, record_type, user_id, thread_id, content, created_at,"
        " updated_at, embedding) VALUES (?, 'memory', 'memory', ?, 't1', ?, '2026-01-01T00:00:00Z',"
        " '2026-01-01T00:00:00Z', ?)",
        [(f"m{i}", f"u{i % 2}", f"rose number {i}", np.array(vec(i), "<f4").tobytes())
         for i in range(count)],
    )
    conn.commit()
    conn.close()


def _file_version(path: Path) -> str:
    import sqlite3

    check = sqlite3.connect(path)
    try:
        return check.execute(
            "SELECT value FROM store_meta WHERE key = 'schema_version'").fetchone()[0]
    finally:
        check.close()


def test_a_version_1_file_is_upgraded_with_its_records_searchable(path: Path) -> None:
    """Files written before the keyword index held scope tokens open, upgrade once, and
    keep every record, keyword-searchable inside a scope."""
    _write_version_1_file(path, 6)
    store = EmbeddedBackend(path)
    assert _file_version(path) == CURRENT_VERSION
    hits = store.search({"query_text": "rose", "strategy": "KEYWORD", "max_results": 10,
                         "scope": {"user_id": {"value": "u1", "exact": True}}})
    assert sorted(hit["record"]["id"] for hit in hits) == ["m1", "m3", "m5"]
    assert ids(store, vec(4))[0] == "m4"
    store.write_records([record(9, user="u1") | {"content": "rose garden"}])
    hits = store.search({"query_text": "garden", "strategy": "KEYWORD",
                         "scope": {"user_id": {"value": "u1", "exact": True}}})
    assert [hit["record"]["id"] for hit in hits] == ["m9"]
    store.close()
    EmbeddedBackend(path).close()  # opening an upgraded file changes nothing
    assert _file_version(path) == CURRENT_VERSION


def test_processes_opening_a_version_1_file_at_once_upgrade_it_once(path: Path) -> None:
    _write_version_1_file(path, 400)
    script = textwrap.dedent(f"""
        from oracleagentmemory.stores.embedded import EmbeddedBackend
        store = EmbeddedBackend({str(path)!r})
        hits = store.search({{"query_text": "rose", "strategy": "KEYWORD", "max_results": 500,
                             "scope": {{"user_id": {{"value": "u0", "exact": True}}}}}})
        print(len(hits))
        store.close()
    """)
    root = Path(__file__).resolve().parents[2]
    env = {"PYTHONPATH": f"{root / 'python'}:{root}", "PATH": "/usr/bin:/bin"}
    workers = [subprocess.Popen([sys.executable, "-c", script], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for _ in range(3)]
    outputs = [worker.communicate(timeout=120) for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0, 0], outputs
    assert [out.strip() for out, _ in outputs] == ["200", "200", "200"]
    assert _file_version(path) == CURRENT_VERSION
    store = EmbeddedBackend(path)
    integrity = store._conn.execute(
        "INSERT INTO records_fts (records_fts, rank) VALUES ('integrity-check', 1)")
    assert integrity.fetchall() == []
    assert len(store.get_records({})) == 400
    store.close()


def test_a_version_2_file_keeps_its_relations_and_accepts_client_level_links(path: Path) -> None:
    """Version 3 lets a relation have no thread; the relations of a version-2 file survive
    the table copy that upgrade needs."""
    store = EmbeddedBackend(path, embedding_dimension=DIM)
    store.write_records([record(1), record(2)],
                        links=[{"id": "r1", "thread_id": "t1", "source_id": "m1",
                                "source_type": "memory", "target_id": "m2",
                                "target_type": "memory", "relation_type": "supports"}])
    store.close()
    import sqlite3

    conn = sqlite3.connect(path)
    conn.executescript(
        "ALTER TABLE relations RENAME TO r3; "
        + schema_relations_v2()
        + "INSERT INTO relations SELECT * FROM r3; DROP TABLE r3; "
        "UPDATE store_meta SET value = '2' WHERE key = 'schema_version';")
    conn.close()
    store = EmbeddedBackend(path)
    assert _file_version(path) == CURRENT_VERSION
    assert [link["id"] for link in store.list_links({"thread_id": "t1"})] == ["r1"]
    store.write_records([record(3, thread_id="t2")],
                        links=[{"id": "r2", "source_id": "m3", "source_type": "memory",
                                "target_id": "m1", "target_type": "memory",
                                "relation_type": "refines"}])
    [cross] = store.list_links({"ids": ["r2"]})
    assert cross["thread_id"] is None
    store.close()


def schema_relations_v2() -> str:
    from oracleagentmemory.stores.embedded import schema

    return schema.RELATIONS_DDL.replace("thread_id              TEXT,",
                                        "thread_id              TEXT NOT NULL,")
