"""Threads as persistent configuration, lifecycle status, and search options."""

from __future__ import annotations

import math

import pytest

from oracleagentmemory.apis.records import RecordStatus
from oracleagentmemory.core import (
    MemoryExtractionConfig,
    OracleAgentMemory,
    OracleThread,
    TopKMemorySearchConfig,
)
from oracleagentmemory.core.tokens import estimate_tokens


@pytest.fixture
def client(embedder, tmp_path):
    client = OracleAgentMemory(
        connection=str(tmp_path / "m.db"), embedder=embedder,
        memory_extraction_config=MemoryExtractionConfig(memory_extraction_window=4),
    )
    yield client
    client.close()


def test_setting_resolution_order(client):
    client.create_thread(thread_id="t", context_card_token_limit=500,
                         memory_extraction_config=MemoryExtractionConfig(
                             memory_extraction_frequency=3))
    loaded = client.get_thread("t").settings
    assert loaded.context_card_token_limit == 500                      # stored thread config
    assert loaded.message_shortening_input_token_limit == 30_000       # SDK default
    assert loaded.extraction.memory_extraction_window == 4             # client default
    assert loaded.extraction.memory_extraction_frequency == 3          # stored
    override = client.get_thread("t", context_card_token_limit=900)
    assert override.settings.context_card_token_limit == 900           # explicit override
    assert client.get_thread("t").settings.context_card_token_limit == 500  # not persisted


def test_update_thread_replaces_metadata_whole_and_keeps_ownership(client):
    client.create_thread(thread_id="t", user_id="u", agent_id="a",
                         metadata={"flags": {"vip": True, "beta": True}, "tier": 1},
                         max_message_token_length=100)
    updated = client.update_thread("t", metadata={"flags": {"vip": False}})
    assert updated.metadata == {"flags": {"vip": False}}
    assert (updated.user_id, updated.agent_id) == ("u", "a")
    assert updated.max_message_token_length == 100
    updated = client.update_thread("t", context_card_token_limit=2_000)
    assert updated.metadata == {"flags": {"vip": False}}
    assert client.get_thread("t").settings.context_card_token_limit == 2_000
    assert client.get_thread("t").max_message_token_length == 100
    with pytest.raises(TypeError, match="user_id"):
        client.update_thread("t", user_id="someone")
    with pytest.raises(KeyError):
        client.update_thread("missing", metadata={})


def test_deprecated_thread_arguments_warn_and_conflict(client):
    with pytest.warns(DeprecationWarning, match="memory_extraction_window"):
        thread = client.create_thread(thread_id="d", memory_extraction_window=7)
    assert thread.settings.extraction.memory_extraction_window == 7
    with pytest.raises(ValueError, match="not both"):
        client.create_thread(thread_id="e", memory_extraction_window=7,
                             memory_extraction_config=MemoryExtractionConfig())


def test_status_on_add_and_update_and_include_invalid(client):
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    valid = thread.add_memory("pizza is great")
    invalid = thread.add_memory("pizza is bad", status=RecordStatus.INVALID)
    assert {r.id for r in thread.search("pizza")} == {valid, invalid}
    assert [r.id for r in thread.search("pizza", include_invalid_results=False)] == [valid]
    thread.update_memory(invalid, status="VALID")
    assert {r.id for r in thread.search("pizza", include_invalid_results=False)} == {
        valid, invalid}
    assert thread.search("pizza", record_types=["memory"])[0].record.status in RecordStatus


def test_token_budgets(client):
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    for i in range(4):
        thread.add_memory(f"pizza fact number {i} " + "x" * 40, memory_id=f"m{i}")
    results = thread.search("pizza fact", record_types=["memory"])
    costs = [estimate_tokens(r.formatted_content) for r in results]
    assert len(results) == 4
    capped = thread.search("pizza fact", record_types=["memory"],
                           token_budget=costs[0] + costs[1])
    assert [r.id for r in capped] == [r.id for r in results[:2]]
    assert thread.search("pizza fact", record_types=["memory"], token_budget=costs[0] - 1) == []
    soft = thread.search("pizza fact", record_types=["memory"], soft_token_budget=costs[0] + 1)
    assert [r.id for r in soft] == [r.id for r in results[:2]]
    assert len(thread.search("pizza fact", record_types=["memory"], token_budget=0)) == 4
    assert math.isclose(costs[0], len(results[0].formatted_content) / 3.5, abs_tol=1)


def test_linked_results_defaults_and_limits(client):
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_memory("pizza lover", memory_id="root")
    for i in range(3):
        thread.add_memory(f"detail {i}", memory_id=f"d{i}", memory_id_to_link="root",
                          link_type="refines")
    [root] = thread.search("pizza lover", record_types=["memory"], max_results=1)
    assert root.linked_results == []  # num_hops defaults to 0: direct results only
    [root] = thread.search("pizza lover", record_types=["memory"], max_results=1,
                           num_hops=1)
    assert sorted(linked.record.id for _, linked in root.linked_results) == ["d0", "d1", "d2"]
    assert {(r.source_record_id, r.relation_type, r.target_record_id)
            for r, _ in root.linked_results} == {
        (f"d{i}", "refines", "root") for i in range(3)}
    [root] = thread.search("pizza lover", max_results=1, num_hops=1, max_linked_results=0)
    assert root.linked_results == []
    [root] = thread.search("pizza lover", max_results=1, num_hops=1, max_linked_results=2)
    assert len(root.linked_results) == 2
    formatted = thread.search("pizza lover", max_results=1, num_hops=1)[0].formatted_content
    assert "<relation>is_refined_by</relation>" in formatted


def test_search_config_defaults_apply(client, embedder):
    configured = OracleAgentMemory(store=client.store, embedder=embedder,
                                   search_config=TopKMemorySearchConfig(max_results=2))
    for i in range(5):
        configured.add_memory(f"note {i}", user_id="u")
    assert len(configured.search("note", user_id="u")) == 2
    assert len(configured.search("note", user_id="u", max_results=4)) == 4


def test_search_result_properties(client):
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_memory("Tea <with> milk & \"sugar\"", memory_id="tea", metadata={"k": "v"},
                      timestamp="2026-01-01T00:00:00Z")
    [result] = thread.search("tea", max_results=1)
    assert (result.id, result.content, result.metadata, result.timestamp) == (
        "tea", 'Tea <with> milk & "sugar"', {"k": "v"}, "2026-01-01T00:00:00Z")
    assert 0 <= result.distance <= 2
    assert "&lt;with&gt; milk &amp; \"sugar\"" in result.formatted_content
    assert result.record.user_id == "u"


def test_thread_config_never_exports_messages(client):
    thread = OracleThread(client.store, client=client, thread_id="t", user_id="u",
                          agent_id="a", persist_messages_in_config=True, metadata={"k": 1})
    thread.add_messages([{"role": "user", "content": "secret"}])
    config = thread._to_config()
    assert config["settings"]["persist_messages_in_config"] is False
    assert "secret" not in str(config)
    assert (config["thread_id"], config["metadata"]) == ("t", {"k": 1})
    assert config["settings"]["context_card_token_limit"] == 100_000
