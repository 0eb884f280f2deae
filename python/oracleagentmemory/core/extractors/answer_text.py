"""Clean free-text answers (summaries, captions) from chat models.

Why: models often wrap a plain answer in reasoning blocks, code fences, the section tags of
our own prompt, or quotes; stored text must be the answer alone.
"""

from __future__ import annotations

import re

from oracleagentmemory.core.extractors.prompts import unescape_answer
from oracleagentmemory.core.llms.errors import LlmOutputError
from oracleagentmemory.core.llms.json_output import strip_reasoning

_FENCED = re.compile(r"^```[ \t]*[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```$", re.DOTALL)
_PLACEHOLDER = re.compile(r"^(<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}|[\W_]*|(topic|item) ?\d*)$",
                          re.IGNORECASE)
PLACEHOLDER_WORDS = frozenset({
    "string", "text", "content", "sentence", "memory", "fact", "preference", "guideline",
    "example", "none", "null", "n/a", "na", "todo", "tbd", "placeholder", "topic", "topics",
})
"""Answers that are a schema's or a prompt's placeholder, never something a user said."""


def is_placeholder(text: str) -> bool:
    """True for ``...``, ``<one sentence>``, ``[n]``, ``topic 1``, ``string`` and the like:
    what a model copies from a prompt or schema instead of answering."""
    stripped = text.strip().strip("\"'`").strip()
    return bool(_PLACEHOLDER.match(stripped)) or \
        stripped.casefold().rstrip(".") in PLACEHOLDER_WORDS


def clean_answer(text: str, tag: str | None = None, what: str = "answer") -> str:
    """The answer without reasoning, fences, an enclosing ``<tag>`` or quotes.

    Raises :class:`LlmOutputError` when nothing is left.
    """
    if not isinstance(text, str):
        raise LlmOutputError(f"expected the model's text {what}, got {type(text).__name__}")
    cleaned = unescape_answer(strip_reasoning(text))
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
