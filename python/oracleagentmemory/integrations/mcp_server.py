"""MCP server over stdio: agents add messages and memories, search, and read context cards.

Built on the official MCP Python SDK (``pip install 'agentmemory-plsql[mcp]'``). Tool
arguments never carry ``user_id`` or ``agent_id``: who the server acts for, and which
threads it may touch, come from :class:`McpServerConfig`, so a client cannot widen its
scope. Run it with::

    python -m oracleagentmemory.integrations.mcp_server --db memory.db --user-id alice \\
        --agent-id assistant --session-thread
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from oracleagentmemory._distribution import install_hint
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.errors import InvalidArgumentError
from oracleagentmemory.integrations.mcp_config import McpServerConfig
from oracleagentmemory.integrations.mcp_scope import McpScope, OutOfScopeError

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"the MCP server needs the MCP Python SDK 2.x: {install_hint('mcp')}"
    ) from error

__all__ = ["McpServerConfig", "build_server", "main", "run_stdio", "serve"]

MemoryType = Literal["memory", "fact", "preference", "guideline"]
_T = TypeVar("_T")


class MessageIn(BaseModel):
    """One chat message as a tool argument."""

    model_config = ConfigDict(extra="forbid")

    role: str = Field(min_length=1, description="user, assistant, system or tool")
    content: str = Field(description="the message text")
    metadata: dict[str, Any] | None = None
    timestamp: str | None = Field(default=None, description="ISO-8601 event time")


def _guarded(call: Callable[[], _T]) -> _T:
    """Expected failures become tool errors the model can read (not opaque crashes)."""
    try:
        return call()
    except OutOfScopeError as error:
        raise ToolError(f"refused: {error}") from error
    except KeyError as error:
        raise ToolError(str(error.args[0]) if error.args else "not found") from error
    except (ValueError, TypeError) as error:
        raise ToolError(str(error)) from error


def _result(result: Any) -> dict[str, Any]:
    record = result.record
    return {
        "id": result.id, "memory_type": result.record.record_type, "content": result.content,
        "distance": round(result.distance, 6), "thread_id": getattr(record, "thread_id", None),
        "metadata": result.metadata, "timestamp": result.timestamp,
    }


def build_server(client: OracleAgentMemory, config: McpServerConfig) -> MCPServer:
    """An MCP server whose four tools act on ``client`` within ``config``'s scopes."""
    scope = McpScope(client, config)
    server = MCPServer(
        config.server_name,
        instructions=(
            "Long-term memory for this user. Store durable facts with add_memory, log the "
            "conversation with add_messages, recall with search_memories, and call "
            "get_context_card before answering to get relevant context."
        ),
        log_level="WARNING",
    )

    @server.tool()
    def add_messages(messages: list[MessageIn], thread_id: str | None = None
                     ) -> dict[str, Any]:
        """Append chat messages to a thread (default: this session's thread)."""
        def call() -> dict[str, Any]:
            thread = scope.thread(thread_id)
            ids = thread.add_messages([m.model_dump(exclude_none=True) for m in messages])
            return {"thread_id": thread.thread_id, "message_ids": ids}
        return _guarded(call)

    @server.tool()
    def add_memory(content: str, memory_type: MemoryType = "memory",
                   metadata: dict[str, Any] | None = None, thread_id: str | None = None
                   ) -> dict[str, Any]:
        """Store a durable memory for the user; thread_id ties it to one allowed thread."""
        def call() -> dict[str, Any]:
            memory_id, scoped = scope.add_memory(content, memory_type, metadata, thread_id)
            return {"memory_id": memory_id, "thread_id": scoped}
        return _guarded(call)

    @server.tool()
    def search_memories(query: str, max_results: Annotated[int, Field(ge=1, le=100)] = 5,
                        metadata_filter: dict[str, Any] | None = None,
                        memory_types: list[MemoryType] | None = None,
                        thread_id: str | None = None) -> dict[str, Any]:
        """Find the user's memories relevant to a query, best first (smaller distance)."""
        def call() -> dict[str, Any]:
            found = scope.search(query, max_results, metadata_filter,
                                 list(memory_types) if memory_types else None, thread_id)
            return {"results": [_result(result) for result in found]}
        return _guarded(call)

    @server.tool()
    def get_context_card(thread_id: str | None = None,
                         max_relevant_results: Annotated[int, Field(ge=0, le=100)] = 5,
                         max_recent_messages: Annotated[int, Field(ge=0, le=100)] = 0
                         ) -> dict[str, Any]:
        """A prompt-ready card for a thread: summary, relevant memories, recent messages."""
        def call() -> dict[str, Any]:
            resolved, card = scope.context_card(thread_id, max_relevant_results,
                                                max_recent_messages)
            return {"thread_id": resolved, "context_card": card.content}
        return _guarded(call)

    return server


def load_embedder(spec: str) -> IEmbedder:
    """``'default'`` is the local model; ``'module:factory'`` is imported and called."""
    if spec == "default":
        from oracleagentmemory.core.embedders import default_embedder

        return default_embedder()
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise InvalidArgumentError(f"embedder must be 'default' or 'module:factory', got {spec!r}")
    factory = getattr(importlib.import_module(module_name), attribute)
    return factory()


def run_stdio(config: McpServerConfig, client: OracleAgentMemory | None = None) -> None:
    """Serve MCP over stdin/stdout until the client disconnects; closes a client it opened."""
    owned = client is None
    if client is None:
        client = OracleAgentMemory(connection=config.db, embedder=load_embedder(config.embedder))
    try:
        build_server(client, config).run("stdio")
    finally:
        if owned:
            client.close()


def serve(parsed: argparse.Namespace) -> None:
    """``oracleagentmemory mcp``: flags parsed by the command line, else the environment."""
    run_stdio(McpServerConfig.from_namespace(parsed))


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: configuration from flags, falling back to ORACLEAGENTMEMORY_MCP_* vars."""
    run_stdio(McpServerConfig.from_args(argv))


if __name__ == "__main__":
    main()
