"""When a thread's extraction and summary refresh are due: the rule the store applies.

Why in the store: the counters it reads (messages added since the last extraction and since
the last summary refresh) live in the thread record, and two clients or processes adding
messages to one thread must never lose a count. So the store counts a batch and decides in
the transaction that writes the batch (``append_messages``), from the thread's resolved
settings (an ``ExtractionSchedule``); the PL/SQL record API applies the same rule.

The rule, for a batch of ``added`` messages:

- a feature is on when its frequency is given (not None); a counter advances only while its
  feature is on, and is 0 while it is off, so turning a feature on later starts afresh;
- extraction is due when its frequency is <= 0 (every batch) or the messages since the
  last extraction reach it; it then covers the ``extraction_window`` newest messages
  (window > 0), else every message since the last extraction, and its counter restarts;
- the summary refresh is checked after a due extraction while extraction is on, else on
  every batch; it is due when its frequency is <= 0 or the messages since the last refresh
  reach it, covers those messages, and its counter restarts;
- ``unsummarised`` messages (given back by a refresh that failed) are added to the summary
  counter first; a call without messages only does that.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from oracleagentmemory.stores.errors import InvalidArgumentError
from oracleagentmemory.stores.protocol import (
    ExtractionSchedule,
    MessageBatch,
    MessageBatchResult,
    RecordOut,
)

STATE_KEY = "extraction"
"""Where a thread record's config keeps the counters: ``config["state"][STATE_KEY]``."""
SINCE_EXTRACTION = "messages_since_extraction"
SINCE_SUMMARY = "messages_since_summary"


@dataclass(frozen=True)
class Counters:
    """Messages added since the last extraction and since the last summary refresh."""

    since_extraction: int = 0
    since_summary: int = 0

    def to_dict(self) -> dict[str, int]:
        return {SINCE_EXTRACTION: self.since_extraction, SINCE_SUMMARY: self.since_summary}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Counters:
        """Counters as a thread record keeps them; a missing or bad value counts as 0."""
        data = data if isinstance(data, Mapping) else {}

        def count(name: str) -> int:
            value = data.get(name, 0)
            return value if isinstance(value, int) and not isinstance(value, bool) \
                and value > 0 else 0

        return cls(count(SINCE_EXTRACTION), count(SINCE_SUMMARY))


@dataclass(frozen=True)
class Due:
    """What a batch makes due, and the counters to keep afterwards."""

    extraction_window: int
    """The newest messages to extract from (0: no extraction due)."""
    summary_window: int
    """The newest messages to fold into the summary (0: no refresh due)."""
    counters: Counters


def count_batch(counters: Counters, added: int, schedule: ExtractionSchedule) -> Due:
    """Count a batch of ``added`` messages under ``schedule`` (the rule above)."""
    since_extraction = counters.since_extraction
    since_summary = counters.since_summary + max(0, schedule.get("unsummarised", 0) or 0)
    extraction_frequency = schedule.get("extraction_frequency")
    summary_frequency = schedule.get("summary_frequency")
    if added <= 0:
        return Due(0, 0, Counters(since_extraction, since_summary))
    extraction_on = extraction_frequency is not None
    summary_on = summary_frequency is not None
    since_extraction = since_extraction + added if extraction_on else 0
    since_summary = since_summary + added if summary_on else 0
    extraction_window = 0
    if extraction_frequency is not None and (extraction_frequency <= 0
                                             or since_extraction >= extraction_frequency):
        window = schedule.get("extraction_window") or -1
        extraction_window = window if window > 0 else since_extraction
        since_extraction = 0
    summary_window = 0
    checked = extraction_window > 0 if extraction_on else summary_on
    if summary_frequency is not None and checked and (summary_frequency <= 0
                                                      or since_summary >= summary_frequency):
        summary_window = since_summary
        since_summary = 0
    return Due(extraction_window, summary_window, Counters(since_extraction, since_summary))


def check_schedule(schedule: Any) -> ExtractionSchedule | None:
    """A schedule as the contract allows it (None: nothing is counted)."""
    if schedule is None:
        return None
    if not isinstance(schedule, Mapping):
        raise InvalidArgumentError("schedule must be an object or None")
    unknown = set(schedule) - set(ExtractionSchedule.__annotations__)
    if unknown:
        raise InvalidArgumentError(f"schedule has unknown keys: {', '.join(sorted(unknown))}")
    for key in ("extraction_frequency", "summary_frequency", "extraction_window",
                "unsummarised"):
        value = schedule.get(key)
        optional = key.endswith("_frequency")
        if (value is None and (optional or key not in schedule)) or (
                isinstance(value, int) and not isinstance(value, bool)
                and (key != "unsummarised" or value >= 0)):
            continue
        raise InvalidArgumentError(f"schedule.{key} must be an integer"
                                   + (" or None" if optional else "")
                                   + (" of at least 0" if key == "unsummarised" else ""))
    return dict(schedule)  # type: ignore[return-value]


def counted(config: Mapping[str, Any] | None, due: Due) -> dict[str, Any]:
    """A thread record's config with the counters ``due`` leaves, its settings untouched."""
    config = dict(config or {})
    state = config.get("state")
    config["state"] = {**(state if isinstance(state, Mapping) else {}),
                       STATE_KEY: due.counters.to_dict()}
    return config


def stored_counters(config: Mapping[str, Any] | None) -> Counters:
    """The counters a thread record's config keeps (none kept: zeros)."""
    state = (config or {}).get("state")
    return Counters.from_dict(state.get(STATE_KEY) if isinstance(state, Mapping) else None)


def not_written(last: RecordOut | None) -> MessageBatchResult:
    """The answer to a batch that expected another last message: nothing was written."""
    return {"ids": [], "written": False, "last_message": last, "extraction_window": 0,
            "summary_window": 0, "messages": [], "thread_summary": None}


def batch_thread(batch: Any) -> tuple[str, bool]:
    """The thread a batch names (checked by the backend as an id) and whether its record
    must exist."""
    if not isinstance(batch, Mapping):
        raise InvalidArgumentError("batch must be an object")
    unknown = set(batch) - set(MessageBatch.__annotations__)
    if unknown:
        raise InvalidArgumentError(f"batch has unknown keys: {', '.join(sorted(unknown))}")
    thread_id = batch.get("thread_id")
    if not isinstance(thread_id, str):
        raise InvalidArgumentError("batch.thread_id must be a string")
    required = batch.get("thread_required", True)
    if not isinstance(required, bool):
        raise InvalidArgumentError("batch.thread_required must be a bool")
    return thread_id, required


def check_batch_records(batch: MessageBatch, thread_id: str) -> list[Any]:
    """The batch's records: each a message or an image of the thread, without a
    ``scope_from`` (that is write_records')."""
    records = batch.get("records", [])
    if isinstance(records, (str, bytes, Mapping)) or not isinstance(records, list):
        raise InvalidArgumentError("batch.records must be a list of record objects")
    for index, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise InvalidArgumentError(f"records[{index}] must be a dict")
        if record.get("record_type") not in ("message", "image") \
                or record.get("thread_id") != thread_id:
            raise InvalidArgumentError(
                f"records[{index}] must be a message or an image of thread {thread_id!r}")
        if "scope_from" in record:
            raise InvalidArgumentError(
                f"records[{index}].scope_from is not taken by append_messages: a batch's "
                "records carry their thread's scope")
    return records
