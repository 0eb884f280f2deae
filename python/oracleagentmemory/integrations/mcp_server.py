"""MCP server over stdio: a model keeps, finds, corrects and forgets the user's memories.

Built on the official MCP Python SDK (the ``mcp`` extra). Tool
arguments never carry ``user_id`` or ``agent_id``: who the server acts for, and which
threads it may touch, come from :class:`McpServerConfig`, so a client cannot widen its
scope (docs/mcp.md). Run it with::

    oracleagentmemory mcp --db memory.db --user-id alice --agent-id assistant --session-thread

What a model sees: every tool and every parameter has a description (the metadata filter
language with examples), tools carry annotations (read-only, destructive, idempotent), the
closed vocabularies are enums (``role``, ``memory_type``), and an argument the tool does
not have is refused, not ignored. A server that cannot start (a wrong configuration, a
store it cannot open, a model it cannot load) still answers: each tool call returns the
reason, so the client shows it instead of "connection closed".
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from oracleagentmemory import __version__
from oracleagentmemory._distribution import install_hint
from oracleagentmemory._oracle_connection import oracle_connection
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.apis.records import Record
from oracleagentmemory.core.dbschemapolicy import SchemaPolicy
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.core.oracledbmemorystore import OracleDBMemoryStore
from oracleagentmemory.errors import AgentMemoryError, InvalidArgumentError
from oracleagentmemory.integrations.mcp_config import ENV_PREFIX, McpServerConfig
from oracleagentmemory.integrations.mcp_scope import McpScope, OutOfScopeError

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.mcpserver.tools import Tool
    from mcp_types import ToolAnnotations
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"the MCP server needs the MCP Python SDK 2.x: {install_hint('mcp')}"
    ) from error

__all__ = ["McpServerConfig", "build_server", "build_failed_server", "main", "run_stdio",
           "serve"]

logger = logging.getLogger(__name__)

MemoryType = Literal["memory", "fact", "preference", "guideline"]
Role = Literal["user", "assistant", "system", "tool"]
_T = TypeVar("_T")

FILTER_HELP = (
    "Metadata filter: a JSON object whose entries must all match the memory's metadata. "
    'A value matches equal values ({"topic": "travel"}); a nested object matches '
    'recursively; operators: {"tags": {"$array_contains": "trip"}} (the array holds it), '
    '{"tags": {"$array_contains": ["trip", "rome"]}} (holds all), '
    '{"tags": {"$array_contains_any": ["a", "b"]}} (holds one), '
    '{"tags": {"$not": {"$array_contains": "old"}}} (negation). '
    "Omit it to match everything."
)
THREAD_HELP = (
    "Thread to use: one of the threads this server allows (list_threads shows them). "
    "Omit it for the session thread, or the only allowed thread."
)
MEMORY_TYPE_HELP = (
    "fact (something true about the user), preference (what they like or want), "
    "guideline (how to act for them) or memory (anything else worth keeping)."
)
INSTRUCTIONS = (
    "Long-term memory for this user. Call get_context_card before answering to get the "
    "conversation summary and relevant memories; log the conversation with add_messages; "
    "store durable facts, preferences and guidelines with add_memory; recall with "
    "search_memories; correct with update_memory and forget with delete_memory when the "
    "user asks. Metadata filters are JSON objects, e.g. {\"topic\": \"travel\"}."
)

DISTANCE_HELP = (
    "Each result's distance says how far it is from the query (smaller is closer, 0 the "
    "same meaning): with the default model a close match is usually below 0.15 and "
    "unrelated text reads 0.2 to 0.3, and a memory that also shares the query's words is "
    "brought closer; when nothing relevant is stored every result is a poor match, so read "
    "the distance before relying on one."
)
"""What ``distance`` means, as the search tool tells a model (one sentence)."""

ThreadId = Annotated[str | None, Field(description=THREAD_HELP)]
MemoryId = Annotated[str, Field(min_length=1, description="Id of a memory (as returned by "
                                                          "add_memory, search or list).")]
Filter = Annotated[dict[str, Any] | None, Field(description=FILTER_HELP)]
MemoryTypes = Annotated[list[MemoryType] | None, Field(
    description="Only memories of these types; omit for every type. " + MEMORY_TYPE_HELP)]


class MessageIn(BaseModel):
    """One chat message as a tool argument."""

    model_config = ConfigDict(extra="forbid")

    role: Role = Field(description="Who said it: user, assistant, system or tool.")
    content: str = Field(min_length=1, description="The message text.")
    metadata: dict[str, Any] | None = Field(
        default=None, description="Optional JSON object stored with the message, e.g. "
                                  '{"channel": "chat"}.')
    timestamp: str | None = Field(default=None, description="When it was said, ISO-8601 "
                                                            "(e.g. 2026-05-01T10:00:00Z); "
                                                            "omitted: now.")


def _guarded(call: Callable[[], _T]) -> _T:
    """Expected failures become tool errors the model can read (not opaque crashes)."""
    try:
        return call()
    except OutOfScopeError as error:
        raise ToolError(f"refused: {error}") from error
    except KeyError as error:
        raise ToolError(str(error.args[0]) if error.args else "not found") from error
    except (ValueError, TypeError, AgentMemoryError) as error:
        raise ToolError(str(error)) from error


def _result(result: Any) -> dict[str, Any]:
    record = result.record
    return {
        "id": result.id, "memory_type": result.record.record_type, "content": result.content,
        "distance": round(result.distance, 6), "thread_id": getattr(record, "thread_id", None),
        "metadata": result.metadata, "timestamp": result.timestamp,
    }


def _memory(record: Record) -> dict[str, Any]:
    return {"id": record.id, "memory_type": record.record_type, "content": record.content,
            "thread_id": getattr(record, "thread_id", None), "metadata": record.metadata,
            "timestamp": record.timestamp}


class _Tools:
    """The tools, on the scope of a started server or on the reason it did not start."""

    def __init__(self, scope: McpScope | None, failure: str | None = None) -> None:
        self._scope = scope
        self._failure = failure

    @property
    def scope(self) -> McpScope:
        if self._scope is None:
            raise ToolError(f"the memory server could not start: {self._failure}")
        return self._scope

    # -- writes -----------------------------------------------------------------------

    def add_messages(self, messages: Annotated[list[MessageIn], Field(
                         min_length=1, description="The messages to append, oldest first "
                                                   "(at least one).")],
                     thread_id: ThreadId = None) -> dict[str, Any]:
        """Append chat messages to a thread (default: this session's thread) and return
        their ids. The thread is created at its first message."""
        def call() -> dict[str, Any]:
            thread = self.scope.thread(thread_id)
            ids = thread.add_messages([m.model_dump(exclude_none=True) for m in messages])
            return {"thread_id": thread.thread_id, "message_ids": ids}
        return _guarded(call)

    def add_memory(self,
                   content: Annotated[str, Field(min_length=1, description=(
                       "The memory, one self-contained statement, e.g. 'Alice is "
                       "vegetarian.'"))],
                   memory_type: Annotated[MemoryType, Field(description=MEMORY_TYPE_HELP)]
                   = "memory",
                   metadata: Annotated[dict[str, Any] | None, Field(description=(
                       "Optional JSON object to filter on later, e.g. {\"topic\": \"food\", "
                       "\"tags\": [\"diet\"]}."))] = None,
                   thread_id: Annotated[str | None, Field(description=(
                       "Tie the memory to one allowed thread; omitted, it belongs to the "
                       "user across threads."))] = None) -> dict[str, Any]:
        """Store a durable memory for the user and return its id."""
        def call() -> dict[str, Any]:
            memory_id, scoped = self.scope.add_memory(content, memory_type, metadata,
                                                      thread_id)
            return {"memory_id": memory_id, "thread_id": scoped}
        return _guarded(call)

    def update_memory(self, memory_id: MemoryId,
                      content: Annotated[str | None, Field(min_length=1, description=(
                          "The new text (replaces the old one); omit to keep it."))] = None,
                      metadata: Annotated[dict[str, Any] | None, Field(description=(
                          "The new metadata, replacing the old object whole; omit to keep "
                          "it."))] = None) -> dict[str, Any]:
        """Correct a memory: replace its text and/or its metadata. Returns the memory."""
        def call() -> dict[str, Any]:
            if content is None and metadata is None:
                raise InvalidArgumentError("give content, metadata or both")
            return {"memory": _memory(self.scope.update_memory(memory_id, content, metadata))}
        return _guarded(call)

    def delete_memory(self, memory_id: MemoryId) -> dict[str, Any]:
        """Forget a memory for good. deleted is false when there was no such memory in
        scope (already deleted, for one), so calling it again changes nothing."""
        def call() -> dict[str, Any]:
            return {"memory_id": memory_id, "deleted": self.scope.delete_memory(memory_id)}
        return _guarded(call)

    def delete_thread(self, thread_id: Annotated[str | None, Field(description=(
            "The allowed thread to delete, with all its messages and memories. Omit it for "
            "the session thread, or the only allowed thread."))] = None
                      ) -> dict[str, Any]:
        """Delete a thread with its messages, memories, summary and links, for good.
        deleted is false when the thread did not exist (yet, or any more)."""
        def call() -> dict[str, Any]:
            resolved, _ = self.scope.existing_thread(thread_id)
            return {"thread_id": resolved, "deleted": self.scope.delete_thread(resolved)}
        return _guarded(call)

    # -- reads ------------------------------------------------------------------------

    def search_memories(self,
                        query: Annotated[str, Field(min_length=1, description=(
                            "What to look for, in natural language."))],
                        max_results: Annotated[int, Field(ge=1, le=100, description=(
                            "How many memories at most (the server may cap it)."))] = 5,
                        metadata_filter: Filter = None,
                        memory_types: MemoryTypes = None,
                        thread_id: Annotated[str | None, Field(description=(
                            "Only this allowed thread's memories; omitted: the user's "
                            "memories and those of every allowed thread."))] = None
                        ) -> dict[str, Any]:
        """Find the user's memories relevant to a query, best first."""
        def call() -> dict[str, Any]:
            found = self.scope.search(query, max_results, metadata_filter,
                                      list(memory_types) if memory_types else None, thread_id)
            return {"results": [_result(result) for result in found]}
        return _guarded(call)

    def get_context_card(self, thread_id: ThreadId = None,
                         max_relevant_results: Annotated[int, Field(ge=0, le=100, description=(
                             "How many relevant memories the card lists at most."))] = 5,
                         max_recent_messages: Annotated[int, Field(ge=0, le=100, description=(
                             "How many of the thread's last messages the card repeats."))] = 0
                         ) -> dict[str, Any]:
        """A prompt-ready card for a thread: its summary, the memories relevant to it and
        its recent messages. A thread with no message yet has an empty card."""
        def call() -> dict[str, Any]:
            resolved, card = self.scope.context_card(thread_id, max_relevant_results,
                                                     max_recent_messages)
            return {"thread_id": resolved, "context_card": card.content}
        return _guarded(call)

    def list_memories(self, thread_id: Annotated[str | None, Field(description=(
                          "Only this allowed thread's memories; omitted: every memory in "
                          "scope."))] = None,
                      memory_types: MemoryTypes = None,
                      metadata_filter: Filter = None,
                      limit: Annotated[int, Field(ge=1, le=100, description=(
                          "How many at most."))] = 20,
                      offset: Annotated[int, Field(ge=0, description=(
                          "How many to skip (for the next page)."))] = 0) -> dict[str, Any]:
        """The user's memories in this server's scope, oldest first."""
        def call() -> dict[str, Any]:
            found = self.scope.memories(thread_id, memory_types, metadata_filter, limit,
                                        offset)
            return {"memories": [_memory(record) for record in found]}
        return _guarded(call)

    def get_memory(self, memory_id: MemoryId) -> dict[str, Any]:
        """One memory by id."""
        return _guarded(lambda: {"memory": _memory(self.scope.memory(memory_id))})

    def list_threads(self) -> dict[str, Any]:
        """The threads this server may use: whether each exists yet, its number of messages
        and its metadata."""
        return _guarded(lambda: {"threads": self.scope.threads()})

    def get_messages(self, thread_id: ThreadId = None,
                     last: Annotated[int, Field(ge=1, le=200, description=(
                         "How many of the most recent messages."))] = 20) -> dict[str, Any]:
        """The last messages of a thread, oldest first (none for a thread not started)."""
        def call() -> dict[str, Any]:
            resolved, thread = self.scope.existing_thread(thread_id)
            messages = thread.get_messages(start=-last, end=None) if thread else []
            return {"thread_id": resolved, "messages": [
                {"id": m.id, "role": m.role, "content": m.text, "timestamp": m.timestamp,
                 "metadata": m.metadata} for m in messages]}
        return _guarded(call)


READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
ADDITIVE = ToolAnnotations(read_only_hint=False, destructive_hint=False,
                           idempotent_hint=False, open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True,
                              idempotent_hint=True, open_world_hint=False)
ANNOTATIONS: dict[str, ToolAnnotations] = {
    "add_messages": ADDITIVE, "add_memory": ADDITIVE,
    "update_memory": DESTRUCTIVE, "delete_memory": DESTRUCTIVE, "delete_thread": DESTRUCTIVE,
    "search_memories": READ_ONLY, "get_context_card": READ_ONLY, "list_memories": READ_ONLY,
    "get_memory": READ_ONLY, "list_threads": READ_ONLY, "get_messages": READ_ONLY,
}
"""Every tool and its annotations (the order is the order clients list them in)."""


class _ReadableTool(Tool):
    """A tool whose argument mistakes read as one line naming each argument (pydantic's
    own text spans lines and links to its website), so a model can correct its call."""

    async def run(self, arguments: dict[str, Any], context: Any,
                  convert_result: bool = False) -> Any:
        try:
            return await super().run(arguments, context, convert_result)
        except ToolError as error:
            # The SDK validates the arguments once and reports a mistake as a plain
            # ToolError caused by the ValidationError itself (a failure of the tool's body
            # is caused by what the body raised); only that one is reworded.
            mistake = error.__cause__
            if type(error) is not ToolError or not isinstance(mistake, ValidationError):
                raise
            raise ToolError(f"Error executing tool {self.name}: "
                            f"{_argument_mistakes(mistake, self.parameters)}") from mistake


def _argument_mistakes(error: ValidationError, schema: dict[str, Any]) -> str:
    """``max_results: must be at most 100; metadata_filtre: not an argument of this tool
    (it takes query, max_results, ...)``."""
    takes = ", ".join(schema.get("properties", {}))
    mistakes = []
    for problem in error.errors(include_url=False):
        where = ".".join(str(part) for part in problem["loc"]) or "arguments"
        if problem["type"] == "extra_forbidden":
            mistakes.append(f"{where}: not an argument of this tool (it takes {takes})")
        else:
            mistakes.append(f"{where}: {problem['msg']}")
    return "; ".join(mistakes)


def _description(function: Callable[..., Any], name: str) -> str:
    """The tool's docstring without its indentation, and what distance means for search."""
    text = inspect.cleandoc(function.__doc__ or "").replace("\n", " ")
    return f"{text} {DISTANCE_HELP}" if name == "search_memories" else text


def _strict(tool: Tool) -> Tool:
    """The tool with an argument the tool does not have refused (``additionalProperties``
    false in its schema) instead of silently dropped: a misspelt ``metadata_filtre`` must
    not turn into a search without a filter."""
    loose = tool.fn_metadata.arg_model

    class Strict(loose):  # type: ignore[valid-type,misc]
        model_config = ConfigDict(extra="forbid", title=loose.__name__)

    tool.fn_metadata.arg_model = Strict
    tool.parameters = Strict.model_json_schema(by_alias=True)
    return tool


def _tools(tools: _Tools) -> list[Tool]:
    return [_strict(_ReadableTool.from_function(
                getattr(tools, name), annotations=annotations,
                description=_description(getattr(tools, name), name)))
            for name, annotations in ANNOTATIONS.items()]


def build_server(client: OracleAgentMemory, config: McpServerConfig) -> MCPServer:
    """An MCP server whose tools act on ``client`` within ``config``'s scopes.

    Nothing is read or written until a tool is called; run it with ``server.run("stdio")``
    (or use ``run_stdio``).

    Args:
        client: The memory client the tools call; the caller keeps and closes it.
        config: The user, agent, threads and result bound the tools are held to.

    Returns:
        The server (``mcp.server.mcpserver.MCPServer``), its tools registered.
    """
    return MCPServer(config.server_name, version=__version__, instructions=INSTRUCTIONS,
                     log_level="WARNING", tools=_tools(_Tools(McpScope(client, config))))


def build_failed_server(reason: str, name: str = "oracleagentmemory") -> MCPServer:
    """A server that could not start: the same tools, each answering ``reason``."""
    return MCPServer(name, version=__version__, log_level="WARNING",
                     instructions=f"This memory server could not start: {reason}",
                     tools=_tools(_Tools(None, failure=reason)))


def load_embedder(spec: str) -> IEmbedder:
    """``'default'`` is the local model (loaded now); ``'module:factory'`` is imported and
    called."""
    if spec == "default":
        from oracleagentmemory.core.embedders import default_embedder

        return default_embedder(load=True)
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise InvalidArgumentError(f"embedder must be 'default' or 'module:factory', got {spec!r}")
    factory = getattr(importlib.import_module(module_name), attribute)
    embedder = factory()
    if not isinstance(embedder, IEmbedder):
        raise InvalidArgumentError(f"embedder {spec!r} made a {type(embedder).__name__}, "
                                   "not an IEmbedder")
    return embedder


def _startup_failure(error: BaseException) -> str:
    """One line for the log and the client: what failed and where to fix it."""
    text = " ".join(str(error).split()) or type(error).__name__
    if isinstance(error, KeyError) and error.args:
        text = str(error.args[0])
    return (f"{text}; fix the server's flags or {ENV_PREFIX}* variables in the MCP "
            "client's configuration, then restart the server")


def _run(server: MCPServer) -> None:
    server.run("stdio")


def open_client(config: McpServerConfig) -> tuple[OracleAgentMemory, Any]:
    """The client of the configured store and, for an Oracle one, its python-oracledb
    connection (the caller closes it after the client); an Oracle store must be installed
    already: the server never creates one."""
    embedder = load_embedder(config.embedder)
    if config.dsn is None:
        return OracleAgentMemory(connection=config.db, embedder=embedder), None
    connection = oracle_connection(config.dsn, str(config.db_user), config.password_env)
    try:
        store = OracleDBMemoryStore(embedder, connection,
                                    schema_policy=SchemaPolicy.REQUIRE_EXISTING,
                                    memory_store_id=config.store_id)
        return OracleAgentMemory(store=store), connection
    except BaseException:
        connection.close()
        raise


def run_stdio(config: McpServerConfig | Callable[[], McpServerConfig],
              client: OracleAgentMemory | None = None) -> None:
    """Serve MCP over stdin/stdout until the client disconnects; closes a client it opened.

    A startup failure is not raised: it is printed on stderr (one line) and served, so the
    MCP client gets a session whose every tool call answers why the server could not start.

    Args:
        config: The configuration, or a function loading it (``McpServerConfig.from_env``),
            so that a configuration error is a startup failure too.
        client: The memory client to serve. None (the default): one opened on the
            configured store (``db``, or ``dsn`` for an Oracle store that must already be
            installed) with ``config.embedder``, and closed when the session ends.

    Returns:
        None, once the client disconnects.
    """
    owned = client is None
    connection: Any = None
    try:
        try:
            loaded = config() if callable(config) else config
            if client is None:
                client, connection = open_client(loaded)
            server = build_server(client, loaded)
        except Exception as error:
            reason = _startup_failure(error)
            print(f"oracleagentmemory mcp: error: {reason}", file=sys.stderr)
            _run(build_failed_server(reason))
            return
        _run(server)
    finally:
        if owned and client is not None:
            client.close()
        if connection is not None:
            connection.close()


def serve(parsed: argparse.Namespace) -> None:
    """``oracleagentmemory mcp``: flags parsed by the command line, else the environment."""
    run_stdio(lambda: McpServerConfig.from_namespace(parsed))


def serve_failure(reason: str) -> None:
    """Serve a startup failure found before the configuration (a flag that is wrong)."""
    print(f"oracleagentmemory mcp: error: {reason}", file=sys.stderr)
    _run(build_failed_server(reason))


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: configuration from flags, falling back to ORACLEAGENTMEMORY_MCP_* vars."""
    run_stdio(lambda: McpServerConfig.from_args(argv))


if __name__ == "__main__":
    main()
