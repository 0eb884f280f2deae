"""WARNING-level output never quotes the model's answer (found by an attack on secrets).

docs/logging.md: "At INFO a log may quote the beginning of a model's answer, so of a user's
conversation: keep it at WARNING where logs leave your control." A model that answers with
prose instead of JSON repeats the conversation; the warnings of the failed extraction and
topics (and the UserWarning routed to logging) quoted it.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from oracleagentmemory.apis.llms.llm import ILlm, LlmResponse
from oracleagentmemory.core.extractors.memoryextractionconfig import MemoryExtractionConfig
from oracleagentmemory.core.extractors.topics import extract_topics
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.core.search_refinement import _judge
from tests.support.embedders import HashingEmbedder

SECRET = "hunter2-diagnosis-xylophonitis"


class EchoingLlm(ILlm):
    """Answers prose that repeats what the user said (no JSON)."""

    def generate(self, prompt: Any, *, response_json_schema: dict[str, Any] | None = None,
                 **kwargs: Any) -> LlmResponse:
        return LlmResponse(text=f"Sure, noted that the user said {SECRET}.")

    async def generate_async(self, prompt: Any, *,
                             response_json_schema: dict[str, Any] | None = None,
                             **kwargs: Any) -> LlmResponse:
        return self.generate(prompt)


def warning_texts(caplog: pytest.LogCaptureFixture, recorded: list[Any]) -> list[str]:
    return ([r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
            + [str(w.message) for w in recorded])


def test_a_failed_extraction_and_topics_warn_without_quoting_the_answer(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="oracleagentmemory")
    client = OracleAgentMemory(
        connection=":memory:", embedder=HashingEmbedder(), llm=EchoingLlm(),
        memory_extraction_config=MemoryExtractionConfig(memory_extraction_frequency=1,
                                                        context_summary_update_frequency=1))
    thread = client.create_thread(user_id="u1", agent_id="a1")
    with pytest.warns(UserWarning) as recorded:
        thread.add_messages([{"role": "user", "content": f"my password is {SECRET}"}])
        thread.get_context_card()
    client.close()
    texts = warning_texts(caplog, list(recorded))
    assert any("memory extraction failed" in text for text in texts)
    assert any("topics" in text for text in texts)
    assert [text for text in texts if SECRET in text] == []
    # the answer's beginning is still there for whoever reads INFO
    assert any(SECRET in r.getMessage() for r in caplog.records if r.levelno == logging.INFO)


def test_topics_and_pruning_warn_without_quoting_the_answer(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="oracleagentmemory")
    assert extract_topics(EchoingLlm(), [{"role": "user", "content": "hi"}]) == []
    assert _judge("query", EchoingLlm(), range(2), ["a", "b"]) == {0, 1}
    texts = warning_texts(caplog, [])
    assert len(texts) == 2
    assert [text for text in texts if SECRET in text] == []
