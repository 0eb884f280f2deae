"""A prompt's token limit holds when the room left is smaller than one message's element:
the message is left out, not sent as an empty ``<message>`` over the limit; and the
linking prompt counts its whole frame (the custom-instructions heading, the
``<existing_memories>`` element, the line breaks) against its limit."""

from __future__ import annotations

from typing import Any

import pytest

from oracleagentmemory.apis.llms.llm import ILlm, LlmResponse
from oracleagentmemory.core.extractors.linking import propose_links
from oracleagentmemory.core.extractors.prompts import (
    EXTRACTION_SYSTEM_PROMPT,
    PromptMessage,
    build_extraction_prompt,
)
from oracleagentmemory.core.tokens import estimate_tokens

T0 = "2026-01-01T00:00:00Z"


@pytest.mark.parametrize("spare", range(1, 12))
def test_a_room_smaller_than_a_message_element_is_not_overrun(spare):
    # the instructions alone cost ``fixed``; ``spare`` tokens are left for the messages
    fixed = estimate_tokens(EXTRACTION_SYSTEM_PROMPT)
    limit = fixed + 12 + spare
    message = PromptMessage("assistant", "Le café coûte 3 € à Séoul. " * 50, timestamp=T0)
    prompt = build_extraction_prompt([message], None, None, limit)
    assert estimate_tokens(prompt.text) <= limit, prompt.messages[1]["content"]
    if prompt.labels:  # a message that is sent carries some of its text
        assert "Le caf" in prompt.text


class _Recorder(ILlm):
    def __init__(self) -> None:
        self.prompts: list[Any] = []

    def generate(self, prompt: Any, *, response_json_schema: Any = None,
                 **kwargs: Any) -> LlmResponse:
        self.prompts.append(prompt)
        return LlmResponse(text='{"links": []}')

    async def generate_async(self, prompt: Any, *, response_json_schema: Any = None,
                             **kwargs: Any) -> LlmResponse:
        return self.generate(prompt)


@pytest.mark.parametrize("custom", [None, "Relie les souvenirs en français. " * 3])
@pytest.mark.parametrize("limit", range(200, 420, 7))
def test_the_linking_prompt_stays_within_its_limit(custom, limit):
    candidates = [{"id": f"m{i}", "content": f"사용자는 서울에 살아요 {i}. " * 3,
                   "memory_type": "fact"} for i in range(40)]
    llm = _Recorder()
    propose_links(llm, "The user lives in Seoul.", candidates, token_limit=limit,
                  custom_instructions=custom)
    for prompt in llm.prompts:
        sent = "".join(message["content"] for message in prompt)
        assert estimate_tokens(sent) <= limit
