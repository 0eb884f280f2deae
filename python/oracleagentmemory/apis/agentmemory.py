"""Abstract agent-memory client interface."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from oracleagentmemory._async_twins import AsyncTwins, keyword_only_after, named_only
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker

if TYPE_CHECKING:
    from oracleagentmemory.apis.message import ImageMimeType
    from oracleagentmemory.apis.records import (
        AgentProfileRecord,
        ImageRecord,
        MemoryRecord,
        MemoryRecordType,
        MessageRecord,
        RecordStatus,
        ThreadRecord,
        UserProfileRecord,
    )
    from oracleagentmemory.apis.relations import MemoryLinkType
    from oracleagentmemory.apis.searchresult import SearchResult
    from oracleagentmemory.apis.searchscope import SearchScope
    from oracleagentmemory.apis.thread import IThread
    from oracleagentmemory.apis.ttl import TimeToLiveAnchor

__all__ = ["IAgentMemory"]


class IAgentMemory(ABC, AsyncTwins):
    """An agent-memory client: threads, memories, profiles, images, links and search.

    Implementations provide the synchronous methods; each ``*_async`` twin runs its
    synchronous method in a worker thread unless an implementation overrides it.
    """

    @abstractmethod
    def add_agent(
        self,
        agent_id: str,
        information: str,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> str:
        """Store an agent profile; returns its id (the agent_id)."""

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
    def add_user(
        self,
        user_id: str,
        information: str,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> str:
        """Store a user profile; returns its id (the user_id)."""

    @abstractmethod
    def create_thread(
        self,
        *,
        thread_id: str | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> IThread:
        """Create and persist a thread."""

    @abstractmethod
    def delete_agent(
        self,
        agent_id: str,
        cascade: bool = True,
    ) -> int:
        """Delete an agent profile (with everything it owns when cascading)."""

    @abstractmethod
    def delete_image(
        self,
        image_id: str,
    ) -> int:
        """Delete an image; 0 when it does not exist here."""

    @abstractmethod
    def delete_memory(
        self,
        memory_id: str,
    ) -> int:
        """Delete a memory-like record; returns the number deleted (0 or 1)."""

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
    def delete_thread(
        self,
        thread_id: str,
    ) -> int:
        """Delete a thread with everything scoped to it."""

    @abstractmethod
    def delete_user(
        self,
        user_id: str,
        cascade: bool = True,
    ) -> int:
        """Delete a user profile (with everything it owns when cascading)."""

    @abstractmethod
    def get_thread(
        self,
        thread_id: str,
    ) -> IThread:
        """Reopen a persisted thread."""

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
    def list_agents(
        self,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[AgentProfileRecord]:
        """Stored agent profiles, oldest first."""

    @abstractmethod
    def list_images(
        self,
        image_id: str | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        include_bytes: bool | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[ImageRecord]:
        """Stored images, oldest first."""

    @abstractmethod
    def list_memories(
        self,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[MemoryRecord]:
        """Stored memory-like records, oldest first."""

    @abstractmethod
    def list_messages(
        self,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
        include_image_bytes: bool | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[MessageRecord]:
        """Stored messages of any thread, oldest first."""

    @abstractmethod
    def list_threads(
        self,
        user_id: str | None,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[ThreadRecord]:
        """Stored threads of a user, oldest first."""

    @abstractmethod
    def list_users(
        self,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[UserProfileRecord]:
        """Stored user profiles, oldest first."""

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
    def update_thread(
        self,
        thread_id: str,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> IThread:
        """Persist new thread metadata and runtime settings."""

    @abstractmethod
    def wait_for_memory_extraction(
        self,
        timeout: float | None = 300.0,
    ) -> None:
        """Wait for background extraction accepted before the call."""

    _async_twins: tuple[str, ...] = (
        "add_agent",
        "add_image",
        "add_memory",
        "add_user",
        "create_thread",
        "delete_agent",
        "delete_image",
        "delete_memory",
        "delete_record_link",
        "delete_thread",
        "delete_user",
        "get_thread",
        "link_records",
        "list_agents",
        "list_images",
        "list_memories",
        "list_messages",
        "list_threads",
        "list_users",
        "search",
        "update_image",
        "update_memory",
        "update_record_link",
        "update_thread",
        "wait_for_memory_extraction",
    )
    _async_twin_shapes = {"update_memory": keyword_only_after(1),
                          "update_thread": named_only("thread_id", "metadata")}
