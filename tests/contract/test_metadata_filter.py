"""The metadata filter language, checked on its reference evaluator."""

from __future__ import annotations

import pytest

from oracleagentmemory.stores.errors import InvalidFilterError
from oracleagentmemory.stores.metadata_filter import matches, validate_filter

STORED = {
    "source": "chat",
    "count": 3,
    "ratio": 1.0,
    "flag": True,
    "nothing": None,
    "tags": ["trip", "urgent"],
    "travel": {"need": "transit", "city": {"name": "Rome"}},
    "label": "trip",
    "objects": [{"a": 1}, {"b": [2]}],
}


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({}, True),
        ({"source": "chat"}, True),
        ({"source": "mail"}, False),
        ({"missing": "x"}, False),
        ({"nothing": None}, True),
        ({"missing": None}, False),
        ({"count": 3.0}, True),
        ({"ratio": 1}, True),
        ({"flag": 1}, False),
        ({"count": True}, False),
        ({"flag": True}, True),
        ({"tags": ["trip", "urgent"]}, True),
        ({"tags": ["urgent", "trip"]}, False),
        ({"tags": ["trip"]}, False),
        ({"travel": {"need": "transit"}}, True),
        ({"travel": {"city": {"name": "Rome"}}}, True),
        ({"travel": {"city": {"name": "Paris"}}}, False),
        ({"source": {"need": "x"}}, False),
        ({"source": "chat", "travel": {"need": "transit"}, "tags": ["trip", "urgent"]}, True),
        ({"source": "chat", "count": 4}, False),
        ({"tags": {"$array_contains": "trip"}}, True),
        ({"tags": {"$array_contains": ["trip", "urgent"]}}, True),
        ({"tags": {"$array_contains": ["trip", "archived"]}}, False),
        ({"tags": {"$array_contains_any": ["archived", "urgent"]}}, True),
        ({"tags": {"$array_contains_any": ["archived"]}}, False),
        ({"label": {"$array_contains": "trip"}}, False),
        ({"tags": {"$not": {"$array_contains": "archived"}}}, True),
        ({"tags": {"$array_contains": "trip", "$not": {"$array_contains": "archived"}}}, True),
        ({"tags": {"$array_contains": "trip", "$not": {"$array_contains": "urgent"}}}, False),
        ({"label": {"$not": {"$array_contains": "trip"}}}, True),
        ({"missing": {"$not": "x"}}, True),
        ({"missing": {"$not": {"$array_contains": "x"}}}, True),
        ({"source": {"$not": "chat"}}, False),
        ({"source": {"$not": "mail"}}, True),
        ({"travel": {"$not": {"need": "walk"}}}, True),
        ({"travel": {"need": {"$not": "transit"}}}, False),
        ({"source": {"$not": {"$not": "chat"}}}, True),
        ({"objects": [{"a": 1}, {"b": [2]}]}, True),
        ({"objects": [{"a": 1}]}, False),
        ({"objects": [{"a": 1}, {"b": [2], "c": 3}]}, False),
    ],
)
def test_filter_semantics(flt, expected):
    assert matches(validate_filter(flt), STORED) is expected


def test_any_filter_fails_on_missing_metadata_except_negations():
    assert matches({"a": 1}, None) is False
    assert matches({"a": {"$not": 1}}, None) is True  # no metadata is an empty object
    assert matches({"a": {"$not": 1}}, {}) is True
    assert matches({"a": {"$not": 1}, "b": 2}, None) is False


@pytest.mark.parametrize(
    ("flt", "names"),
    [
        ("source=chat", "dict or None"),
        ({"tags": {"$contains": "x"}}, "$contains"),
        ({"$or": [{"a": 1}]}, "$or"),
        ({"tags": {"$array_contains": "x", "name": "y"}}, "tags"),
        ({"tags": {"$array_contains_any": "x"}}, "$array_contains_any"),
        ({"tags": {"$array_contains": []}}, "$array_contains"),
        ({"a": {"b": {"$bad": 1}}}, "$bad"),
        ({"a": float("nan")}, "a"),
        ({"a": {1, 2}}, "a"),
        ({"": 1}, "''"),
        ({1: 1}, "1"),
    ],
)
def test_malformed_filters_raise_value_error_naming_the_key(flt, names):
    with pytest.raises(InvalidFilterError) as error:
        validate_filter(flt)
    assert isinstance(error.value, ValueError)
    assert names in str(error.value)


def test_none_filter_is_no_filter():
    assert validate_filter(None) is None
    assert matches(None, {"x": 1}) is True
