"""Stored records as the public API returns them, and the record-type vocabulary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal, TypeAlias

from oracleagentmemory import _vocabulary
from oracleagentmemory._enums import case_insensitive_lookup
from oracleagentmemory.apis.message import ImageMimeType, MessageContent, MetadataValue
from oracleagentmemory.apis.relations import RecordRelation
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "AgentProfileRecord",
    "FactRecord",
    "GuidelineRecord",
    "ImageRecord",
    "MEMORY_TYPES",
    "MemoryRecord",
    "MemoryRecordType",
    "MessageRecord",
    "PreferenceRecord",
    "Record",
    "RecordStatus",
    "ScopedRecord",
    "ThreadRecord",
    "ThreadRecordType",
    "ThreadSummaryRecord",
    "UserProfileRecord",
    "build_record",
]

MemoryRecordType: TypeAlias = Literal["memory", "guideline", "fact", "preference"]
ThreadRecordType: TypeAlias = Literal["message", "memory", "guideline", "fact", "preference"]

MEMORY_TYPES: frozenset[str] = frozenset(_vocabulary.MEMORY_TYPES)
"""Memory-like record types: extracted or added knowledge, linkable to each other."""


class RecordStatus(str, Enum):
    """Lifecycle status of a record; invalid records stay stored but can be filtered out."""

    VALID = "valid"
    INVALID = "invalid"

    _missing_ = classmethod(case_insensitive_lookup)


@dataclass(frozen=True, slots=True)
class Record:
    """A persisted entry.

    ``timestamp`` is the record's event time, or its creation time when none was stored;
    ``linked_results`` holds the records reached through relations when a search asked for
    linked context.

    Attributes:
        id: The record's id.
        record_type: Its type; each subclass fixes its own. Default: ``"record"``.
        content: Text for most types; a message's parts, a summary's JSON object (see
            the subclasses). Default: None.
        timestamp: Its event time, ISO-8601. Default: None.
        metadata: A JSON object stored with it. Default: None.
        status: ``RecordStatus.VALID`` or ``INVALID``. Default: valid.
        linked_results: Each relation a search followed from it, with the record
            reached. Default: none.
    """

    id: str
    record_type: str = "record"
    content: str | dict[str, object] | Sequence[MessageContent] | None = None
    timestamp: str | None = None
    metadata: MetadataValue = None
    status: RecordStatus = RecordStatus.VALID
    linked_results: Sequence[tuple[RecordRelation, Record]] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class ScopedRecord(Record):
    """A record scoped to a thread, a user and an agent (each may be None).

    Attributes:
        thread_id: Its thread. Default: None.
        user_id: Its user. Default: None.
        agent_id: Its agent. Default: None.
    """

    thread_id: str | None = None
    user_id: str | None = None
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class MemoryRecord(ScopedRecord):
    """A durable memory.

    Attributes:
        record_type: Always ``"memory"``.
    """

    record_type: str = field(default="memory", init=False)


@dataclass(frozen=True, slots=True)
class FactRecord(MemoryRecord):
    """A memory stating a fact.

    Attributes:
        record_type: Always ``"fact"``.
    """

    record_type: str = field(default="fact", init=False)


@dataclass(frozen=True, slots=True)
class PreferenceRecord(MemoryRecord):
    """A memory stating a preference.

    Attributes:
        record_type: Always ``"preference"``.
    """

    record_type: str = field(default="preference", init=False)


@dataclass(frozen=True, slots=True)
class GuidelineRecord(MemoryRecord):
    """A memory stating a guideline the agent should follow.

    Attributes:
        record_type: Always ``"guideline"``.
    """

    record_type: str = field(default="guideline", init=False)


@dataclass(frozen=True, slots=True)
class MessageRecord(ScopedRecord):
    """A raw thread message; ``seq_no`` orders the messages of a thread (increasing, but
    not necessarily contiguous).

    Attributes:
        record_type: Always ``"message"``.
        content: Its text, or its parts. Default: ``""``.
        role: Who wrote it. Default: None.
        seq_no: Its position in the thread's order (keyword-only, required).
    """

    record_type: str = field(default="message", init=False)
    content: str | Sequence[MessageContent] = ""
    role: str | None = None
    seq_no: int = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class ImageRecord(ScopedRecord):
    """A stored image; ``content`` is its searchable description.

    Attributes:
        record_type: Always ``"image"``.
        message_id: The message it is attached to. Default: None (a standalone image).
        mime_type: Its type (keyword-only, required).
        bytes: Its bytes, when the read asked for them. Default: None.
    """

    record_type: str = field(default="image", init=False)
    message_id: str | None = None
    mime_type: ImageMimeType = field(kw_only=True)
    bytes: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class ThreadRecord(ScopedRecord):
    """A persisted thread: its durable runtime settings and its extraction state.

    Attributes:
        record_type: Always ``"thread"``.
        runtime_config: The settings stored with the thread. Default: None.
        runtime_state: Its extraction progress. Default: None.
    """

    record_type: str = field(default="thread", init=False)
    runtime_config: dict[str, Any] | None = None
    runtime_state: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ThreadSummaryRecord(ScopedRecord):
    """The rolling summary of a thread; ``content`` holds the summary as a JSON object.

    Attributes:
        record_type: Always ``"thread_summary"``.
        content: The summary as a JSON object. Default: None.
    """

    record_type: str = field(default="thread_summary", init=False)
    content: dict[str, object] | None = None
    _covered_through_seq_no: int = 0


@dataclass(frozen=True, slots=True)
class UserProfileRecord(Record):
    """A user profile; its id is the ``user_id`` the application uses.

    Attributes:
        record_type: Always ``"user_profile"``.
    """

    record_type: str = field(default="user_profile", init=False)


@dataclass(frozen=True, slots=True)
class AgentProfileRecord(Record):
    """An agent profile; its id is the ``agent_id`` the application uses.

    Attributes:
        record_type: Always ``"agent_profile"``.
    """

    record_type: str = field(default="agent_profile", init=False)


_RECORD_CLASSES: dict[str, type[Record]] = {
    "memory": MemoryRecord,
    "fact": FactRecord,
    "preference": PreferenceRecord,
    "guideline": GuidelineRecord,
    "message": MessageRecord,
    "image": ImageRecord,
    "thread": ThreadRecord,
    "thread_summary": ThreadSummaryRecord,
    "user_profile": UserProfileRecord,
    "agent_profile": AgentProfileRecord,
}
_UNSCOPED = ("user_profile", "agent_profile")


def build_record(
    record_type: str,
    record_id: str,
    *,
    content: str | dict[str, object] | Sequence[MessageContent] | None = None,
    thread_id: str | None = None,
    user_id: str | None = None,
    agent_id: str | None = None,
    role: str | None = None,
    seq_no: int | None = None,
    timestamp: str | None = None,
    metadata: MetadataValue = None,
    status: RecordStatus = RecordStatus.VALID,
    **kwargs: Any,
) -> Record:
    """The record object of the class that ``record_type`` names.

    ``kwargs`` carries the fields only some types have (``mime_type``, ``bytes``,
    ``message_id``, ``runtime_config``, ``runtime_state``, ``linked_results``).

    Args:
        record_type: ``"memory"``, ``"fact"``, ``"preference"``, ``"guideline"``,
            ``"message"``, ``"image"``, ``"thread"``, ``"thread_summary"``,
            ``"user_profile"`` or ``"agent_profile"``.
        record_id: The record's id.
        content: Its content. Default: None (``""`` for a message).
        thread_id: Its thread (ignored for a profile). Default: None.
        user_id: Its user (ignored for a profile). Default: None.
        agent_id: Its agent (ignored for a profile). Default: None.
        role: A message's role. Default: None.
        seq_no: A message's position; required for a message.
        timestamp: Its event time. Default: None.
        metadata: Its metadata. Default: None.
        status: Its status. Default: ``RecordStatus.VALID``.

    Returns:
        A record of the class of ``record_type`` (``FactRecord`` for ``"fact"``...).

    Raises:
        InvalidArgumentError: An unknown ``record_type``, or a message without
            ``seq_no`` (a ``ValueError``).
        ArgumentTypeError: A keyword the type has no field for, or a required field
            missing (a ``TypeError`` naming it).
        ValueError: A ``status`` that is not a ``RecordStatus`` value.
    """
    record_class = _RECORD_CLASSES.get(record_type)
    if record_class is None:
        raise InvalidArgumentError(
            f"record_type must be one of {', '.join(sorted(_RECORD_CLASSES))}, got "
            f"{record_type!r}"
        )
    fields: dict[str, Any] = {"id": record_id, "timestamp": timestamp, "metadata": metadata,
                              "status": RecordStatus(status), **kwargs}
    if content is not None or record_type != "message":
        fields["content"] = content
    if record_type not in _UNSCOPED:
        fields.update(thread_id=thread_id, user_id=user_id, agent_id=agent_id)
    if record_type == "message":
        if seq_no is None:
            raise InvalidArgumentError("a message record needs a seq_no")
        fields.update(role=role, seq_no=seq_no)
    try:
        return record_class(**fields)
    except TypeError as error:
        raise ArgumentTypeError(f"build_record({record_type!r}): {error}") from None
