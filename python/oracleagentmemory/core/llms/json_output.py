"""Tolerant parsing of JSON answers from chat models.

Why: not every server enforces JSON mode, and models wrap JSON in code fences, prose or
``<think>`` reasoning blocks. We strip those and take the first complete JSON object or
array; when there is none the error says so and shows the start of the answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from oracleagentmemory.core.llms.errors import LlmOutputError

_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
SNIPPET_CHARS = 200
MAX_DECODE_ATTEMPTS = 200
"""Bracket positions tried before giving up, so a long garbage answer stays cheap."""
MAX_ANSWER_CHARS = 1_000_000
"""The longest answer searched for JSON: extraction, summary and linking answers are a few
thousand characters; a longer one is refused rather than scanned."""
_OPEN, _CLOSE = "<think>", "</think>"


def strip_reasoning(text: str) -> str:
    """Drop ``<think>…</think>`` blocks, and everything from an unterminated ``<think>`` on,
    from an answer (any case). One pass over the text: a pattern search restarted at every
    ``<think>`` took seconds on a long answer full of them."""
    lowered = text.lower()
    kept: list[str] = []
    at = 0
    while (start := lowered.find(_OPEN, at)) >= 0:
        kept.append(text[at:start])
        end = lowered.find(_CLOSE, start + len(_OPEN))
        if end < 0:
            at = len(text)
            break
        at = end + len(_CLOSE)
    kept.append(text[at:])
    return "".join(kept).strip()


def _is_marker(value: Any) -> bool:
    """``[1]``, ``[2, 3]``: a citation or transcript label in prose, not an answer."""
    return isinstance(value, list) and all(
        isinstance(item, (int, float)) and not isinstance(item, bool) for item in value)


def parse_json_output(text: str) -> Any:
    """The first JSON object or array in a model answer.

    Tries, in order: the whole answer, the contents of each code fence, then every ``{`` or
    ``[`` position with a raw decoder (so surrounding prose is ignored). In prose, a list
    of numbers only (``Sure. [1] user: ...``, an echoed transcript label or a citation) is
    not taken for the answer.
    Raises :class:`LlmOutputError` when none of these yields JSON, or the answer is longer
    than ``MAX_ANSWER_CHARS``.
    """
    if not isinstance(text, str):
        raise LlmOutputError(f"expected the model's text answer, got {type(text).__name__}")
    if len(text) > MAX_ANSWER_CHARS:
        raise LlmOutputError(f"the model's answer has {len(text):,} characters, over the "
                             f"{MAX_ANSWER_CHARS:,} a JSON answer is searched in")
    cleaned = strip_reasoning(text)
    candidates = [cleaned, *(block.strip() for block in _FENCE.findall(cleaned))]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, (dict, list)):
            return value
    decoder = json.JSONDecoder()
    starts = [index for index, char in enumerate(cleaned) if char in "{["]
    for index in starts[:MAX_DECODE_ATTEMPTS]:
        try:
            value, _ = decoder.raw_decode(cleaned, index)
        except ValueError:
            continue
        if not _is_marker(value):
            return value
    snippet = cleaned[:SNIPPET_CHARS] if cleaned else "<empty answer>"
    raise LlmOutputError("the model's answer contains no JSON object or array", snippet)
