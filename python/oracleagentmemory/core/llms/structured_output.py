"""How a JSON schema becomes a request for structured output, and how that degrades.

Why a ladder: servers differ. OpenAI and recent vLLM/Ollama enforce a JSON schema; some only
offer JSON mode; some reject both. A request starts at the strongest level the server has
not refused; a refusal (HTTP 400/415/422 naming no other problem we can see) drops one level
and is remembered. When the server cannot enforce the schema, an optional reminder puts the
schema into the prompt so the model still knows the shape (callers parse tolerantly).
"""

from __future__ import annotations

import json
import re
from enum import IntEnum
from typing import Any

REJECTION_STATUSES = frozenset({400, 415, 422})
"""Statuses with which servers refuse an output format they do not support."""
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
MAX_NAME_CHARS = 64


class OutputMode(IntEnum):
    """What a request asks for, weakest first."""

    TEXT = 0
    JSON = 1
    SCHEMA = 2


def schema_name(schema: dict[str, Any]) -> str:
    """The format's name: the schema's title when usable, as the protocol allows it."""
    title = schema.get("title")
    name = _NAME_CHARS.sub("_", title if isinstance(title, str) else "").strip("_")
    name = name[:MAX_NAME_CHARS]
    return name or "response"


def is_strict_compatible(schema: Any) -> bool:
    """True when every object lists all its properties as required and allows no others.

    Strict schema adherence only accepts such schemas; others are sent non-strict.
    """
    if isinstance(schema, list):
        return all(is_strict_compatible(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    properties = schema.get("properties")
    if isinstance(properties, dict) and (
        schema.get("additionalProperties") is not False
        or set(schema.get("required") or ()) != set(properties)
    ):
        return False
    return all(is_strict_compatible(value) for key, value in schema.items()
               if key not in ("required", "enum", "const", "default", "examples"))


def reminder(schema: dict[str, Any]) -> str:
    """A system message telling the model the answer's shape when the server cannot."""
    return ("Answer with one JSON value only, no prose or code fences, matching this JSON "
            f"schema:\n{json.dumps(schema, ensure_ascii=False)}")
