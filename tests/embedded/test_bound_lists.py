"""Every statement that binds a list fits SQLite's parameter limit.

A user with more records than the limit (~125K on a 250,000-parameter build, ~16K at
32,766) could never be erased and expired rows never purged: "too many SQL variables".
Writing that many rows would make a slow test, so each connection's real limit is lowered
to LIMIT (``Connection.setlimit``, the seam SQLite offers) and a few hundred rows exceed it;
every operation below then runs real statements that would fail unsplit.
"""

from __future__ import annotations

import sqlite3
import sys

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend, schema

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11),
                                reason="Connection.setlimit needs Python 3.11")

LIMIT = 40
"""Bound parameters per statement in these tests (a record insert alone binds 17)."""
COUNT = 7 * LIMIT
"""Rows per operation: several times the limit."""


@pytest.fixture
def store(tmp_path, monkeypatch):
    real_connect = schema.connect

    def connect_with_low_limit(location):
        conn = real_connect(location)
        conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, LIMIT)
        return conn

    monkeypatch.setattr(schema, "connect", connect_with_low_limit)
    opened = EmbeddedBackend(tmp_path / "many.db", embedding_dimension=2)
    probe = schema.connect(":memory:")
    with pytest.raises(sqlite3.OperationalError, match="too many SQL variables"):
        probe.execute(f"SELECT 1 WHERE 1 IN ({', '.join('?' * (LIMIT + 1))})",
                      [1] * (LIMIT + 1))
    probe.close()
    yield opened
    opened.close()


def memories(count, prefix="m", **fields):
    return [{"record_type": "memory", "id": f"{prefix}{i}", "content": f"note {i}",
             "embedding": [1.0, i / count], **fields} for i in range(count)]


def test_a_user_with_more_records_than_the_limit_can_be_erased(store):
    store.write_records([{"record_type": "user_profile", "id": "u", "user_id": "u"}])
    store.write_records([{"record_type": "thread", "id": f"t{i}", "user_id": "u",
                          "thread_id": f"t{i}"} for i in range(COUNT)])
    store.write_records(memories(COUNT, user_id="u", thread_id="t0"))
    store.write_records([], links=[
        {"source_id": f"m{i}", "source_type": "memory", "target_id": f"m{i + 1}",
         "target_type": "memory", "relation_type": "supports"} for i in range(COUNT - 1)])
    store.write_records(memories(3, prefix="other", user_id="v"))
    result = store.delete_cascade("user", "u")
    assert result == {"owner": 1, "records": 2 * COUNT + 1, "links": COUNT - 1}
    assert sorted(r["id"] for r in store.get_records({})) == ["other0", "other1", "other2"]
    assert store.list_links({}) == []


def test_expired_records_beyond_the_limit_are_purged(store):
    store.write_records(memories(COUNT, expires_at="2000-01-01T00:00:00Z"))
    store.write_records(memories(2, prefix="kept"))
    assert store.purge_expired() == COUNT
    assert sorted(r["id"] for r in store.get_records({})) == ["kept0", "kept1"]


def test_reads_and_deletes_of_many_ids(store):
    written = store.write_records(memories(COUNT))
    ids = [f"m{i}" for i in range(COUNT)]
    assert [r["id"] for r in store.get_records({"ids": list(reversed(ids))})] == written
    assert len(store.get_records({"ids": ids, "record_types": ["memory"], "limit": COUNT - 1,
                                  "metadata_filter": None})) == COUNT - 1
    hits = store.search({"query_text": "", "query_vector": [1.0, 0.0], "max_results": COUNT})
    assert len(hits) == COUNT
    assert store.delete_records(ids, ["memory", "fact"]) == COUNT
    assert store.get_records({}) == []


def test_many_messages_images_and_links(store):
    store.write_records([{"record_type": "message", "id": f"msg{i}", "thread_id": "t",
                          "content": f"message {i}"} for i in range(COUNT)])
    assert len(store.list_messages("t", None, None)) == COUNT
    store.write_records([{"record_type": "image", "id": f"img{i}", "thread_id": "t",
                          "image_bytes": bytes([i % 256])} for i in range(COUNT)])
    images = store.get_records({"record_types": ["image"], "include_bytes": True})
    assert [image["image_bytes"] for image in images] == [bytes([i % 256])
                                                           for i in range(COUNT)]
    store.write_records([{"record_type": "message", "id": "album", "thread_id": "t"}])
    store.update_record("album", ["message"], {"replace_images": [
        {"id": f"att{i}", "image_bytes": b"x"} for i in range(COUNT)]})
    store.update_record("album", ["message"], {"replace_images": [
        {"id": f"att{i}"} for i in range(0, COUNT, 2)]})
    assert len(store.get_records({"message_id": "album"})) == COUNT // 2
    store.write_records(memories(COUNT, thread_id="t") + [
        {"record_type": "memory", "id": "hub", "thread_id": "t", "embedding": [0.0, 1.0]}],
        links=[{"source_id": "hub", "source_type": "memory", "target_id": f"m{i}",
                "target_type": "memory", "relation_type": "supports"} for i in range(COUNT)])
    links = store.list_links({})
    assert len(store.list_links({"ids": [link["id"] for link in links]})) == COUNT
    [hit] = store.search({"query_text": "", "query_vector": [0.0, 1.0], "max_results": 1,
                          "num_hops": 2, "max_linked_results": 2 * COUNT})
    assert hit["record"]["id"] == "hub" and len(hit["linked"]) == COUNT
    assert store.delete_cascade("thread", "t")["records"] == 3 * COUNT + COUNT // 2 + 2
