"""In-memory messages shared by threads and LLM adapters."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, TypeAlias

from oracleagentmemory._ids import new_id
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError

__all__ = ["ImageContent", "ImageMimeType", "JsonSchema", "Message", "MessageContent",
           "TextContent"]

JsonSchema: TypeAlias = dict[str, Any]
"""A JSON schema, as passed to an LLM for structured output."""
MetadataValue: TypeAlias = dict[str, Any] | None
"""JSON-like metadata stored with a record (None: no metadata)."""


class ImageMimeType(str, Enum):
    """MIME types accepted for image content. Animated PNG and WebP are not supported."""

    # The reference's order (its pages name them "PNG, JPEG and WEBP"): list(ImageMimeType)
    # shows the same choices in the same order.
    PNG = "image/png"
    JPEG = "image/jpeg"
    WEBP = "image/webp"


@dataclass(frozen=True, slots=True)
class MessageContent(ABC):
    """Base class of structured message content parts.

    Attributes:
        id: The part's id (keyword-only). Default: a new UUID.
        timestamp: The part's event time, ISO-8601 (keyword-only). Default: None.
    """

    id: str = field(default_factory=new_id, kw_only=True)
    timestamp: str | None = field(default=None, kw_only=True)

    @abstractmethod
    def _to_dict(self) -> dict[str, Any]:
        """The part as stored in a message record (image bytes are stored apart)."""


@dataclass(frozen=True, slots=True)
class TextContent(MessageContent):
    """A text part of a multimodal message.

    Attributes:
        text: The text.

    Raises:
        ArgumentTypeError: A ``text`` that is not a str (a ``TypeError``).
    """

    type: ClassVar[str] = "text"
    text: str

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise ArgumentTypeError(
                f"TextContent.text must be a str, got {type(self.text).__name__}")

    def _to_dict(self) -> dict[str, Any]:
        return {"type": "text", "id": self.id, "text": self.text, "timestamp": self.timestamp}


@dataclass(frozen=True, slots=True)
class ImageContent(MessageContent):
    """An image part of a multimodal message.

    ``bytes`` is None when a message is read without loading image bytes, or when a part
    refers to an image already attached to the message. A None ``mime_type`` is detected
    from the bytes when the message is stored.

    Attributes:
        bytes: The PNG, JPEG or WebP bytes, or None.
        mime_type: The image's type (a str is turned into ``ImageMimeType``).
        description: The image's searchable text. Default: None (a caption by the LLM
            when it is stored, if there is one).

    Raises:
        ArgumentTypeError: ``bytes`` or ``description`` of the wrong type, or no
            ``mime_type`` (None), as the reference refuses it.
        InvalidArgumentError: A ``mime_type`` that is not PNG, JPEG or WebP (a
            ``ValueError``).
    """

    type: ClassVar[str] = "image"
    bytes: bytes | None
    mime_type: ImageMimeType
    description: str | None = None
    _validated_image: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.bytes is not None and not isinstance(self.bytes, (bytes, bytearray)):
            raise ArgumentTypeError("ImageContent.bytes must be bytes or None")
        if self.description is not None and not isinstance(self.description, str):
            raise ArgumentTypeError("ImageContent.description must be a str or None")
        if self.mime_type is None:
            raise ArgumentTypeError("ImageContent.mime_type must be an ImageMimeType, got None")
        try:
            object.__setattr__(self, "mime_type", ImageMimeType(self.mime_type))
        except ValueError:
            raise InvalidArgumentError(
                f"mime_type {self.mime_type!r} is not supported; use image/png, "
                "image/jpeg or image/webp"
            ) from None

    def _to_dict(self) -> dict[str, Any]:
        return {"type": "image", "id": self.id, "mime_type": self.mime_type.value,
                "description": self.description, "timestamp": self.timestamp}


def part_to_dict(part: MessageContent) -> dict[str, Any]:
    """A content part as a message record stores it (image bytes are stored apart)."""
    return part._to_dict()


@dataclass(frozen=True, slots=True)
class Message:
    """A message: a role and either text or an ordered sequence of content parts.

    Attributes:
        role: Who wrote it (``"user"``, ``"assistant"``...).
        content: Its text, or its parts (``TextContent`` and ``ImageContent``, stored as
            a tuple).
        timestamp: Its event time, ISO-8601. Default: None.
        metadata: A JSON object stored with it. Default: None.
        id: Its id. Default: None (a new UUID when it is stored).

    Raises:
        InvalidArgumentError: An empty role or an empty sequence of parts (a
            ``ValueError``).
        ArgumentTypeError: Metadata that is not a dict, or content that is neither a str
            nor a sequence of ``MessageContent`` (a ``TypeError``).
    """

    role: str
    content: str | Sequence[MessageContent]
    timestamp: str | None = None
    metadata: dict[str, Any] | None = None
    id: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.role, str) or not self.role.strip():
            raise InvalidArgumentError("Message.role must be a non-empty string")
        if self.metadata is not None and not isinstance(self.metadata, dict):
            raise ArgumentTypeError("Message.metadata must be a dict or None")
        if isinstance(self.content, str):
            return
        if not isinstance(self.content, Sequence) or isinstance(self.content, (bytes, bytearray)):
            raise ArgumentTypeError("Message.content must be a str or a sequence of MessageContent")
        parts = tuple(self.content)
        if not parts:
            raise InvalidArgumentError("Message.content must not be an empty sequence")
        for part in parts:
            if not isinstance(part, MessageContent):
                raise ArgumentTypeError(
                    f"Message.content parts must be MessageContent, got {type(part).__name__}"
                )
        object.__setattr__(self, "content", parts)

    @property
    def text(self) -> str:
        """The text of the message: the content itself, or its text parts joined."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(p.text for p in self.content if isinstance(p, TextContent))
