"""How the local embedders group texts into padded batches.

Why: a batch runs every row to its longest text, so padding is work that makes no vector.
Cutting the length-sorted texts into fixed runs of ``batch_size`` wasted half the encoder's
work on one real chat session (about 20 turns of 5 to 100 tokens in one ``add_messages``
call): the short turns were padded to the long ones. Here the cut points are chosen to
minimise what the batches cost: the tokens they run, padding included, plus a fixed cost
per run (reading every weight of the model once, measured on one thread at about as much as
16 more tokens for both local models). The texts keep their own vectors: each row is masked
to its own tokens, and results go back to the caller's order by index.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["RUN_COST_TOKENS", "padded_batch", "plan_batches"]

RUN_COST_TOKENS = 16
"""The fixed cost of one encoder run, in tokens of work (see the module docstring)."""


def plan_batches(lengths: Sequence[int], max_rows: int,
                 run_cost_tokens: int = RUN_COST_TOKENS) -> list[list[int]]:
    """Indices into ``lengths`` grouped into batches of at most ``max_rows``, shortest
    first, each batch a run of the length-sorted texts, the cut points chosen to minimise
    the padded tokens run plus ``run_cost_tokens`` per batch."""
    if max_rows < 1:
        raise ValueError("max_rows must be >= 1")
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    count = len(order)
    # cost[j]: cheapest plan for the first j sorted texts; cut[j]: where its last batch starts.
    cost = [0] * (count + 1)
    cut = [0] * (count + 1)
    for end in range(1, count + 1):
        longest = lengths[order[end - 1]]
        best_start = end - 1
        best = cost[best_start] + longest + run_cost_tokens
        for start in range(max(0, end - max_rows), end - 1):
            candidate = cost[start] + (end - start) * longest + run_cost_tokens
            if candidate < best:
                best, best_start = candidate, start
        cost[end], cut[end] = best, best_start
    batches: list[list[int]] = []
    end = count
    while end > 0:
        batches.append(order[cut[end]:end])
        end = cut[end]
    return batches[::-1]


def padded_batch(token_ids: Sequence[Sequence[int]],
                 index: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Right-padded int64 ids and 0/1 mask ``[len(index), longest]`` of the texts ``index``."""
    seq = max(len(token_ids[i]) for i in index)
    ids = np.zeros((len(index), seq), dtype=np.int64)
    mask = np.zeros((len(index), seq), dtype=np.int64)
    for row, i in enumerate(index):
        ids[row, : len(token_ids[i])] = token_ids[i]
        mask[row, : len(token_ids[i])] = 1
    return ids, mask
