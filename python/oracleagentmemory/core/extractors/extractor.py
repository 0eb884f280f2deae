"""Memory extraction: messages (and the running summary) in, typed memories out.

Why a separate class: the thread decides *when* and stores the results; this decides
*what* to remember, independent of any backend, so it is testable against a scripted LLM.
Failures of the call or an answer that is not JSON at all raise
:class:`~oracleagentmemory.core.llms.errors.LlmError` (the caller keeps its raw messages);
single unusable items in an otherwise valid answer are skipped with a logged warning.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.message import Message
from oracleagentmemory.apis.records import MEMORY_TYPES
from oracleagentmemory.core.extractors.memoryextractionconfig import ResolvedExtractionConfig
from oracleagentmemory.core.extractors.metadata_inheritance import inherited_metadata
from oracleagentmemory.core.extractors.prompts import (
    EXTRACTION_SCHEMA,
    BuiltPrompt,
    PromptMessage,
    build_extraction_prompt,
    to_prompt_message,
)
from oracleagentmemory.core.extractors.shortening import (
    MAX_MESSAGE_TOKEN_LENGTH_DEFAULT,
    MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT,
    shortener_for,
)
from oracleagentmemory.core.llms.errors import LlmOutputError
from oracleagentmemory.core.llms.json_output import parse_json_output

logger = logging.getLogger(__name__)

MAX_MEMORY_CHARS = 2_000
"""Longer extracted statements are cut: a memory is a sentence, not a document."""
_TYPE_ALIASES = {"facts": "fact", "preferences": "preference", "guidelines": "guideline",
                 "instruction": "guideline", "rule": "guideline", "memories": "memory",
                 "event": "memory", "episode": "memory"}
_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True)
class ExtractedMemory:
    """One memory to store: text, type (memory/fact/preference/guideline) and metadata."""

    content: str
    memory_type: str = "memory"
    metadata: dict[str, Any] | None = None
    source_message_ids: tuple[str, ...] = field(default=())


def _items(answer: Any) -> list[Any]:
    """The list of memory items in a parsed answer (``{"memories": [...]}`` or a list)."""
    if isinstance(answer, list):
        return answer
    if isinstance(answer, Mapping):
        for key in ("memories", "memory", "items", "results"):
            if isinstance(answer.get(key), list):
                return answer[key]
        lists = [value for value in answer.values() if isinstance(value, list)]
        if len(lists) == 1:
            return lists[0]
        if isinstance(answer.get("content"), str):
            return [answer]
    raise LlmOutputError(f"extraction answer has no list of memories: {str(answer)[:200]!r}")


def _memory_type(value: Any) -> str:
    if not isinstance(value, str):
        return "memory"
    name = value.strip().lower()
    name = _TYPE_ALIASES.get(name, name)
    if name not in MEMORY_TYPES:
        logger.info("extracted memory has unknown type %r; storing it as 'memory'", value)
        return "memory"
    return name


def _source_labels(item: Mapping[str, Any]) -> list[int]:
    for key in ("source_messages", "sources", "source_message_ids", "message_ids", "source"):
        value = item.get(key)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        labels = []
        for entry in values:
            if isinstance(entry, bool):
                continue
            if isinstance(entry, int):
                labels.append(entry)
            elif isinstance(entry, str):
                labels.extend(int(number) for number in _NUMBER.findall(entry))
        return labels
    return []


class MemoryExtractor:
    """Asks an LLM for the memories worth keeping from a window of messages."""

    def __init__(self, llm: ILlm) -> None:
        self.llm = llm

    def prepare(
        self,
        messages: Sequence[Message | PromptMessage | Mapping[str, Any]],
        summary: str | None,
        config: ResolvedExtractionConfig,
        *,
        max_message_token_length: int = MAX_MESSAGE_TOKEN_LENGTH_DEFAULT,
        message_shortening_input_token_limit: int = MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT,
    ) -> tuple[list[PromptMessage], BuiltPrompt]:
        """The shortened prompt copies and the prompt the LLM will get (for inspection)."""
        shortener = shortener_for(self.llm, max_message_token_length,
                                  message_shortening_input_token_limit)
        copies = shortener.shorten([to_prompt_message(m) for m in messages])
        prompt = build_extraction_prompt(copies, summary,
                                         config.memory_extraction_custom_instructions,
                                         config.memory_extraction_token_limit or 0)
        return copies, prompt

    def extract(
        self,
        messages: Sequence[Message | PromptMessage | Mapping[str, Any]],
        summary: str | None,
        config: ResolvedExtractionConfig,
        *,
        max_message_token_length: int = MAX_MESSAGE_TOKEN_LENGTH_DEFAULT,
        message_shortening_input_token_limit: int = MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT,
    ) -> list[ExtractedMemory]:
        """Memories from ``messages`` (the window), with ``summary`` as context.

        ``config`` is resolved over the SDK defaults (custom instructions, token limit,
        metadata inheritance). Raises LlmError when the LLM fails or answers no JSON.
        """
        if not messages:
            return []
        copies, prompt = self.prepare(
            messages, summary, config,
            max_message_token_length=max_message_token_length,
            message_shortening_input_token_limit=message_shortening_input_token_limit,
        )
        if not prompt.labels:
            logger.warning("memory_extraction_token_limit=%s leaves no room for any message "
                           "after the instructions; nothing extracted",
                           config.memory_extraction_token_limit)
            return []
        if prompt.truncated:
            logger.info("extraction prompt truncated to %s tokens (%d of %d messages kept)",
                        config.memory_extraction_token_limit, len(prompt.labels), len(copies))
        answer = self.llm.generate(prompt.messages, response_json_schema=EXTRACTION_SCHEMA)
        return self.parse(answer.text, copies, prompt,
                          config.memory_extraction_inherit_message_metadata)

    def parse(self, answer: str, copies: Sequence[PromptMessage], prompt: BuiltPrompt,
              inherit: bool | Sequence[str] | None) -> list[ExtractedMemory]:
        """Memories from the LLM's answer text; unusable items are skipped with a warning."""
        rule = True if inherit is None else inherit
        items = _items(parse_json_output(answer))
        included = [copies[index] for index in prompt.labels.values()]
        memories: list[ExtractedMemory] = []
        skipped = 0
        for item in items:
            if isinstance(item, str):
                item = {"content": item}
            if not isinstance(item, Mapping):
                skipped += 1
                continue
            content = next((item[key] for key in ("content", "text", "memory", "statement")
                            if isinstance(item.get(key), str)), "")
            content = " ".join(content.split())[:MAX_MEMORY_CHARS]
            if not content:
                skipped += 1
                continue
            sources = [copies[prompt.labels[label]] for label in _source_labels(item)
                       if label in prompt.labels]
            sources = list({id(source): source for source in sources}.values()) or included
            memories.append(ExtractedMemory(
                content=content,
                memory_type=_memory_type(item.get("type", item.get("memory_type"))),
                metadata=inherited_metadata([s.metadata for s in sources], rule),
                source_message_ids=tuple(s.id for s in sources if s.id),
            ))
        if skipped:
            logger.warning("skipped %d unusable item(s) in the extraction answer", skipped)
        return memories
