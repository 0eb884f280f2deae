"""The MCP server through real MCP client sessions: scopes come from the server's config.

The stdio tests launch the server as a subprocess (the way hosts run it); the rest use the
SDK's in-process client, its documented test path. No network is used.
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
TOOLS = {"add_messages", "add_memory", "update_memory", "delete_memory", "delete_thread",
         "search_memories", "get_context_card", "list_memories", "get_memory", "list_threads",
         "get_messages"}
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
            # A client trying to write for someone else: arguments the tool lacks are refused.
            outcome["impostor"] = error_text(await client.call_tool("add_memory", {
                "content": "Alice travels by plane", "user_id": "mallory", "agent_id": "evil",
            }))
            outcome["memory"] = structured(await client.call_tool("add_memory", {
                "content": "Alice travels by train", "memory_type": "preference",
                "metadata": {"topic": "travel"},
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
    assert "user_id" in outcome["impostor"] and "agent_id" in outcome["impostor"]
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
        assert "plane" not in str(client.memory_service.backend.get_records({}))


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


# -- what a model is told: descriptions, enums, annotations -------------------------------


def listed_tools(server: Any) -> list[Any]:
    tools: list[Any] = []

    async def session() -> None:
        async with Client(server) as mcp_client:
            tools.extend((await mcp_client.list_tools()).tools)

    run(session)
    return tools


def properties(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every property of a tool's input schema, nested models (``$defs``) included."""
    found = dict(schema.get("properties", {}))
    for name, definition in schema.get("$defs", {}).items():
        found.update({f"{name}.{key}": value
                      for key, value in definition.get("properties", {}).items()})
    return found


def test_every_parameter_is_described_and_closed_vocabularies_are_enums(
        client: OracleAgentMemory) -> None:
    config = McpServerConfig(db="unused", user_id="alice", session_thread=True)
    tools = {tool.name: tool for tool in listed_tools(build_server(client, config))}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and tool.description.strip()
        for name, schema in properties(tool.input_schema).items():
            assert schema.get("description"), f"{tool.name}.{name} has no description"
        assert tool.input_schema.get("additionalProperties") is False, tool.name
    filter_help = tools["search_memories"].input_schema["properties"]["metadata_filter"]
    assert "$array_contains" in filter_help["description"]
    assert '{"topic": "travel"}' in filter_help["description"]  # an example to copy
    role = properties(tools["add_messages"].input_schema)["MessageIn.role"]
    assert set(role["enum"]) == {"user", "assistant", "system", "tool"}
    assert set(tools["add_memory"].input_schema["properties"]["memory_type"]["enum"]) == {
        "memory", "fact", "preference", "guideline"}


def snapshot(client: OracleAgentMemory) -> Any:
    backend = client.memory_service.backend
    return backend.get_records({}), backend.list_links({})


def test_annotations_say_what_each_tool_does_to_the_store(client: OracleAgentMemory) -> None:
    """Read-only tools leave the store as it was; the others change it, and those marked
    destructive remove or overwrite something."""
    client.create_thread(thread_id="t-mine", user_id="alice", agent_id="bot").add_messages(
        [{"role": "user", "content": "I like trains"}])
    kept = client.add_memory("Alice likes trains", user_id="alice", agent_id="bot",
                             thread_id="t-mine")
    config = McpServerConfig(db="unused", user_id="alice", agent_id="bot",
                             thread_ids=("t-mine",), session_thread=True)
    server = build_server(client, config)
    tools = {tool.name: tool for tool in listed_tools(server)}
    calls = {
        "search_memories": {"query": "trains"}, "get_context_card": {"thread_id": "t-mine"},
        "list_memories": {}, "get_memory": {"memory_id": kept}, "list_threads": {},
        "get_messages": {"thread_id": "t-mine"},
        "add_messages": {"messages": [{"role": "user", "content": "hello"}]},
        "add_memory": {"content": "Alice has a cat"},
        "update_memory": {"memory_id": kept, "content": "Alice loves trains"},
        "delete_memory": {"memory_id": kept}, "delete_thread": {"thread_id": "t-mine"},
    }
    assert set(calls) == TOOLS
    for name, arguments in calls.items():
        before = snapshot(client)
        (result,) = call(server, (name, arguments))
        structured(result)
        after = snapshot(client)
        hints = tools[name].annotations
        assert hints is not None and hints.open_world_hint is False, name
        if hints.read_only_hint:
            assert after == before, f"{name} is annotated read-only but changed the store"
            continue
        assert after != before, f"{name} is not annotated read-only but changed nothing"
        before_ids = {record["id"] for record in before[0]}
        after_by_id = {record["id"]: record for record in after[0]}
        removed_or_changed = any(
            record["id"] not in after_by_id or after_by_id[record["id"]] != record
            for record in before[0] if record["record_type"] != "thread")
        assert hints.destructive_hint == removed_or_changed, name
        if not hints.destructive_hint:
            assert before_ids < set(after_by_id), name


# -- arguments a tool refuses ----------------------------------------------------------


def test_unknown_arguments_empty_message_lists_and_unknown_roles_are_refused(
        client: OracleAgentMemory) -> None:
    config = McpServerConfig(db="unused", user_id="alice", agent_id="bot",
                             thread_ids=("t-allowed",))
    before = snapshot(client)
    typo, empty, narrator, extra_field = call(
        build_server(client, config),
        ("search_memories", {"query": "trains", "metadata_filtre": {"topic": "x"}}),
        ("add_messages", {"messages": []}),
        ("add_messages", {"messages": [{"role": "narrator", "content": "Once upon a time"}]}),
        ("add_messages", {"messages": [{"role": "user", "content": "hi", "author": "x"}]}),
    )
    assert "metadata_filtre" in error_text(typo)
    assert "messages" in error_text(empty)
    assert "role" in error_text(narrator)
    assert "author" in error_text(extra_field)
    assert snapshot(client) == before


# -- reads create nothing; memories and threads in scope -------------------------------


def test_reads_never_create_a_thread(client: OracleAgentMemory) -> None:
    config = McpServerConfig(db="unused", user_id="alice", agent_id="bot",
                             thread_ids=("t-later",), session_thread=True)
    server = build_server(client, config)
    before = snapshot(client)
    card, later_card, search, threads, messages, listed = call(
        server,
        ("get_context_card", {}), ("get_context_card", {"thread_id": "t-later"}),
        ("search_memories", {"query": "trains", "thread_id": "t-later"}),
        ("list_threads", {}), ("get_messages", {}), ("list_memories", {"thread_id": "t-later"}),
    )
    assert snapshot(client) == before
    session = structured(card)["thread_id"]
    assert structured(card)["context_card"] == structured(later_card)["context_card"] == ""
    assert structured(search)["results"] == [] and structured(listed)["memories"] == []
    assert structured(messages) == {"thread_id": session, "messages": []}
    assert {(t["thread_id"], t["exists"]) for t in structured(threads)["threads"]} == {
        ("t-later", False), (session, False)}

    added, threads_after = call(server, ("add_messages", {
        "messages": [{"role": "user", "content": "hello"}]}), ("list_threads", {}))
    assert structured(added)["thread_id"] == session  # the same session thread, now written
    thread = client.get_thread(session)
    assert (thread.user_id, thread.agent_id) == ("alice", "bot")
    assert {(t["thread_id"], t["exists"], t["messages"])
            for t in structured(threads_after)["threads"]} == {
        ("t-later", False, 0), (session, True, 1)}


def test_memories_in_scope_can_be_listed_read_corrected_and_forgotten(
        client: OracleAgentMemory) -> None:
    bob_memory = client.list_memories(user_id="bob", thread_id=None)[0].id
    private = client.list_memories(user_id="alice", thread_id="t-private")[0].id
    config = McpServerConfig(db="unused", user_id="alice", agent_id="bot",
                             thread_ids=("t-allowed",))
    server = build_server(client, config)
    added, threaded = call(
        server,
        ("add_memory", {"content": "Alice is vegetarian", "memory_type": "fact",
                        "metadata": {"topic": "food"}}),
        ("add_memory", {"content": "Alice wants a window seat", "thread_id": "t-allowed",
                        "memory_type": "preference"}),
    )
    memory_id = structured(added)["memory_id"]
    listed, facts, food, got, updated, reread = call(
        server,
        ("list_memories", {}), ("list_memories", {"memory_types": ["fact"]}),
        ("list_memories", {"metadata_filter": {"topic": "food"}}),
        ("get_memory", {"memory_id": memory_id}),
        ("update_memory", {"memory_id": memory_id, "content": "Alice is vegan",
                           "metadata": {"topic": "food", "since": 2026}}),
        ("get_memory", {"memory_id": memory_id}),
    )
    contents = [m["content"] for m in structured(listed)["memories"]]
    assert contents == ["Alice is vegetarian", "Alice wants a window seat"]
    assert [m["content"] for m in structured(facts)["memories"]] == ["Alice is vegetarian"]
    assert [m["id"] for m in structured(food)["memories"]] == [memory_id]
    assert structured(got)["memory"]["memory_type"] == "fact"
    assert structured(updated)["memory"]["content"] == "Alice is vegan"
    assert structured(reread)["memory"]["metadata"] == {"topic": "food", "since": 2026}
    # the corrected text is what search finds now
    assert client.search("vegan", user_id="alice", record_types=["fact"])[0].id == memory_id

    refused = call(server, *[(tool, {"memory_id": other, **extra})
                             for other in (bob_memory, private, "no-such-memory")
                             for tool, extra in (("get_memory", {}),
                                                 ("update_memory", {"content": "x"}))])
    for result in refused:
        assert "in this server's scope" in error_text(result)
    not_deleted = call(server, *[("delete_memory", {"memory_id": other})
                                 for other in (bob_memory, private, "no-such-memory")])
    assert [structured(result)["deleted"] for result in not_deleted] == [False] * 3
    def stored(memory_id: str) -> str:
        return client.memory_service.backend.get_records({"ids": [memory_id]})[0]["content"]

    assert stored(bob_memory) == "Bob likes trains"
    assert stored(private) == "Alice private diary about trains to Lyon"

    deleted, gone, again = call(server, ("delete_memory", {"memory_id": memory_id}),
                                ("get_memory", {"memory_id": memory_id}),
                                ("delete_memory", {"memory_id": memory_id}))
    assert structured(deleted) == {"memory_id": memory_id, "deleted": True}
    assert "in this server's scope" in error_text(gone)
    # annotated idempotent: a repeat changes nothing and is not an error
    assert structured(again) == {"memory_id": memory_id, "deleted": False}
    assert structured(threaded)["thread_id"] == "t-allowed"


def test_a_thread_in_scope_can_be_read_and_deleted_and_no_other(
        client: OracleAgentMemory) -> None:
    config = McpServerConfig(db="unused", user_id="alice", agent_id="bot",
                             thread_ids=("t-allowed", "t-bob"))
    server = build_server(client, config)
    messages, deleted, again, private, bob = call(
        server, ("get_messages", {"thread_id": "t-allowed", "last": 5}),
        ("delete_thread", {"thread_id": "t-allowed"}),
        ("delete_thread", {"thread_id": "t-allowed"}),
        ("delete_thread", {"thread_id": "t-private"}),
        ("delete_thread", {"thread_id": "t-bob"}),
    )
    assert [m["content"] for m in structured(messages)["messages"]] == [
        "I am planning a trip to Lyon"]
    assert structured(deleted) == {"thread_id": "t-allowed", "deleted": True}
    assert structured(again) == {"thread_id": "t-allowed", "deleted": False}
    assert "outside this server's scope" in error_text(private)
    assert "belongs to another user or agent" in error_text(bob)
    remaining = {r["id"] for r in client.memory_service.backend.get_records(
        {"record_types": ["thread"]})}
    assert remaining == {"t-private", "t-bob"}


# -- startup failures reach the client --------------------------------------------------


def stdio(*flags: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "oracleagentmemory", "mcp", *flags],
        env={"PYTHONPATH": os.pathsep.join([str(REPO / "python"), str(REPO)])},
        cwd=str(REPO))


def failed_start(params: StdioServerParameters) -> tuple[str, set[str], str]:
    """(instructions, tool names, the text a tool call answers) of a server that failed."""
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with Client(params) as mcp_client:
            seen["instructions"] = mcp_client.instructions or ""
            seen["tools"] = {tool.name for tool in (await mcp_client.list_tools()).tools}
            seen["answer"] = error_text(await mcp_client.call_tool(
                "search_memories", {"query": "trains"}))

    run(session)
    return seen["instructions"], seen["tools"], seen["answer"]


@pytest.mark.parametrize(("flags", "reason"), [
    (("--db", "/no/such/dir/memory.db", "--user-id", "alice", "--embedder", HASHING),
     "cannot be opened"),
    (("--db", "memory.db", "--embedder", HASHING), "user_id"),
    (("--db", "memory.db", "--user-id", "alice", "--embedder", "no_such_module:factory"),
     "no_such_module"),
    (("--db", "memory.db", "--user-id", "alice", "--max-results", "many"),
     "--max-results"),
], ids=["store cannot be opened", "no user", "embedder cannot be imported", "wrong flag"])
def test_a_server_that_cannot_start_tells_the_client_why(flags: tuple[str, ...],
                                                         reason: str) -> None:
    instructions, tools, answer = failed_start(stdio(*flags))
    assert reason in instructions and "could not start" in instructions
    assert tools == TOOLS
    assert reason in answer and "could not start" in answer


# -- an Oracle store (--dsn) --------------------------------------------------------------


def test_config_takes_exactly_one_store() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        McpServerConfig(user_id="alice")
    with pytest.raises(ValueError, match="exactly one"):
        McpServerConfig(db="x.db", dsn="db/svc", db_user="app", user_id="alice")
    with pytest.raises(ValueError, match="db_user"):
        McpServerConfig(dsn="db/svc", user_id="alice")
    flags = McpServerConfig.from_args(
        ["--dsn", "db:1521/svc", "--db-user", "app", "--store-id", "MEM", "--user-id", "alice"],
        {"ORACLEAGENTMEMORY_MCP_PASSWORD_ENV": "APP_PASSWORD"})
    assert (flags.db, flags.dsn, flags.db_user, flags.store_id, flags.password_env) == (
        None, "db:1521/svc", "app", "MEM", "APP_PASSWORD")


def test_an_oracle_store_is_served_with_dsn(monkeypatch: pytest.MonkeyPatch) -> None:
    oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")
    from oracleagentmemory.integrations.mcp_server import open_client
    from tests.support.fake_oracledb import FakeConnection

    thread = {"id": "t1", "record_type": "thread", "user_id": "alice", "agent_id": None,
              "created_at": "2026-05-01T10:00:00.000000Z", "metadata": None}
    connection = FakeConnection(DESCRIBE={"backend": "oracle", "store_id": "MEM"},
                                GET_RECORDS=[thread], LIST_RECORDS=[thread])
    connected: list[dict[str, Any]] = []
    closed: list[bool] = []
    connection.close = lambda: closed.append(True)

    def connect(**kwargs: Any) -> FakeConnection:
        connected.append(kwargs)
        return connection

    monkeypatch.setattr(oracledb, "connect", connect)
    config = McpServerConfig(dsn="db:1521/svc", db_user="app", password_env="APP_PASSWORD",
                             store_id="MEM", user_id="alice", thread_ids=("t1",),
                             embedder=HASHING)
    monkeypatch.delenv("APP_PASSWORD", raising=False)
    with pytest.raises(ValueError, match="APP_PASSWORD"):
        open_client(config)  # a server cannot prompt for it: stdin is the protocol
    assert connected == []

    monkeypatch.setenv("APP_PASSWORD", "secret")
    client, opened = open_client(config)
    assert opened is connection
    assert connected == [{"user": "app", "password": "secret", "dsn": "db:1521/svc"}]
    call(build_server(client, config), ("list_threads", {}))
    assert any("MEM." in block for block, _ in connection.calls)
    client.close()
    assert closed == []  # the connection is the caller's to close, after the client


# -- what a model reads: version, descriptions, argument mistakes -----------------------


def test_the_server_names_its_version_and_its_descriptions_read_as_prose(
        client: OracleAgentMemory) -> None:
    from oracleagentmemory import __version__

    config = McpServerConfig(db="unused", user_id="alice", session_thread=True)
    server = build_server(client, config)
    versions: list[str] = []

    async def session() -> None:
        async with Client(server) as mcp_client:
            versions.append(mcp_client.server_info.version)

    run(session)
    assert versions == [__version__] and __version__
    for tool in listed_tools(server):
        assert "\n" not in tool.description and "  " not in tool.description, tool.name
    search = {tool.name: tool for tool in listed_tools(server)}["search_memories"]
    assert "distance" in search.description


@pytest.mark.parametrize(("arguments", "named"), [
    ({"query": "trains", "max_results": 500}, "max_results: Input should be less than or "
                                              "equal to 100"),
    ({"query": "trains", "metadata_filtre": {"topic": "x"}},
     "metadata_filtre: not an argument of this tool (it takes query, max_results, "),
    ({}, "query: Field required"),
])
def test_an_argument_mistake_is_one_line_naming_the_argument(
        client: OracleAgentMemory, arguments: dict[str, Any], named: str) -> None:
    config = McpServerConfig(db="unused", user_id="alice", session_thread=True)
    (result,) = call(build_server(client, config), ("search_memories", arguments))
    text = error_text(result)
    assert named in text
    assert "\n" not in text and "http" not in text and "pydantic" not in text


def test_delete_thread_defaults_to_the_session_thread_like_the_other_tools(
        client: OracleAgentMemory) -> None:
    config = McpServerConfig(db="unused", user_id="alice", agent_id="bot",
                             session_thread=True)
    server = build_server(client, config)
    added, deleted, again = call(
        server, ("add_messages", {"messages": [{"role": "user", "content": "hello"}]}),
        ("delete_thread", {}), ("delete_thread", {}))
    session = structured(added)["thread_id"]
    assert structured(deleted) == {"thread_id": session, "deleted": True}
    assert structured(again) == {"thread_id": session, "deleted": False}
