"""Time to live through the public API: defaults, maximum, anchors and expiry."""

from __future__ import annotations

import warnings
from datetime import datetime, timedelta, timezone

import pytest

from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.core import MemoryRetentionConfig, OracleAgentMemory


def make_thread(embedder, **retention):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder,
                               memory_retention_config=MemoryRetentionConfig(**retention))
    return client.create_thread(thread_id="t", user_id="u", agent_id="a")


def stored(thread, record_id):
    [record] = thread._service.backend.get_records({"ids": [record_id]})
    return record


def lifetime_days(record) -> float:
    created = datetime.fromisoformat(record["created_at"].replace("Z", "+00:00"))
    expires = datetime.fromisoformat(record["expires_at"].replace("Z", "+00:00"))
    return (expires - created) / timedelta(days=1)


def test_omitted_ttl_uses_schema_default_and_none_uses_maximum(embedder):
    thread = make_thread(embedder, default_ttl_days=7, max_ttl_days=30)
    assert lifetime_days(stored(thread, thread.add_memory("a", memory_id="a"))) == 7
    assert lifetime_days(stored(thread, thread.add_memory("b", memory_id="b",
                                                          ttl_days=None))) == 30
    assert lifetime_days(stored(thread, thread.add_memory("c", memory_id="c",
                                                          ttl_days=2))) == 2


def test_without_retention_settings_records_never_expire(embedder):
    thread = make_thread(embedder)
    assert stored(thread, thread.add_memory("a", memory_id="a"))["expires_at"] is None
    assert stored(thread, thread.add_memory("b", memory_id="b",
                                            ttl_days=None))["expires_at"] is None


def test_values_above_the_maximum_are_clamped_with_a_warning(embedder):
    thread = make_thread(embedder, max_ttl_days=10)
    with pytest.warns(UserWarning, match="clamped"):
        memory_id = thread.add_memory("a", ttl_days=365)
    assert lifetime_days(stored(thread, memory_id)) == 10


def test_timestamp_anchor_needs_a_timestamp_and_naive_means_utc(embedder):
    thread = make_thread(embedder)
    with pytest.raises(ValueError, match="ttl_anchor"):
        thread.add_memory("a", ttl_days=1, ttl_anchor=TimeToLiveAnchor.TIMESTAMP)
    event = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0) + timedelta(days=1)
    memory_id = thread.add_memory("a", ttl_days=2, ttl_anchor=TimeToLiveAnchor.TIMESTAMP,
                                  timestamp=event.isoformat())
    expires = stored(thread, memory_id)["expires_at"]
    assert expires == (event + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_expired_records_are_unavailable_and_cannot_be_refreshed(embedder):
    thread = make_thread(embedder)
    past = (datetime.now(timezone.utc) - timedelta(days=3)).isoformat()
    memory_id = thread.add_memory("old news", ttl_days=1, ttl_anchor="TIMESTAMP",
                                  timestamp=past)
    [message_id] = thread.add_messages([{"role": "user", "content": "old", "timestamp": past}],
                                       ttl_days=1, ttl_anchor="TIMESTAMP")
    assert thread.search("old news") == []
    assert thread.get_messages() == []
    with pytest.raises(KeyError):
        thread.update_memory(memory_id, ttl_days=100)
    with pytest.raises(KeyError):
        thread.update_message(message_id, ttl_days=100)
    with pytest.raises(KeyError):
        thread.get_message(message_id)
    assert thread._service.backend.purge_expired() == 2


def test_per_message_ttl_lists(embedder):
    thread = make_thread(embedder)
    ids = thread.add_messages([{"role": "user", "content": "a"},
                               {"role": "user", "content": "b"}], ttl_days=[1, None])
    assert lifetime_days(stored(thread, ids[0])) == 1
    assert stored(thread, ids[1])["expires_at"] is None
    with pytest.raises(ValueError, match="ttl_days"):
        thread.add_messages([{"role": "user", "content": "a"}], ttl_days=[1, 2])


def test_update_refreshes_and_clears_expiry(embedder):
    thread = make_thread(embedder)
    memory_id = thread.add_memory("a", ttl_days=1)
    thread.update_memory(memory_id, ttl_days=9)
    assert lifetime_days(stored(thread, memory_id)) == 9
    thread.update_memory(memory_id, ttl_days=None)
    assert stored(thread, memory_id)["expires_at"] is None
    thread.update_memory(memory_id, content="changed")
    assert stored(thread, memory_id)["expires_at"] is None


def test_ttl_type_errors(embedder):
    thread = make_thread(embedder)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError, match="ttl_days"):
            thread.add_memory("a", ttl_days="7")
        with pytest.raises(ValueError, match="ttl_anchor"):
            thread.add_memory("a", ttl_anchor="YESTERDAY")
