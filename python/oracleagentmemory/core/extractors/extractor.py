"""Memory extraction: messages (and the running summary) in, typed memories out.

Why a separate class: the thread decides *when* and stores the results; this decides
*what* to remember, independent of any backend, so it is testable against a scripted LLM.
Failures of the call, or an answer without a ``memories`` list, raise
:class:`~oracleagentmemory.core.llms.errors.LlmError` (the caller keeps its raw messages).

Answers are validated strictly, because small models answer with anything: a memory is an
object whose ``content`` is text worth keeping (not a bare number, not a placeholder, not a
copy of the prompt's illustrations the messages do not support) and whose ``type`` is one of
the four memory types (any letter case, singular or plural). Every other item is dropped,
and one ``UserWarning`` counts what was dropped and why.
"""

from __future__ import annotations

import logging
import re
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.message import Message
from oracleagentmemory.apis.records import MEMORY_TYPES
from oracleagentmemory.core.extractors.answer_text import is_placeholder
from oracleagentmemory.core.extractors.memoryextractionconfig import ResolvedExtractionConfig
from oracleagentmemory.core.extractors.metadata_inheritance import inherited_metadata
from oracleagentmemory.core.extractors.prompts import (
    EXTRACTION_EXAMPLES,
    EXTRACTION_SCHEMA,
    BuiltPrompt,
    PromptMessage,
    build_extraction_prompt,
    to_prompt_message,
    unescape_answer,
)
from oracleagentmemory.core.extractors.shortening import (
    MAX_MESSAGE_TOKEN_LENGTH_DEFAULT,
    MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT,
    shortener_for,
)
from oracleagentmemory.core.llms.errors import LlmOutputError
from oracleagentmemory.core.llms.json_output import parse_json_output
from oracleagentmemory.core.llms.tasks import EXTRACTION, llm_task
from oracleagentmemory.core.tokens import character_boundary

logger = logging.getLogger(__name__)

MAX_MEMORY_CHARS = 2_000
"""Longer extracted statements are cut: a memory is a sentence, not a document."""
MIN_MEMORY_LETTERS = 3
"""A memory with fewer letters (any script) is a number, a label or a stray token."""
_PLURALS = {"facts": "fact", "preferences": "preference", "guidelines": "guideline",
            "memories": "memory"}
_NUMBER = re.compile(r"\d+")
_WORD = re.compile(r"\w+")
DROP_REASONS = {
    "shape": "not an object with content and type",
    "trivial": "no text worth keeping (empty, a bare number or a placeholder)",
    "type": "no type, or not one of fact, preference, guideline, memory",
    "example": "a copy of the prompt's illustration",
}


@dataclass(frozen=True)
class ExtractedMemory:
    """One memory to store: text, type (memory/fact/preference/guideline) and metadata."""

    content: str
    memory_type: str = "memory"
    metadata: dict[str, Any] | None = None
    source_message_ids: tuple[str, ...] = field(default=())


def _items(answer: Any) -> list[Any]:
    """The list of memory items in a parsed answer: ``{"memories": [...]}`` or a bare list."""
    if isinstance(answer, list):
        return answer
    if isinstance(answer, Mapping) and isinstance(answer.get("memories"), list):
        return answer["memories"]
    shape = (f"an object with keys {sorted(map(str, answer))[:8]}"
             if isinstance(answer, Mapping) else type(answer).__name__)
    raise LlmOutputError(f'the extraction answer has no "memories" list (got {shape})',
                         str(answer)[:200])


def memory_type_of(value: Any) -> str | None:
    """One of the four memory types (any letter case, singular or plural), else None."""
    if not isinstance(value, str):
        return None
    name = value.strip().lower()
    name = _PLURALS.get(name, name)
    return name if name in MEMORY_TYPES else None


def is_trivial(text: str) -> bool:
    """True for text no one would remember: too few letters, or a placeholder."""
    return sum(char.isalpha() for char in text) < MIN_MEMORY_LETTERS or is_placeholder(text)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def echoes_example(content: str, examples: Sequence[str], source_text: str) -> bool:
    """True when ``content`` repeats one of ``examples`` that ``source_text`` does not
    support (fewer than half of the example's longer words occur in it)."""
    words = _words(content)
    for example in examples:
        if words != _words(example):
            continue
        telling = [word for word in words if len(word) > 3 and word != "user"]
        present = set(_words(source_text))
        if not telling or 2 * sum(word in present for word in telling) < len(telling):
            return True
    return False


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
        with llm_task(EXTRACTION):
            answer = self.llm.generate(prompt.messages, response_json_schema=EXTRACTION_SCHEMA)
        return self.parse(answer.text, copies, prompt,
                          config.memory_extraction_inherit_message_metadata)

    def parse(self, answer: str, copies: Sequence[PromptMessage], prompt: BuiltPrompt,
              inherit: bool | Sequence[str] | None) -> list[ExtractedMemory]:
        """Memories from the LLM's answer text; invalid items are dropped with one
        ``UserWarning`` counting them. Raises LlmOutputError without a memories list."""
        rule = True if inherit is None else inherit
        items = _items(parse_json_output(answer))
        included = [copies[index] for index in prompt.labels.values()]
        source_text = "\n".join(copy.text for copy in included)
        memories: list[ExtractedMemory] = []
        dropped: Counter[str] = Counter()
        for item in items:
            content = item.get("content") if isinstance(item, Mapping) else None
            if not isinstance(content, str):
                dropped["shape"] += 1
                continue
            content = " ".join(unescape_answer(content).split())
            content = content[:character_boundary(content, MAX_MEMORY_CHARS)]
            memory_type = memory_type_of(item.get("type"))
            if is_trivial(content):
                dropped["trivial"] += 1
            elif memory_type is None:
                dropped["type"] += 1
            elif echoes_example(content, list(EXTRACTION_EXAMPLES.values()), source_text):
                dropped["example"] += 1
            else:
                sources = [copies[prompt.labels[label]] for label in _source_labels(item)
                           if label in prompt.labels]
                sources = list({id(source): source for source in sources}.values()) or included
                memories.append(ExtractedMemory(
                    content=content, memory_type=memory_type,
                    metadata=inherited_metadata([s.metadata for s in sources], rule),
                    source_message_ids=tuple(s.id for s in sources if s.id),
                ))
        if dropped:
            reasons = "; ".join(f"{count} {DROP_REASONS[reason]}"
                                for reason, count in dropped.items())
            message = (f"memory extraction dropped {sum(dropped.values())} of {len(items)} "
                       f"item(s) of the LLM's answer: {reasons}")
            logger.info("%s; the answer began: %r", message, answer[:200])
            warnings.warn(message, UserWarning, stacklevel=2)
        return memories
