"""Text an LLM wrote and the library caps (a topic, an extracted memory, an image caption)
keeps whole characters: the card never shows half a flag, half an emoji sequence, a Hangul
syllable without its final jamo or a letter without its accents (``character_boundary``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from oracleagentmemory.apis.llms.llm import ILlm, LlmResponse
from oracleagentmemory.core import MemoryExtractionConfig, OracleAgentMemory
from oracleagentmemory.core.extractors.captions import MAX_CAPTION_CHARS, caption_image
from oracleagentmemory.core.extractors.extractor import MAX_MEMORY_CHARS
from oracleagentmemory.core.extractors.topics import MAX_TOPIC_CHARS
from tests.support.embedders import HashingEmbedder

UNITS = {
    "flag": "\U0001F1EB\U0001F1F7",                          # FR: two regional indicators
    "family": "\U0001F468\u200d\U0001F469\u200d\U0001F467",  # joined by ZWJ
    "jamo": "\u1112\u1161\u11ab",                            # 한 in conjoining jamo
    "accents": "e\u0301\u0302",                              # e with two combining accents
}


class ScriptedLlm(ILlm):
    """Answers each of the library's prompts by the first line of its system prompt."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers

    def generate(self, prompt: Any, *, response_json_schema: Any = None,
                 **kwargs: Any) -> LlmResponse:
        first = prompt[0]["content"] if isinstance(prompt[0], dict) else prompt[0].content
        if not isinstance(first, str):  # the caption request: a text part and an image
            return LlmResponse(text=self.answers["caption"])
        for marker, kind in (("You extract long-term memories", "extract"),
                             ("You list the topics", "topics")):
            if marker in first:
                return LlmResponse(text=self.answers[kind])
        return LlmResponse(text=self.answers.get("other", "A summary."))

    async def generate_async(self, prompt: Any, *, response_json_schema: Any = None,
                             **kwargs: Any) -> LlmResponse:
        return self.generate(prompt, response_json_schema=response_json_schema)


def _texts(limit: int, unit: str) -> list[tuple[str, str]]:
    """(prefix, text): the limit falls at every position inside or after a unit."""
    return [("x" * (limit - lead), "x" * (limit - lead) + unit * 3)
            for lead in range(len(unit) + 1)]


def _whole(prefix: str, unit: str, cut: str) -> bool:
    body = cut[len(prefix):]
    return cut.startswith(prefix) and body == unit * (len(body) // len(unit))


@pytest.mark.parametrize("name", sorted(UNITS))
def test_topics_in_the_card_keep_whole_characters(name):
    unit = UNITS[name]
    cases = _texts(MAX_TOPIC_CHARS, unit)
    llm = ScriptedLlm({"topics": json.dumps({"topics": [text for _, text in cases]}),
                       "extract": json.dumps({"memories": []})})
    client = OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder(), llm=llm,
                               memory_extraction_config=MemoryExtractionConfig(
                                   extract_memories=False))
    try:
        thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
        thread.add_messages([{"role": "user", "content": "Paris, 서울"}])
        topics = thread.get_context_card().topics
    finally:
        client.close()
    assert len(topics) == len(cases)
    for (prefix, _), topic in zip(cases, topics, strict=True):
        assert len(topic) <= MAX_TOPIC_CHARS
        assert _whole(prefix, unit, topic), (name, [hex(ord(c)) for c in topic[-4:]])


@pytest.mark.parametrize("name", sorted(UNITS))
def test_extracted_memories_keep_whole_characters(name):
    unit = UNITS[name]
    cases = _texts(MAX_MEMORY_CHARS, unit)
    memories = [{"content": text, "type": "fact", "source_messages": [1]} for _, text in cases]
    llm = ScriptedLlm({"extract": json.dumps({"memories": memories}),
                       "topics": json.dumps({"topics": []})})
    client = OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder(), llm=llm)
    try:
        thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
        thread.add_messages([{"role": "user", "content": "x" * 50 + unit}])
        stored = sorted((r.content for r in client.search(
            "x", user_id="u", record_types=["fact"], max_results=20)), key=len, reverse=True)
    finally:
        client.close()
    assert stored, "the extraction stored nothing"
    prefixes = [prefix for prefix, _ in cases]
    for content in stored:
        assert len(content) <= MAX_MEMORY_CHARS
        prefix = max((p for p in prefixes if content.startswith(p)), key=len)
        assert _whole(prefix, unit, content), (name, [hex(ord(c)) for c in content[-4:]])


@pytest.mark.parametrize("name", sorted(UNITS))
def test_captions_keep_whole_characters(name):
    unit = UNITS[name]
    for prefix, text in _texts(MAX_CAPTION_CHARS, unit):
        caption = caption_image(ScriptedLlm({"caption": text}), b"\x89PNG", "image/png")
        assert len(caption) <= MAX_CAPTION_CHARS
        assert _whole(prefix, unit, caption), (name, [hex(ord(c)) for c in caption[-4:]])
