"""What the modules behind a thread (derived memories, summaries, context cards) know of it.

A thread hands them this small value instead of itself, so they never import the thread
module and the thread's internals stay its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.message import Message
from oracleagentmemory.core import scope_resolution
from oracleagentmemory.core.memory_service import MemoryService, SearchOptions, search_options
from oracleagentmemory.core.records import load_messages
from oracleagentmemory.core.searchresult import OracleSearchResult
from oracleagentmemory.core.thread_settings import ThreadSettings
from oracleagentmemory.stores.protocol import RecordScope, Vector


@dataclass(frozen=True)
class ThreadContext:
    """One thread's identity, LLM and settings, and the service it works through."""

    service: MemoryService
    thread_id: str
    user_id: str | None
    agent_id: str | None
    llm: ILlm | None
    settings: ThreadSettings
    persisted: bool = False
    """The thread has a stored record (opened by create_thread or get_thread): writes for it,
    background ones included, need that record still there, checked by the store in the
    write's own transaction."""

    @property
    def write_thread(self) -> str | None:
        """The ``thread_id`` a write of this thread passes to the store (None: no record)."""
        return self.thread_id if self.persisted else None

    @property
    def scope(self) -> RecordScope:
        return {"user_id": self.user_id, "agent_id": self.agent_id, "thread_id": self.thread_id}

    def search(self, query: str, arguments: Mapping[str, Any], *,
               exact_thread: bool = False, query_vector: Vector | None = None,
               exclude_ids: Sequence[str] = ()) -> list[OracleSearchResult]:
        """A search in the thread's default scope (this thread loosely, or exactly), its
        options checked from ``arguments`` (``search``'s, NOT_SET_MARKER where omitted)."""
        return self.run_search(query, search_options(arguments, self.settings.search_config),
                               exact_thread=exact_thread, query_vector=query_vector,
                               exclude_ids=exclude_ids)

    def run_search(self, query: str, options: SearchOptions, *, exact_thread: bool = False,
                   query_vector: Vector | None = None,
                   exclude_ids: Sequence[str] = ()) -> list[OracleSearchResult]:
        """As :meth:`search`, with options checked already: a context card checks its options
        once for the several searches it runs."""
        return self.service.search(query, self._default_scope(exact_thread), options,
                                   query_vector=query_vector, exclude_ids=exclude_ids)

    def nearest(self, vector: Vector, record_types: Sequence[str], count: int, *,
                exact_thread: bool = False) -> list[tuple[str, float]]:
        """Stored records of the thread's default scope (or of this thread only) closest to
        a known vector, as (content, cosine similarity), best first."""
        return self.service.nearest(vector, self._default_scope(exact_thread), record_types,
                                    count)

    def _default_scope(self, exact_thread: bool) -> scope_resolution.Scope:
        """The thread's search scope: its user and agent exactly, this thread loosely (or
        exactly)."""
        values = dict(scope_resolution.OMITTED)
        if exact_thread:
            values["exact_thread_match"] = True
        return scope_resolution.thread_scope(values, self.user_id, self.agent_id,
                                             self.thread_id)

    def recent_messages(self, count: int, except_last: int = 0) -> list[Message]:
        """The ``count`` messages before the last ``except_last`` ones, oldest first."""
        if count <= 0:
            return []
        end = -except_last if except_last else None
        return load_messages(self.service.backend, self.service.backend.list_messages(
            self.thread_id, -(count + except_last), end))
