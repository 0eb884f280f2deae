"""What small local models answer, and what is kept of it.

Each scripted answer copies what a 270M-parameter model served by llama.cpp in JSON mode
answered: bare numbers, the prompt's own example or illustrations, the prompt itself, wrong
keys, placeholders. Memories must be typed, non-trivial text; everything else is dropped
with one UserWarning that counts it.
"""

from __future__ import annotations

import json
import logging
import warnings

import pytest

from oracleagentmemory.apis.message import Message
from oracleagentmemory.core.extractors import (
    MemoryExtractor,
    extract_topics,
    propose_links,
    summarize,
)
from oracleagentmemory.core.extractors.memoryextractionconfig import ResolvedExtractionConfig
from oracleagentmemory.core.llms import LlmOutputError, parse_json_output
from tests.support.llm_server import (
    bare_numbers,
    chat,
    chat_json,
    echo_example_json,
    echo_illustrations,
    echo_prompt,
    wrong_item_keys,
    wrong_keys,
)

CONFIG = ResolvedExtractionConfig()
TEA = [Message("user", "I drink green tea every morning.", id="m1"),
       Message("assistant", "Noted.", id="m2")]


def extract(llm, messages=TEA):
    return MemoryExtractor(llm).extract(messages, None, CONFIG)


def dropped_warnings(record) -> list[str]:
    return [str(w.message) for w in record if "dropped" in str(w.message)]


def test_bare_numbers_are_not_memories(llm_server, llm):
    llm_server.enqueue(bare_numbers())
    with pytest.warns(UserWarning) as record:
        assert extract(llm) == []
    [message] = dropped_warnings(record)
    assert "dropped 4 of 4" in message


def test_the_prompts_example_json_echoed_back_is_not_stored(llm_server, llm):
    llm_server.respond_with(echo_example_json)
    with pytest.warns(UserWarning) as record:
        assert extract(llm) == []
    assert dropped_warnings(record)


def test_the_prompts_illustrations_echoed_back_are_not_stored(llm_server, llm):
    llm_server.respond_with(echo_illustrations)
    with pytest.warns(UserWarning) as record:
        assert extract(llm) == []
    [message] = dropped_warnings(record)
    assert "illustration" in message


def test_an_illustration_the_messages_support_is_kept(llm_server, llm):
    """A user who really prefers aisle seats keeps that memory, even though it is worded
    like an illustration of the prompt."""
    llm_server.enqueue(chat_json({"memories": [
        {"content": "The user prefers aisle seats.", "type": "preference",
         "source_messages": [1]}]}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        [memory] = extract(llm, [Message("user", "Book me an aisle seat, I prefer aisle "
                                             "seats on long flights.")])
    assert memory.memory_type == "preference"


def test_an_echoed_prompt_stores_nothing(llm_server, llm):
    llm_server.respond_with(echo_prompt)
    with pytest.raises(LlmOutputError):
        extract(llm)


def test_a_label_in_prose_is_not_taken_for_the_answer():
    with pytest.raises(LlmOutputError):
        parse_json_output("Sure. [1] user: I drink green tea every morning.")
    assert parse_json_output('See [1] and [2]: {"memories": []}') == {"memories": []}


def test_wrong_top_level_keys_are_an_output_error_naming_the_key(llm_server, llm):
    llm_server.enqueue(wrong_keys())
    with pytest.raises(LlmOutputError, match='"memories"'):
        extract(llm)


def test_items_with_wrong_keys_are_dropped_and_counted(llm_server, llm):
    llm_server.enqueue(wrong_item_keys())
    with pytest.warns(UserWarning) as record:
        assert extract(llm) == []
    [message] = dropped_warnings(record)
    assert "dropped 2 of 2" in message


@pytest.mark.parametrize("memory_type", [None, "location", "instruction", 3])
def test_memories_without_one_of_the_four_types_are_dropped(llm_server, llm, memory_type):
    item = {"content": "The user drinks green tea.", "source_messages": [1]}
    if memory_type is not None:
        item["type"] = memory_type
    llm_server.enqueue(chat_json({"memories": [item]}))
    with pytest.warns(UserWarning, match="dropped 1 of 1"):
        assert extract(llm) == []


@pytest.mark.parametrize("content", ["...", "<one sentence>", "42", "[1]", "string", "  ",
                                     "N/A", "…"])
def test_placeholders_and_numbers_are_dropped(llm_server, llm, content):
    llm_server.enqueue(chat_json({"memories": [
        {"content": content, "type": "fact", "source_messages": [1]},
        {"content": "The user drinks green tea.", "type": "fact", "source_messages": [1]}]}))
    with pytest.warns(UserWarning, match="dropped 1 of 2"):
        [memory] = extract(llm)
    assert memory.content == "The user drinks green tea."


def test_a_summary_that_repeats_the_prompt_is_refused(llm_server, llm):
    llm_server.respond_with(echo_prompt)
    with pytest.raises(LlmOutputError, match="repeats the prompt"):
        summarize(llm, TEA)


def test_topics_accept_nested_lists_and_reject_placeholders(llm_server, llm):
    llm_server.enqueue(chat(json.dumps({"topics": [
        ["green tea", "mornings"], "...", "<topic>", "topic 1", "…", [["breakfast"]],
        "Green tea"]})))
    assert extract_topics(llm, TEA) == ["green tea", "mornings", "breakfast"]


def test_the_linking_error_shows_the_answer(llm_server, llm, caplog):
    llm_server.enqueue(chat_json({"verdict": "no links today"}))
    with caplog.at_level(logging.INFO):
        assert propose_links(llm, "The user drinks tea.", [("a", "The user likes tea.")]) == []
    assert "no links today" in caplog.text
    assert "'None'" not in caplog.text
    # the answer quotes the conversation: INFO only (docs/logging.md)
    assert [r for r in caplog.records
            if r.levelno >= logging.WARNING and "no links today" in r.getMessage()] == []
