"""The metadata-filter and scope cases of the store contract, written once.

The contract suite runs every case on each backend (and on a caller's store); the reference
evaluator in ``stores/metadata_filter.py`` runs the filter cases too; and the utPLSQL suite
``tests/plsql/ut_agent_memory_filter`` is generated from them, so the three agree by
construction (docs/store-contract.md, "Scope" and "Metadata filter language"). An expected value
here is what the contract says, never what a backend answers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Document = Mapping[str, Any]


@dataclass(frozen=True)
class FilterGroup:
    """Cases that show one rule; ``name`` is a PL/SQL identifier, ``rule`` says the rule."""

    name: str
    rule: str


@dataclass(frozen=True)
class FilterCase:
    """A record whose metadata is ``metadata`` (None: the record has none) is found by
    ``metadata_filter`` exactly when ``matches``."""

    group: FilterGroup
    metadata: Document | None
    metadata_filter: Document
    matches: bool


@dataclass(frozen=True)
class MalformedFilter:
    """A filter every operation refuses with ``InvalidFilterError`` naming ``names``."""

    metadata_filter: Any
    names: str
    why: str


@dataclass(frozen=True)
class ScopeCase:
    """A record of ``record`` scope (user, agent, thread) passes ``scope`` when ``matches``,
    and ranks ``affinity`` steps closer (its non-exact dimensions whose value it holds)."""

    name: str
    rule: str
    record: tuple[str | None, str | None, str | None]
    scope: Document
    matches: bool
    affinity: int


EQUALITY = FilterGroup("json_equality", "JSON equality: 1 equals 1.0, true is not 1, null "
                                        "matches only a present null")
MISSING = FilterGroup("missing_fields", "a field the record lacks matches nothing but a "
                                        "negation, no metadata being an empty object")
MEMBERSHIP = FilterGroup("array_membership", "$array_contains needs every value, "
                                             "$array_contains_any one, both only in a list")
NEGATION = FilterGroup("negation", "$not inverts an expression, and matches a missing field")
LISTS = FilterGroup("lists_and_nesting", "lists are equal in order and length; nested "
                                         "objects recurse")
KEYS = FilterGroup("every_key", "every key of a filter must match; an empty filter matches "
                                "everything")

STORED: Document = {
    "source": "chat", "count": 3, "ratio": 1.0, "flag": True, "nothing": None,
    "tags": ["trip", "urgent"], "travel": {"need": "transit", "city": {"name": "Rome"}},
    "label": "trip", "objects": [{"a": 1}, {"b": [2]}],
}
"""One rich metadata document most filter cases are read against."""


def _on_stored(group: FilterGroup, *cases: tuple[Document, bool]) -> list[FilterCase]:
    return [FilterCase(group, STORED, flt, matches) for flt, matches in cases]


FILTER_CASES: tuple[FilterCase, ...] = (
    *_on_stored(
        EQUALITY,
        ({"source": "chat"}, True), ({"source": "mail"}, False), ({"count": 3.0}, True),
        ({"ratio": 1}, True), ({"flag": 1}, False), ({"count": True}, False),
        ({"flag": True}, True), ({"nothing": None}, True)),
    FilterCase(EQUALITY, {"n": 1.0}, {"n": 1}, True),
    FilterCase(EQUALITY, {"b": True}, {"b": 1}, False),
    FilterCase(EQUALITY, {"b": 1}, {"b": True}, False),
    FilterCase(EQUALITY, {"s": "1"}, {"s": 1}, False),
    FilterCase(EQUALITY, {"z": None}, {"z": None}, True),
    FilterCase(EQUALITY, {}, {"z": None}, False),
    *_on_stored(
        MISSING,
        ({"missing": "x"}, False), ({"missing": None}, False), ({"missing": {"$not": "x"}}, True),
        ({"missing": {"$not": {"$array_contains": "x"}}}, True)),
    FilterCase(MISSING, None, {"a": 1}, False),
    FilterCase(MISSING, None, {"a": {"$not": 1}}, True),
    FilterCase(MISSING, {}, {"a": {"$not": 1}}, True),
    FilterCase(MISSING, None, {"a": {"$not": 1}, "b": 2}, False),
    FilterCase(MISSING, {}, {"k": {"$not": "x"}}, True),
    *_on_stored(
        MEMBERSHIP,
        ({"tags": {"$array_contains": "trip"}}, True),
        ({"tags": {"$array_contains": ["trip", "urgent"]}}, True),
        ({"tags": {"$array_contains": ["trip", "archived"]}}, False),
        ({"tags": {"$array_contains_any": ["archived", "urgent"]}}, True),
        ({"tags": {"$array_contains_any": ["archived"]}}, False),
        ({"label": {"$array_contains": "trip"}}, False)),
    FilterCase(MEMBERSHIP, {"t": ["a", "b"]}, {"t": {"$array_contains": ["a", "b"]}}, True),
    FilterCase(MEMBERSHIP, {"t": ["a"]}, {"t": {"$array_contains": ["a", "b"]}}, False),
    FilterCase(MEMBERSHIP, {"t": ["a"]}, {"t": {"$array_contains_any": ["b", "a"]}}, True),
    FilterCase(MEMBERSHIP, {"t": "a"}, {"t": {"$array_contains": "a"}}, False),
    *_on_stored(
        NEGATION,
        ({"tags": {"$not": {"$array_contains": "archived"}}}, True),
        ({"tags": {"$array_contains": "trip", "$not": {"$array_contains": "archived"}}}, True),
        ({"tags": {"$array_contains": "trip", "$not": {"$array_contains": "urgent"}}}, False),
        ({"label": {"$not": {"$array_contains": "trip"}}}, True),
        ({"source": {"$not": "chat"}}, False), ({"source": {"$not": "mail"}}, True),
        ({"travel": {"$not": {"need": "walk"}}}, True),
        ({"travel": {"need": {"$not": "transit"}}}, False),
        ({"source": {"$not": {"$not": "chat"}}}, True)),
    FilterCase(NEGATION, {"k": "x"}, {"k": {"$not": "x"}}, False),
    FilterCase(NEGATION, {"k": "y"}, {"k": {"$not": {"$array_contains": "x"}}}, True),
    FilterCase(NEGATION, {"k": ["x"]}, {"k": {"$not": {"$array_contains": "x"}}}, False),
    *_on_stored(
        LISTS,
        ({"tags": ["trip", "urgent"]}, True), ({"tags": ["urgent", "trip"]}, False),
        ({"tags": ["trip"]}, False), ({"travel": {"need": "transit"}}, True),
        ({"travel": {"city": {"name": "Rome"}}}, True),
        ({"travel": {"city": {"name": "Paris"}}}, False), ({"source": {"need": "x"}}, False),
        ({"objects": [{"a": 1}, {"b": [2]}]}, True), ({"objects": [{"a": 1}]}, False),
        ({"objects": [{"a": 1}, {"b": [2], "c": 3}]}, False)),
    FilterCase(LISTS, {"l": [1, 2]}, {"l": [1, 2]}, True),
    FilterCase(LISTS, {"l": [2, 1]}, {"l": [1, 2]}, False),
    FilterCase(LISTS, {"l": [1, 2, 3]}, {"l": [1, 2]}, False),
    FilterCase(LISTS, {"o": {"p": {"q": 1}}}, {"o": {"p": {"q": 1}}}, True),
    FilterCase(LISTS, {"o": {"p": 1}}, {"o": {"p": {"q": 1}}}, False),
    FilterCase(LISTS, {"o": {"x": 1}}, {"o": {}}, True),
    *_on_stored(
        KEYS,
        ({}, True),
        ({"source": "chat", "travel": {"need": "transit"}, "tags": ["trip", "urgent"]}, True),
        ({"source": "chat", "count": 4}, False)),
)

FILTER_GROUPS: tuple[FilterGroup, ...] = tuple(dict.fromkeys(case.group for case in FILTER_CASES))

MALFORMED_FILTERS: tuple[MalformedFilter, ...] = (
    MalformedFilter("source=chat", "dict or None", "a filter that is not an object"),
    MalformedFilter({"tags": {"$contains": "x"}}, "$contains", "an unknown operator"),
    MalformedFilter({"a": {"$gt": 1}}, "$gt", "an unknown operator"),
    MalformedFilter({"$or": [{"a": 1}]}, "$or", "an operator in place of a field name"),
    MalformedFilter({"$not": {"a": 1}}, "$not", "an operator in place of a field name"),
    MalformedFilter({"tags": {"$array_contains": "x", "name": "y"}}, "tags",
                    "operators mixed with field names"),
    MalformedFilter({"a": {"$not": 1, "b": 2}}, "a", "operators mixed with field names"),
    MalformedFilter({"tags": {"$array_contains_any": "x"}}, "$array_contains_any",
                    "$array_contains_any of a value that is not a list"),
    MalformedFilter({"tags": {"$array_contains": []}}, "$array_contains",
                    "an empty membership list"),
    MalformedFilter({"a": {"$array_contains_any": []}}, "$array_contains_any",
                    "an empty membership list"),
    MalformedFilter({"a": {"b": {"$bad": 1}}}, "$bad", "an unknown operator in a nested object"),
    MalformedFilter({"": 1}, "''", "an empty field name"),
    MalformedFilter({"a": float("nan")}, "a", "a value JSON cannot hold"),
    MalformedFilter({"a": {1, 2}}, "a", "a value JSON cannot hold"),
    MalformedFilter({1: 1}, "1", "a field name that is not a string"),
)

SCOPE_CASES: tuple[ScopeCase, ...] = (
    ScopeCase("no_scope", "without a scope every record passes", ("u1", "a1", "t1"), {},
              True, 0),
    ScopeCase("exact_value", "an exact dimension keeps the records holding its value",
              ("u1", "a1", "t1"), {"user_id": {"value": "u1", "exact": True}}, True, 0),
    ScopeCase("exact_other_value", "an exact dimension drops the records of another value",
              ("u2", "a1", "t1"), {"user_id": {"value": "u1", "exact": True}}, False, 0),
    ScopeCase("exact_null_matches_null", "an exact null keeps the records without a value",
              (None, "a", "other"), {"user_id": {"value": None, "exact": True},
                                     "thread_id": {"value": "t1", "exact": False}}, True, 0),
    ScopeCase("exact_null_drops_values", "an exact null drops the records with a value",
              ("u1", "a", "t1"), {"user_id": {"value": None, "exact": True},
                                  "thread_id": {"value": "t1", "exact": False}}, False, 0),
    ScopeCase("exact_value_drops_null", "an exact value drops the records without one",
              (None, "a1", "t1"), {"user_id": {"value": "u1", "exact": True}}, False, 0),
    ScopeCase("non_exact_never_drops", "a non-exact dimension drops nothing",
              ("u2", "a1", "t1"), {"user_id": {"value": "u1", "exact": False}}, True, 0),
    ScopeCase("non_exact_affinity", "a non-exact dimension the record holds ranks it closer",
              (None, "a", "t1"), {"user_id": {"value": None, "exact": True},
                                  "thread_id": {"value": "t1", "exact": False}}, True, 1),
    ScopeCase("affinity_per_dimension", "each matching non-exact dimension counts once",
              ("u1", "a1", "t1"), {"user_id": {"value": "u1", "exact": False},
                                   "agent_id": {"value": "a1", "exact": False},
                                   "thread_id": {"value": "t9", "exact": False}}, True, 2),
    ScopeCase("exact_dimensions_add_no_affinity", "an exact dimension adds no affinity",
              ("u1", "a1", "t1"), {"user_id": {"value": "u1", "exact": True},
                                   "agent_id": {"value": "a1", "exact": True}}, True, 0),
)


def json_text(value: Any) -> str | None:
    """``value`` as JSON text, or None when JSON cannot hold it (NaN, a set, a non-string
    key): such a filter can only be given from Python."""
    def only_text_keys(item: Any) -> bool:
        if isinstance(item, dict):
            return all(isinstance(k, str) and only_text_keys(v) for k, v in item.items())
        if isinstance(item, list):
            return all(only_text_keys(v) for v in item)
        return not (isinstance(item, float) and math.isnan(item))

    if not only_text_keys(value):
        return None
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None
