"""When extraction and summary refreshes are due, from plain counters the thread persists.

Why pure functions over plain data: the decision must survive process restarts (the thread
stores the counters with its record) and must be the same for INLINE and BACKGROUND runs.

Rules (resolved :class:`ResolvedExtractionConfig`):

- Extraction runs only with an LLM and ``extract_memories``. ``memory_extraction_frequency``
  <= 0 (the default -1) makes it due once per ``add_messages`` batch; N > 0 makes it due
  when N or more messages arrived since the last extraction (at most once per batch).
- ``memory_extraction_window`` N > 0 sends the N newest messages (new ones included);
  <= 0 (the default -1) sends every message since the last extraction, which is the whole
  new batch under the default frequency.
- The summary refresh runs only with an LLM and ``enable_context_summary``. While extraction
  is on, it is checked only after a due extraction; otherwise on every batch. It is due when
  ``context_summary_update_frequency`` <= 0 or that many messages arrived since the last
  refresh; it folds those messages into the previous summary.
- Extraction uses the summary as it was before the batch; the refresh comes after it.
- Counters only advance while their feature is on, so enabling it later starts afresh.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from oracleagentmemory.core.extractors.memoryextractionconfig import ResolvedExtractionConfig


@dataclass(frozen=True)
class ExtractionCounters:
    """Messages added since the last extraction and since the last summary refresh."""

    messages_since_extraction: int = 0
    messages_since_summary: int = 0

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> ExtractionCounters:
        """Counters from persisted JSON; missing or bad values count as 0."""
        data = data or {}

        def count(name: str) -> int:
            value = data.get(name, 0)
            return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
                else 0

        return cls(count("messages_since_extraction"), count("messages_since_summary"))


@dataclass(frozen=True)
class ExtractionPlan:
    """What to do now, and the counters to persist afterwards.

    ``extraction_window``: how many of the newest messages to extract from (0: none).
    ``summary_window``: how many of the newest messages to fold into the summary (0: no
    refresh). For :func:`plan_after_update` the windows end at the updated message.
    """

    extraction_window: int
    summary_window: int
    counters: ExtractionCounters

    @property
    def extract(self) -> bool:
        return self.extraction_window > 0

    @property
    def refresh_summary(self) -> bool:
        return self.summary_window > 0


def _extraction_on(config: ResolvedExtractionConfig, has_llm: bool) -> bool:
    return bool(has_llm and config.extract_memories)


def _summary_on(config: ResolvedExtractionConfig, has_llm: bool) -> bool:
    return bool(has_llm and config.enable_context_summary)


def plan_after_add(counters: ExtractionCounters, batch_size: int,
                   config: ResolvedExtractionConfig, *, has_llm: bool) -> ExtractionPlan:
    """The plan after ``add_messages`` stored ``batch_size`` messages."""
    if batch_size < 0:
        raise ValueError(f"batch_size must not be negative, got {batch_size}")
    extraction_on = _extraction_on(config, has_llm)
    summary_on = _summary_on(config, has_llm)
    if batch_size == 0:
        return ExtractionPlan(0, 0, counters)
    since_extraction = counters.messages_since_extraction + batch_size if extraction_on else 0
    since_summary = counters.messages_since_summary + batch_size if summary_on else 0

    extraction_window = 0
    if extraction_on:
        frequency = config.memory_extraction_frequency or -1
        if frequency <= 0 or since_extraction >= frequency:
            window = config.memory_extraction_window or -1
            extraction_window = window if window > 0 else since_extraction
            since_extraction = 0

    summary_window = 0
    checked = extraction_window > 0 if extraction_on else summary_on
    if summary_on and checked:
        frequency = config.context_summary_update_frequency or -1
        if frequency <= 0 or since_summary >= frequency:
            summary_window = since_summary
            since_summary = 0
    return ExtractionPlan(extraction_window, summary_window,
                          ExtractionCounters(since_extraction, since_summary))


def plan_after_update(counters: ExtractionCounters, config: ResolvedExtractionConfig, *,
                      has_llm: bool) -> ExtractionPlan:
    """The plan after ``update_message`` changed one message's content.

    Extraction re-reads the updated message (with the ``memory_extraction_window`` - 1
    messages before it when the window is positive); counters and summary are unchanged.
    """
    if not _extraction_on(config, has_llm):
        return ExtractionPlan(0, 0, counters)
    window = config.memory_extraction_window or -1
    return ExtractionPlan(window if window > 0 else 1, 0, counters)
