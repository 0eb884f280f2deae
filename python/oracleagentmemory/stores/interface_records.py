"""Records and relations of the public store interface in the store contract's shapes.

The caller-store adapter (``stores.interface_backend``) hands a caller's ``IMemoryStore``
public objects (``PendingRecordBatch``, message parts, enum members) and reads public
records back (``Record``, ``RecordRelation``); these functions turn one into the other.
What the interface carries no field for is left to the adapter: a relation's thread (read
from its ends), an image's message (read from its message's parts).
"""

from __future__ import annotations

from typing import Any, cast

from oracleagentmemory._ids import new_id
from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory._vocabulary import CONTRACT_RECORD_TYPES, PUBLIC_RECORD_TYPES
from oracleagentmemory.apis.memorystore import PendingRecordBatch, RecordContentInput
from oracleagentmemory.apis.message import (
    ImageContent,
    ImageMimeType,
    MessageContent,
    TextContent,
    part_to_dict,
)
from oracleagentmemory.apis.records import (
    AgentProfileRecord,
    ImageRecord,
    MessageRecord,
    Record,
    RecordStatus,
    ScopedRecord,
    ThreadRecord,
    UserProfileRecord,
)
from oracleagentmemory.apis.relations import RecordRelation
from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.stores.errors import InvalidArgumentError
from oracleagentmemory.stores.protocol import LinkIn, LinkOut, RecordIn, RecordOut
from oracleagentmemory.stores.timestamps import normalize

RECORD_IN_KEYS = ("id", "record_type", "user_id", "agent_id", "thread_id", "role", "content",
                  "metadata", "timestamp", "status", "parts", "mime_type", "image_bytes",
                  "message_id", "config")
"""The fields of a RecordOut that write it again (RecordIn without vector and expiry)."""


def public_type(record_type: str) -> str:
    """The interface's name of a contract record type (``summary`` is ``thread_summary``)."""
    return PUBLIC_RECORD_TYPES.get(record_type, record_type)


def utc_text(value: str | None) -> str | None:
    """A time a caller's store returned, as the contract returns times (UTC, microseconds,
    ``Z``); a value outside the shared ISO-8601 grammar is passed on as the store gave it."""
    if value is None:
        return None
    try:
        return normalize(value)
    except InvalidArgumentError:
        return value


def whole_days(days: float | None) -> int | None:
    """The contract's TTL (a number of days) as the interface's whole days. The client only
    ever writes whole days; a fraction cannot be handed to a store of the caller's."""
    if days is None or isinstance(days, int):
        return days
    if float(days).is_integer():
        return int(days)
    raise InvalidArgumentError(f"ttl_days must be a whole number of days, got {days!r}")


def image_part_ids(parts: list[dict[str, Any]] | None) -> list[str]:
    """The ids of a message's image parts: the images attached to it."""
    return [part["id"] for part in parts or () if part.get("type") == "image"]


def record_out(record: Record, message_id: str | None = None) -> RecordOut:
    """A public record as the contract's RecordOut. The interface keeps no bookkeeping
    times: ``created_at`` and ``updated_at`` read the record's timestamp (its event time, or
    its creation time when it has none) and ``expires_at`` is None."""
    stamp = utc_text(record.timestamp)
    out: RecordOut = {
        "id": record.id,
        "record_type": CONTRACT_RECORD_TYPES.get(record.record_type, record.record_type),
        "content": record.content if isinstance(record.content, str) else "",
        "metadata": record.metadata,
        "timestamp": stamp, "created_at": stamp, "updated_at": stamp, "expires_at": None,
        "status": RecordStatus(record.status).name,
    }
    if isinstance(record, ScopedRecord):
        out["user_id"] = record.user_id
        out["agent_id"] = record.agent_id
        out["thread_id"] = record.thread_id
    if isinstance(record, UserProfileRecord):
        out["user_id"] = record.id
    if isinstance(record, AgentProfileRecord):
        out["agent_id"] = record.id
    if isinstance(record, MessageRecord):
        out["role"] = record.role
        out["seq_no"] = record.seq_no
        out["parts"] = None
        if not isinstance(record.content, str):
            out["parts"] = [part_to_dict(part) for part in record.content]
            out["content"] = "\n".join(part.text for part in record.content
                                       if isinstance(part, TextContent))
    if isinstance(record, ImageRecord):
        mime = record.mime_type
        out["mime_type"] = None if mime is None else str(getattr(mime, "value", mime))
        out["message_id"] = record.message_id or message_id
        if record.bytes is not None:
            out["image_bytes"] = record.bytes
    if isinstance(record, ThreadRecord):
        out["config"] = {"settings": record.runtime_config or {},
                         "state": record.runtime_state or {}}
    if isinstance(record.content, dict):
        out["content"] = str(record.content.get("summary", ""))
    return out


def record_in(record: RecordOut) -> RecordIn:
    """A record read back, as a write of it again (its vector and expiry are not readable)."""
    return cast(RecordIn, {key: value for key, value in record.items()
                           if key in RECORD_IN_KEYS and value is not None})


def link_out(relation: RecordRelation, thread_id: str | None) -> LinkOut:
    """A public relation as the contract's LinkOut, owned by ``thread_id``."""
    return {
        "id": relation.id, "thread_id": thread_id, "source_id": relation.source_record_id,
        "source_type": relation.source_record_type, "target_id": relation.target_record_id,
        "target_type": relation.target_record_type, "relation_type": relation.relation_type,
        "opposite_relation_type": relation.opposite_relation_type,
        "timestamp": utc_text(relation.timestamp), "metadata": relation.metadata,
        "created_at": utc_text(relation.created_at) or "",
    }


def link_in(relation: RecordRelation) -> LinkIn:
    """A relation read back, as a write of it again (without a thread: a client-level link
    keeps its ends' shared thread)."""
    return {"id": relation.id, "source_id": relation.source_record_id,
            "source_type": relation.source_record_type,
            "target_id": relation.target_record_id,
            "target_type": relation.target_record_type,
            "relation_type": relation.relation_type,
            "opposite_relation_type": relation.opposite_relation_type,
            "timestamp": relation.timestamp, "metadata": relation.metadata}


def message_content(parts: list[dict[str, Any]]) -> list[MessageContent]:
    """A message's stored parts as the interface's content parts (images without bytes: an
    attached image is a record of its own)."""
    return [ImageContent(bytes=None, mime_type=part.get("mime_type") or ImageMimeType.PNG,
                         description=part.get("description"), id=part["id"])
            if part.get("type") == "image"
            else TextContent(text=part.get("text", ""), id=part.get("id") or new_id())
            for part in parts]


def thread_content(config: dict[str, Any] | None) -> dict[str, Any]:
    """A thread record's content for a store that keeps threads as plain records: its
    settings and its extraction state, ``{"settings": ..., "state": ...}``."""
    config = config or {}
    return {"settings": config.get("settings") or {}, "state": config.get("state") or {}}


def record_batch(record: RecordIn) -> PendingRecordBatch:
    """A one-record batch for the interface's ``add_batches``."""
    record_type = record["record_type"]
    content: RecordContentInput = record.get("content")
    if record_type == "image":
        content = record.get("image_bytes")
    elif record.get("parts"):
        content = message_content(record.get("parts") or [])
    elif record_type == "thread":
        content = thread_content(record.get("config"))
    elif record_type == "summary":
        content = {"summary": record.get("content") or ""}
    if record.get("image_bytes") and record_type != "image":
        raise InvalidArgumentError("only image records carry image bytes")
    embedding = record.get("embedding")
    anchor = record.get("ttl_anchor")
    return PendingRecordBatch(
        contents=[content], record_type=public_type(record_type), record_ids=[record.get("id")],
        index_texts=[record.get("content")] if record_type == "image" else NOT_SET_MARKER,
        embeddings=[[float(x) for x in embedding]] if embedding is not None else NOT_SET_MARKER,
        thread_ids=[record.get("thread_id")], user_ids=[record.get("user_id")],
        agent_ids=[record.get("agent_id")], roles=[record.get("role")],
        timestamps=[record.get("timestamp")], metadata=[record.get("metadata")],
        ttl_days=[whole_days(record.get("ttl_days"))] if "ttl_days" in record else NOT_SET_MARKER,
        ttl_anchor=[TimeToLiveAnchor[anchor]] if anchor else NOT_SET_MARKER,
        statuses=[RecordStatus(record.get("status") or "VALID")],
    )
