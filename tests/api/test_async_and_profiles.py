"""Async twins do not block the event loop; profiles are searchable and cascade."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

from oracleagentmemory.core import OracleAgentMemory
from tests.support.embedders import HashingEmbedder


class GatedEmbedder(HashingEmbedder):
    """Blocks inside embed() until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.armed = False

    def embed(self, texts, *, is_query: bool = False) -> np.ndarray:
        if self.armed:
            self.entered.set()
            assert self.gate.wait(10), "the gate was never opened"
        return super().embed(texts, is_query=is_query)


def test_async_twin_leaves_the_event_loop_free():
    embedder = GatedEmbedder()
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    embedder.armed = True

    async def scenario() -> str:
        pending = asyncio.create_task(thread.add_memory_async("blocked write", memory_id="m"))
        # The loop keeps running while the write waits inside the embedder...
        await asyncio.wait_for(asyncio.to_thread(embedder.entered.wait, 10), timeout=10)
        assert not pending.done()
        embedder.gate.set()  # ...so this coroutine can release it.
        return await asyncio.wait_for(pending, timeout=10)

    assert asyncio.run(scenario()) == "m"
    client.close()


def test_async_twins_raise_the_same_errors(embedder):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    thread = client.create_thread(thread_id="t")
    with pytest.raises(ValueError, match="max_results"):
        asyncio.run(thread.search_async("x", max_results=0))
    with pytest.raises(ValueError, match="user_id"):
        asyncio.run(client.search_async("x"))
    with pytest.raises(KeyError):
        asyncio.run(thread.get_message_async("missing"))
    with pytest.raises(TypeError, match="unexpected keyword"):
        asyncio.run(thread.add_memory_async("x", importance=1))


def test_many_concurrent_async_calls_all_complete(embedder):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")

    async def scenario() -> list[str]:
        return await asyncio.gather(*(thread.add_memory_async(f"note {i}", memory_id=f"n{i}")
                                      for i in range(50)))

    assert sorted(asyncio.run(scenario())) == sorted(f"n{i}" for i in range(50))
    assert len(thread.search("note", max_results=100)) == 50


def test_profiles_are_searchable_records_and_cascade(embedder):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    assert client.add_user("u1", "Alice likes concise answers", metadata={"plan": "pro"}) == "u1"
    assert client.add_agent("a1", "Travel planning assistant") == "a1"
    thread = client.create_thread(thread_id="t1", user_id="u1", agent_id="a1")
    thread.add_messages([{"role": "user", "content": "hello"}])
    thread.add_memory("Alice flies economy")
    client.add_memory("unrelated", user_id="u2")

    [profile] = client.search("concise answers", user_id="u1", record_types=["user_profile"])
    assert (profile.id, profile.metadata) == ("u1", {"plan": "pro"})
    [agent] = client.search("travel assistant", user_id=None, agent_id="a1",
                            record_types=["agent_profile"])
    assert agent.id == "a1"

    assert client.delete_user("u1") == 1
    assert client.delete_user("u1") == 0
    with pytest.raises(KeyError):
        client.get_thread("t1")
    remaining = [r["id"] for r in client.memory_service.backend.get_records({})]
    assert len(remaining) == 2 and "a1" in remaining  # the agent profile and u2's memory
    assert client.delete_agent("a1") == 1
