"""An item's TTL is held to the client's ``max_ttl_days``, as every other TTL is.

``MemoryRetentionConfig.max_ttl_days`` "caps any TTL (larger values are clamped with a
warning)"; a LangGraph ``put(..., ttl=minutes)`` was stored with its own expiry, however
long, and no warning.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

pytest.importorskip("langgraph.store.base", reason="LangGraph is an optional extra")

from oracleagentmemory.core import MemoryRetentionConfig, OracleAgentMemory  # noqa: E402
from oracleagentmemory.integrations.langgraph_store import OracleAgentMemoryStore  # noqa: E402
from tests.support.embedders import HashingEmbedder  # noqa: E402


def _expiry(client: OracleAgentMemory) -> datetime:
    [record] = client.memory_service.backend.get_records({"record_types": ["memory"]})
    return datetime.fromisoformat(record["expires_at"].replace("Z", "+00:00"))


@pytest.mark.parametrize("refresh", [False, True])
def test_an_item_ttl_longer_than_max_ttl_days_is_clamped_with_a_warning(refresh):
    client = OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder(),
                               extract_memories=False,
                               memory_retention_config=MemoryRetentionConfig(max_ttl_days=1))
    try:
        store = OracleAgentMemoryStore(client)
        thirty_days = 30 * 24 * 60
        with pytest.warns(UserWarning, match="max_ttl_days=1") as caught:
            store.put(("users", "alice"), "k", {"v": "서울"}, ttl=thirty_days)
            if refresh:  # a read with refresh_ttl restarts the item's TTL
                store.get(("users", "alice"), "k", refresh_ttl=True)
        assert all(warning.filename == __file__ for warning in caught)
        assert _expiry(client) <= datetime.now(timezone.utc) + timedelta(days=1)
    finally:
        client.close()


def test_an_item_ttl_within_max_ttl_days_is_kept():
    client = OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder(),
                               extract_memories=False,
                               memory_retention_config=MemoryRetentionConfig(max_ttl_days=1))
    try:
        store = OracleAgentMemoryStore(client)
        store.put(("users", "alice"), "k", {"v": "Paris"}, ttl=60)
        expiry = _expiry(client) - datetime.now(timezone.utc)
        assert timedelta(minutes=58) < expiry <= timedelta(minutes=60)
    finally:
        client.close()
