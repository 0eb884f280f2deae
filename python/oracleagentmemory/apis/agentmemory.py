"""Abstract agent-memory client interface."""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Any

from oracleagentmemory._async_twins import keyword_only_after, named_only
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory.apis.scoped_operations import IScopedOperations

if TYPE_CHECKING:
    from oracleagentmemory.apis.records import (
        AgentProfileRecord,
        ImageRecord,
        MemoryRecord,
        MessageRecord,
        ThreadRecord,
        UserProfileRecord,
    )
    from oracleagentmemory.apis.thread import IThread

__all__ = ["IAgentMemory"]


class IAgentMemory(IScopedOperations):
    """An agent-memory client: threads, memories, profiles, images, links and search.

    The operations a thread offers too (memories, images, links, search) are declared in
    ``IScopedOperations``. Implementations provide the synchronous methods; each
    ``*_async`` twin runs its synchronous method in a worker thread unless an
    implementation overrides it.
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
    def update_thread(
        self,
        thread_id: str,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> IThread:
        """Persist new thread metadata and runtime settings."""

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
