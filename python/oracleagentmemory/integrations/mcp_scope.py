"""Scope enforcement for the MCP server: every read and write stays inside the config.

Kept apart from the MCP wiring so the rules can be read (and tested) on their own. The
client's own search treats the thread dimension loosely, which would let memories of the
user's *other* threads through; here every search is run per allowed thread (plus the
user's thread-less memories) with an exact thread match, and context cards are filtered
the same way.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.core.contextcard import OracleContextCard
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.core.searchresult import OracleSearchResult
from oracleagentmemory.core.thread import OracleThread
from oracleagentmemory.integrations.mcp_config import McpServerConfig


class OutOfScopeError(PermissionError):
    """A request names a thread (or record) this server is not configured to touch."""


class McpScope:
    """The user, agent and threads one server may use, applied to client calls."""

    def __init__(self, client: OracleAgentMemory, config: McpServerConfig) -> None:
        self.client = client
        self.config = config
        self._session_thread_id: str | None = None
        self._lock = threading.Lock()

    # -- threads ----------------------------------------------------------------------

    def allowed_thread_ids(self) -> list[str]:
        """Threads a client may name: the configured ones and the session thread."""
        allowed = list(self.config.thread_ids)
        if self._session_thread_id is not None:
            allowed.append(self._session_thread_id)
        return allowed

    def resolve_thread_id(self, thread_id: str | None) -> str:
        """The thread a call addresses; omitted means the session thread or the only one."""
        if thread_id is None:
            if self.config.session_thread:
                return self._ensure_session_thread()
            if len(self.config.thread_ids) == 1:
                return self.config.thread_ids[0]
            if not self.config.thread_ids:
                raise OutOfScopeError("this server has no thread in scope (configure thread "
                                      "ids or the session thread)")
            raise OutOfScopeError("thread_id is required; allowed threads: "
                                  + ", ".join(self.config.thread_ids))
        if not isinstance(thread_id, str) or thread_id not in self.allowed_thread_ids():
            raise OutOfScopeError(f"thread {thread_id!r} is outside this server's scope")
        return thread_id

    def thread(self, thread_id: str | None) -> OracleThread:
        """An allowed thread, created for the configured user and agent when missing."""
        resolved = self.resolve_thread_id(thread_id)
        try:
            thread = self.client.get_thread(resolved)
        except KeyError:
            thread = self._create_thread(resolved)
        self._check_owner(thread)
        return thread

    def _create_thread(self, thread_id: str) -> OracleThread:
        with self._lock:
            try:
                return self.client.get_thread(thread_id)
            except KeyError:
                return self.client.create_thread(
                    thread_id=thread_id, user_id=self.config.user_id,
                    agent_id=self.config.agent_id,
                )

    def _ensure_session_thread(self) -> str:
        with self._lock:
            if self._session_thread_id is None:
                thread = self.client.create_thread(
                    thread_id=uuid.uuid4().hex, user_id=self.config.user_id,
                    agent_id=self.config.agent_id,
                    metadata={"source": "mcp", "server": self.config.server_name},
                )
                self._session_thread_id = thread.thread_id
            return self._session_thread_id

    def _check_owner(self, thread: OracleThread) -> None:
        """A configured thread id that belongs to someone else is refused, not shared."""
        if thread.user_id != self.config.user_id or (
            self.config.agent_id is not None and thread.agent_id != self.config.agent_id
        ):
            raise OutOfScopeError(
                f"thread {thread.thread_id!r} belongs to another user or agent"
            )

    # -- memories ---------------------------------------------------------------------

    def add_memory(self, content: str, memory_type: str, metadata: dict[str, Any] | None,
                   thread_id: str | None) -> tuple[str, str | None]:
        """Store a memory for the configured user and agent; a thread only if allowed."""
        scoped_thread = self.thread(thread_id).thread_id if thread_id is not None else None
        memory_id = self.client.add_memory(
            content, user_id=self.config.user_id, agent_id=self.config.agent_id,
            thread_id=scoped_thread, memory_type=memory_type, metadata=metadata,
        )
        return memory_id, scoped_thread

    def search(self, query: str, max_results: int, metadata_filter: dict[str, Any] | None,
               memory_types: list[str] | None, thread_id: str | None
               ) -> list[OracleSearchResult]:
        """Memories of the user (and agent): thread-less ones and those of allowed threads.

        One exact search per thread bucket, merged by distance: the store has no
        "thread in set" filter, and a loose thread match would reach other threads.
        """
        limit = min(max_results, self.config.max_results)
        if thread_id is not None:
            buckets: list[str | None] = [self.thread(thread_id).thread_id]
        else:
            buckets = [None, *self.allowed_thread_ids()]
        types = list(memory_types) if memory_types else list(MEMORY_TYPES)
        agent: dict[str, Any] = (
            {"agent_id": self.config.agent_id, "exact_agent_match": True}
            if self.config.agent_id is not None else {"agent_id": NOT_SET_MARKER}
        )
        found: list[OracleSearchResult] = []
        for bucket in buckets:
            found.extend(self.client.search(
                query, user_id=self.config.user_id, exact_user_match=True,
                thread_id=bucket, exact_thread_match=True, record_types=types,
                metadata_filter=metadata_filter, max_results=limit, **agent,
            ))
        found.sort(key=lambda result: result.distance)
        return found[:limit]

    def context_card(self, thread_id: str | None, max_relevant_results: int,
                     max_recent_messages: int) -> tuple[str, OracleContextCard]:
        """The thread's card with relevant records limited to this server's scope."""
        thread = self.thread(thread_id)
        limit = min(max_relevant_results, self.config.max_results)
        card = thread.get_context_card(
            # Over-fetch: records of threads outside the scope are dropped below.
            max_relevant_results=min(limit * 3, 100),
            max_recent_messages=max_recent_messages,
        )
        allowed = {None, *self.allowed_thread_ids()}
        relevant = [result for result in card.relevant_results or []
                    if self._in_scope(result.record, allowed)][:limit]
        return thread.thread_id, OracleContextCard(
            summary=card.summary, topics=card.topics, relevant_results=relevant,
            recent_messages=card.recent_messages, message_format=card.message_format,
        )

    def _in_scope(self, record: Any, allowed: set[str | None]) -> bool:
        return (
            getattr(record, "user_id", None) == self.config.user_id
            and (self.config.agent_id is None
                 or getattr(record, "agent_id", None) == self.config.agent_id)
            and getattr(record, "thread_id", None) in allowed
        )
