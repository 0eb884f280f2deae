"""Summaries, topics, autonomous linking and captions over the real HTTP client."""

from __future__ import annotations

import base64
import logging

import pytest

from oracleagentmemory.apis.message import ImageMimeType, Message
from oracleagentmemory.core.extractors import (
    LINK_RELATIONS,
    caption_image,
    extract_topics,
    propose_links,
    summarize,
)
from oracleagentmemory.core.extractors.linking import LinkCandidate
from oracleagentmemory.core.extractors.summarizer import apply_summary_budget
from oracleagentmemory.core.llms import LlmError, LlmOutputError, LlmTimeoutError
from oracleagentmemory.core.tokens import estimate_tokens
from tests.support.llm_server import Scripted, chat, chat_json, error

MESSAGES = [Message("user", "We fly to Rome on May 3."), Message("assistant", "Great choice!")]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def user_prompt(request) -> str:
    return request.body["messages"][-1]["content"]


class TestSummaries:
    def test_the_previous_summary_and_new_messages_are_folded(self, llm_server, llm):
        llm_server.enqueue(chat("<think>hmm</think>\n<summary>Trip to Rome on May 3; user "
                                "is vegetarian.</summary>"))
        text = summarize(llm, MESSAGES, previous_summary="The user is vegetarian.",
                         token_budget=200)
        assert text == "Trip to Rome on May 3; user is vegetarian."
        prompt = user_prompt(llm_server.requests[0])
        assert "<summary>\nThe user is vegetarian.\n</summary>" in prompt
        assert '<message n="1" role="user">We fly to Rome on May 3.</message>' in prompt
        assert "at most 200 tokens" in prompt

    def test_a_limit_too_small_for_any_message_keeps_the_previous_summary(
            self, llm_server, llm, caplog):
        with caplog.at_level(logging.WARNING):
            assert summarize(llm, MESSAGES, "Kept.", prompt_token_limit=50) == "Kept."
        assert llm_server.requests == []
        assert "leaves no room" in caplog.text

    def test_an_answer_over_the_budget_is_cut(self, llm_server, llm):
        llm_server.enqueue(chat("word " * 500))
        text = summarize(llm, MESSAGES, token_budget=20)
        assert estimate_tokens(text) <= 20
        assert text.startswith("word word")

    def test_no_messages_keep_the_previous_summary_without_a_call(self, llm_server, llm):
        assert summarize(llm, [], previous_summary="Kept.") == "Kept."
        assert llm_server.requests == []

    def test_the_prompt_token_limit_applies(self, llm_server, llm):
        messages = [Message("user", f"note {i} " + "text " * 80) for i in range(40)]
        llm_server.enqueue(chat("Short."))
        summarize(llm, messages, "previous " * 400, prompt_token_limit=600)
        body = llm_server.requests[0].body
        sent = "".join(message["content"] for message in body["messages"])
        assert estimate_tokens(sent) <= 600
        assert "note 39 " in sent and "note 0 " not in sent

    @pytest.mark.parametrize("answer", [chat(""), chat("   "), chat("<think>only</think>")])
    def test_an_empty_answer_is_an_output_error(self, llm_server, llm, answer):
        llm_server.enqueue(answer)
        with pytest.raises(LlmOutputError, match="empty summary"):
            summarize(llm, MESSAGES)

    def test_a_slow_llm_raises_a_timeout(self, llm_server, make_llm):
        llm_server.enqueue(Scripted(delay=10, body={}))
        with pytest.raises(LlmTimeoutError):
            summarize(make_llm(max_retries=0, timeout=0.2), MESSAGES)

    def test_budget_rule(self):
        assert apply_summary_budget("a" * 100, 10) == "a" * 35
        assert apply_summary_budget("a" * 100, 0) == "a" * 100
        assert apply_summary_budget("a" * 100, None) == "a" * 100
        assert apply_summary_budget("short", 10) == "short"


class TestTopics:
    def test_topics_are_distinct_trimmed_and_bounded(self, llm_server, llm):
        llm_server.enqueue(chat_json({"topics": [" trip to  Rome ", "Trip to Rome", 7,
                                                 "food", {"topic": "dates"}, "x", "y"]}))
        topics = extract_topics(llm, MESSAGES, summary="Trip planning", max_topics=4)
        assert topics == ["trip to Rome", "food", "dates", "x"]
        request = llm_server.requests[0]
        schema = request.body["response_format"]["json_schema"]["schema"]
        assert schema["properties"]["topics"] == {"type": "array", "items": {"type": "string"}}
        assert "<summary>\nTrip planning\n</summary>" in user_prompt(request)

    def test_a_bare_list_is_accepted(self, llm_server, llm):
        llm_server.enqueue(chat('```json\n["travel", "budget"]\n```'))
        assert extract_topics(llm, MESSAGES) == ["travel", "budget"]

    def test_garbage_gives_no_topics_with_a_warning(self, llm_server, llm, caplog):
        llm_server.enqueue(chat("Topics: travel, food"))
        with caplog.at_level(logging.WARNING):
            assert extract_topics(llm, MESSAGES) == []
        assert "ignoring the topics answer" in caplog.text

    def test_nothing_to_read_needs_no_call(self, llm_server, llm):
        assert extract_topics(llm, [], summary="  ") == []
        assert llm_server.requests == []

    def test_a_failed_call_raises(self, llm_server, make_llm):
        llm_server.enqueue(error(500))
        with pytest.raises(LlmError):
            extract_topics(make_llm(max_retries=0), MESSAGES)


CANDIDATES = [
    {"id": "mem-paris", "content": "The user lives in Paris.", "record_type": "fact"},
    LinkCandidate("mem-job", "The user works at a bakery.", "fact"),
    ("mem-cat", "The user has a cat."),
]


class TestLinking:
    def test_links_are_mapped_to_candidate_ids(self, llm_server, llm):
        llm_server.enqueue(chat_json({"links": [
            {"memory": 1, "relation": "supersedes"},
            {"memory": "[3]", "relation": "Supports"},
        ]}))
        links = propose_links(llm, "The user moved to Lyon.", CANDIDATES,
                              new_memory_type="fact")
        assert links == [("mem-paris", "supersedes"), ("mem-cat", "supports")]
        prompt = user_prompt(llm_server.requests[0])
        assert '<new_memory type="fact">The user moved to Lyon.</new_memory>' in prompt
        assert '<memory n="1" type="fact">The user lives in Paris.</memory>' in prompt
        assert '<memory n="3" type="memory">The user has a cat.</memory>' in prompt

    def test_real_ids_and_aliases_are_understood(self, llm_server, llm):
        llm_server.enqueue(chat_json({"links": [
            {"target_id": "mem-job", "relation_type": "contradict"},
            {"target": "c1", "type": "duplicates"},
        ]}))
        assert propose_links(llm, "x", CANDIDATES) == [("mem-job", "contradicts"),
                                                       ("mem-paris", "duplicates")]

    def test_invalid_entries_are_ignored(self, llm_server, llm, caplog):
        llm_server.enqueue(chat_json({"links": [
            {"memory": 9, "relation": "supersedes"},  # no such candidate
            {"memory": 2, "relation": "is_friend_of"},  # unknown relation
            {"memory": 2},  # no relation
            "mem-cat supports",
            {"memory": 1, "relation": "refines"},
            {"memory": 1, "relation": "supports"},  # a second link to the same target
        ]}))
        with caplog.at_level(logging.WARNING):
            links = propose_links(llm, "x", CANDIDATES)
        assert links == [("mem-paris", "refines")]
        assert "ignored 4 invalid link proposal(s)" in caplog.text
        assert {relation for _, relation in links} <= set(LINK_RELATIONS)

    @pytest.mark.parametrize("answer", ["none of them", '{"links": "none"}', "", "[]"])
    def test_garbage_gives_no_links(self, llm_server, llm, answer):
        llm_server.enqueue(chat(answer))
        assert propose_links(llm, "x", CANDIDATES) == []

    def test_the_new_memory_is_never_its_own_target(self, llm_server, llm):
        llm_server.enqueue(chat_json({"links": [{"memory": 1, "relation": "duplicates"}]}))
        links = propose_links(llm, "The user lives in Paris.", CANDIDATES,
                              new_memory_id="mem-paris")
        assert links == [("mem-job", "duplicates")]  # numbering skips the new memory

    def test_no_candidates_need_no_call(self, llm_server, llm):
        assert propose_links(llm, "x", []) == []
        assert llm_server.requests == []

    def test_the_token_limit_bounds_the_candidates(self, llm_server, llm):
        many = [(f"id{i}", f"candidate memory {i} " + "detail " * 40) for i in range(50)]
        llm_server.enqueue(chat_json({"links": [{"memory": 50, "relation": "supports"}]}))
        links = propose_links(llm, "new", many, token_limit=1_000)
        sent = "".join(m["content"] for m in llm_server.requests[0].body["messages"])
        assert estimate_tokens(sent) <= 1_000
        assert '<memory n="1" type="memory">candidate memory 0 ' in sent
        assert '<memory n="50"' not in sent
        assert links == []  # candidate 50 was not sent, so it cannot be linked

    def test_a_failed_call_raises(self, llm_server, make_llm):
        llm_server.enqueue(error(503))
        with pytest.raises(LlmError):
            propose_links(make_llm(max_retries=0), "x", CANDIDATES)


class TestCaptions:
    def test_the_image_is_sent_as_a_data_url(self, llm_server, llm):
        llm_server.enqueue(chat('"A red bicycle leaning on a wall."'))
        caption = caption_image(llm, PNG, ImageMimeType.PNG)
        assert caption == "A red bicycle leaning on a wall."
        [message] = llm_server.requests[0].body["messages"]
        text_part, image_part = message["content"]
        assert text_part["type"] == "text"
        assert image_part["type"] == "image_url"
        url = image_part["image_url"]["url"]
        assert url.startswith("data:image/png;base64,")
        assert base64.b64decode(url.split(",", 1)[1]) == PNG

    def test_the_mime_type_may_be_a_string(self, llm_server, llm):
        llm_server.enqueue(chat("A photo."))
        caption_image(llm, b"\xff\xd8\xff", "image/jpeg")
        url = llm_server.requests[0].body["messages"][0]["content"][1]["image_url"]["url"]
        assert url.startswith("data:image/jpeg;base64,")

    def test_an_empty_caption_is_an_output_error(self, llm_server, llm):
        llm_server.enqueue(chat("  "))
        with pytest.raises(LlmOutputError, match="empty caption"):
            caption_image(llm, PNG, ImageMimeType.PNG)

    def test_bad_input_is_rejected_before_any_call(self, llm_server, llm):
        with pytest.raises(ValueError):
            caption_image(llm, b"", ImageMimeType.PNG)
        with pytest.raises(ValueError):
            caption_image(llm, PNG, "image/gif")
        assert llm_server.requests == []

    def test_an_llm_without_vision_is_not_asked(self, llm_server, make_llm):
        with pytest.raises(LlmError, match="supports_vision"):
            caption_image(make_llm(supports_vision=False), PNG, ImageMimeType.PNG)
        assert llm_server.requests == []

    def test_a_vision_error_from_the_server_raises(self, llm_server, make_llm):
        llm_server.enqueue(error(400, "model does not support images"))
        with pytest.raises(LlmError, match="does not support images"):
            caption_image(make_llm(max_retries=0), PNG, ImageMimeType.PNG)
