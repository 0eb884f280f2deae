"""From search candidates to results, as a search config says: rerank, cut or prune, budget.

Pure functions over any candidate with a ``content`` text (an ``OracleSearchResult``
qualifies), given best first. The order of steps:

1. **Rerank** (when the config has a reranker): the first ``reranker_max_candidates``
   candidates are reordered by the reranker's scores; candidates it did not score follow
   in their original order, then any candidates beyond that window.
2. **Limit**: keep the first ``max_results`` (the call's value, else a top-k config's, else
   the SDK default).
3. **Prune** (pruning configs): the LLM judges the candidates after the protected head
   and the ones it does not call relevant are dropped.
4. **Token budgets**: whole results in order, as :func:`~oracleagentmemory.core.tokens.
   apply_token_budgets` keeps them.

A search asks the store for :func:`candidate_count` candidates so that step 1 has its window.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Protocol, TypeVar

from oracleagentmemory._notset import NOT_SET_MARKER, value_or
from oracleagentmemory.apis.reranker import IReranker
from oracleagentmemory.apis.searchconfig import ISearchConfig
from oracleagentmemory.core.llms.errors import LlmOutputError, without_answer
from oracleagentmemory.core.llms.json_output import parse_json_output
from oracleagentmemory.core.rendering import xml_attr, xml_text
from oracleagentmemory.core.searchconfig import (
    SDK_DEFAULTS,
    MemorySearchConfig,
    PruningEvaluationMode,
    PruningMemorySearchConfig,
)
from oracleagentmemory.core.tokens import apply_token_budgets

__all__ = [
    "Candidate",
    "PRUNING_RESPONSE_SCHEMA",
    "candidate_count",
    "prune_candidates",
    "pruning_prompt",
    "refine_results",
    "rerank_candidates",
]

logger = logging.getLogger(__name__)

MAX_PRUNING_CALLS_IN_FLIGHT = 8
"""Concurrent LLM calls of one EXTENDED or EXHAUSTIVE pruning."""


class Candidate(Protocol):
    """Anything with the text a reranker or pruner should read."""

    @property
    def content(self) -> str: ...


class _TextAnswer(Protocol):
    @property
    def text(self) -> str: ...


class Pruner(Protocol):
    """The part of ``ILlm`` pruning uses: ``generate(prompt, *, response_json_schema)``."""

    def generate(self, prompt: Any, *, response_json_schema: dict[str, Any] | None = None,
                 **kwargs: Any) -> _TextAnswer: ...


C = TypeVar("C", bound=Candidate)


@dataclass(frozen=True)
class _Plan:
    """A config with every omitted field replaced by its SDK default."""

    token_budget: int | None
    soft_token_budget: int | None
    reranker: IReranker | None
    reranker_max_candidates: int
    max_results: int
    pruner: Pruner | None
    evaluation_mode: PruningEvaluationMode
    num_probe_points: int
    protected_fraction: float


def _plan(config: ISearchConfig, max_results: Any) -> _Plan:
    if not isinstance(config, MemorySearchConfig):
        raise TypeError("config must be a MemorySearchConfig, TopKMemorySearchConfig or "
                        f"PruningMemorySearchConfig, got {type(config).__name__}")

    def resolved(name: str) -> Any:
        return value_or(getattr(config, name, NOT_SET_MARKER), SDK_DEFAULTS[name])

    limit = value_or(max_results, resolved("max_results"))
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"max_results must be an integer of at least 1, got {limit!r}")
    return _Plan(
        token_budget=resolved("token_budget"),
        soft_token_budget=resolved("soft_token_budget"),
        reranker=resolved("reranker"),
        reranker_max_candidates=resolved("reranker_max_candidates"),
        max_results=limit,
        pruner=config.pruner if isinstance(config, PruningMemorySearchConfig) else None,
        evaluation_mode=resolved("evaluation_mode"),
        num_probe_points=resolved("num_probe_points"),
        protected_fraction=resolved("protected_fraction"),
    )


def candidate_count(config: ISearchConfig, max_results: Any = NOT_SET_MARKER) -> int:
    """How many candidates a search should fetch: the result limit, or the reranker's
    window when that is larger. ``max_results`` is the call's value (NOT_SET: omitted)."""
    plan = _plan(config, max_results)
    if plan.reranker is None:
        return plan.max_results
    return max(plan.max_results, plan.reranker_max_candidates)


def refine_results(
    query: str,
    candidates: Sequence[C],
    config: ISearchConfig,
    *,
    max_results: Any = NOT_SET_MARKER,
    token_budget: Any = NOT_SET_MARKER,
    soft_token_budget: Any = NOT_SET_MARKER,
    measure: Callable[[C], str] | None = None,
) -> list[C]:
    """The results ``config`` makes of ``candidates`` (best first), in result order.

    Explicit ``max_results`` / ``token_budget`` / ``soft_token_budget`` win over the
    config. ``measure(candidate)`` is the text whose tokens count against the budgets
    (default: ``content``; a search passes the rendered result).
    """
    plan = _plan(config, max_results)
    ranked = list(candidates)
    if plan.reranker is not None:
        ranked = rerank_candidates(query, ranked, plan.reranker, plan.reranker_max_candidates)
    ranked = ranked[: plan.max_results]
    if plan.pruner is not None:
        ranked = prune_candidates(query, ranked, plan.pruner, mode=plan.evaluation_mode,
                                  num_probe_points=plan.num_probe_points,
                                  protected_fraction=plan.protected_fraction)
    hard = value_or(token_budget, plan.token_budget)
    soft = value_or(soft_token_budget, plan.soft_token_budget)
    return apply_token_budgets(ranked, measure or _content, hard, soft)


def _content(candidate: Candidate) -> str:
    return candidate.content


def rerank_candidates(query: str, candidates: Sequence[C], reranker: IReranker,
                      max_candidates: int) -> list[C]:
    """The first ``max_candidates`` reordered by ``reranker`` (unscored ones after them, in
    order), followed by the rest unchanged."""
    window, rest = list(candidates[:max_candidates]), list(candidates[max_candidates:])
    if len(window) < 2:
        return window + rest
    response = reranker.rerank(query, [candidate.content for candidate in window])
    order: list[int] = []
    # Best score first, whatever order a (caller's own) reranker answered in.
    for result in sorted(response.results, key=lambda r: -r.relevance_score):
        if 0 <= result.index < len(window) and result.index not in order:
            order.append(result.index)
    scored = set(order)
    order.extend(index for index in range(len(window)) if index not in scored)
    return [window[index] for index in order] + rest


PRUNING_RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"relevant": {"type": "array", "items": {"type": "integer"}}},
    "required": ["relevant"],
    "additionalProperties": False,
}
"""The JSON answer a pruning call asks for: the numbers of the relevant memories."""


def pruning_prompt(query: str, texts: Sequence[str]) -> str:
    """The question one pruning call asks: which of these numbered memories help?"""
    memories = "\n".join(
        f'<memory number="{xml_attr(number)}">{xml_text(text)}</memory>'
        for number, text in enumerate(texts, 1)
    )
    return (
        "You decide which stored memories help answer a query. A memory helps when it "
        "states a fact, event, preference or instruction the answer depends on; related "
        "but unhelpful memories do not.\n\n"
        f"<query>{xml_text(query)}</query>\n<memories>\n{memories}\n</memories>\n\n"
        'Answer with JSON only: {"relevant": [the numbers of the memories that help]}. '
        "Use an empty list when none helps."
    )


def prune_candidates(query: str, candidates: Sequence[C], pruner: Pruner, *,
                     mode: PruningEvaluationMode, num_probe_points: int,
                     protected_fraction: float) -> list[C]:
    """Drop the candidates the pruner does not judge relevant; keep the order.

    The first ``ceil(protected_fraction * len(candidates))`` are kept unseen. The rest are
    judged in groups: one group (FAST), ``num_probe_points`` windows (EXTENDED) or one
    candidate each (EXHAUSTIVE). A group whose call fails or whose answer is unusable is
    kept whole (pruning only removes what it was told to), and a warning is logged.
    """
    protected = math.ceil(protected_fraction * len(candidates))
    head, tail = list(candidates[:protected]), list(candidates[protected:])
    if not tail:
        return head
    groups = _groups(len(tail), mode, num_probe_points)
    texts = [candidate.content for candidate in tail]

    def judge(group: range) -> set[int]:
        return _judge(query, pruner, group, texts)

    if len(groups) == 1:
        verdicts = [judge(groups[0])]
    else:
        workers = min(len(groups), MAX_PRUNING_CALLS_IN_FLIGHT)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="prune") as pool:
            # each call runs in a copy of this context, so observability listeners see it
            futures = [pool.submit(copy_context().run, judge, group) for group in groups]
            verdicts = [future.result() for future in futures]
    kept = set().union(*verdicts)
    return head + [candidate for index, candidate in enumerate(tail) if index in kept]


def _groups(count: int, mode: PruningEvaluationMode, num_probe_points: int) -> list[range]:
    """Contiguous index ranges covering ``range(count)``, one per pruning call."""
    if mode is PruningEvaluationMode.EXHAUSTIVE:
        parts = count
    elif mode is PruningEvaluationMode.EXTENDED:
        parts = min(num_probe_points, count)
    else:
        parts = 1
    bounds = [round(part * count / parts) for part in range(parts + 1)]
    return [range(start, stop) for start, stop in pairwise(bounds) if stop > start]


def _judge(query: str, pruner: Pruner, group: range, texts: Sequence[str]) -> set[int]:
    """Indexes (into ``texts``) of the group's relevant candidates; the whole group on
    failure."""
    try:
        answer = pruner.generate(pruning_prompt(query, [texts[i] for i in group]),
                                 response_json_schema=PRUNING_RESPONSE_SCHEMA)
        numbers = _relevant_numbers(parse_json_output(answer.text))
    except Exception as error:  # noqa: BLE001 - any pruner failure keeps the candidates
        logger.warning("pruning kept %d candidates unjudged: %s: %s", len(group),
                       type(error).__name__, without_answer(error))
        if isinstance(error, LlmOutputError):
            logger.info("the pruning answer began: %r", error.answer)
        return set(group)
    return {group[number - 1] for number in numbers if 1 <= number <= len(group)}


def _relevant_numbers(value: Any) -> list[int]:
    """The numbers of ``{"relevant": [...]}`` (a bare list is accepted too)."""
    numbers = value.get("relevant") if isinstance(value, dict) else value
    if not isinstance(numbers, list):
        raise LlmOutputError('expected {"relevant": [numbers]}', str(value)[:200])
    return [number for number in numbers
            if isinstance(number, int) and not isinstance(number, bool)]
