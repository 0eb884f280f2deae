"""A version-3 store file (keyword index over content) opens, upgrades and searches
Chinese and Korean by bigrams; a version-4 file (bigrams only, no NFKC) is cut again by the
version-5 step; writes keep keyword_text NULL for Latin text."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from oracleagentmemory.stores.embedded import EmbeddedBackend, changelog, schema


def version_3_ddl() -> str:
    """Today's DDL as version 3 had it: no keyword columns, the index over content."""
    records = schema.DDL.replace("    keyword_text TEXT,\n", "").replace(
        f"    keyword_body TEXT GENERATED ALWAYS AS ({schema.KEYWORD_BODY_SQL}) VIRTUAL,\n", "")
    assert "keyword_" not in records and "scope_tokens" in records
    return records + schema.RELATIONS_DDL + schema.V3_FTS_DDL + changelog.DDL


CONTENTS = {
    "zh": "台北101於2004年落成，曾是世界最高的建築。",
    "ko": "임종석이 대통령 비서실장으로 임명되었다.",
    "en": "rose garden in spring",
}


def write_version_3_file(path: Path, extra: int = 0) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(version_3_ddl())
    conn.executemany("INSERT INTO store_meta VALUES (?, ?)", [("schema_version", "3")])
    rows = [*CONTENTS.items(), *((f"n{i}", f"filler number {i}") for i in range(extra))]
    conn.executemany(
        "INSERT INTO records (id, id_space, record_type, user_id, thread_id, content,"
        " created_at, updated_at) VALUES (?, 'memory', 'memory', 'u', 't', ?,"
        " '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')", rows)
    conn.commit()
    # today's code cannot find the Chinese memory in this file: one token per clause
    assert conn.execute("SELECT count(*) FROM records_fts WHERE records_fts MATCH '\"台北\"'"
                        ).fetchone()[0] == 0
    conn.close()


def keyword_ids(store: EmbeddedBackend, text: str) -> list[str]:
    hits = store.search({"query_text": text, "strategy": "KEYWORD", "max_results": 10,
                         "scope": {"thread_id": {"value": "t", "exact": True}}})
    return [hit["record"]["id"] for hit in hits]


def test_a_version_3_file_is_upgraded_and_searches_chinese_and_korean(
        tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(schema, "KEYWORD_FILL_BATCH", 7)  # several batches
    path = tmp_path / "v3.db"
    write_version_3_file(path, extra=30)
    store = EmbeddedBackend(path)
    assert keyword_ids(store, "台北101是哪一年落成的？") == ["zh"]
    assert keyword_ids(store, "임종석은 누구인가?") == ["ko"]
    assert keyword_ids(store, "rose") == ["en"]
    rows = dict(store._conn.execute("SELECT id, keyword_text FROM records"))
    assert rows["zh"].split()[:4] == ["台", "台北", "北", "101"]
    assert rows["en"] is None and rows["n3"] is None  # Latin text is not stored twice
    assert store._conn.execute(
        "INSERT INTO records_fts (records_fts, rank) VALUES ('integrity-check', 1)"
    ).fetchall() == []
    store.close()
    check = sqlite3.connect(path)
    assert check.execute("SELECT value FROM store_meta WHERE key = 'schema_version'"
                         ).fetchone()[0] == str(schema.SCHEMA_VERSION) == "5"
    check.close()
    EmbeddedBackend(path).close()  # opening the upgraded file again changes nothing


def test_every_content_write_sets_the_keyword_text(tmp_path: Path) -> None:
    store = EmbeddedBackend(tmp_path / "new.db")
    store.write_records([{"record_type": "memory", "id": "a", "thread_id": "t",
                          "content": "plain words"}])
    assert store._conn.execute("SELECT keyword_text FROM records WHERE id = 'a'"
                               ).fetchone()[0] is None
    store.update_record("a", ["memory"], {"content": "임종석이 임명되었다"})
    assert keyword_ids(store, "임종석은") == ["a"]
    store.update_record("a", ["memory"], {"content": "back to plain words"})
    assert store._conn.execute("SELECT keyword_text FROM records WHERE id = 'a'"
                               ).fetchone()[0] is None
    assert keyword_ids(store, "임종석은") == []
    assert keyword_ids(store, "plain") == ["a"]
    store.write_records([{"record_type": "memory", "id": "a", "thread_id": "t",
                          "content": "台北101"}], replace=True)
    assert keyword_ids(store, "台北") == ["a"]
    store.close()


def test_a_version_4_file_is_cut_again_and_finds_one_character_and_full_width_queries(
        tmp_path: Path) -> None:
    path = tmp_path / "v4.db"
    store = EmbeddedBackend(path)
    store.write_records([
        {"record_type": "memory", "id": "zh", "thread_id": "t", "content": "我住在台北市"},
        {"record_type": "memory", "id": "ko", "thread_id": "t", "content": "우리 집에 왔다"},
        {"record_type": "memory", "id": "fr", "thread_id": "t", "content": "Tour ＡＢ à Paris"},
        {"record_type": "memory", "id": "en", "thread_id": "t", "content": "floor １０１"},
    ])
    store.close()
    # what version 4 stored: bigrams only, no NFKC folding
    conn = sqlite3.connect(path)
    conn.executemany("UPDATE records SET keyword_text = ? WHERE id = ?", [
        (" 我住 住在 在台 台北 北市 ", "zh"), (" 우리   집에   왔다 ", "ko"), (None, "fr"),
        (None, "en")])
    conn.execute("INSERT INTO records_fts (records_fts) VALUES ('rebuild')")
    conn.execute("UPDATE store_meta SET value = '4' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    store = EmbeddedBackend(path)
    assert keyword_ids(store, "北") == ["zh"]
    assert keyword_ids(store, "집") == ["ko"]
    assert keyword_ids(store, "ab") == ["fr"]
    assert keyword_ids(store, "101") == ["en"]
    store.close()
