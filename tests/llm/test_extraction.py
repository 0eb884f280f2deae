"""Memory extraction through the real HTTP client against scripted answers."""

from __future__ import annotations

import logging

import pytest

from oracleagentmemory.apis.message import ImageContent, ImageMimeType, Message, TextContent
from oracleagentmemory.core.extractors import ExtractedMemory, MemoryExtractor
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    ResolvedExtractionConfig as MemoryExtractionConfig,
)
from oracleagentmemory.core.extractors.prompts import (
    EXTRACTION_SYSTEM_PROMPT,
    PromptMessage,
    build_extraction_prompt,
    prompt_text,
)
from oracleagentmemory.core.llms import LlmConnectionError, LlmError, LlmOutputError
from oracleagentmemory.core.tokens import estimate_tokens
from tests.support.llm_server import Scripted, chat, chat_json, dropped, error, malformed

CONFIG = MemoryExtractionConfig()


def conversation() -> list[Message]:
    return [
        Message("user", "I'm vegetarian and I live in Lyon.", id="m1",
                metadata={"channel": "web", "lang": "en", "tenant": "acme"}),
        Message("assistant", "Noted! Any plans?", id="m2",
                metadata={"channel": "web", "lang": "fr", "tenant": "acme"}),
        Message("user", "Always answer me in French from now on.", id="m3",
                metadata={"channel": "sms", "lang": "fr", "tenant": "acme"}),
    ]


def user_prompt(request) -> str:
    return request.body["messages"][1]["content"]


def system_prompt(request) -> str:
    return request.body["messages"][0]["content"]


def test_typed_memories_are_extracted_with_their_sources(llm_server, llm):
    llm_server.enqueue(chat_json({"memories": [
        {"content": "The user is vegetarian.", "type": "fact", "source_messages": [1]},
        {"content": "Answer the user in French.", "type": "guideline", "source_messages": [3]},
        {"content": "The user likes Lyon.", "type": "Preference", "source_messages": ["[1]"]},
        {"content": "The user went to Lyon.", "type": "memories", "source_messages": [1]},
    ]}))
    memories = MemoryExtractor(llm).extract(conversation(), None, CONFIG)
    assert [(m.content, m.memory_type) for m in memories] == [
        ("The user is vegetarian.", "fact"),
        ("Answer the user in French.", "guideline"),
        ("The user likes Lyon.", "preference"),
        ("The user went to Lyon.", "memory"),  # any letter case, singular or plural
    ]
    assert memories[0].source_message_ids == ("m1",)
    assert memories[1].source_message_ids == ("m3",)
    request = llm_server.requests[0]
    output_format = request.body["response_format"]
    assert output_format["type"] == "json_schema"
    item = output_format["json_schema"]["schema"]["properties"]["memories"]["items"]
    assert set(item["required"]) == {"content", "type", "source_messages"}
    assert system_prompt(request) == EXTRACTION_SYSTEM_PROMPT
    assert '<message n="1" role="user">I\'m vegetarian' in user_prompt(request)
    assert '<message n="3" role="user">Always answer me in French' in user_prompt(request)


def test_metadata_is_inherited_from_a_single_source(llm_server, llm):
    llm_server.enqueue(chat_json({"memories": [
        {"content": "The user is vegetarian.", "type": "fact", "source_messages": [1]}]}))
    [memory] = MemoryExtractor(llm).extract(conversation(), None, CONFIG)
    assert memory.metadata == {"channel": "web", "lang": "en", "tenant": "acme"}


def test_with_several_sources_only_equal_metadata_is_inherited(llm_server, llm):
    llm_server.enqueue(chat_json({"memories": [
        {"content": "Plans in Lyon.", "type": "memory", "source_messages": [1, 2]},
        {"content": "About the whole chat.", "type": "memory"},  # no sources: all messages
    ]}))
    first, second = MemoryExtractor(llm).extract(conversation(), None, CONFIG)
    assert first.metadata == {"channel": "web", "tenant": "acme"}
    assert first.source_message_ids == ("m1", "m2")
    assert second.metadata == {"tenant": "acme"}
    assert second.source_message_ids == ("m1", "m2", "m3")


@pytest.mark.parametrize(("rule", "expected"), [
    (False, None),
    (["lang", "missing"], {"lang": "en"}),
    (True, {"channel": "web", "lang": "en", "tenant": "acme"}),
])
def test_inherit_message_metadata_setting(llm_server, llm, rule, expected):
    llm_server.enqueue(chat_json({"memories": [
        {"content": "The user is vegetarian.", "type": "fact", "source_messages": [1]}]}))
    config = MemoryExtractionConfig(memory_extraction_inherit_message_metadata=rule)
    [memory] = MemoryExtractor(llm).extract(conversation(), None, config)
    assert memory.metadata == expected


def test_summary_and_custom_instructions_are_in_the_prompt(llm_server, llm):
    llm_server.enqueue(chat_json({"memories": []}))
    config = MemoryExtractionConfig(
        memory_extraction_custom_instructions="Ignore anything about the weather.")
    assert MemoryExtractor(llm).extract(conversation(), "They plan a trip.", config) == []
    request = llm_server.requests[0]
    assert system_prompt(request).startswith(EXTRACTION_SYSTEM_PROMPT)
    assert system_prompt(request).endswith("Ignore anything about the weather.")
    assert "<summary>\nThey plan a trip.\n</summary>" in user_prompt(request)


def test_no_messages_need_no_call(llm_server, llm):
    assert MemoryExtractor(llm).extract([], "summary", CONFIG) == []
    assert llm_server.requests == []


def test_the_token_limit_keeps_the_newest_messages(llm_server, llm):
    messages = [Message("user", f"message number {i} " + "words " * 60, id=f"id{i}")
                for i in range(30)]
    limit = 1_000
    llm_server.enqueue(chat_json({"memories": [
        {"content": "From the newest.", "type": "fact", "source_messages": [30]},
        {"content": "From a dropped one.", "type": "fact", "source_messages": [1]}]}))
    config = MemoryExtractionConfig(memory_extraction_token_limit=limit)
    newest, fallback = MemoryExtractor(llm).extract(messages, "old summary " * 500, config)
    request = llm_server.requests[0]
    sent = system_prompt(request) + user_prompt(request)
    assert estimate_tokens(sent) <= limit
    assert "message number 29 " in sent
    assert "message number 0 " not in sent
    assert newest.source_message_ids == ("id29",)
    assert "id0" not in fallback.source_message_ids  # a dropped message is never a source


def test_a_non_positive_token_limit_disables_truncation(llm_server, llm):
    messages = [Message("user", f"message number {i} " + "words " * 60) for i in range(30)]
    llm_server.enqueue(chat_json({"memories": []}))
    MemoryExtractor(llm).extract(messages, None,
                                 MemoryExtractionConfig(memory_extraction_token_limit=0))
    assert "message number 0 " in user_prompt(llm_server.requests[0])


def test_a_limit_smaller_than_the_instructions_extracts_nothing(llm_server, llm, caplog):
    config = MemoryExtractionConfig(memory_extraction_token_limit=100)
    with caplog.at_level(logging.WARNING):
        assert MemoryExtractor(llm).extract(conversation(), None, config) == []
    assert llm_server.requests == []
    assert "leaves no room for any message" in caplog.text


def test_a_single_huge_message_is_cut_to_the_limit():
    prompt = build_extraction_prompt([PromptMessage("user", "x" * 100_000)], None, None, 800)
    assert estimate_tokens(prompt.text) <= 800
    assert prompt.truncated
    assert "…[truncated]" in prompt.text


def test_oversized_messages_are_condensed_by_the_llm_for_the_prompt_only(llm_server, llm):
    huge = "The user's passport number is X123. " + "Filler sentence here. " * 400
    messages = [Message("user", huge, id="big"), Message("user", "short one", id="small")]
    llm_server.enqueue(chat("Passport number X123."),
                       chat_json({"memories": [{"content": "Passport X123.", "type": "fact"}]}))
    memories = MemoryExtractor(llm).extract(
        messages, None, CONFIG, max_message_token_length=100,
        message_shortening_input_token_limit=200)
    shorten_request, extract_request = llm_server.requests
    excerpt = shorten_request.body["messages"][1]["content"]
    assert "X123" in excerpt
    assert estimate_tokens(excerpt) <= 200 + 40  # the excerpt bound plus the instruction line
    assert '<message n="1" role="user">Passport number X123.</message>' in user_prompt(
        extract_request)
    assert "Filler sentence" not in user_prompt(extract_request)
    assert messages[0].content == huge  # the stored message is untouched
    assert memories[0].content == "Passport X123."


def test_a_failed_condensing_falls_back_to_cutting(llm_server, make_llm, caplog):
    llm = make_llm(max_retries=0)
    huge = "start " + "filler " * 2_000
    llm_server.enqueue(error(500, "boom"), chat_json({"memories": []}))
    with caplog.at_level(logging.WARNING):
        MemoryExtractor(llm).extract([Message("user", huge)], None, CONFIG,
                                     max_message_token_length=50)
    line = user_prompt(llm_server.requests[1])
    assert '<message n="1" role="user">start filler' in line
    assert estimate_tokens(line) < 120
    assert "could not condense an oversized message" in caplog.text


def test_image_descriptions_reach_the_prompt():
    message = Message("user", [TextContent(text="Look at this"),
                               ImageContent(bytes=b"x", mime_type=ImageMimeType.PNG,
                                            description="a red bicycle")])
    assert prompt_text(message) == "Look at this\n[image: a red bicycle]"


@pytest.mark.parametrize("answer", [
    chat("I'm sorry, I can't do that."),
    chat('{"verdict": "nothing", "count": 0}'),
    chat(""),
])
def test_garbage_answers_raise_an_output_error(llm_server, llm, answer):
    llm_server.enqueue(answer)
    with pytest.raises(LlmOutputError):
        MemoryExtractor(llm).extract(conversation(), None, CONFIG)


def test_unusable_items_are_dropped_with_one_warning_counting_them(llm_server, llm):
    llm_server.enqueue(chat('```json\n{"memories": [42, {"type": "fact"}, {"content": "  ", '
                            '"type": "fact"}, "The user lives in Lyon.", '
                            '{"text": "Vegetarian user", "type": "fact"}, '
                            '{"content": "The user lives in Lyon.", "type": "location"}, '
                            '{"content": "The user lives in Lyon.", "type": "fact"}]}\n```'))
    with pytest.warns(UserWarning) as warned:
        memories = MemoryExtractor(llm).extract(conversation(), None, CONFIG)
    assert memories == [ExtractedMemory("The user lives in Lyon.", "fact",
                                        {"tenant": "acme"}, ("m1", "m2", "m3"))]
    [warning] = [w for w in warned if "dropped" in str(w.message)]
    assert "dropped 6 of 7 item(s)" in str(warning.message)


@pytest.mark.parametrize("failure", [error(500), dropped(), malformed(),
                                     Scripted(delay=10, body={})])
def test_transport_failures_raise_llm_errors(llm_server, make_llm, failure):
    llm_server.enqueue(failure)
    with pytest.raises(LlmError):
        MemoryExtractor(make_llm(max_retries=0, timeout=0.2)).extract(conversation(), None,
                                                                      CONFIG)


def test_a_dropped_connection_is_retried_during_extraction(llm_server, llm):
    llm_server.enqueue(dropped(), chat_json([{"content": "Vegetarian.", "type": "fact"}]))
    [memory] = MemoryExtractor(llm).extract(conversation(), None, CONFIG)
    assert memory.memory_type == "fact"
    llm_server.enqueue(dropped(), dropped(), dropped(), dropped())
    with pytest.raises(LlmConnectionError):
        MemoryExtractor(llm).extract(conversation(), None, CONFIG)
