"""Abstract thread interface, and the message shapes a thread accepts."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory.apis.message import Message  # the reference's pages show it here too
from oracleagentmemory.apis.scoped_operations import IScopedOperations

if TYPE_CHECKING:
    from oracleagentmemory.apis.contextcard import ContextCard
    from oracleagentmemory.apis.records import ImageRecord, ThreadRecordType
    from oracleagentmemory.apis.summary import Summary
    from oracleagentmemory.apis.ttl import TimeToLiveAnchor

__all__ = [
    "IThread",
    "NormalizedMessageT",
    "ThreadMessageContentT",
    "ThreadMessageMappingT",
    "ThreadMessageTypedDictT",
]

ThreadMessageContentT: TypeAlias = "str | list[Mapping[str, Any]]"
"""A message's content: text, or a list of content-part dicts (``type`` text or image)."""
ThreadMessageMappingT: TypeAlias = (
    "Mapping[str, str | Sequence[Mapping[str, Any]] | Mapping[str, Any] | None]"
)
"""A message given as a plain mapping."""


class ThreadMessageTypedDictT(TypedDict, total=False):
    """A message given as a dict: ``role`` and ``content`` are required."""

    role: str
    content: str | list[Mapping[str, Any]]
    id: str | None
    timestamp: str | None
    metadata: dict[str, Any] | None


NormalizedMessageT = ThreadMessageTypedDictT
"""The dict form every accepted message shape is normalised to."""


class IThread(IScopedOperations):
    """A conversation thread: messages plus the memories, images and links scoped to it.

    The operations the client offers too (memories, images, links, search) are declared
    in ``IScopedOperations``. Implementations provide the synchronous methods; each
    ``*_async`` twin runs its synchronous method in a worker thread unless an
    implementation overrides it.
    """

    @abstractmethod
    def add_messages(
        self,
        messages: Sequence[Message | ThreadMessageTypedDictT | ThreadMessageMappingT],
        metadata: dict[str, Any]
        | None
        | list[dict[str, Any] | None]
        | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | list[int | None] | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | list[TimeToLiveAnchor] | _NotSetMarker = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> list[str]:
        """Append messages and index them; returns their ids."""

    @property
    @abstractmethod
    def agent_id(self) -> str:
        """The agent this thread belongs to."""

    @abstractmethod
    def delete_message(
        self,
        message_id: str,
    ) -> int:
        """Delete one raw message; derived memories stay."""

    @abstractmethod
    def get_context_card(
        self,
        fallback_message_count: int | _NotSetMarker = NOT_SET_MARKER,
        max_relevant_results: int | _NotSetMarker = NOT_SET_MARKER,
        max_recent_messages: int | _NotSetMarker = NOT_SET_MARKER,
        except_last_messages: int | _NotSetMarker = NOT_SET_MARKER,
        min_relevant_results_by_type: Mapping[ThreadRecordType, int]
        | None
        | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        include_invalid_results: bool | _NotSetMarker = NOT_SET_MARKER,
        token_budget: int | None | _NotSetMarker = NOT_SET_MARKER,
        soft_token_budget: int | None | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> ContextCard:
        """Summary, relevant records and recent messages, ready for a prompt."""

    @abstractmethod
    def get_message(
        self,
        message_id: str,
        *,
        included_image_ids: list[str] | _NotSetMarker = NOT_SET_MARKER,
    ) -> Message:
        """One message; KeyError when it does not exist here."""

    @abstractmethod
    def get_messages(
        self,
        *,
        start: int | None | _NotSetMarker = NOT_SET_MARKER,
        end: int | None | _NotSetMarker = NOT_SET_MARKER,
        include_image_bytes: bool | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[Message]:
        """Stored messages in order; no range gives the most recent window."""

    @abstractmethod
    def get_summary(
        self,
        except_last: int | _NotSetMarker = NOT_SET_MARKER,
        token_budget: int | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> Summary:
        """A summary of the thread (a transcript without an LLM)."""

    @abstractmethod
    def list_images(
        self,
        image_id: str | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        include_bytes: bool | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[ImageRecord]:
        """Stored images, oldest first."""

    @property
    @abstractmethod
    def metadata(self) -> dict[str, Any] | None:
        """The thread metadata."""

    @property
    @abstractmethod
    def thread_id(self) -> str:
        """The thread identifier."""

    @abstractmethod
    def update_message(
        self,
        message_id: str,
        content: str | list[Mapping[str, Any]] | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> str:
        """Replace the given fields of a message; returns its id."""

    @property
    @abstractmethod
    def user_id(self) -> str:
        """The user this thread belongs to."""

    _async_twins: tuple[str, ...] = (
        "add_messages",
        "get_messages",
        "get_message",
        "update_message",
        "delete_message",
        "add_image",
        "update_image",
        "delete_image",
        "list_images",
        "add_memory",
        "update_memory",
        "delete_memory",
        "search",
        "link_records",
        "update_record_link",
        "delete_record_link",
        "get_summary",
        "get_context_card",
        "wait_for_memory_extraction",
    )
