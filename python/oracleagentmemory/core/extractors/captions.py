"""Image captions from a vision-capable chat model.

Why: an image is found by search through its text; when the caller gives no description,
the LLM writes one. The request is one user message with a text part and the image part;
the LLM adapter puts the image on the wire (a data URL for OpenAI-compatible servers).
"""

from __future__ import annotations

from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.message import ImageContent, ImageMimeType, Message, TextContent
from oracleagentmemory.core.extractors.answer_text import clean_answer
from oracleagentmemory.core.llms.errors import LlmError
from oracleagentmemory.core.llms.tasks import CAPTION, llm_task
from oracleagentmemory.core.tokens import character_boundary

CAPTION_PROMPT = (
    "Describe this image for a searchable memory store in at most {max_words} words: what "
    "it shows, any readable text, and details a person might later search for. Answer with "
    "the description only."
)
MAX_CAPTION_CHARS = 2_000


def caption_request(image_bytes: bytes, mime_type: ImageMimeType | str,
                    max_words: int = 60) -> list[Message]:
    """The prompt asking for a caption (one user turn: text part + image part)."""
    if not isinstance(image_bytes, (bytes, bytearray)) or not image_bytes:
        raise ValueError("image_bytes must be non-empty bytes")
    return [Message("user", [
        TextContent(text=CAPTION_PROMPT.format(max_words=max_words)),
        ImageContent(bytes=bytes(image_bytes), mime_type=ImageMimeType(mime_type)),
    ])]


def caption_image(llm: ILlm, image_bytes: bytes, mime_type: ImageMimeType | str,
                  *, max_words: int = 60) -> str:
    """A description of the image; raises LlmError on failure, an empty answer, or an LLM
    that declares it cannot see images (``supports_vision`` False)."""
    if getattr(llm, "supports_vision", True) is False:
        raise LlmError("the LLM does not support images (supports_vision is False)")
    with llm_task(CAPTION):
        answer = llm.generate(caption_request(image_bytes, mime_type, max_words))
    caption = " ".join(clean_answer(answer.text, what="caption").split())
    return caption[:character_boundary(caption, MAX_CAPTION_CHARS)]
