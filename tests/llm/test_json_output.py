"""Tolerant parsing of JSON answers."""

from __future__ import annotations

import pytest

from oracleagentmemory.core.llms import LlmOutputError, parse_json_output
from oracleagentmemory.core.llms.json_output import strip_reasoning


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


@pytest.mark.parametrize(("answer", "expected"), [
    ("<think>plan</think>answer", "answer"),
    ("<THINK>plan</Think> answer <think>more</think> end", "answer  end"),
    ("answer <think>unfinished", "answer"),
    ("<think>a</think>kept<think>never closed", "kept"),
    ("a </think> stray close", "a </think> stray close"),
    ("no reasoning", "no reasoning"),
])
def test_strip_reasoning_drops_think_blocks(answer, expected):
    assert strip_reasoning(answer) == expected


def test_strip_reasoning_reads_a_long_answer_of_open_tags_once():
    # 200,000 unclosed tags: the old pattern restarted its search at each of them (quadratic,
    # 14 s at 140 KB); one pass keeps what is before the first.
    answer = "keep " + "<think>x" * 200_000
    assert strip_reasoning(answer) == "keep"


def test_an_answer_over_the_cap_is_refused_before_it_is_searched():
    from oracleagentmemory.core.llms.json_output import MAX_ANSWER_CHARS

    with pytest.raises(LlmOutputError, match="over the"):
        parse_json_output('{"a": 1}' + " " * MAX_ANSWER_CHARS)
