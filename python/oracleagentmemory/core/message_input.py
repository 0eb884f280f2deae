"""Turning the message shapes callers pass (objects or dicts) into Message objects."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from oracleagentmemory.apis.message import (
    ImageContent,
    ImageMimeType,
    Message,
    MessageContent,
    TextContent,
)
from oracleagentmemory.core.arguments import check_stored_text, check_text
from oracleagentmemory.core.image_validation import detect_mime_type
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError, MissingFieldError

_MESSAGE_KEYS = frozenset({"role", "content", "id", "timestamp", "metadata"})


def to_messages(messages: Any) -> list[Message]:
    """Messages from a sequence of Message objects or role/content dicts.

    A plain string is a ValueError, a missing ``role`` or ``content`` a KeyError (both
    naming the problem), as the reference documents."""
    if isinstance(messages, (str, bytes)):
        raise InvalidArgumentError(
            "messages must be a list of messages, not a single string; wrap it as "
            "[{'role': 'user', 'content': ...}]")
    if isinstance(messages, Mapping) or not isinstance(messages, Sequence):
        raise ArgumentTypeError("messages must be a list of Message objects or dicts")
    batch = [_to_message(item, index) for index, item in enumerate(messages)]
    for index, message in enumerate(batch):
        _check_texts(message, index)
    return batch


def _check_texts(message: Message, index: int) -> None:
    """Every text a message stores is valid Unicode and within the content limit, checked
    before anything is embedded."""
    check_text(message.role, f"messages[{index}].role")
    check_stored_text(message.text, f"messages[{index}].content")
    if not isinstance(message.content, str):
        for position, part in enumerate(message.content):
            if isinstance(part, ImageContent) and part.description is not None:
                check_stored_text(part.description,
                                  f"messages[{index}].content[{position}].description")


def _to_message(item: Any, index: int) -> Message:
    if isinstance(item, Message):
        return item
    if not isinstance(item, Mapping):
        raise ArgumentTypeError(
            f"messages[{index}] must be a Message or a dict, got {type(item).__name__}")
    unknown = set(item) - _MESSAGE_KEYS
    if unknown:
        raise InvalidArgumentError(
            f"messages[{index}] has unknown keys: {', '.join(sorted(unknown))}")
    for key in ("role", "content"):
        if key not in item:
            raise MissingFieldError(f"messages[{index}] needs a {key!r}")
    content = item["content"]
    if not isinstance(content, str):
        content = _to_parts(content, index)
    metadata = item.get("metadata")
    if metadata is not None and not isinstance(metadata, Mapping):
        raise InvalidArgumentError(f"messages[{index}].metadata must be a dict or None")
    try:
        return Message(
            role=item["role"],
            content=content,
            timestamp=item.get("timestamp"),
            metadata=dict(metadata) if metadata is not None else None,
            id=item.get("id"),
        )
    except (TypeError, ValueError) as error:
        raise type(error)(f"messages[{index}]: {error}") from None


def _detected(data: Any, index: int, position: int) -> ImageMimeType:
    """The type of an image part given as a dict without ``mime_type``: read from its bytes
    (an ``ImageContent`` itself needs one)."""
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise InvalidArgumentError(
            f"messages[{index}].content[{position}] needs bytes or a mime_type")
    return detect_mime_type(bytes(data))


def _to_parts(content: Any, index: int) -> list[MessageContent]:
    if not isinstance(content, Sequence) or isinstance(content, (bytes, bytearray)):
        raise ArgumentTypeError(
            f"messages[{index}].content must be a str or a list of content parts")
    parts: list[MessageContent] = []
    for position, part in enumerate(content):
        if isinstance(part, MessageContent):
            parts.append(part)
            continue
        if not isinstance(part, Mapping):
            raise ArgumentTypeError(f"messages[{index}].content[{position}] must be a dict")
        kind = part.get("type")
        extra = {k: part[k] for k in ("id", "timestamp") if part.get(k) is not None}
        if kind == "text":
            parts.append(TextContent(text=part.get("text", ""), **extra))
        elif kind == "image":
            data = part.get("bytes", part.get("image"))
            parts.append(ImageContent(
                bytes=data,
                mime_type=part.get("mime_type") or _detected(data, index, position),
                description=part.get("description"),
                **extra,
            ))
        else:
            raise InvalidArgumentError(
                f"messages[{index}].content[{position}].type must be 'text' or 'image'"
            )
    return parts
