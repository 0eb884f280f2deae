"""One normal form for every prompt shape :meth:`ILlm.generate` accepts: a list of Messages.

Why: a prompt arrives as a string, as Message objects, or as OpenAI-style mappings (whose
images are ``image_url`` data URLs). Turning all of them into
:class:`~oracleagentmemory.apis.message.Message` once lets the image limits be checked in
one place and each wire protocol (chat completions, responses) render from one shape.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from oracleagentmemory.apis.llms.llm import Prompt
from oracleagentmemory.apis.message import (
    ImageContent,
    ImageMimeType,
    Message,
    MessageContent,
    TextContent,
)
from oracleagentmemory.errors import InvalidArgumentError

_DATA_URL = re.compile(r"^data:(?P<mime>[\w/+.-]+);base64,(?P<data>.*)$", re.DOTALL)


def to_messages(prompt: Prompt) -> list[Message]:
    """The prompt as Messages; TypeError/ValueError naming the part that is not understood."""
    if isinstance(prompt, str):
        return [Message("user", prompt)]
    if isinstance(prompt, Mapping):
        return [_from_mapping(prompt, "prompt")]
    if not isinstance(prompt, Sequence) or isinstance(prompt, (bytes, bytearray)):
        raise TypeError("prompt must be a str, a chat message mapping or a sequence of "
                        f"messages, got {type(prompt).__name__}")
    messages = [item if isinstance(item, Message) else _from_mapping(item, f"prompt[{index}]")
                for index, item in enumerate(prompt)]
    if not messages:
        raise ValueError("prompt must contain at least one message")
    return messages


def image_data_url(image: ImageContent) -> str:
    """``data:<mime>;base64,<bytes>``, the form OpenAI-compatible servers accept for images."""
    if image.bytes is None:
        raise ValueError("an image part without bytes cannot be sent to an LLM")
    encoded = base64.b64encode(bytes(image.bytes)).decode("ascii")
    return f"data:{ImageMimeType(image.mime_type).value};base64,{encoded}"


def wire_message(message: Message, text_part: Callable[[str], dict[str, Any]],
                 image_part: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """A message in an OpenAI-style wire format: text content when it has no images, else
    the parts made by ``text_part(text)`` and ``image_part(data_url)`` in order."""
    if isinstance(message.content, str):
        return {"role": message.role, "content": message.content}
    if not any(isinstance(part, ImageContent) for part in message.content):
        return {"role": message.role, "content": message.text}
    return {"role": message.role, "content": [
        image_part(image_data_url(part)) if isinstance(part, ImageContent)
        else text_part(getattr(part, "text", ""))
        for part in message.content
    ]}


def _from_mapping(item: Any, where: str) -> Message:
    if not isinstance(item, Mapping):
        raise TypeError(f"{where} must be a Message or a mapping with 'role' and 'content', "
                        f"got {type(item).__name__}")
    role, content = item.get("role"), item.get("content")
    if not isinstance(role, str) or not role:
        raise ValueError(f"{where} needs a non-empty 'role'")
    if isinstance(content, str):
        return Message(role, content)
    if not isinstance(content, Sequence) or isinstance(content, (bytes, bytearray)):
        raise TypeError(f"{where}['content'] must be a str or a list of content parts")
    parts = [_part(part, f"{where}['content'][{index}]") for index, part in enumerate(content)]
    if not parts:
        raise ValueError(f"{where}['content'] must not be empty")
    return Message(role, parts)


def _part(part: Any, where: str) -> MessageContent:
    if isinstance(part, MessageContent):
        return part
    if not isinstance(part, Mapping):
        raise TypeError(f"{where} must be a content part mapping, got {type(part).__name__}")
    kind = part.get("type")
    if kind in ("text", "input_text") and isinstance(part.get("text"), str):
        return TextContent(text=part["text"])
    if kind in ("image_url", "input_image"):
        url = part.get("image_url")
        if isinstance(url, Mapping):
            url = url.get("url")
        return _image_from_url(url, where)
    raise ValueError(f"{where} must be a text part or an image_url part, got type {kind!r}")


def _image_from_url(url: Any, where: str) -> ImageContent:
    match = _DATA_URL.match(url) if isinstance(url, str) else None
    if match is None:
        raise ValueError(f"{where}: only base64 data URLs (data:image/png;base64,...) are "
                         "accepted as images; download remote images first")
    try:
        data = base64.b64decode(match.group("data"), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{where}: the image data URL is not valid base64") from None
    mime = match.group("mime")
    try:
        mime_type = ImageMimeType(mime)
    except ValueError:  # what ImageContent says of a type it does not take
        raise InvalidArgumentError(f"mime_type {mime!r} is not supported; use image/png, "
                                   "image/jpeg or image/webp") from None
    return ImageContent(bytes=data, mime_type=mime_type)
