"""Thread memory extractors as objects, for callers that drive extraction themselves.

A thread runs extraction for its caller (``add_messages``); these classes offer the same
steps one by one: decide whether a batch is due, extract memories from a window of
messages, propose links to stored memories, and turn the result into record batches for
any store's ``add_batches``. :class:`OneShotThreadMemoryExtractor` does each step with one
LLM call.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.memorystore import PendingRecordBatch
from oracleagentmemory.apis.message import Message
from oracleagentmemory.core.contextcard import DEFAULT_MESSAGE_FORMAT
from oracleagentmemory.core.extractors.extractor import ExtractedMemory, MemoryExtractor
from oracleagentmemory.core.extractors.linking import LinkCandidate, propose_links
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    MemoryExtractionConfig,
    MemoryExtractionImageContext,
    resolve_extraction_config,
)
from oracleagentmemory.core.extractors.scheduler import (
    ExtractionCounters,
    ExtractionPlan,
    plan_after_add,
)
from oracleagentmemory.core.message_input import to_messages
from oracleagentmemory.errors import ArgumentTypeError

__all__ = ["MemoryExtractionState", "OneShotThreadMemoryExtractor", "ThreadMemoryExtractor"]

SearchMemories = Callable[[str, int], Awaitable[list[str] | list[LinkCandidate]]]
"""Finds up to ``k`` stored memories related to a text: their texts, or link candidates."""
LINK_CANDIDATES = 10


@dataclass
class MemoryExtractionState:
    """What an extractor remembers between batches: messages since the last extraction
    and since the last summary refresh."""

    counters: ExtractionCounters = field(default_factory=ExtractionCounters)


class ThreadMemoryExtractor(ABC):
    """Extracts memories from a thread's messages and links them to stored ones."""

    def extract_memories(self, existing_messages: Sequence[Any], new_messages: Sequence[Any],
                         context_summary: str = "") -> list[ExtractedMemory]:
        """Memories from ``new_messages``, with ``existing_messages`` as context."""
        return asyncio.run(self.extract_memories_async(existing_messages, new_messages,
                                                       context_summary))

    @abstractmethod
    async def extract_memories_async(self, existing_messages: Sequence[Any],
                                     new_messages: Sequence[Any],
                                     context_summary: str = "") -> list[ExtractedMemory]:
        """The async form of :meth:`extract_memories`."""

    def resolve_memory_links(self, memories: list[ExtractedMemory]) -> None:
        """Find the stored memories each new one relates to (kept on the extractor)."""
        asyncio.run(self.resolve_memory_links_async(memories))

    @abstractmethod
    async def resolve_memory_links_async(self, memories: list[ExtractedMemory]) -> None:
        """The async form of :meth:`resolve_memory_links`."""

    @staticmethod
    @abstractmethod
    def build_pending_memory_batches(extracted_memories: list[ExtractedMemory],
                                     thread_id: str | None, user_id: str | None,
                                     agent_id: str | None) -> list[PendingRecordBatch]:
        """Record batches (one per memory type) ready for a store's ``add_batches``."""

    @abstractmethod
    def _to_config(self) -> dict[str, Any]:
        """The extractor's settings as JSON."""


class OneShotThreadMemoryExtractor(ThreadMemoryExtractor):
    """One LLM call per step; settings from a :class:`MemoryExtractionConfig`."""

    def __init__(
        self,
        llm: ILlm | None,
        search_memories: SearchMemories,
        config: MemoryExtractionConfig,
        state: MemoryExtractionState | None = None,
        prompt_messages_format: str = DEFAULT_MESSAGE_FORMAT,
    ) -> None:
        if not isinstance(config, MemoryExtractionConfig):
            raise ArgumentTypeError("config must be a MemoryExtractionConfig, got "
                                    f"{type(config).__name__}")
        self.llm = llm
        self.search_memories = search_memories
        self._config = resolve_extraction_config(config)
        self._state = state or MemoryExtractionState()
        self.prompt_messages_format = prompt_messages_format
        self.proposed_links: dict[str, list[tuple[str, str]]] = {}
        """Per new memory text: (stored memory id, relation type) pairs found by linking."""

    # -- settings ---------------------------------------------------------------------

    def _setting(self, name: str) -> Any:
        return getattr(self._config, name)

    def _set(self, name: str, value: Any) -> None:
        self._config = resolve_extraction_config(
            MemoryExtractionConfig(**{**_resolved_fields(self._config), name: value}))

    @property
    def memory_extraction_window(self) -> int:
        return int(self._setting("memory_extraction_window"))

    @memory_extraction_window.setter
    def memory_extraction_window(self, value: int) -> None:
        self._set("memory_extraction_window", value)

    @property
    def memory_extraction_frequency(self) -> int:
        return int(self._setting("memory_extraction_frequency"))

    @memory_extraction_frequency.setter
    def memory_extraction_frequency(self, value: int) -> None:
        self._set("memory_extraction_frequency", value)

    @property
    def memory_extraction_token_limit(self) -> int:
        return int(self._setting("memory_extraction_token_limit"))

    @memory_extraction_token_limit.setter
    def memory_extraction_token_limit(self, value: int) -> None:
        self._set("memory_extraction_token_limit", value)

    @property
    def context_summary_update_frequency(self) -> int:
        return int(self._setting("context_summary_update_frequency"))

    @context_summary_update_frequency.setter
    def context_summary_update_frequency(self, value: int) -> None:
        self._set("context_summary_update_frequency", value)

    @property
    def enable_context_summary(self) -> bool:
        return bool(self._setting("enable_context_summary"))

    @enable_context_summary.setter
    def enable_context_summary(self, value: bool) -> None:
        self._set("enable_context_summary", value)

    @property
    def memory_extraction_image_context(self) -> MemoryExtractionImageContext:
        return self._config.memory_extraction_image_context

    @property
    def memory_link_extraction_token_limit(self) -> int:
        return self._config.memory_link_extraction_token_limit

    @property
    def last_memory_extraction_counter(self) -> int:
        """Messages added since the last extraction."""
        return self._state.counters.messages_since_extraction

    @last_memory_extraction_counter.setter
    def last_memory_extraction_counter(self, value: int) -> None:
        counters = self._state.counters
        self._state.counters = ExtractionCounters(value, counters.messages_since_summary)

    # -- steps ------------------------------------------------------------------------

    def compute_add_messages_extraction_decision(self, new_message_count: int
                                                 ) -> ExtractionPlan:
        """Whether a batch of ``new_message_count`` messages is due for extraction and
        summary refresh, and how many messages each step reads; advances the counters."""
        plan = plan_after_add(self._state.counters, new_message_count, self._config,
                              has_llm=self.llm is not None)
        self._state.counters = plan.counters
        return plan

    def get_recent_messages(self, max_messages: int,
                            messages: Sequence[Any] | None = None) -> list[Message]:
        """The last ``max_messages`` of ``messages`` as Message objects."""
        chosen = list(messages or [])[-max_messages:] if max_messages > 0 else []
        return to_messages(chosen)

    def invalidate_history_dependent_state(self) -> None:
        """Forget counters and proposed links (after messages were edited or deleted)."""
        self._state.counters = ExtractionCounters()
        self.proposed_links.clear()

    async def extract_memories_async(self, existing_messages: Sequence[Any],
                                     new_messages: Sequence[Any],
                                     context_summary: str = "") -> list[ExtractedMemory]:
        plan = self.compute_add_messages_extraction_decision(len(new_messages))
        return await self.extract_memories_with_precomputed_decision_async(
            existing_messages, new_messages, plan, context_summary)

    async def extract_memories_with_precomputed_decision_async(
        self, existing_messages: Sequence[Any], new_messages: Sequence[Any],
        extraction_decision: ExtractionPlan, context_summary: str = "",
    ) -> list[ExtractedMemory]:
        """Memories from the window the decision names (none when it is not due)."""
        if self.llm is None or not extraction_decision.extract:
            return []
        window = to_messages([*existing_messages, *new_messages]
                             )[-extraction_decision.extraction_window:]
        extractor = MemoryExtractor(self.llm)
        return await asyncio.to_thread(extractor.extract, window, context_summary or None,
                                       self._config)

    async def resolve_memory_links_async(self, memories: list[ExtractedMemory]) -> None:
        if self.llm is None:
            return
        for memory in memories:
            found = await self.search_memories(memory.content, LINK_CANDIDATES)
            candidates = [item if isinstance(item, LinkCandidate)
                          else LinkCandidate(id=str(index), content=str(item))
                          for index, item in enumerate(found)]
            self.proposed_links[memory.content] = await asyncio.to_thread(
                propose_links, self.llm, memory.content, candidates,
                new_memory_type=memory.memory_type,
                token_limit=self._config.memory_link_extraction_token_limit,
                custom_instructions=self._config.memory_link_extraction_custom_instructions)

    @staticmethod
    def build_pending_memory_batches(extracted_memories: list[ExtractedMemory],
                                     thread_id: str | None, user_id: str | None,
                                     agent_id: str | None) -> list[PendingRecordBatch]:
        by_type: dict[str, list[ExtractedMemory]] = {}
        for memory in extracted_memories:
            by_type.setdefault(memory.memory_type, []).append(memory)
        return [PendingRecordBatch(contents=[m.content for m in group], record_type=kind,
                                   thread_ids=thread_id, user_ids=user_id, agent_ids=agent_id,
                                   metadata=[m.metadata for m in group])
                for kind, group in by_type.items()]

    def _to_config(self) -> dict[str, Any]:
        return {"type": type(self).__name__, "config": _resolved_fields(self._config),
                "prompt_messages_format": self.prompt_messages_format}


def _resolved_fields(config: Any) -> dict[str, Any]:
    values: Mapping[str, Any] = asdict(config)
    return {key: value.value if hasattr(value, "value") else
            list(value) if isinstance(value, tuple) else value for key, value in values.items()}
