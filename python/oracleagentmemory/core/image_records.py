"""Image records: standalone images and the images attached to messages.

Shared by the client (images of any scope) and threads (images of the thread, and the
image parts of its messages). Bytes are validated before anything is written; a missing
description becomes an LLM caption when an LLM is attached.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from oracleagentmemory._ids import new_id
from oracleagentmemory._notset import NOT_SET_MARKER, value_or
from oracleagentmemory.apis.message import (
    ImageContent,
    ImageMimeType,
    Message,
    part_to_dict,
)
from oracleagentmemory.core.arguments import check_id_argument, check_stored_text
from oracleagentmemory.core.image_validation import validate_image
from oracleagentmemory.core.imageinputlimitconfig import ImageInputLimitConfig
from oracleagentmemory.core.memory_service import MemoryService
from oracleagentmemory.core.retention import TtlFields
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError
from oracleagentmemory.stores.protocol import RecordIn, RecordScope
from oracleagentmemory.stores.timestamps import add_days

Captioner = Callable[[bytes, ImageMimeType], str]
"""Makes a description for image bytes ('' when it cannot)."""


def describe(data: bytes | None, mime: ImageMimeType, description: Any,
             captioner: Captioner) -> str:
    """The given description, else a caption of the bytes (possibly '')."""
    if isinstance(description, str):
        return check_stored_text(description, "description")
    if description is not None and description is not NOT_SET_MARKER:
        raise ArgumentTypeError(
            f"description must be a str or None, got {type(description).__name__}")
    return captioner(data, mime) if data is not None else ""


def image_record(service: MemoryService, *, image_id: Any, data: bytes,
                 mime: ImageMimeType, description: str, scope: RecordScope,
                 metadata: Any, timestamp: Any, ttl: TtlFields) -> RecordIn:
    """A checked image record; its description (if any) is embedded for search."""
    record_id = value_or(image_id, None) or new_id()
    check_id_argument(record_id, "image_id")
    return {
        "record_type": "image", "id": record_id, **scope,
        "content": description, "metadata": metadata, "timestamp": timestamp,
        "mime_type": mime.value, "image_bytes": bytes(data), **ttl,
        "embedding": service.embed([description])[0] if description else None,
    }


def message_images(service: MemoryService, message: Message, ttl: TtlFields,
                   scope: RecordScope, limits: ImageInputLimitConfig,
                   captioner: Captioner
                   ) -> tuple[list[dict[str, Any]] | None, list[RecordIn]]:
    """Stored parts of a multimodal message and records for its new images.

    Image parts with bytes are validated and become image records sharing the message's
    scope and expiry; parts without bytes refer to images already attached.
    """
    if isinstance(message.content, str):
        return None, []
    parts: list[dict[str, Any]] = []
    images: list[RecordIn] = []
    for part in message.content:
        if not isinstance(part, ImageContent):
            parts.append(part_to_dict(part))
            continue
        mime = part.mime_type
        if part.bytes is not None:
            mime = validate_image(part.bytes, value_or(part.mime_type, NOT_SET_MARKER), limits)
            # An attached image expires with its message: a message's TTL counted from
            # its timestamp gives the image the message's expires_at (_message_expiry);
            # its TTL fields, for a store that computes expiry itself, count from
            # creation when the part has no timestamp to anchor on.
            image_ttl: TtlFields = {**ttl, "ttl_anchor": ttl["ttl_anchor"]
                                    if ttl["ttl_anchor"] != "TIMESTAMP" or part.timestamp
                                    else "CREATED_AT"}
            image = image_record(
                service, image_id=part.id, data=part.bytes, mime=mime,
                description=describe(part.bytes, mime, part.description, captioner),
                scope=scope, metadata=None, timestamp=part.timestamp, ttl=image_ttl)
            expires_at = _message_expiry(message, ttl)
            if expires_at is not None:
                image["expires_at"] = expires_at
            images.append(image)
        parts.append({**part_to_dict(part),
                      "mime_type": mime.value if mime is not None else None})
    return parts, images


def _message_expiry(message: Message, ttl: TtlFields) -> str | None:
    """The expiry of a message whose TTL counts from its timestamp, for its images, whose
    own timestamp (if any) is not the message's: the image's ``expires_at``, which the
    store keeps instead of computing one (no clock is involved: it is the time the store
    computes for the message). None otherwise: a TTL counted from creation gives the
    message and its images, written in one transaction, one expiry; a timestamp the store
    refuses for the message is left for it to name."""
    days = ttl["ttl_days"]
    if ttl["ttl_anchor"] != "TIMESTAMP" or days is None or not isinstance(message.timestamp,
                                                                          str):
        return None
    try:
        return add_days(message.timestamp, days)
    except InvalidArgumentError:
        return None
