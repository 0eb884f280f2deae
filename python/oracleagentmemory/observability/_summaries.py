"""Short, export-safe descriptions of arguments and results.

Why: the summary fields of an event are what dashboards and logs keep, so they must say
"how much" and "which" (sizes, counts, ids, flags) without carrying the texts themselves.
An argument named ``id`` or ``*_id(s)`` keeps its value; other strings keep their length.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER

MAX_LISTED_IDS = 20
"""Longest list of ids a summary repeats (the count is always exact)."""


def summarize_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """One summary per passed argument (omitted ``NOT_SET_MARKER`` arguments are left out)."""
    return {name: summarize_value(value, name) for name, value in arguments.items()
            if value is not NOT_SET_MARKER}


def summarize_result(result: Any, name: str = "") -> dict[str, Any]:
    """Like an argument named ``name``: a result named ``memory_id`` keeps its value."""
    summary = summarize_value(result, name)
    return summary if isinstance(summary, dict) else {"value": summary}


def summarize_value(value: Any, name: str = "") -> Any:
    """Scalars as they are, ids by value, everything else by type and size."""
    if isinstance(value, Enum):
        return value.value
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value if _names_an_id(name) else {"type": "str", "length": len(value)}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"type": "bytes", "length": len(value)}
    if isinstance(value, Mapping):
        return {"type": "dict", "count": len(value)}
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple):
        return {"type": type(value).__name__, "shape": list(shape)}
    if isinstance(value, (list, tuple, set, frozenset)):
        summary: dict[str, Any] = {"type": "list", "count": len(value)}
        if _names_an_id(name) and all(isinstance(item, str) for item in value):
            ids: list[str | None] = list(value)
        else:
            ids = [_id_of(item) for item in value]
        if ids and all(item_id is not None for item_id in ids):
            summary["ids"] = ids[:MAX_LISTED_IDS]
        return summary
    summary = {"type": type(value).__name__}
    item_id = _id_of(value)
    if item_id is not None:
        summary["id"] = item_id
    return summary


def _names_an_id(name: str) -> bool:
    return name == "id" or name.endswith(("_id", "_ids"))


def _id_of(item: Any) -> str | None:
    value = item.get("id") if isinstance(item, Mapping) else getattr(item, "id", None)
    return value if isinstance(value, str) else None
