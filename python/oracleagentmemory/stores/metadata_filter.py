"""The metadata filter language: validation and the reference evaluator.

Grammar (see docs/store-contract.md):
    filter     := {key: expression, ...}                 AND across keys
    expression := operators | nested | exact
    operators  := {"$array_contains": value-or-list, "$array_contains_any": list,
                   "$not": expression, ...}               AND across operators
    nested     := {key: expression, ...}                  (no "$" keys) stored value is an object
    exact      := scalar | list                           JSON equality, lists in order

A positive expression fails on a missing field, so ``$not`` of it matches; negated array
membership also matches a field that is not an array. The embedded backend evaluates
filters here; the Oracle backend compiles the same grammar to SQL/JSON predicates.

A filter is bounded (``stores.limits``): at most MAX_FILTER_KEYS field names and operators,
MAX_FILTER_VALUES list items and MAX_JSON_DEPTH levels, so neither validation nor evaluation
can recurse without bound or cost more than a few predicates per record.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from oracleagentmemory.stores.errors import InvalidArgumentError, InvalidFilterError
from oracleagentmemory.stores.limits import (
    MAX_JSON_DEPTH,
    FilterBudget,
    check_text,
    nesting_depth,
)

OPERATORS = frozenset({"$array_contains", "$array_contains_any", "$not"})
_MISSING = object()


def validate_filter(metadata_filter: Any) -> dict[str, Any] | None:
    """Check a filter's shape; returns it (or None) and raises naming the offending key."""
    if metadata_filter is None:
        return None
    if not isinstance(metadata_filter, Mapping):
        raise InvalidFilterError(
            f"metadata_filter must be a dict or None, got {type(metadata_filter).__name__}"
        )
    if nesting_depth(metadata_filter) > MAX_JSON_DEPTH:
        raise InvalidFilterError(
            f"metadata_filter nests objects and arrays more than {MAX_JSON_DEPTH} levels deep")
    _validate_object(metadata_filter, "", FilterBudget())
    return dict(metadata_filter)


def _validate_object(spec: Mapping, path: str, budget: FilterBudget) -> None:
    for key, expression in spec.items():
        budget.key(f"{path}.{key}" if path else str(key))
        if not isinstance(key, str) or not key:
            raise InvalidFilterError(f"metadata_filter key {key!r} at {path or 'top level'} "
                                     "must be a non-empty string")
        if key.startswith("$"):
            raise InvalidFilterError(
                f"metadata_filter operator {key!r} is not allowed in place of a field name"
                f" at {path or 'top level'}; supported operators are field-level: "
                + ", ".join(sorted(OPERATORS))
            )
        _check_unicode(key, path or "top level")
        _validate_expression(expression, f"{path}.{key}" if path else key, budget)


def _check_unicode(text: str, path: str) -> None:
    try:
        check_text(text, "metadata_filter")
    except InvalidArgumentError as error:
        raise InvalidFilterError(f"{error} (at {path!r})") from None


def _validate_expression(expression: Any, path: str, budget: FilterBudget) -> None:
    if isinstance(expression, Mapping):
        keys = list(expression)
        operator_keys = [k for k in keys if isinstance(k, str) and k.startswith("$")]
        if not operator_keys:
            _validate_object(expression, path, budget)
            return
        if len(operator_keys) != len(keys):
            raise InvalidFilterError(
                f"metadata_filter field {path!r} mixes operators and field names"
            )
        for op in operator_keys:
            budget.key(path)
            _validate_operator(op, expression[op], path, budget)
        return
    _validate_exact(expression, path, budget)


def _validate_operator(op: str, operand: Any, path: str, budget: FilterBudget) -> None:
    if op not in OPERATORS:
        raise InvalidFilterError(
            f"metadata_filter field {path!r} uses unknown operator {op!r}; supported: "
            + ", ".join(sorted(OPERATORS))
        )
    if op == "$not":
        _validate_expression(operand, path, budget)
        return
    if op == "$array_contains_any" and not isinstance(operand, list):
        raise InvalidFilterError(
            f"metadata_filter operator '$array_contains_any' on {path!r} needs a list"
        )
    if isinstance(operand, list):
        if not operand:
            raise InvalidFilterError(f"metadata_filter operator {op!r} on {path!r} "
                                     "needs a non-empty list")
        budget.items(len(operand), path)
        for item in operand:
            _validate_exact(item, path, budget, allow_list=False)
    else:
        _validate_exact(operand, path, budget, allow_list=False)


def _validate_exact(value: Any, path: str, budget: FilterBudget,
                    allow_list: bool = True) -> None:
    if isinstance(value, str):
        _check_unicode(value, path)
        return
    if value is None or isinstance(value, (bool, int)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidFilterError(f"metadata_filter value for {path!r} must be finite")
        return
    if isinstance(value, list) and allow_list:
        budget.items(len(value), path)
        for item in value:
            _validate_exact(item, path, budget)
        return
    if isinstance(value, Mapping) and allow_list:  # an object inside an exact list
        budget.items(len(value), path)
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidFilterError(f"metadata_filter keys in {path!r} must be strings")
            _validate_exact(item, path, budget)
        return
    raise InvalidFilterError(
        f"metadata_filter value for {path!r} has unsupported type {type(value).__name__}"
    )


def matches(metadata_filter: Mapping[str, Any] | None, metadata: Any) -> bool:
    """Does a stored metadata object satisfy a validated filter? A record without metadata
    is an empty object here, so only negations match it (as SQL ``NOT JSON_EXISTS`` on a
    NULL column does)."""
    if not metadata_filter:
        return True
    return _match_object(metadata_filter, {} if metadata is None else metadata)


def _match_object(spec: Mapping, stored: Any) -> bool:
    if not isinstance(stored, Mapping):
        return False
    return all(_match_expression(expr, stored.get(key, _MISSING)) for key, expr in spec.items())


def _match_expression(expression: Any, stored: Any) -> bool:
    if isinstance(expression, Mapping):
        if expression and all(k.startswith("$") for k in expression):
            return all(_match_operator(op, arg, stored) for op, arg in expression.items())
        return stored is not _MISSING and _match_object(expression, stored)
    return stored is not _MISSING and json_equal(expression, stored)


def _match_operator(op: str, operand: Any, stored: Any) -> bool:
    if op == "$not":
        return not _match_expression(operand, stored)
    if not isinstance(stored, list):
        return False
    wanted = operand if isinstance(operand, list) else [operand]
    found = [any(json_equal(w, item) for item in stored) for w in wanted]
    return all(found) if op == "$array_contains" else any(found)


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: booleans are not numbers, 1 equals 1.0, lists in order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b
