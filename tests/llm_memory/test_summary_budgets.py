"""Summary budgets cut at sentence or word boundaries."""

from __future__ import annotations

import pytest

from oracleagentmemory.core import MemoryExtractionConfig
from oracleagentmemory.core.tokens import estimate_tokens
from tests.support.llm_server import chat

SENTENCES = " ".join(f"Sentence number {i} mentions Constantinople and Thessaloniki."
                     for i in range(40))
WORDS = " ".join(["Constantinople", "Thessaloniki", "Alexandroupoli"] * 60)


@pytest.fixture
def thread(make_client):
    client = make_client(memory_extraction_config=MemoryExtractionConfig(
        extract_memories=False, enable_context_summary=False))
    return client.create_thread(thread_id="t", user_id="u", agent_id="a")


@pytest.mark.parametrize("budget", [60, 37, 101])
def test_a_budget_ends_the_summary_after_a_whole_sentence(thread, script, budget):
    script.set("summary", chat(SENTENCES))
    thread.add_messages([{"role": "user", "content": "Tell me about Greek cities."}])
    content = thread.get_summary(token_budget=budget).content
    assert estimate_tokens(content) <= budget
    assert SENTENCES.startswith(content) and content.endswith(".")
    assert len(content) > 0


@pytest.mark.parametrize("budget", [60, 37, 101])
def test_without_sentences_the_cut_falls_between_words(thread, script, budget):
    script.set("summary", chat(WORDS))
    thread.add_messages([{"role": "user", "content": "Tell me about Greek cities."}])
    content = thread.get_summary(token_budget=budget).content
    assert estimate_tokens(content) <= budget
    assert WORDS.startswith(content)
    assert set(content.split()) <= {"Constantinople", "Thessaloniki", "Alexandroupoli"}
    assert content
