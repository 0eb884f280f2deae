"""How a JSON schema becomes a request for structured output, and how that degrades.

Why a ladder: servers differ. OpenAI and recent vLLM/Ollama enforce a JSON schema; some only
offer JSON mode; some reject both, and some (llama.cpp when it cannot build a grammar)
answer HTTP 500. A request starts at the strongest level the endpoint has not refused; a
refusal drops one level at once (it is not retried) and is remembered for the endpoint
(base URL, model and protocol), by every client of this process. A refusal is an error
answer (4xx or 5xx) whose message names the output format, or an HTTP 400/415/422 that
names no other problem we can see. When the server cannot enforce the schema, an optional
reminder puts the schema into the prompt so the model still knows the shape (callers
parse tolerantly).
"""

from __future__ import annotations

import json
import re
import threading
from enum import IntEnum
from typing import Any

REJECTION_STATUSES = frozenset({400, 415, 422})
"""Statuses with which servers refuse an output format they do not support, sometimes with
a message that does not say so."""
_NAMES_FORMAT = re.compile(
    r"response[_ ]format|json[_ ]schema|json[_ ]object|json mode|text\.format|structured "
    r"outputs?|grammar|guided[_ ](json|decoding)|\bschema\b", re.IGNORECASE)
_NAMES_OTHER_PROBLEM = re.compile(
    r"context|token|too long|length|model .*not|not found|api[_ ]key|auth|permission|quota|"
    r"rate limit|image|vision|messages?\[", re.IGNORECASE)
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
MAX_NAME_CHARS = 64


class OutputMode(IntEnum):
    """What a request asks for, weakest first."""

    TEXT = 0
    JSON = 1
    SCHEMA = 2


def names_output_format(status: int, message: str) -> bool:
    """True when an error answer names the output format (then retrying cannot fix it)."""
    return status >= 400 and bool(_NAMES_FORMAT.search(message))


def is_refusal(status: int, message: str) -> bool:
    """True when an error answer refuses the output format asked for."""
    return names_output_format(status, message) or (
        status in REJECTION_STATUSES and not _NAMES_OTHER_PROBLEM.search(message))


_REFUSED: dict[tuple[str, ...], OutputMode] = {}
_REFUSED_LOCK = threading.Lock()


def best_output(endpoint: tuple[str, ...], ceiling: OutputMode) -> OutputMode:
    """The strongest mode, up to ``ceiling``, that ``endpoint`` has not refused."""
    with _REFUSED_LOCK:
        return min(ceiling, _REFUSED.get(endpoint, OutputMode.SCHEMA))


def remember_refusal(endpoint: tuple[str, ...], refused: OutputMode) -> bool:
    """Ask ``endpoint`` for less than ``refused`` from now on; True the first time."""
    weaker = OutputMode(max(refused - 1, OutputMode.TEXT))
    with _REFUSED_LOCK:
        before = _REFUSED.get(endpoint, OutputMode.SCHEMA)
        _REFUSED[endpoint] = min(before, weaker)
        return _REFUSED[endpoint] < before


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
