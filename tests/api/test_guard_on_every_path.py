"""Every public path to a store passes the end-user guard.

Before, the guard was put on inside the client's service: inside alice's security context
``client.list_memories(user_id="bob")`` was empty, but ``client.store.list(...)`` and a
standalone ``OracleDBMemoryStore`` returned bob's memory.
"""

from __future__ import annotations

import json

import pytest

from oracleagentmemory.core import OracleAgentMemory, OracleDBMemoryStore
from oracleagentmemory.core.deepsec import (
    LocalEndUserPrincipal,
    OracleMemoryEndUserSecurityContext,
    UserOwnRowsDeepDataSecurityPolicy,
    add_deep_data_security_policies,
    grant_agent_memory_policies,
)
from oracleagentmemory.core.store_arguments import service_for_store
from oracleagentmemory.stores.embedded import EmbeddedBackend

OWN = UserOwnRowsDeepDataSecurityPolicy()


@pytest.fixture
def location(embedder, tmp_path):
    path = str(tmp_path / "guarded.db")
    with OracleAgentMemory(connection=path, embedder=embedder) as client:
        client.create_thread(thread_id="tb", user_id="bob").add_memory(
            "bob's pin is 4321", memory_id="mb")
        client.create_thread(thread_id="ta", user_id="alice").add_memory(
            "alice likes tea", memory_id="ma")
    add_deep_data_security_policies(path, "APP", "AGENT_MEMORY", [OWN])
    grant_agent_memory_policies(path, "AGENT_MEMORY", "APP", [LocalEndUserPrincipal("alice")],
                                [OWN])
    return path


def test_the_client_the_store_a_standalone_store_and_a_bare_backend_all_hide_bobs_rows(
        location, embedder):
    client = OracleAgentMemory(connection=location, embedder=embedder)
    standalone = OracleDBMemoryStore(embedder, location)
    service = service_for_store(EmbeddedBackend(location))
    try:
        with OracleMemoryEndUserSecurityContext("alice"):
            assert [m.id for m in client.list_memories(user_id="bob")] == []
            assert client.store.list("memory", user_id="bob") == []
            assert standalone.list("memory", user_id="bob") == []
            assert service.backend.get_records({"user_id": "bob"}) == []
            # alice's own rows stay visible on every path
            assert [r.id for r in client.store.list("memory", user_id="alice")] == ["ma"]
            assert [r.id for r in standalone.list("memory", user_id="alice")] == ["ma"]
            assert standalone.delete("memory", "mb") == 0  # not alice's: nothing deleted
        # outside any security context the application sees everything
        assert [r.id for r in standalone.list("memory", user_id="bob")] == ["mb"]
    finally:
        client.close()
        standalone.close()
        service.backend.close()


def test_an_end_user_cannot_write_into_another_users_thread(location, embedder):
    # Writes checked the records' user_id, not the thread's owner, so
    # alice could add messages and memories to bob's thread from her own context.
    from oracleagentmemory.core import OracleThread

    with OracleAgentMemory(connection=location, embedder=embedder) as client:
        into_bobs = OracleThread(client.store, client=client, thread_id="tb", user_id="alice")
        with OracleMemoryEndUserSecurityContext("alice"):
            with pytest.raises(PermissionError, match="thread it does not own"):
                into_bobs.add_messages([{"role": "user", "content": "planted"}])
            with pytest.raises(PermissionError, match="thread it does not own"):
                into_bobs.add_memory("planted memory")
            own = OracleThread(client.store, client=client, thread_id="ta", user_id="alice")
            assert own.add_memory("alice's own note")  # her own thread still takes writes
        contents = [r["content"] for r in client.memory_service.backend.get_records(
            {"thread_id": "tb"})]
        assert "planted" not in contents and "planted memory" not in contents


def _cli(*argv: str) -> tuple[int, str]:
    import contextlib
    import io

    from oracleagentmemory import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(list(argv))
    return code, out.getvalue()


def test_every_public_path_to_a_store_passes_the_end_user_guard(location, embedder):
    # The client, a thread handle, client.store, a standalone store, a bare backend's
    # service, the CLI, MCP and the LangGraph store all open the store through the one
    # chain of stores.guarded: inside alice's context none of them shows bob's rows or
    # writes into bob's data. (Before the chain was assembled where a backend is opened,
    # client.store and a standalone store showed bob's memory.)
    import anyio
    from mcp import Client

    from oracleagentmemory.core import OracleThread
    from oracleagentmemory.integrations.langgraph_store import OracleAgentMemoryStore
    from oracleagentmemory.integrations.mcp_config import McpServerConfig
    from oracleagentmemory.integrations.mcp_server import build_server

    with OracleAgentMemory(connection=location, embedder=embedder) as client:
        graph = OracleAgentMemoryStore(client)
        graph.put(("users", "bob", "notes"), "pin", {"text": "bob's graph note"})
    client = OracleAgentMemory(connection=location, embedder=embedder)
    standalone = OracleDBMemoryStore(embedder, location)
    service = service_for_store(EmbeddedBackend(location))
    server = build_server(client, McpServerConfig(db=location, user_id="bob",
                                                  thread_ids=("tb",)))
    graph = OracleAgentMemoryStore(client)
    mcp_results = []

    async def mcp_session() -> None:
        async with Client(server) as mcp_client:
            for tool, arguments in (("list_memories", {}),
                                    ("get_messages", {"thread_id": "tb"}),
                                    ("add_memory", {"content": "planted by mcp"})):
                mcp_results.append(await mcp_client.call_tool(tool, arguments))

    try:
        with OracleMemoryEndUserSecurityContext("alice"):
            # the client, and a thread handle on bob's thread
            assert client.list_memories(user_id="bob") == []
            assert client.search("pin", user_id="bob") == []
            with pytest.raises(KeyError):
                client.get_thread("tb")
            handle = OracleThread(client.store, client=client, thread_id="tb", user_id="bob")
            assert handle.get_messages() == []
            with pytest.raises(PermissionError):
                handle.add_memory("planted by a thread handle")
            # client.store, a standalone store, a bare backend's service
            assert client.store.list("memory", user_id="bob") == []
            assert standalone.get("memory", "mb") is None
            with pytest.raises(PermissionError):
                standalone.add(["planted by a store"], "memory", user_ids=["bob"])
            assert service.backend.get_records({"user_id": "bob"}) == []
            # the CLI
            code, shown = _cli("threads", "--db", location, "--user-id", "bob", "--json")
            assert code == 0 and json.loads(shown) == []
            # MCP (a server configured for bob, used inside alice's context)
            anyio.run(mcp_session)
            listed, messages, added = mcp_results
            assert not listed.is_error and listed.structured_content["memories"] == []
            assert messages.is_error or messages.structured_content["messages"] == []
            assert added.is_error
            # LangGraph
            assert graph.get(("users", "bob", "notes"), "pin") is None
            with pytest.raises(PermissionError):
                graph.put(("users", "bob", "notes"), "planted", {"text": "planted"})
        # outside the context everything is there, and nothing was planted
        contents = {record["content"] for record in client.memory_service.backend.get_records(
            {"user_id": "bob"})}
        assert "bob's pin is 4321" in contents
        assert not {text for text in contents if "planted" in text}
        assert graph.get(("users", "bob", "notes"), "pin") is not None
    finally:
        client.close()
        standalone.close()
        service.backend.close()
