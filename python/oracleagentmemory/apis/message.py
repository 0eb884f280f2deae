"""In-memory messages shared by threads and LLM adapters."""

from __future__ import annotations

import uuid
from abc import ABC
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = ["ImageContent", "ImageMimeType", "Message", "MessageContent", "TextContent"]


def new_id() -> str:
    """A fresh random identifier (used wherever the caller gives none)."""
    return uuid.uuid4().hex


class ImageMimeType(str, Enum):
    """MIME types accepted for image content. Animated PNG and WebP are not supported."""

    JPEG = "image/jpeg"
    PNG = "image/png"
    WEBP = "image/webp"


@dataclass(frozen=True)
class MessageContent(ABC):  # noqa: B024 - abstract marker base, as documented
    """Base class of structured message content parts."""

    id: str = field(default_factory=new_id, kw_only=True)
    timestamp: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class TextContent(MessageContent):
    """A text part of a multimodal message."""

    text: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"TextContent.text must be a str, got {type(self.text).__name__}")


@dataclass(frozen=True)
class ImageContent(MessageContent):
    """An image part of a multimodal message.

    ``bytes`` may be None when a message is read without loading image bytes; a None
    ``mime_type`` is detected from the bytes when the message is stored.
    """

    bytes: bytes | None = None
    mime_type: ImageMimeType | None = None
    description: str | None = None

    def __post_init__(self) -> None:
        if self.bytes is not None and not isinstance(self.bytes, (bytes, bytearray)):
            raise TypeError("ImageContent.bytes must be bytes or None")
        if self.mime_type is not None:
            try:
                object.__setattr__(self, "mime_type", ImageMimeType(self.mime_type))
            except ValueError:
                raise ValueError(
                    f"mime_type {self.mime_type!r} is not supported; use image/png, "
                    "image/jpeg or image/webp"
                ) from None


@dataclass
class Message:
    """A message: a role and either text or an ordered sequence of content parts."""

    role: str
    content: str | Sequence[MessageContent]
    timestamp: str | None = None
    metadata: dict[str, Any] | None = None
    id: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.role, str) or not self.role:
            raise ValueError("Message.role must be a non-empty string")
        if isinstance(self.content, str):
            return
        if not isinstance(self.content, Sequence) or isinstance(self.content, (bytes, bytearray)):
            raise TypeError("Message.content must be a str or a sequence of MessageContent")
        parts = tuple(self.content)
        if not parts:
            raise ValueError("Message.content must not be an empty sequence")
        for part in parts:
            if not isinstance(part, MessageContent):
                raise TypeError(
                    f"Message.content parts must be MessageContent, got {type(part).__name__}"
                )
        self.content = parts

    @property
    def text(self) -> str:
        """The text of the message: the content itself, or its text parts joined."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(p.text for p in self.content if isinstance(p, TextContent))
