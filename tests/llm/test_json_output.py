"""Tolerant parsing of JSON answers."""

from __future__ import annotations

import pytest

from oracleagentmemory.core.llms import LlmOutputError, parse_json_output


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"memories": []}', {"memories": []}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('```\n[1, 2]\n```', [1, 2]),
        ('Sure! Here is the JSON:\n{"a": {"b": [1]}}\nHope this helps.', {"a": {"b": [1]}}),
        ('<think>the user wants {json}</think>\n{"ok": true}', {"ok": True}),
        ('prefix [ "x", {"y": "}"} ] suffix', ["x", {"y": "}"}]),
        ('{broken {"second": 2}', {"second": 2}),
    ],
)
def test_the_first_json_value_is_found(answer, expected):
    assert parse_json_output(answer) == expected


@pytest.mark.parametrize("answer", ["", "   ", "no json here", "{not: json}", '"just a string"',
                                    "<think>{\"a\": 1}"])
def test_answers_without_json_raise_a_clear_error(answer):
    with pytest.raises(LlmOutputError, match="no JSON object or array"):
        parse_json_output(answer)


def test_the_error_shows_the_start_of_the_answer():
    with pytest.raises(LlmOutputError) as caught:
        parse_json_output("I cannot help with that request.")
    assert "I cannot help" in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_a_non_string_answer_is_rejected():
    with pytest.raises(LlmOutputError):
        parse_json_output(None)  # type: ignore[arg-type]
