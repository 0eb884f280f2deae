"""Search configurations: how a search turns candidates into results.

* :class:`MemorySearchConfig`: token budgets only, results in search order.
* :class:`TopKMemorySearchConfig`: optionally rerank, then keep the best ``max_results``.
* :class:`PruningMemorySearchConfig`: optionally rerank, then let an LLM drop the candidates
  that do not help answer the query.

An omitted field takes the SDK default in ``SDK_DEFAULTS`` (the reference shows it as
``<default>``; each class's Args say what it resolves to). Values are checked whenever a
field is set, so a config is always valid; a bad value raises ``InvalidArgumentError``, a
``ValueError`` (or ``ArgumentTypeError``, a ``TypeError``, for a wrong kind of object)
naming the field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.reranker import IReranker
from oracleagentmemory.apis.searchconfig import ISearchConfig
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "MemorySearchConfig",
    "PruningEvaluationMode",
    "PruningMemorySearchConfig",
    "SDK_DEFAULTS",
    "TopKMemorySearchConfig",
]


class PruningEvaluationMode(str, Enum):
    """How many LLM calls pruning spends (see ``docs/reranking.md``).

    FAST: one call judges every unprotected candidate. EXTENDED: the unprotected candidates
    are split at ``num_probe_points`` probe points into that many windows, one call each.
    EXHAUSTIVE: one call per unprotected candidate.
    """

    FAST = "fast"
    EXTENDED = "extended"
    EXHAUSTIVE = "exhaustive"


SDK_DEFAULTS: dict[str, Any] = {
    "token_budget": None,
    "soft_token_budget": None,
    "reranker": None,
    "reranker_max_candidates": 50,
    "max_results": 10,
    "evaluation_mode": PruningEvaluationMode.FAST,
    "num_probe_points": 4,
    "protected_fraction": 0.2,
}
"""What an omitted field means: no budgets, no reranker, rerank the
best 50 candidates, keep 10, prune in one call, never prune the best fifth."""


def _positive_int_or_none(name: str, value: Any) -> Any:
    if value is None:
        return value
    return _positive_int(name, value)


def _positive_int(name: str, value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgumentError(f"{name} must be an integer of at least 1, got {value!r}")
    return value


def _reranker(name: str, value: Any) -> Any:
    if value is not None and not isinstance(value, IReranker):
        raise ArgumentTypeError(f"{name} must be an IReranker or None, got {type(value).__name__}")
    return value


def _evaluation_mode(name: str, value: Any) -> Any:
    try:
        return PruningEvaluationMode(value)
    except ValueError:
        choices = ", ".join(mode.value for mode in PruningEvaluationMode)
        raise InvalidArgumentError(f"{name} must be one of {choices}, got {value!r}") from None


def _fraction(name: str, value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InvalidArgumentError(f"{name} must be a number from 0 to 1, got {value!r}")
    return float(value)


def _pruner(name: str, value: Any) -> Any:
    if not callable(getattr(value, "generate", None)):
        raise ArgumentTypeError(f"{name} must be an ILlm (an object with generate()), got "
                                f"{type(value).__name__}")
    return value


_CHECKS: dict[str, Callable[[str, Any], Any]] = {
    "token_budget": _positive_int_or_none,
    "soft_token_budget": _positive_int_or_none,
    "reranker": _reranker,
    "reranker_max_candidates": _positive_int,
    "max_results": _positive_int,
    "evaluation_mode": _evaluation_mode,
    "num_probe_points": _positive_int,
    "protected_fraction": _fraction,
    "pruner": _pruner,
}


@dataclass
class MemorySearchConfig(ISearchConfig):
    """Token budgets for search results, kept in search order.

    Args:
        token_budget: Hard cap, in estimated tokens: results stop before the first one that
            would exceed it. Omitted or None: no cap.
        soft_token_budget: Target, in estimated tokens: results stop after the one that
            reaches it. Omitted or None: no target.

    Raises:
        InvalidArgumentError: A budget is not an int of at least 1 or None, here or when
            the field is set later (a ``ValueError``); the message names the field.
    """

    token_budget: int | None | _NotSetMarker = NOT_SET_MARKER
    soft_token_budget: int | None | _NotSetMarker = NOT_SET_MARKER

    def __setattr__(self, name: str, value: Any) -> None:
        check = _CHECKS.get(name)
        if check is not None and value is not NOT_SET_MARKER:
            value = check(name, value)
        super().__setattr__(name, value)


@dataclass
class _RerankingMemorySearchConfig(MemorySearchConfig):
    """Adds an optional reranker that reorders the best ``reranker_max_candidates``."""

    reranker: IReranker | None | _NotSetMarker = NOT_SET_MARKER
    reranker_max_candidates: int | _NotSetMarker = NOT_SET_MARKER


@dataclass
class TopKMemorySearchConfig(_RerankingMemorySearchConfig):
    """Rerank (when a reranker is set), then keep the best ``max_results``.

    Also takes ``token_budget`` and ``soft_token_budget``, as ``MemorySearchConfig``.

    Args:
        reranker: An ``IReranker`` that reorders the best candidates before they are
            kept. Omitted or None: no reranking.
        reranker_max_candidates: How many of the best candidates the reranker reorders (the
            search fetches at least that many). Omitted: 50.
        max_results: Results kept (an explicit ``max_results`` of a search call wins).
            Omitted: 10.

    Raises:
        InvalidArgumentError: A value is not allowed (a count below 1), here or when the
            field is set later (a ``ValueError``); the message names the field.
        ArgumentTypeError: ``reranker`` is not an ``IReranker`` (a ``TypeError``).
    """

    max_results: int | _NotSetMarker = NOT_SET_MARKER


@dataclass
class PruningMemorySearchConfig(_RerankingMemorySearchConfig):
    """Rerank (when a reranker is set), then ask ``pruner`` which candidates help answer
    the query and drop the others; the best ``protected_fraction`` are never dropped.

    Also takes ``token_budget`` and ``soft_token_budget``, as ``MemorySearchConfig``.

    Args:
        reranker: An ``IReranker`` that reorders the best candidates before they are
            kept. Omitted or None: no reranking.
        reranker_max_candidates: How many of the best candidates the reranker reorders (the
            search fetches at least that many). Omitted: 50.
        pruner: The LLM that judges the candidates (keyword only, required).
        evaluation_mode: How many LLM calls pruning spends, a ``PruningEvaluationMode`` or
            its value. Omitted: ``FAST`` (one call).
        num_probe_points: Windows the ``EXTENDED`` mode splits the candidates into.
            Omitted: 4.
        protected_fraction: Share (0 to 1) of the best candidates pruning never drops.
            Omitted: 0.2.

    Raises:
        InvalidArgumentError: A value is not allowed (a count below 1, an unknown
            evaluation mode, a fraction outside 0..1), here or when the field is set later
            (a ``ValueError``); the message names the field.
        ArgumentTypeError: ``reranker`` is not an ``IReranker``, or ``pruner`` has no
            ``generate`` (a ``TypeError``).
        TypeError: ``pruner`` is not given.
    """

    pruner: ILlm = field(kw_only=True)
    evaluation_mode: PruningEvaluationMode | _NotSetMarker = NOT_SET_MARKER
    num_probe_points: int | _NotSetMarker = NOT_SET_MARKER
    protected_fraction: float | _NotSetMarker = NOT_SET_MARKER
