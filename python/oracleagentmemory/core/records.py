"""Conversions between contract records (JSON-shaped dicts) and public API objects."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracleagentmemory.apis.message import ImageContent, ImageMimeType, Message, TextContent
from oracleagentmemory.apis.records import (
    ImageRecord,
    MessageRecord,
    ProfileRecord,
    Record,
    RecordStatus,
    ScopedRecord,
)

_COMMON = ("id", "record_type", "content", "metadata", "timestamp", "created_at", "updated_at",
           "expires_at")
_SCOPE = ("user_id", "agent_id", "thread_id")


def to_record(data: Mapping[str, Any]) -> Record:
    """The public record object for a contract RecordOut."""
    common = {key: data.get(key) for key in _COMMON}
    common["content"] = common["content"] or ""
    common["status"] = RecordStatus(data.get("status") or "VALID")
    record_type = data["record_type"]
    if record_type in ("user_profile", "agent_profile"):
        return ProfileRecord(**common)
    scope = {key: data.get(key) for key in _SCOPE}
    if record_type == "message":
        return MessageRecord(**common, **scope, role=data.get("role") or "user",
                             parts=data.get("parts"))
    if record_type == "image":
        return ImageRecord(**common, **scope, mime_type=data.get("mime_type"),
                           bytes=data.get("image_bytes"), message_id=data.get("message_id"))
    return ScopedRecord(**common, **scope)


def to_message(data: Mapping[str, Any], images: Mapping[str, Mapping[str, Any]] = {}) -> Message:  # noqa: B006
    """A stored message record as a Message; image parts take bytes from ``images``."""
    parts = data.get("parts")
    if not parts:
        content: str | tuple = data.get("content") or ""
    else:
        content = tuple(_to_part(part, images) for part in parts)
    return Message(
        role=data.get("role") or "user",
        content=content,
        timestamp=data.get("timestamp") or data.get("created_at"),
        metadata=data.get("metadata"),
        id=data["id"],
    )


def _to_part(part: Mapping[str, Any], images: Mapping[str, Mapping[str, Any]]):
    if part.get("type") == "image":
        image = images.get(part["id"], {})
        return ImageContent(
            bytes=image.get("image_bytes"),
            mime_type=ImageMimeType(part.get("mime_type") or ImageMimeType.PNG),
            description=image.get("content", part.get("description")),
            id=part["id"],
            timestamp=part.get("timestamp"),
        )
    return TextContent(text=part.get("text", ""), id=part["id"], timestamp=part.get("timestamp"))
