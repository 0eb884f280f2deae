"""JSON arguments (metadata, config, parts) are checked the same way whatever their shape.

Ingestion checks one metadata object per record, so flat objects (string keys, scalars and
lists of scalars) take a short path; these cases hold both paths to the same answers.
"""

from __future__ import annotations

import math

import pytest

from oracleagentmemory.stores.errors import InvalidArgumentError
from oracleagentmemory.stores.limits import check_json, json_text

REFUSED = [
    {"a": math.nan}, {"a": [1.0, math.inf]}, {"a": -math.inf}, {1: "x"}, {"a": {2: "x"}},
    {"a": [{"b": math.nan}]}, {"a": b"bytes"}, {"a": [object()]}, {"a": (1, {"b": {3}})},
]
ACCEPTED = [
    {}, {"a": 1, "b": "x", "c": None, "d": True, "e": 2.5, "f": [1, "x", None, 1.5]},
    {"a": {"b": [1, {"c": 2}]}}, {"a": (1, 2)}, {"日本": ["한국", "é"]},
]


@pytest.mark.parametrize("value", REFUSED)
def test_what_json_cannot_hold_is_refused(value: dict) -> None:
    # InvalidArgumentError, or ArgumentTypeError for a type JSON has not: both ValueErrors
    with pytest.raises(ValueError, match="metadata"):
        check_json(value, "metadata")


@pytest.mark.parametrize("value", ACCEPTED)
def test_plain_json_is_accepted_and_written_compactly(value: dict) -> None:
    check_json(value, "metadata")
    text = json_text(value, "metadata")
    assert ", " not in text and ": " not in text


def test_a_flat_object_nested_past_the_depth_limit_is_still_refused() -> None:
    deep: list = []
    for _ in range(100):
        deep = [deep]
    with pytest.raises(InvalidArgumentError, match="levels"):
        check_json({"a": deep}, "metadata")
