"""Scope enforcement for the MCP server: every read and write stays inside the config.

Kept apart from the MCP wiring so the rules can be read (and tested) on their own:

* The server acts for one user (and, when configured, one agent); a record of anyone else
  is out of scope, and is reported as "not in this server's scope" whether or not it exists.
* Threads: the configured ones and the session thread. Reads never create a thread: a
  thread that does not exist yet reads as empty; the first write creates it for the
  configured user and agent. The session thread's id is chosen at its first use and its
  record written at its first write.
* Memories in scope: the user's (and agent's) thread-less memories and those of the
  allowed threads. The client's own search treats the thread dimension loosely, which would
  let memories of the user's *other* threads through; here every search is run per allowed
  thread (plus the thread-less memories) with an exact thread match, and context cards are
  filtered the same way.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from oracleagentmemory._ids import new_id
from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.apis.records import Record
from oracleagentmemory.core.contextcard import OracleContextCard
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.core.records import to_record
from oracleagentmemory.core.searchresult import OracleSearchResult
from oracleagentmemory.core.thread import OracleThread
from oracleagentmemory.errors import AccessDeniedError, NotFoundError
from oracleagentmemory.integrations.mcp_config import McpServerConfig


class OutOfScopeError(AccessDeniedError):
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

    def session_thread_id(self) -> str:
        """This session's thread id, chosen at its first use (its record comes with the
        first write)."""
        with self._lock:
            if self._session_thread_id is None:
                self._session_thread_id = new_id()
            return self._session_thread_id

    def resolve_thread_id(self, thread_id: str | None) -> str:
        """The thread a call addresses; omitted means the session thread or the only one."""
        if thread_id is None:
            if self.config.session_thread:
                return self.session_thread_id()
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

    def existing_thread(self, thread_id: str | None) -> tuple[str, OracleThread | None]:
        """An allowed thread's id and handle, or None when it does not exist yet (never
        created by a read)."""
        resolved = self.resolve_thread_id(thread_id)
        try:
            thread = self.client.get_thread(resolved)
        except NotFoundError:
            return resolved, None
        self._check_owner(thread)
        return resolved, thread

    def thread(self, thread_id: str | None) -> OracleThread:
        """An allowed thread to write to, created for the configured user and agent when
        missing (the session thread with metadata saying where it comes from)."""
        resolved, thread = self.existing_thread(thread_id)
        if thread is not None:
            return thread
        with self._lock:
            try:
                thread = self.client.get_thread(resolved)
            except NotFoundError:
                metadata = ({"source": "mcp", "server": self.config.server_name}
                            if resolved == self._session_thread_id else None)
                thread = self.client.create_thread(
                    thread_id=resolved, user_id=self.config.user_id,
                    agent_id=self.config.agent_id, metadata=metadata)
        self._check_owner(thread)
        return thread

    def _check_owner(self, thread: OracleThread) -> None:
        """A configured thread id that belongs to someone else is refused, not shared."""
        if thread.user_id != self.config.user_id or (
            self.config.agent_id is not None and thread.agent_id != self.config.agent_id
        ):
            raise OutOfScopeError(
                f"thread {thread.thread_id!r} belongs to another user or agent"
            )

    def threads(self) -> list[dict[str, Any]]:
        """Every thread in scope: whether it exists yet, its message count and metadata."""
        listed = []
        session = [self.session_thread_id()] if self.config.session_thread else []
        for thread_id in [*self.config.thread_ids, *session]:
            try:
                _, thread = self.existing_thread(thread_id)
            except OutOfScopeError:
                continue  # a configured id that another user's thread holds
            listed.append({
                "thread_id": thread_id, "exists": thread is not None,
                "session": thread_id == self._session_thread_id,
                "messages": len(thread.get_messages()) if thread is not None else 0,
                "metadata": thread.metadata if thread is not None else None,
            })
        return listed

    def delete_thread(self, thread_id: str) -> bool:
        """Delete an allowed thread with everything in it; False when it did not exist."""
        _, thread = self.existing_thread(thread_id)
        if thread is None:
            return False
        return bool(self.client.delete_thread(thread.thread_id))

    # -- memories ---------------------------------------------------------------------

    def _agent_scope(self) -> dict[str, Any]:
        return ({"agent_id": self.config.agent_id} if self.config.agent_id is not None
                else {"agent_id": NOT_SET_MARKER})

    def _buckets(self, thread_id: str | None) -> list[str | None]:
        """The thread values in scope: one allowed thread, or none plus every allowed one."""
        if thread_id is not None:
            return [self.existing_thread(thread_id)[0]]
        return [None, *self.allowed_thread_ids()]

    def add_memory(self, content: str, memory_type: str, metadata: dict[str, Any] | None,
                   thread_id: str | None) -> tuple[str, str | None]:
        """Store a memory for the configured user and agent; a thread only if allowed."""
        scoped_thread = self.thread(thread_id).thread_id if thread_id is not None else None
        memory_id = self.client.add_memory(
            content, user_id=self.config.user_id, agent_id=self.config.agent_id,
            thread_id=scoped_thread, memory_type=memory_type, metadata=metadata,
        )
        return memory_id, scoped_thread

    def memory(self, memory_id: str) -> Record:
        """A memory in scope; anything else (missing, someone else's, another thread's) is
        the same NotFoundError, so the answer tells nothing about records out of scope."""
        found = self.client.memory_service.find(memory_id, MEMORY_TYPES)
        if found is None or not self._in_scope(found, {None, *self.allowed_thread_ids()}):
            raise NotFoundError(f"no memory {memory_id!r} in this server's scope")
        return to_record(found)

    def memories(self, thread_id: str | None, memory_types: Sequence[str] | None,
                 metadata_filter: dict[str, Any] | None, limit: int, offset: int
                 ) -> list[Record]:
        """Memories in scope, oldest first, ``offset`` skipped and at most ``limit``."""
        types = set(memory_types or MEMORY_TYPES)
        found: list[Record] = []
        for bucket in self._buckets(thread_id):
            found.extend(record for record in self.client.list_memories(
                user_id=self.config.user_id, thread_id=bucket,
                metadata_filter=metadata_filter, limit=None, **self._agent_scope())
                if record.record_type in types)
        found.sort(key=lambda record: record.timestamp or "")
        return found[offset:offset + limit]

    def update_memory(self, memory_id: str, content: str | None,
                      metadata: dict[str, Any] | None) -> Record:
        """Replace a memory's text (re-embedded) and/or its metadata (whole)."""
        self.memory(memory_id)
        changes: dict[str, Any] = {}
        if content is not None:
            changes["content"] = content
        if metadata is not None:
            changes["metadata"] = metadata
        self.client.update_memory(memory_id, **changes)
        return self.memory(memory_id)

    def delete_memory(self, memory_id: str) -> bool:
        """Delete a memory in scope; False when there is none (missing, deleted already, or
        out of scope: the same answer, so it tells nothing about other records)."""
        try:
            self.memory(memory_id)
        except NotFoundError:
            return False
        return bool(self.client.delete_memory(memory_id))

    def search(self, query: str, max_results: int, metadata_filter: dict[str, Any] | None,
               memory_types: list[str] | None, thread_id: str | None
               ) -> list[OracleSearchResult]:
        """Memories of the user (and agent): thread-less ones and those of allowed threads.

        One exact search per thread bucket, merged by distance: the store has no
        "thread in set" filter, and a loose thread match would reach other threads.
        """
        limit = min(max_results, self.config.max_results)
        types = list(memory_types) if memory_types else list(MEMORY_TYPES)
        agent: dict[str, Any] = (
            {"agent_id": self.config.agent_id, "exact_agent_match": True}
            if self.config.agent_id is not None else {"agent_id": NOT_SET_MARKER}
        )
        found: list[OracleSearchResult] = []
        for bucket in self._buckets(thread_id):
            found.extend(self.client.search(
                query, user_id=self.config.user_id, exact_user_match=True,
                thread_id=bucket, exact_thread_match=True, record_types=types,
                metadata_filter=metadata_filter, max_results=limit, **agent,
            ))
        found.sort(key=lambda result: result.distance)
        return found[:limit]

    def context_card(self, thread_id: str | None, max_relevant_results: int,
                     max_recent_messages: int) -> tuple[str, OracleContextCard]:
        """The thread's card with relevant records limited to this server's scope; a thread
        that does not exist yet has an empty card (and is not created)."""
        resolved, thread = self.existing_thread(thread_id)
        if thread is None:
            return resolved, OracleContextCard(summary="", relevant_results=[],
                                               recent_messages=[])
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
        def field(name: str) -> Any:
            return record.get(name) if isinstance(record, dict) else getattr(record, name, None)

        return (
            field("user_id") == self.config.user_id
            and (self.config.agent_id is None or field("agent_id") == self.config.agent_id)
            and field("thread_id") in allowed
        )
