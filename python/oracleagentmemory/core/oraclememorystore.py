"""The abstract Oracle-style memory store: the public store interface plus thread records.

Our concrete store is :class:`~oracleagentmemory.core.oracledbmemorystore.OracleDBMemoryStore`
(either backend); a caller may give the client any other subclass of this class or of
:class:`~oracleagentmemory.apis.memorystore.IMemoryStore`.
"""

from __future__ import annotations

from abc import abstractmethod
from datetime import datetime
from typing import Any

from oracleagentmemory.apis.memorystore import IMemoryStore
from oracleagentmemory.apis.records import Record, ThreadRecord

__all__ = ["DOCUMENT_TYPES", "OracleMemoryStore"]

DOCUMENT_TYPES = frozenset({"image"})
"""Record types whose content is a document (bytes) rather than text."""


class OracleMemoryStore(IMemoryStore):
    """A memory store that also keeps thread records (a thread's settings and state)."""

    @abstractmethod
    def search(self, query: str | None, k: int, query_vector: list[float] | None = None,
               thread_id: str | None = None, user_id: str | None = None,
               agent_id: str | None = None, exact_user_match: bool = False,
               exact_agent_match: bool = False, exact_thread_match: bool = False,
               record_types: set[str] | None = None,
               metadata_filter: dict[str, Any] | None = None, num_hops: int = 0,
               max_linked_results: int = 100,
               include_invalid_results: bool = True) -> list[tuple[Record, float]]:
        # Documented on IMemoryStore.search (inherited: help() and the reference show it).
        ...

    @abstractmethod
    def _create_thread_record(self, thread_id: str, user_id: str | None,
                              agent_id: str | None, metadata: dict[str, Any] | None,
                              runtime_config: dict[str, Any] | None) -> str:
        """Store a new thread record; returns the thread id."""

    @abstractmethod
    def _get_thread_record(self, thread_id: str) -> ThreadRecord | None:
        """The thread record, or None."""

    @abstractmethod
    def _update_thread_record(self, thread_id: str, *, metadata: Any, runtime_config: Any,
                              runtime_state: Any) -> int:
        """Replace the given fields (NOT_SET_MARKER keeps one); 1, or 0 when missing."""

    @abstractmethod
    def _get_record_expiration(self, record_type: str, record_id: str) -> datetime | None:
        """When the record expires (None: never, or no such record)."""
