"""Clean free-text answers (summaries, captions) from chat models.

Why: models often wrap a plain answer in reasoning blocks, code fences, the section tags of
our own prompt, or quotes; stored text must be the answer alone.
"""

from __future__ import annotations

import re

from oracleagentmemory.core.llms.errors import LlmOutputError
from oracleagentmemory.core.llms.json_output import strip_reasoning

_FENCED = re.compile(r"^```[ \t]*[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```$", re.DOTALL)


def clean_answer(text: str, tag: str | None = None, what: str = "answer") -> str:
    """The answer without reasoning, fences, an enclosing ``<tag>`` or quotes.

    Raises :class:`LlmOutputError` when nothing is left.
    """
    if not isinstance(text, str):
        raise LlmOutputError(f"expected the model's text {what}, got {type(text).__name__}")
    cleaned = strip_reasoning(text)
    fenced = _FENCED.match(cleaned)
    if fenced:
        cleaned = fenced.group(1).strip()
    if tag:
        match = re.fullmatch(rf"<{tag}>(.*)</{tag}>", cleaned, re.DOTALL | re.IGNORECASE)
        if match:
            cleaned = match.group(1).strip()
    if len(cleaned) >= 2 and cleaned[0] == cleaned[-1] and cleaned[0] in "\"'":
        cleaned = cleaned[1:-1].strip()
    if not cleaned:
        raise LlmOutputError(f"the model returned an empty {what}")
    return cleaned
