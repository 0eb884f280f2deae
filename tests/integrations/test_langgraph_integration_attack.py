"""Defects an attack on the LangGraph store found (embedded backend); each failed before."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip(
    "langgraph.store.base",
    reason="LangGraph store not tested: install LangGraph (pip install 'langgraph>=1.0')",
)

from oracleagentmemory.core import OracleAgentMemory  # noqa: E402
from oracleagentmemory.core.deepsec import (  # noqa: E402
    LocalEndUserPrincipal,
    OracleMemoryEndUserSecurityContext,
    UserOwnRowsDeepDataSecurityPolicy,
    add_deep_data_security_policies,
    grant_agent_memory_policies,
)
from oracleagentmemory.errors import AccessDeniedError  # noqa: E402
from oracleagentmemory.integrations.langgraph_namespaces import envelope  # noqa: E402
from oracleagentmemory.integrations.langgraph_store import OracleAgentMemoryStore  # noqa: E402
from tests.support.embedders import HashingEmbedder  # noqa: E402

BOB = ("users", "bob", "notes")


@pytest.fixture
def guarded_path(tmp_path: Path) -> str:
    path = str(tmp_path / "guarded.db")
    with OracleAgentMemory(connection=path, embedder=HashingEmbedder()) as client:
        OracleAgentMemoryStore(client).put(BOB, "pin", {"text": "bob's pin is 4321"})
    own = UserOwnRowsDeepDataSecurityPolicy()
    add_deep_data_security_policies(path, "APP", "AGENT_MEMORY", [own])
    grant_agent_memory_policies(path, "AGENT_MEMORY", "APP", [LocalEndUserPrincipal("alice")],
                                [own])
    return path


def test_async_calls_keep_the_end_users_security_context(guarded_path: str) -> None:
    # abatch ran batch through loop.run_in_executor, which does not copy the caller's
    # context variables: inside alice's context, aget/asearch read bob's item and aput
    # overwrote it, while the sync calls were refused.
    with OracleAgentMemory(connection=guarded_path, embedder=HashingEmbedder()) as client:
        store = OracleAgentMemoryStore(client)

        async def as_alice() -> tuple[object, object]:
            with OracleMemoryEndUserSecurityContext("alice"):
                got = await store.aget(BOB, "pin")
                found = await store.asearch(("users", "bob"))
                with pytest.raises(AccessDeniedError):
                    await store.aput(BOB, "pin", {"text": "overwritten"})
                return got, found

        got, found = asyncio.run(as_alice())
        assert got is None
        assert found == []
        assert store.get(BOB, "pin").value == {"text": "bob's pin is 4321"}


def test_look_alike_records_do_not_push_genuine_items_out_of_a_page() -> None:
    # A search without a query fetched `offset + limit` records, then dropped the ones
    # that are not genuine items: ten memories of another user dressed as items of
    # alice's namespace (anyone may write such metadata) emptied alice's first page.
    with OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder()) as client:
        store = OracleAgentMemoryStore(client)
        namespace = ("users", "alice", "memories")
        forged = {"langgraph": envelope(namespace, "pin", 0, 1, True),
                  "value": {"text": "forged"}}
        for index in range(10):
            client.add_memory(f"look-alike {index}", user_id="mallory", metadata=forged)
        store.put(namespace, "real", {"text": "alice likes tea"})
        assert [item.key for item in store.search(("users", "alice"), limit=10)] == ["real"]
        assert [item.key for item in store.search(("users", "alice"), limit=1)] == ["real"]


NAMESPACE = ("users", "alice")
INDEX = {"fields": ["a", "b", "c"]}


def put_of_three_texts_after_the_next_read(reader: OracleAgentMemoryStore,
                                           writer: OracleAgentMemoryStore) -> None:
    """The writer's put of three texts (another thread or process) lands right after the
    reader's next read of the item's records, before the reader writes."""
    read = reader._records

    def read_then_the_other_put(*args: object, **kwargs: object) -> object:
        found = read(*args, **kwargs)  # type: ignore[arg-type]
        reader._records = read  # type: ignore[method-assign]
        writer.put(NAMESPACE, "k", {"a": "apples", "b": "bananas grow", "c": "cherries red"})
        return found

    reader._records = read_then_the_other_put  # type: ignore[method-assign]


@pytest.fixture
def racing_stores() -> Iterator[tuple[OracleAgentMemoryStore, OracleAgentMemoryStore]]:
    """(writer, other): two store objects on one client, the item ``k`` put by the writer,
    whose put of three texts lands right after the other's next read."""
    with OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder()) as client:
        writer = OracleAgentMemoryStore(client, index=INDEX)
        other = OracleAgentMemoryStore(client, index=INDEX)
        writer.put(NAMESPACE, "k", {"a": "apples"})
        put_of_three_texts_after_the_next_read(other, writer)
        yield writer, other


def test_a_delete_racing_a_put_of_more_texts_leaves_no_findable_item(
        racing_stores: tuple[OracleAgentMemoryStore, OracleAgentMemoryStore]) -> None:
    # The delete retires only the record it read, and the put's other texts stayed, so a
    # semantic search served the item that get() says is gone.
    writer, deleter = racing_stores
    deleter.delete(NAMESPACE, "k")
    got = writer.get(NAMESPACE, "k")
    found = writer.search(NAMESPACE, query="bananas grow")
    # whichever write won, get and search agree
    assert [(item.key, item.value) for item in found] == (
        [] if got is None else [("k", got.value)])


def test_two_racing_puts_leave_no_text_of_the_losing_value_findable(
        racing_stores: tuple[OracleAgentMemoryStore, OracleAgentMemoryStore]) -> None:
    # The winner's record replaced the first, the loser's other texts stayed, and a
    # semantic search served the losing value that get() no longer gives.
    first, second = racing_stores
    second.put(NAMESPACE, "k", {"a": "avocados"})
    got = first.get(NAMESPACE, "k")
    assert got is not None
    assert [item.value for item in first.search(NAMESPACE, query="bananas grow")] == [
        got.value]


@pytest.mark.parametrize("bookkeeping", [{"ttl": "soon"}, {"ttl": 1e308},
                                         {"updated_at": "garbage"}])
def test_an_item_whose_bookkeeping_a_user_rewrote_breaks_no_one_elses_read(
        bookkeeping: dict) -> None:
    # Through the MCP server's update_memory (or the client's), alice may replace the
    # whole metadata of her own item, its hidden "langgraph" bookkeeping included. A TTL
    # that is not a number, one too long to restart, or an updated_at that is no time
    # made every read reaching that record fail (ValueError / InvalidArgumentError): a
    # search of ("users",) or of every namespace, by anyone's graph.
    pytest.importorskip("mcp.server.mcpserver")
    import anyio
    from mcp import Client

    from oracleagentmemory.integrations.mcp_config import McpServerConfig
    from oracleagentmemory.integrations.mcp_server import build_server

    with OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder()) as client:
        store = OracleAgentMemoryStore(client)
        store.put(BOB, "b", {"text": "bob likes tea"})
        alice = ("users", "alice", "notes")
        store.put(alice, "a", {"text": "alice likes tea"})
        server = build_server(client, McpServerConfig(db="unused", user_id="alice"))
        rewritten = {"langgraph": {**envelope(alice, "a", 0, 1, True), "ttl": None,
                                   "updated_at": "2026-01-01T00:00:00.000000Z",
                                   **bookkeeping},
                     "value": {"text": "alice likes tea"}}

        async def rewrite() -> None:
            async with Client(server) as mcp_client:
                listed = await mcp_client.call_tool("list_memories", {})
                (memory,) = listed.structured_content["memories"]
                await mcp_client.call_tool("update_memory", {"memory_id": memory["id"],
                                                             "metadata": rewritten})

        anyio.run(rewrite)
        assert "b" in [item.key for item in store.search(("users",))]
        assert "b" in [item.key for item in store.search((), query="tea")]
        store.get(alice, "a")  # served or not, it does not fail
