"""Context-card assembly: summary, relevant records (per-type minimums first), recent tail."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from oracleagentmemory._notset import NOT_SET_MARKER, value_or
from oracleagentmemory.apis.records import MEMORY_TYPES
from oracleagentmemory.core import scope_resolution
from oracleagentmemory.core.contextcard import OracleContextCard
from oracleagentmemory.core.derived_memory import card_summary_and_topics
from oracleagentmemory.core.summaries import (
    SUMMARY_SOURCE_MESSAGES,
    check_count,
    recent_messages,
    transcript,
)
from oracleagentmemory.core.tokens import apply_token_budgets

if TYPE_CHECKING:
    from oracleagentmemory.core.searchresult import OracleSearchResult
    from oracleagentmemory.core.thread import OracleThread

DEFAULT_FALLBACK_MESSAGE_COUNT = 5
DEFAULT_MAX_RELEVANT_RESULTS = 5
CARD_RECORD_TYPES = ("message", *MEMORY_TYPES)


def _check_minimums(value: Any) -> dict[str, int]:
    if value is NOT_SET_MARKER or value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError("min_relevant_results_by_type must be a mapping of record type to count")
    minimums = {}
    for record_type, count in value.items():
        if record_type not in CARD_RECORD_TYPES:
            raise ValueError(
                f"min_relevant_results_by_type has unsupported key {record_type!r}; "
                f"supported: {', '.join(CARD_RECORD_TYPES)}"
            )
        minimums[record_type] = check_count(count, f"min_relevant_results_by_type[{record_type!r}]")
    return minimums


def build_context_card(
    thread: OracleThread,
    fallback_message_count: Any = NOT_SET_MARKER,
    max_relevant_results: Any = NOT_SET_MARKER,
    token_budget: Any = NOT_SET_MARKER,
    soft_token_budget: Any = NOT_SET_MARKER,
    max_recent_messages: Any = NOT_SET_MARKER,
    except_last_messages: Any = NOT_SET_MARKER,
    min_relevant_results_by_type: Any = NOT_SET_MARKER,
    metadata_filter: dict[str, Any] | None = None,
    include_invalid_results: Any = NOT_SET_MARKER,
) -> OracleContextCard:
    fallback_count = check_count(
        value_or(fallback_message_count, DEFAULT_FALLBACK_MESSAGE_COUNT), "fallback_message_count"
    )
    except_last = check_count(value_or(except_last_messages, 0), "except_last_messages")
    recent_count = check_count(value_or(max_recent_messages, 0), "max_recent_messages")
    if except_last and recent_count not in (0, except_last):
        raise ValueError(
            f"max_recent_messages must be 0 or equal to except_last_messages ({except_last}) "
            f"when except_last_messages is non-zero, got {recent_count}"
        )
    minimums = _check_minimums(min_relevant_results_by_type)
    limit = check_count(
        value_or(max_relevant_results, DEFAULT_MAX_RELEVANT_RESULTS), "max_relevant_results"
    )
    if minimums:
        limit = max(limit, sum(minimums.values()))

    # One read serves both the LLM summary (a wider window) and the transcript fallback.
    window = max(fallback_count, SUMMARY_SOURCE_MESSAGES if thread.llm is not None else 0)
    messages = recent_messages(thread, window, except_last)
    fallback = messages[-fallback_count:] if fallback_count else []
    summary, topics = transcript(fallback), None
    if thread.llm is not None:
        generated = card_summary_and_topics(thread, messages, except_last)
        if generated is not None:
            summary, topics = generated
    recent = thread.get_messages(start=-recent_count, end=None) if recent_count else []
    relevant: list[OracleSearchResult] = []
    if summary and limit:
        excluded_tail = (
            recent if except_last == recent_count
            else thread.get_messages(start=-except_last, end=None) if except_last else []
        )
        excluded = [m.id for m in excluded_tail]
        relevant = _relevant_results(
            thread, summary, limit, minimums, metadata_filter, include_invalid_results, excluded
        )
        config = thread.search_config
        relevant = apply_token_budgets(
            relevant, lambda r: r.formatted_content,
            value_or(token_budget, config.token_budget),
            value_or(soft_token_budget, config.soft_token_budget),
        )
    return OracleContextCard(summary=summary, topics=topics, relevant_results=relevant,
                             recent_messages=recent)


def _relevant_results(
    thread: OracleThread,
    query: str,
    limit: int,
    minimums: dict[str, int],
    metadata_filter: dict[str, Any] | None,
    include_invalid: Any,
    excluded_ids: list[str],
) -> list[OracleSearchResult]:
    """Per-type minimums first (searched concurrently), then the best memory-like records."""

    def search(record_types: list[str], count: int, exclude: list[str]) -> list:
        exact_thread = {"exact_thread_match": True} if record_types == ["message"] else {}
        return thread.client._search(
            query,
            scope_resolution.thread_scope(
                {**scope_resolution.OMITTED, **exact_thread},
                thread.user_id, thread.agent_id, thread.thread_id,
            ),
            thread.search_config,
            {"max_results": count, "include_invalid_results": include_invalid,
             "token_budget": None, "soft_token_budget": None},
            record_types,
            metadata_filter,
            exclude_ids=exclude,
        )

    wanted = [(record_type, count) for record_type, count in minimums.items() if count > 0]
    found: list[OracleSearchResult] = []
    if wanted:
        workers = min(len(wanted), thread.context_card_type_search_concurrency)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            batches = list(pool.map(lambda item: search([item[0]], item[1], excluded_ids),
                                    wanted))
        for batch in batches:
            found.extend(batch)
    seen = {result.id for result in found}
    remaining = limit - len(found)
    if remaining > 0:
        fill = search(list(MEMORY_TYPES), remaining, [*excluded_ids, *seen])
        found.extend(result for result in fill if result.id not in seen)
    found.sort(key=lambda result: result.distance)
    return found[:limit]
