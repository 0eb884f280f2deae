"""LangGraph's search filters, pushed down to the store's metadata filter where they agree.

LangGraph filters compare an item's value: plain values and nested objects match exactly
(recursively), and ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte`` compare. The store's
filter language has equality, nested objects, lists and ``$not`` but no ordering, so each
top-level entry is either translated (scalars, nested objects, ``$eq``/``$ne`` of scalars)
or checked in Python after the fetch. :func:`matches` is always applied last, so results
follow LangGraph's semantics whatever was pushed down (the push-down is only a pre-filter;
it is stricter in one corner: JSON ``true`` never equals ``1``).
"""

from __future__ import annotations

import math
from typing import Any

from oracleagentmemory.errors import InvalidArgumentError
from oracleagentmemory.integrations.langgraph_namespaces import VALUE

_COMPARISONS = ("$gt", "$gte", "$lt", "$lte")
_OPERATORS = ("$eq", "$ne", *_COMPARISONS)


def _scalar(value: Any) -> bool:
    """A value the store's filter compares as LangGraph does: NaN and the infinities are
    not (JSON has no such numbers), so only Python checks them: ``$eq`` NaN matches
    nothing, ``$ne`` NaN everything, as in LangGraph's stores."""
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, (str, int, bool))


def _translate(expected: Any) -> Any | None:
    """The store-filter form of one expected value, or None when only Python can check it."""
    if isinstance(expected, dict):
        if any(key.startswith("$") for key in expected):
            parts: dict[str, Any] = {}
            for operator, operand in expected.items():
                if operator not in ("$eq", "$ne") or not _scalar(operand):
                    return None
                if operator == "$eq":
                    return None if len(expected) > 1 else operand
                parts["$not"] = operand
            return parts if len(expected) == 1 else None
        if not expected:
            return None
        nested = {key: _translate(value) for key, value in expected.items()}
        return None if any(value is None for value in nested.values()) else nested
    if isinstance(expected, (list, tuple)):
        return list(expected) if expected and all(_scalar(item) for item in expected) else None
    return expected if _scalar(expected) else None


def store_filter(filter_: dict[str, Any] | None) -> tuple[dict[str, Any], bool]:
    """The push-down filter on the stored value, and whether some entries were left out."""
    pushed: dict[str, Any] = {}
    partial = False
    for key, expected in (filter_ or {}).items():
        translated = _translate(expected)
        if translated is None or key.startswith("$"):
            partial = True
        else:
            pushed[key] = translated
    return ({VALUE: pushed} if pushed else {}), partial


def check_filter(filter_: dict[str, Any] | None) -> None:
    """Reject unknown operators up front, as LangGraph's stores do."""

    def walk(expected: Any) -> None:
        if isinstance(expected, dict):
            for key, value in expected.items():
                if key.startswith("$") and key not in _OPERATORS:
                    raise InvalidArgumentError(f"Unsupported operator: {key}")
                walk(value)

    walk(filter_ or {})


def matches(value: dict[str, Any], filter_: dict[str, Any] | None) -> bool:
    """LangGraph's filter semantics (as its in-memory store applies them)."""
    return all(_compare(value.get(key), expected) for key, expected in (filter_ or {}).items())


def _compare(actual: Any, expected: Any) -> bool:
    if isinstance(expected, dict):
        if any(key.startswith("$") for key in expected):
            return all(_apply(actual, operator, operand)
                       for operator, operand in expected.items())
        if not isinstance(actual, dict):
            return False
        return all(_compare(actual.get(key), item) for key, item in expected.items())
    if isinstance(expected, (list, tuple)):
        return (isinstance(actual, (list, tuple)) and len(actual) == len(expected)
                and all(_compare(a, e) for a, e in zip(actual, expected, strict=True)))
    return actual == expected


def _apply(actual: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return actual == operand
    if operator == "$ne":
        return actual != operand
    if actual is None:
        return False  # a missing field is not ordered against anything
    if operator == "$gt":
        return float(actual) > float(operand)
    if operator == "$gte":
        return float(actual) >= float(operand)
    if operator == "$lt":
        return float(actual) < float(operand)
    if operator == "$lte":
        return float(actual) <= float(operand)
    raise InvalidArgumentError(f"Unsupported operator: {operator}")
