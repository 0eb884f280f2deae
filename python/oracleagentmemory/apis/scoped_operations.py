"""The operations a client and a thread both offer, declared once.

``IAgentMemory`` (the client: the whole store) and ``IThread`` (one conversation) share
memories, images, relations, search and the wait for extraction, with the same
parameters; only the scope a call reaches differs. Both interfaces inherit them from here
(each makes its own ``*_async`` twins, in its own parameter kinds).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from oracleagentmemory._async_twins import AsyncTwins
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker

if TYPE_CHECKING:
    from oracleagentmemory.apis.message import ImageMimeType
    from oracleagentmemory.apis.records import MemoryRecordType, RecordStatus
    from oracleagentmemory.apis.relations import MemoryLinkType
    from oracleagentmemory.apis.searchresult import SearchResult
    from oracleagentmemory.apis.searchscope import SearchScope
    from oracleagentmemory.apis.ttl import TimeToLiveAnchor

__all__ = ["IScopedOperations"]


class IScopedOperations(ABC, AsyncTwins):
    """Memories, images, relations and search, within the scope of the object called."""

    @abstractmethod
    def add_image(
        self,
        image: bytes,
        description: str | None | _NotSetMarker = NOT_SET_MARKER,
        mime_type: ImageMimeType | _NotSetMarker = NOT_SET_MARKER,
        image_id: str | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> str:
        """Store an image; its description is its searchable text."""

    @abstractmethod
    def update_image(
        self,
        image_id: str,
        image: bytes | _NotSetMarker = NOT_SET_MARKER,
        description: str | None | _NotSetMarker = NOT_SET_MARKER,
        mime_type: ImageMimeType | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> str:
        """Replace the given fields of an image; returns its id."""

    @abstractmethod
    def delete_image(
        self,
        image_id: str,
    ) -> int:
        """Delete an image; 0 when it does not exist here."""

    @abstractmethod
    def add_memory(
        self,
        content: str,
        *,
        memory_type: MemoryRecordType | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | _NotSetMarker = NOT_SET_MARKER,
        memory_id: str | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        status: RecordStatus | _NotSetMarker = NOT_SET_MARKER,
        autonomous_linking: bool | _NotSetMarker = NOT_SET_MARKER,
        memory_id_to_link: str | _NotSetMarker = NOT_SET_MARKER,
        link_type: MemoryLinkType | _NotSetMarker = NOT_SET_MARKER,
        link_id: str | _NotSetMarker = NOT_SET_MARKER,
        link_timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        link_metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> str:
        """Add a memory (fact, preference, guideline or plain memory); returns its id."""

    @abstractmethod
    def update_memory(
        self,
        memory_id: str,
        content: str | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        status: RecordStatus | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> str:
        """Replace the given fields of a memory-like record; returns its id."""

    @abstractmethod
    def delete_memory(
        self,
        memory_id: str,
    ) -> int:
        """Delete a memory-like record; returns the number deleted (0 or 1)."""

    @abstractmethod
    def search(
        self,
        query: str,
        *,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        exact_user_match: bool | _NotSetMarker = NOT_SET_MARKER,
        exact_agent_match: bool | _NotSetMarker = NOT_SET_MARKER,
        exact_thread_match: bool | _NotSetMarker = NOT_SET_MARKER,
        max_results: int | _NotSetMarker = NOT_SET_MARKER,
        token_budget: int | _NotSetMarker = NOT_SET_MARKER,
        soft_token_budget: int | _NotSetMarker = NOT_SET_MARKER,
        record_types: list[str] | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        num_hops: int | _NotSetMarker = NOT_SET_MARKER,
        max_linked_results: int | _NotSetMarker = NOT_SET_MARKER,
        include_invalid_results: bool | _NotSetMarker = NOT_SET_MARKER,
        scope: SearchScope | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[SearchResult]:
        """Records relevant to the query, best first."""

    @abstractmethod
    def link_records(
        self,
        source_record_id: str,
        source_record_type: str,
        target_record_id: str,
        target_record_type: str,
        relation_type: str,
        opposite_relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        relation_id: str | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> str:
        """Create a directed relation between two memory-like records; returns its id."""

    @abstractmethod
    def update_record_link(
        self,
        relation_id: str,
        relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        opposite_relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> int:
        """Replace the given fields of a relation; returns 0 or 1."""

    @abstractmethod
    def delete_record_link(
        self,
        source_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        source_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        relation_id: str | _NotSetMarker = NOT_SET_MARKER,
    ) -> int:
        """Delete a relation by id or by its stored-direction endpoints."""

    @abstractmethod
    def wait_for_memory_extraction(
        self,
        timeout: float | None = 300.0,
    ) -> None:
        """Wait for background extraction accepted before the call."""
