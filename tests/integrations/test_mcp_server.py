"""The MCP server through real MCP client sessions: scopes come from the server's config.

One test launches the server as a subprocess over stdio (the way hosts run it); the rest
use the SDK's in-process client, its documented test path. No network is used.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip(
    "mcp.server.mcpserver",
    reason="MCP server not tested: install the MCP Python SDK 2.x (pip install 'mcp>=2.3,<3')",
)

from mcp import Client, ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from oracleagentmemory.core import OracleAgentMemory  # noqa: E402
from oracleagentmemory.integrations.mcp_config import McpServerConfig  # noqa: E402
from oracleagentmemory.integrations.mcp_server import build_server  # noqa: E402
from tests.support.embedders import HashingEmbedder  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
TOOLS = {"add_messages", "add_memory", "search_memories", "get_context_card"}
HASHING = "tests.support.embedders:HashingEmbedder"


def seed(db: Path) -> None:
    """Alice's allowed and private threads, and Bob's thread and memory, before serving."""
    with OracleAgentMemory(connection=str(db), embedder=HashingEmbedder()) as client:
        allowed = client.create_thread(thread_id="t-allowed", user_id="alice", agent_id="bot")
        allowed.add_messages([{"role": "user", "content": "I am planning a trip to Lyon"}])
        client.create_thread(thread_id="t-private", user_id="alice", agent_id="bot") \
            .add_memory("Alice private diary about trains to Lyon")
        bob = client.create_thread(thread_id="t-bob", user_id="bob", agent_id="bot")
        bob.add_memory("Bob secret about trains to Lyon")
        client.add_memory("Bob likes trains", user_id="bob", agent_id="bot")


def run(scenario: Any) -> None:
    """Run an async scenario with a deadline, so a hung session fails instead of blocking."""

    async def bounded() -> None:
        with anyio.fail_after(30):
            await scenario()

    anyio.run(bounded)


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return result.structured_content


def error_text(result: Any) -> str:
    assert result.is_error
    return " ".join(block.text for block in result.content)


def test_stdio_session_end_to_end(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    seed(db)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "oracleagentmemory.integrations.mcp_server", "--db", str(db),
              "--user-id", "alice", "--agent-id", "bot", "--thread-id", "t-allowed",
              "--thread-id", "t-bob", "--session-thread", "--embedder", HASHING],
        env={"PYTHONPATH": os.pathsep.join([str(REPO / "python"), str(REPO)])},
        cwd=str(REPO),
    )
    outcome: dict[str, Any] = {}

    async def session() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            tools = (await client.list_tools()).tools
            outcome["tools"] = {tool.name: tool.input_schema for tool in tools}
            outcome["messages"] = structured(await client.call_tool("add_messages", {
                "messages": [{"role": "user", "content": "I only travel by train"},
                             {"role": "assistant", "content": "Noted: trains only."}],
            }))
            # A client trying to write for someone else: the extra argument has no effect.
            outcome["memory"] = structured(await client.call_tool("add_memory", {
                "content": "Alice travels by train", "memory_type": "preference",
                "metadata": {"topic": "travel"}, "user_id": "mallory", "agent_id": "evil",
            }))
            outcome["search"] = structured(await client.call_tool("search_memories", {
                "query": "trains to Lyon", "max_results": 10,
            }))
            outcome["filtered"] = structured(await client.call_tool("search_memories", {
                "query": "trains", "metadata_filter": {"topic": "travel"},
            }))
            outcome["card"] = structured(await client.call_tool("get_context_card", {}))
            outcome["allowed_card"] = structured(await client.call_tool(
                "get_context_card", {"thread_id": "t-allowed"}))
            outcome["private"] = error_text(await client.call_tool(
                "add_messages", {"thread_id": "t-private",
                                 "messages": [{"role": "user", "content": "hi"}]}))
            outcome["bob"] = error_text(await client.call_tool(
                "get_context_card", {"thread_id": "t-bob"}))
            outcome["bad_filter"] = error_text(await client.call_tool(
                "search_memories", {"query": "x", "metadata_filter": {"$bogus": 1}}))

    run(session)

    assert set(outcome["tools"]) == TOOLS
    for schema in outcome["tools"].values():
        assert not {"user_id", "agent_id"} & set(schema.get("properties", {}))

    session_thread = outcome["messages"]["thread_id"]
    assert session_thread not in {"t-allowed", "t-bob", "t-private"}
    assert len(outcome["messages"]["message_ids"]) == 2
    assert outcome["memory"]["thread_id"] is None

    contents = [hit["content"] for hit in outcome["search"]["results"]]
    assert "Alice travels by train" in contents
    assert not any("Bob" in text or "private" in text for text in contents)
    assert [hit["content"] for hit in outcome["filtered"]["results"]] == ["Alice travels by train"]

    card = outcome["card"]
    assert card["thread_id"] == session_thread
    assert "I only travel by train" in card["context_card"]
    assert "Alice travels by train" in card["context_card"]
    assert "private diary" not in card["context_card"]
    assert "Lyon" in outcome["allowed_card"]["context_card"]  # the seeded message

    assert "t-private" in outcome["private"] and "outside this server's scope" in outcome["private"]
    assert "belongs to another user or agent" in outcome["bob"]
    assert "$bogus" in outcome["bad_filter"]

    with OracleAgentMemory(connection=str(db), embedder=HashingEmbedder()) as client:
        stored = client.memory_service.backend.get_records(
            {"ids": [outcome["memory"]["memory_id"]]})
        assert [(r["user_id"], r["agent_id"], r["record_type"]) for r in stored] == [
            ("alice", "bot", "preference")]
        thread = client.get_thread(session_thread)
        assert (thread.user_id, thread.agent_id) == ("alice", "bot")
        assert client.memory_service.backend.list_messages("t-private", None, None) == []


@pytest.fixture
def client(tmp_path: Path):
    db = tmp_path / "memory.db"
    seed(db)
    with OracleAgentMemory(connection=str(db), embedder=HashingEmbedder()) as opened:
        yield opened


def call(server: Any, *steps: tuple[str, dict[str, Any]]) -> list[Any]:
    """Run tool calls in one in-process client session and return the raw results."""
    results: list[Any] = []

    async def session() -> None:
        async with Client(server) as mcp_client:
            for name, arguments in steps:
                results.append(await mcp_client.call_tool(name, arguments))

    run(session)
    return results


def test_memory_only_server_refuses_thread_tools(client: OracleAgentMemory) -> None:
    config = McpServerConfig(db="unused", user_id="alice", agent_id="bot")
    added, card, threaded = call(
        build_server(client, config),
        ("add_memory", {"content": "Alice prefers aisle seats"}),
        ("get_context_card", {}),
        ("add_memory", {"content": "x", "thread_id": "t-allowed"}),
    )
    assert structured(added)["thread_id"] is None
    assert "no thread in scope" in error_text(card)
    assert "outside this server's scope" in error_text(threaded)


def test_single_allowed_thread_is_the_default(client: OracleAgentMemory) -> None:
    config = McpServerConfig(db="unused", user_id="alice", agent_id="bot",
                             thread_ids=("t-allowed",))
    added, memory, search, scoped = call(
        build_server(client, config),
        ("add_messages", {"messages": [{"role": "user", "content": "window seat please",
                                        "metadata": {"lang": "en"}}]}),
        ("add_memory", {"content": "Alice wants window seats", "thread_id": "t-allowed"}),
        ("search_memories", {"query": "window seats", "thread_id": "t-allowed"}),
        ("search_memories", {"query": "diary trains", "max_results": 50}),
    )
    assert structured(added)["thread_id"] == "t-allowed"
    assert structured(memory)["thread_id"] == "t-allowed"
    hits = structured(search)["results"]
    assert hits[0]["content"] == "Alice wants window seats"
    assert {hit["thread_id"] for hit in hits} == {"t-allowed"}
    # The private thread's memory matches the query best, but it is out of scope.
    assert any("diary" in hit.content for hit in client.search("diary trains", user_id="alice"))
    assert all("diary" not in hit["content"] for hit in structured(scoped)["results"])
    messages = client.get_thread("t-allowed").get_messages()
    assert messages[-1].content == "window seat please"
    assert messages[-1].metadata == {"lang": "en"}


def test_configured_thread_is_created_for_the_configured_user(
        client: OracleAgentMemory) -> None:
    config = McpServerConfig(db="unused", user_id="carol", thread_ids=("t-new", "t-other"))
    ambiguous, added = call(
        build_server(client, config),
        ("add_messages", {"messages": [{"role": "user", "content": "hello"}]}),
        ("add_messages", {"thread_id": "t-new",
                          "messages": [{"role": "user", "content": "hello"}]}),
    )
    assert "thread_id is required" in error_text(ambiguous)
    assert structured(added)["thread_id"] == "t-new"
    thread = client.get_thread("t-new")
    assert (thread.user_id, thread.agent_id) == ("carol", None)


def test_search_results_are_capped_by_the_server(client: OracleAgentMemory) -> None:
    for index in range(6):
        client.add_memory(f"Alice note {index} about trains", user_id="alice", agent_id="bot")
    config = McpServerConfig(db="unused", user_id="alice", agent_id="bot", max_results=3)
    (search,) = call(build_server(client, config),
                     ("search_memories", {"query": "trains", "max_results": 50}))
    assert len(structured(search)["results"]) == 3


def test_config_from_env_and_flags() -> None:
    env = {
        "ORACLEAGENTMEMORY_MCP_DB": "env.db", "ORACLEAGENTMEMORY_MCP_USER_ID": "alice",
        "ORACLEAGENTMEMORY_MCP_THREAD_IDS": "t1, t2,t1",
        "ORACLEAGENTMEMORY_MCP_SESSION_THREAD": "true",
    }
    from_env = McpServerConfig.from_env(env)
    assert (from_env.db, from_env.user_id, from_env.agent_id) == ("env.db", "alice", None)
    assert from_env.thread_ids == ("t1", "t2") and from_env.session_thread
    flags = McpServerConfig.from_args(["--db", "flag.db", "--agent-id", "bot",
                                       "--thread-id", "t9", "--max-results", "4"], env)
    assert (flags.db, flags.user_id, flags.agent_id, flags.thread_ids, flags.max_results) == (
        "flag.db", "alice", "bot", ("t9",), 4)
    with pytest.raises(ValueError, match="user_id"):
        McpServerConfig.from_args(["--db", "x.db"], {})
    with pytest.raises(ValueError, match="SESSION_THREAD"):
        McpServerConfig.from_env({**env, "ORACLEAGENTMEMORY_MCP_SESSION_THREAD": "maybe"})
    with pytest.raises(ValueError):
        from_env.user_id = "mallory"  # frozen: scopes cannot change after loading
    assert json.loads(from_env.model_dump_json())["thread_ids"] == ["t1", "t2"]
