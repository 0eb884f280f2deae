"""A LangGraph put whose value a stored record cannot hold (a number beyond an Oracle
NUMBER, a field name over 65,535 UTF-8 bytes: stores/limits.py since a3d9b1c) is refused
with an error naming the put's ``value``; it named ``records[0].metadata``, an argument the
caller never passed. NOT FIXED (review of 42fdf52..00fd729)."""

from __future__ import annotations

import pytest

pytest.importorskip("langgraph.store.base", reason="LangGraph is an optional extra")

from oracleagentmemory.core import OracleAgentMemory  # noqa: E402
from oracleagentmemory.errors import InvalidArgumentError  # noqa: E402
from oracleagentmemory.integrations.langgraph_store import OracleAgentMemoryStore  # noqa: E402
from tests.support.embedders import HashingEmbedder  # noqa: E402


@pytest.mark.parametrize("value", [
    {"sha256": 2 ** 256},
    {"distance_m": 4.7e142},
    {"n" * 70_000: 1},
    {"요약" * 11_000: "키가 너무 깁니다"},  # 66,000 UTF-8 bytes
    {"摘要": {"數值": -1e200}},
])
def test_a_value_the_store_cannot_hold_is_refused_naming_the_value(value):
    client = OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder(),
                               extract_memories=False)
    try:
        store = OracleAgentMemoryStore(client)
        with pytest.raises(InvalidArgumentError) as refused:
            store.put(("u1", "notes"), "k", value)
        assert "value" in str(refused.value)
        assert "records[0]" not in str(refused.value)
    finally:
        client.close()


@pytest.mark.parametrize("ttl", [1e300, float("inf"), 1e12])
def test_a_ttl_past_the_calendar_is_refused_naming_the_ttl(ttl):
    client = OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder(),
                               extract_memories=False)
    try:
        store = OracleAgentMemoryStore(client)
        with pytest.raises(InvalidArgumentError, match="ttl"):
            store.put(("u1", "notes"), "k", {"a": 1}, ttl=ttl)
        assert store.get(("u1", "notes"), "k") is None
    finally:
        client.close()
