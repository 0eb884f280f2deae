"""Context-card assembly: summary, relevant records (per-type minimums first), recent tail.

Relevant information comes from two searches run side by side, the durable memories in the
thread's default scope and this thread's own messages, merged by distance; per-type
minimums are searched first.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import replace
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER, value_or
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.core.arguments import check_count
from oracleagentmemory.core.contextcard import OracleContextCard
from oracleagentmemory.core.derived_memory import card_summary_and_topics
from oracleagentmemory.core.memory_service import SearchOptions, search_options
from oracleagentmemory.core.records import contract_record_type
from oracleagentmemory.core.searchresult import OracleSearchResult
from oracleagentmemory.core.summary_assembly import SUMMARY_SOURCE_MESSAGES, transcript
from oracleagentmemory.core.thread_context import ThreadContext
from oracleagentmemory.core.tokens import apply_token_budgets
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError

DEFAULT_FALLBACK_MESSAGE_COUNT = 5
DEFAULT_MAX_RELEVANT_RESULTS = 5
CARD_RECORD_TYPES = ("message", *MEMORY_TYPES)
_SEARCH_OPTIONS = ("token_budget", "soft_token_budget", "include_invalid_results",
                   "metadata_filter")
"""The card's arguments that are options of its searches."""


def _check_minimums(value: Any) -> dict[str, int]:
    if value is NOT_SET_MARKER or value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ArgumentTypeError(
            "min_relevant_results_by_type must be a mapping of record type to count")
    minimums = {}
    for record_type, count in value.items():
        if record_type not in CARD_RECORD_TYPES:
            raise InvalidArgumentError(
                f"min_relevant_results_by_type has unsupported key {record_type!r}; "
                f"supported: {', '.join(CARD_RECORD_TYPES)}"
            )
        minimums[record_type] = check_count(count, f"min_relevant_results_by_type[{record_type!r}]")
    return minimums


def build_context_card(ctx: ThreadContext, arguments: Mapping[str, Any]) -> OracleContextCard:
    """The card for ``get_context_card``'s arguments (NOT_SET_MARKER where omitted)."""
    def given(name: str, default: Any) -> Any:
        return value_or(arguments.get(name, NOT_SET_MARKER), default)

    # The options of the card's searches are checked once, before the summary and the
    # searches run, so a bad one is an error naming it, not a TypeError from deep inside.
    checked = search_options(
        {name: arguments.get(name, NOT_SET_MARKER) for name in _SEARCH_OPTIONS}, None)
    fallback_count = check_count(given("fallback_message_count", DEFAULT_FALLBACK_MESSAGE_COUNT),
                                 "fallback_message_count")
    except_last = check_count(given("except_last_messages", 0), "except_last_messages")
    recent_count = check_count(given("max_recent_messages", 0), "max_recent_messages")
    if except_last and recent_count not in (0, except_last):
        raise InvalidArgumentError(
            f"max_recent_messages must be 0 or equal to except_last_messages ({except_last}) "
            f"when except_last_messages is non-zero, got {recent_count}"
        )
    minimums = _check_minimums(arguments.get("min_relevant_results_by_type", NOT_SET_MARKER))
    limit = check_count(given("max_relevant_results", DEFAULT_MAX_RELEVANT_RESULTS),
                        "max_relevant_results")
    if minimums:
        limit = max(limit, sum(minimums.values()))

    # One read of the thread's tail serves the LLM summary (a wider window) and the
    # transcript fallback, both before the last ``except_last`` messages, and the recent
    # messages (the last ones, which include those left out).
    window = max(fallback_count, SUMMARY_SOURCE_MESSAGES if ctx.llm is not None else 0)
    tail_count = max(recent_count, except_last)
    read = ctx.recent_messages(max(window + except_last, tail_count))
    before = read[:max(0, len(read) - except_last)]
    messages = before[-window:] if window else []
    tail = read[-tail_count:] if tail_count else []
    fallback = messages[-fallback_count:] if fallback_count else []
    summary, topics, query = transcript(fallback), None, "\n".join(m.text for m in fallback)
    if ctx.llm is not None:
        generated = card_summary_and_topics(ctx, messages, except_last)
        if generated is not None:
            summary, topics = generated
            query = summary
    recent = tail[-recent_count:] if recent_count else []
    relevant: list[OracleSearchResult] = []
    if query.strip() and limit:
        excluded = [m.id for m in tail[-except_last:] if m.id] if except_last else []
        relevant = _relevant_results(ctx, query, limit, minimums, checked, excluded)
        config = ctx.settings.search_config
        relevant = apply_token_budgets(
            relevant, lambda r: r.formatted_content,
            given("token_budget", value_or(getattr(config, "token_budget", None), None)),
            given("soft_token_budget",
                  value_or(getattr(config, "soft_token_budget", None), None)),
        )
    return OracleContextCard(summary=summary, topics=topics, relevant_results=relevant,
                             recent_messages=recent)


def _relevant_results(
    ctx: ThreadContext,
    query: str,
    limit: int,
    minimums: dict[str, int],
    checked: SearchOptions,
    excluded_ids: list[str],
) -> list[OracleSearchResult]:
    """Per-type minimums first, then the best of memories and this thread's messages, each
    search with the card's ``checked`` options (its filter, not checked again)."""
    def search(request: tuple[list[str], int, list[str]]) -> list[OracleSearchResult]:
        record_types, count, exclude = request
        options = replace(checked, record_types=tuple(map(contract_record_type, record_types)),
                          max_results=count, token_budget=0, soft_token_budget=0,
                          config=ctx.settings.search_config)
        return ctx.run_search(query, options, exact_thread=record_types == ["message"],
                              exclude_ids=exclude)

    workers = max(1, ctx.settings.context_card_type_search_concurrency)
    found: list[OracleSearchResult] = []
    wanted = [([record_type], count, excluded_ids)
              for record_type, count in minimums.items() if count > 0]
    with ThreadPoolExecutor(max_workers=workers) as pool:

        def run_all(requests: list[tuple[list[str], int, list[str]]]
                    ) -> list[list[OracleSearchResult]]:
            # Each search runs in the caller's context: its end user and its listeners.
            futures = [pool.submit(copy_context().run, search, r) for r in requests]
            return [future.result() for future in futures]

        for batch in run_all(wanted):
            found.extend(batch)
        seen = {result.id for result in found}
        remaining = limit - len(found)
        if remaining > 0:
            exclude = [*excluded_ids, *(i for i in seen if i)]
            fills = run_all([(list(MEMORY_TYPES), remaining, exclude),
                             (["message"], remaining, exclude)])
            candidates = sorted((r for batch in fills for r in batch),
                                key=lambda result: result.distance)
            for result in candidates:
                if remaining == 0:
                    break
                if result.id not in seen:
                    seen.add(result.id)
                    found.append(result)
                    remaining -= 1
    found.sort(key=lambda result: result.distance)
    return found[:limit]
