"""Stored records as the public API returns them, and the record-type vocabulary."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = [
    "ImageRecord",
    "MEMORY_TYPES",
    "MessageRecord",
    "ProfileRecord",
    "Record",
    "RecordStatus",
    "SEARCHABLE_TYPES",
    "ScopedRecord",
]

MEMORY_TYPES: tuple[str, ...] = ("memory", "fact", "guideline", "preference")
"""Memory-like record types: extracted or added knowledge, linkable to each other."""

SEARCHABLE_TYPES: tuple[str, ...] = (
    *MEMORY_TYPES,
    "message",
    "image",
    "user_profile",
    "agent_profile",
)
"""Record types that carry a vector and can be returned by a search."""

ALL_TYPES: tuple[str, ...] = (*SEARCHABLE_TYPES, "thread", "summary")


class RecordStatus(str, Enum):
    """Lifecycle status of a record; invalid records stay stored but can be filtered out."""

    VALID = "VALID"
    INVALID = "INVALID"


@dataclass(kw_only=True)
class Record:
    """A persisted entry: content, metadata and bookkeeping times."""

    id: str
    record_type: str
    content: str = ""
    metadata: dict[str, Any] | None = None
    timestamp: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    expires_at: str | None = None
    status: RecordStatus = RecordStatus.VALID

    @property
    def effective_timestamp(self) -> str | None:
        """The event timestamp, or the creation time when none was stored."""
        return self.timestamp or self.created_at


@dataclass(kw_only=True)
class ScopedRecord(Record):
    """A record scoped to a user, an agent and a thread (each may be None)."""

    user_id: str | None = None
    agent_id: str | None = None
    thread_id: str | None = None


@dataclass(kw_only=True)
class MessageRecord(ScopedRecord):
    """A raw thread message."""

    role: str = "user"
    parts: list[dict[str, Any]] | None = None


@dataclass(kw_only=True)
class ImageRecord(ScopedRecord):
    """A stored image; ``content`` is its searchable description."""

    mime_type: str | None = None
    bytes: bytes | None = field(default=None, repr=False)
    message_id: str | None = None

    @property
    def description(self) -> str:
        return self.content


@dataclass(kw_only=True)
class ProfileRecord(Record):
    """A user or agent profile; its id is the id the application uses as user_id/agent_id."""
