"""When extraction and summary refreshes are due, from plain counters a thread keeps.

Why pure functions over plain data: the decision must survive process restarts and must be
the same for INLINE and BACKGROUND runs. A thread's counters are kept by the store, which
applies the rule in the transaction that writes a batch (``append_messages``: the rule is
``stores.extraction_schedule``, also in PL/SQL); ``extraction_schedule`` turns a thread's
resolved settings into what the store needs. ``plan_after_add`` applies the same rule to
counters a caller keeps itself (``ThreadMemoryExtractor``).

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
from oracleagentmemory.stores.extraction_schedule import Counters, count_batch
from oracleagentmemory.stores.protocol import ExtractionSchedule


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
        counters = Counters.from_dict(data)
        return cls(counters.since_extraction, counters.since_summary)


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


def extraction_schedule(config: ResolvedExtractionConfig, *,
                        has_llm: bool) -> ExtractionSchedule:
    """What the store needs to count a thread's batches (a feature that is off has no
    frequency)."""
    return {
        "extraction_frequency": (config.memory_extraction_frequency or -1)
        if _extraction_on(config, has_llm) else None,
        "extraction_window": config.memory_extraction_window or -1,
        "summary_frequency": (config.context_summary_update_frequency or -1)
        if _summary_on(config, has_llm) else None,
    }


def plan_after_add(counters: ExtractionCounters, batch_size: int,
                   config: ResolvedExtractionConfig, *, has_llm: bool) -> ExtractionPlan:
    """The plan after ``add_messages`` stored ``batch_size`` messages."""
    if batch_size < 0:
        raise ValueError(f"batch_size must not be negative, got {batch_size}")
    due = count_batch(Counters(counters.messages_since_extraction,
                               counters.messages_since_summary),
                      batch_size, extraction_schedule(config, has_llm=has_llm))
    return ExtractionPlan(due.extraction_window, due.summary_window,
                          ExtractionCounters(due.counters.since_extraction,
                                             due.counters.since_summary))


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
