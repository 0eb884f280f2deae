"""The LangGraph store's TTL (LangGraph's ``TTLConfig``: default, refresh on read, sweep)
and its bookkeeping, which no reader outside the LangGraph view sees.

Time is the store's clock and the LangGraph store's clock, both set by the test: nothing
sleeps. ``InMemoryStore`` has no TTL, so the expected behaviour is LangGraph's documented
one: an expired item is gone for reads, a read with ``refresh_ttl`` restarts its time, a
sweep removes it for good.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

pytest.importorskip(
    "langgraph.store.base",
    reason="LangGraph store not tested: install LangGraph (pip install 'langgraph>=1.0')",
)

from oracleagentmemory.core import OracleAgentMemory  # noqa: E402
from oracleagentmemory.integrations import langgraph_store  # noqa: E402
from oracleagentmemory.integrations.langgraph_store import OracleAgentMemoryStore  # noqa: E402
from oracleagentmemory.transfer import export_lines  # noqa: E402
from tests.support.clock import Clock, clocked_client  # noqa: E402

ALICE = ("users", "alice", "memories")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(langgraph_store, "utc_now", clock)
    return clock


@pytest.fixture
def client(clock: Clock):
    with clocked_client(clock) as opened:
        yield opened


def test_an_item_expires_after_its_ttl(client: OracleAgentMemory, clock: Clock) -> None:
    store = OracleAgentMemoryStore(client)
    store.put(ALICE, "short", {"text": "a note about trains"}, ttl=10)
    store.put(ALICE, "kept", {"text": "another note about trains"})
    clock.advance(9)
    assert store.get(ALICE, "short", refresh_ttl=False) is not None
    clock.advance(2)
    assert store.get(ALICE, "short") is None
    assert [item.key for item in store.search(ALICE)] == ["kept"]
    assert [item.key for item in store.search(ALICE, query="trains")] == ["kept"]
    assert store.get(ALICE, "kept") is not None


def test_a_read_restarts_the_time_unless_asked_not_to(client: OracleAgentMemory,
                                                      clock: Clock) -> None:
    store = OracleAgentMemoryStore(client)
    store.put(ALICE, "read", {"text": "first note, split", "more": "second text"}, ttl=10,
              index=["text", "more"])  # two records: both must get the new time
    store.put(ALICE, "searched", {"text": "a note about trains"}, ttl=10)
    store.put(ALICE, "unrefreshed", {"text": "untouched note"}, ttl=10)
    before = store.get(ALICE, "read", refresh_ttl=False)
    clock.advance(8)
    assert store.get(ALICE, "read") is not None
    assert [i.key for i in store.search(ALICE, query="trains", limit=1)] == ["searched"]
    assert store.get(ALICE, "unrefreshed", refresh_ttl=False) is not None
    clock.advance(8)  # 16 minutes after the put, 8 after the reads
    assert store.get(ALICE, "unrefreshed") is None
    read = store.get(ALICE, "read", refresh_ttl=False)
    assert read is not None and store.get(ALICE, "searched", refresh_ttl=False) is not None
    assert read.updated_at == before.updated_at  # a refresh is not an update of the item
    # its second record lives on too: the only text with these words ranks the item first
    [best] = store.search(ALICE, query="second text", limit=1, refresh_ttl=False)
    assert best.key == "read" and best.score is not None and best.score > 0.99
    clock.advance(11)
    assert store.get(ALICE, "read") is None and store.get(ALICE, "searched") is None


def test_the_ttl_config_gives_the_default_and_the_refresh_policy(
        client: OracleAgentMemory, clock: Clock) -> None:
    store = OracleAgentMemoryStore(client, ttl={"default_ttl": 5, "refresh_on_read": False})
    store.put(ALICE, "default", {"text": "x"})
    store.put(ALICE, "forever", {"text": "y"}, ttl=None)
    clock.advance(4)
    assert store.get(ALICE, "default") is not None  # no refresh by default
    assert store.get(ALICE, "default", refresh_ttl=True) is not None  # ... unless asked
    clock.advance(4)
    assert store.get(ALICE, "default") is not None
    clock.advance(2)
    assert store.get(ALICE, "default") is None
    clock.advance(60 * 24 * 365)
    assert store.get(ALICE, "forever") is not None


def test_a_sweep_removes_expired_records_for_good(client: OracleAgentMemory,
                                                  clock: Clock) -> None:
    store = OracleAgentMemoryStore(client)
    store.put(ALICE, "gone", {"text": "a", "more": "b"}, ttl=1, index=["text", "more"])
    store.put(ALICE, "kept", {"text": "c"})
    clock.advance(2)
    assert store.sweep_ttl() == 2  # both records of the expired item
    assert store.sweep_ttl() == 0
    assert [item.key for item in store.search(ALICE)] == ["kept"]


def test_the_sweeper_thread_sweeps_until_stopped(client: OracleAgentMemory, clock: Clock,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    store = OracleAgentMemoryStore(client)
    store.put(ALICE, "gone", {"text": "a"}, ttl=1)
    clock.advance(2)
    swept: list[int] = []
    first_sweep = threading.Event()
    sweep = store.sweep_ttl

    def observed() -> int:
        swept.append(sweep())
        first_sweep.set()
        return swept[-1]

    monkeypatch.setattr(store, "sweep_ttl", observed)
    with pytest.raises(ValueError, match="sweep_interval_minutes"):
        store.start_ttl_sweeper()
    done = store.start_ttl_sweeper(sweep_interval_minutes=60)
    assert first_sweep.wait(timeout=60), "the sweeper did not sweep when started"
    assert store.stop_ttl_sweeper(timeout=60)
    assert done.done() and swept[0] == 1
    assert store.stop_ttl_sweeper()  # nothing left to stop


def test_a_sweep_interval_in_the_config_starts_the_sweeper(client: OracleAgentMemory) -> None:
    store = OracleAgentMemoryStore(client, ttl={"sweep_interval_minutes": 60})
    assert store.stop_ttl_sweeper(timeout=60)


# -- the bookkeeping stays in the LangGraph view ----------------------------------------


def test_other_readers_see_the_value_but_no_bookkeeping(client: OracleAgentMemory) -> None:
    store = OracleAgentMemoryStore(client)
    store.put(ALICE, "trip", {"text": "Alice takes the train to Rome", "topic": "travel"},
              ttl=60)
    value = {"text": "Alice takes the train to Rome", "topic": "travel"}

    [found] = client.search("train to Rome", user_id="alice")
    assert found.metadata == {"value": value}
    [listed] = client.list_memories(user_id="alice")
    assert listed.metadata == {"value": value}
    [filtered] = client.search("Rome", user_id="alice",
                               metadata_filter={"value": {"topic": "travel"}})
    assert filtered.id == found.id

    from oracleagentmemory.integrations.mcp_config import McpServerConfig
    pytest.importorskip("mcp.server.mcpserver")
    from oracleagentmemory.integrations.mcp_server import build_server
    from tests.integrations.test_mcp_server import call, structured
    server = build_server(client, McpServerConfig(db="unused", user_id="alice"))
    searched, memory = call(server, ("search_memories", {"query": "train to Rome"}),
                            ("get_memory", {"memory_id": found.id}))
    assert structured(searched)["results"][0]["metadata"] == {"value": value}
    assert structured(memory)["memory"]["metadata"] == {"value": value}

    # ... and an export, which must restore the item, keeps it
    assert '"langgraph"' in "\n".join(export_lines(client))


def test_a_metadata_update_from_outside_keeps_the_item(client: OracleAgentMemory) -> None:
    store = OracleAgentMemoryStore(client)
    store.put(ALICE, "trip", {"text": "Alice takes the train"})
    [memory] = client.list_memories(user_id="alice")
    client.update_memory(memory.id, metadata={"value": {"text": "Alice takes the bus"},
                                              "checked": True})
    item: Any = store.get(ALICE, "trip")
    assert item is not None and item.value == {"text": "Alice takes the bus"}
    [memory] = client.list_memories(user_id="alice")
    assert memory.metadata == {"value": {"text": "Alice takes the bus"}, "checked": True}
