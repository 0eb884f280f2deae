"""Token estimates and budgets (a cheap, model-independent estimate: 3.5 characters each)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

CHARS_PER_TOKEN = 3.5
T = TypeVar("T")


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def chars_for_tokens(token_budget: int) -> int:
    return int(token_budget * CHARS_PER_TOKEN)


def apply_token_budgets(
    items: Sequence[T],
    render: Callable[[T], str],
    token_budget: int | None,
    soft_token_budget: int | None,
) -> list[T]:
    """Keep whole items in rank order.

    A positive ``token_budget`` is a hard cap: stop before the first item that would exceed
    it (so nothing is kept when the first one does not fit). A positive
    ``soft_token_budget`` is a target: stop after the item that reaches it.
    """
    hard = token_budget if token_budget and token_budget > 0 else None
    soft = soft_token_budget if soft_token_budget and soft_token_budget > 0 else None
    if hard is None and soft is None:
        return list(items)  # no budget: nothing to render and count
    kept: list[T] = []
    total = 0
    for item in items:
        cost = estimate_tokens(render(item))
        if hard is not None and total + cost > hard:
            break
        kept.append(item)
        total += cost
        if soft is not None and total >= soft:
            break
    return kept
