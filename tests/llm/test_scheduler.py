"""When extraction and summary refreshes are due."""

from __future__ import annotations

from oracleagentmemory.core.extractors import (
    ExtractionCounters,
    plan_after_add,
    plan_after_update,
)
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    ResolvedExtractionConfig as Config,
)

ZERO = ExtractionCounters()


def run(batches: list[int], config: Config, has_llm: bool = True):
    counters = ZERO
    plans = []
    for size in batches:
        plan = plan_after_add(counters, size, config, has_llm=has_llm)
        plans.append(plan)
        counters = plan.counters
    return plans


def test_defaults_extract_and_summarise_once_per_batch_over_the_batch():
    plans = run([3, 1, 5], Config())
    assert [(p.extraction_window, p.summary_window) for p in plans] == [(3, 3), (1, 1), (5, 5)]
    assert all(p.extract and p.refresh_summary for p in plans)
    assert plans[-1].counters == ZERO


def test_a_frequency_waits_for_enough_messages_and_covers_all_of_them():
    plans = run([2, 2, 1, 4], Config(memory_extraction_frequency=4,
                                     enable_context_summary=False))
    assert [p.extraction_window for p in plans] == [0, 4, 0, 5]
    assert [p.counters.messages_since_extraction for p in plans] == [2, 0, 1, 0]
    assert not any(p.refresh_summary for p in plans)


def test_a_positive_window_sends_that_many_newest_messages():
    plans = run([1, 1, 1], Config(memory_extraction_frequency=3, memory_extraction_window=10))
    assert [p.extraction_window for p in plans] == [0, 0, 10]
    assert [p.extraction_window for p in run([2], Config(memory_extraction_window=1))] == [1]


def test_the_summary_is_checked_only_after_a_due_extraction():
    config = Config(memory_extraction_frequency=2, context_summary_update_frequency=3)
    plans = run([1, 1, 1, 1, 1, 1], config)
    assert [p.extraction_window for p in plans] == [0, 2, 0, 2, 0, 2]
    # due after 3 messages, but only checked at the extractions after messages 2, 4 and 6
    assert [p.summary_window for p in plans] == [0, 0, 0, 4, 0, 0]
    assert plans[-1].counters.messages_since_summary == 2


def test_without_extraction_the_summary_is_checked_on_every_batch():
    config = Config(extract_memories=False, context_summary_update_frequency=3)
    plans = run([1, 1, 1, 2, 1], config)
    assert [p.extraction_window for p in plans] == [0, 0, 0, 0, 0]
    assert [p.summary_window for p in plans] == [0, 0, 3, 0, 3]


def test_nothing_is_due_or_counted_without_an_llm():
    plans = run([5, 5], Config(), has_llm=False)
    assert all(not p.extract and not p.refresh_summary for p in plans)
    assert plans[-1].counters == ZERO


def test_an_empty_batch_changes_nothing():
    counters = ExtractionCounters(2, 1)
    plan = plan_after_add(counters, 0, Config(), has_llm=True)
    assert (plan.extraction_window, plan.summary_window, plan.counters) == (0, 0, counters)


def test_update_re_extracts_the_updated_message_without_touching_counters():
    counters = ExtractionCounters(1, 2)
    plan = plan_after_update(counters, Config(), has_llm=True)
    assert (plan.extraction_window, plan.summary_window, plan.counters) == (1, 0, counters)
    assert plan_after_update(counters, Config(memory_extraction_window=4),
                             has_llm=True).extraction_window == 4
    assert not plan_after_update(counters, Config(extract_memories=False),
                                 has_llm=True).extract


def test_counters_round_trip_as_plain_data():
    counters = ExtractionCounters(3, 7)
    assert ExtractionCounters.from_dict(counters.to_dict()) == counters
    assert counters.to_dict() == {"messages_since_extraction": 3, "messages_since_summary": 7}
    assert ExtractionCounters.from_dict(None) == ZERO
    assert ExtractionCounters.from_dict({"messages_since_extraction": "x",
                                         "messages_since_summary": -2}) == ZERO
