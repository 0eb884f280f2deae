"""Image captions from a vision-capable chat model.

Why: an image is found by search through its text; when the caller gives no description,
the LLM writes one. The image travels as a base64 data URL in an ``image_url`` content
part, the form OpenAI-compatible servers with vision models accept.
"""

from __future__ import annotations

import base64

from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.message import ImageMimeType
from oracleagentmemory.core.extractors.answer_text import clean_answer

CAPTION_PROMPT = (
    "Describe this image for a searchable memory store in at most {max_words} words: what "
    "it shows, any readable text, and details a person might later search for. Answer with "
    "the description only."
)
MAX_CAPTION_CHARS = 2_000


def image_data_url(image_bytes: bytes, mime_type: ImageMimeType | str) -> str:
    """``data:<mime>;base64,<bytes>`` for an ``image_url`` content part."""
    if not isinstance(image_bytes, (bytes, bytearray)) or not image_bytes:
        raise ValueError("image_bytes must be non-empty bytes")
    mime = ImageMimeType(mime_type).value
    return f"data:{mime};base64,{base64.b64encode(bytes(image_bytes)).decode('ascii')}"


def caption_request(image_bytes: bytes, mime_type: ImageMimeType | str,
                    max_words: int = 60) -> list[dict]:
    """The chat messages asking for a caption (one user turn: text part + image part)."""
    return [{
        "role": "user",
        "content": [
            {"type": "text", "text": CAPTION_PROMPT.format(max_words=max_words)},
            {"type": "image_url", "image_url": {"url": image_data_url(image_bytes, mime_type)}},
        ],
    }]


def caption_image(llm: ILlm, image_bytes: bytes, mime_type: ImageMimeType | str,
                  *, max_words: int = 60) -> str:
    """A description of the image; raises LlmError on failure or an empty answer."""
    answer = llm.generate(caption_request(image_bytes, mime_type, max_words))
    return " ".join(clean_answer(answer, what="caption").split())[:MAX_CAPTION_CHARS]
