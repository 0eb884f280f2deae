"""HYBRID fusion, the one rule both backends follow (docs/store-contract.md, "Search").

Reciprocal-rank fusion gave a weak ranking an equal vote: a flat, uninformative vector
ranking (a model that does not read the language) pulled a strong keyword ranking's first
hit down, and HYBRID did worse than KEYWORD alone. Here each ranking's say follows how much
its own top stands out:

1. Each ranking scores its records: VECTOR the cosine similarity of every candidate with a
   vector, KEYWORD the |bm25| (Oracle: the Text score) of every matching candidate.
2. Its confidence is ``ranking_confidence``: the z-score of its best score among all the
   scores it gave, (top - mean) / standard deviation (population); 1 when all are equal.
   It is scale-free, so a cosine and a bm25 or an Oracle Text score compare.
3. Its best ``window`` records (``fusion_window``: by distance, then insertion order) each
   get ``window_shares``: (score - floor) / (top - floor), the floor being the window's last
   score when the window is full, else 0; every share is 1 when top == floor.
4. A record's fused score s is the sum over the two rankings of confidence x share (a
   record outside a ranking's window gets nothing from it); the distance is 1 - s / max(s),
   in [0, 1] with 0 for the best (1 for all when nothing scored). Only records in either
   window are returned; ties go to the older record, as for every strategy.

The embedded engine computes it with numpy (``stores/embedded/search.py``), the Oracle
search package in its ranking statement; ``FUSION_MIN_WINDOW`` is rendered into the
package from here.
"""

from __future__ import annotations

import numpy as np

FUSION_MIN_WINDOW = 10
"""HYBRID fuses the best max(max_results, FUSION_MIN_WINDOW) of each ranking."""


def fusion_window(max_results: int) -> int:
    """How many of each ranking take part in HYBRID fusion: the results asked for, at least
    FUSION_MIN_WINDOW (so a search for 1 or 2 results still fuses real lists)."""
    return max(max_results, FUSION_MIN_WINDOW)


def ranking_confidence(scores: np.ndarray) -> float:
    """How far a ranking's best score stands out from all the scores it gave: the z-score
    (top - mean) / standard deviation (population); 1 when they are all equal (a lone
    match, say: nothing to compare it with). Never negative."""
    values = np.asarray(scores, dtype=np.float64)
    spread = float(values.std())
    return (float(values.max()) - float(values.mean())) / spread if spread > 0 else 1.0


def window_shares(scores_best_first: np.ndarray, window: int) -> np.ndarray:
    """Each windowed record's share of its ranking's range, in [0, 1]: (score - floor) /
    (top - floor), the floor being the window's last score when the window is full
    (``window`` records), else 0 (a short list keeps its weakest member in play); 1 for
    every record when top <= floor."""
    values = np.asarray(scores_best_first, dtype=np.float64)
    top = float(values[0])
    floor = float(values[-1]) if values.shape[0] >= window else 0.0
    if top <= floor:
        return np.ones(values.shape[0], dtype=np.float64)
    return np.clip((values - floor) / (top - floor), 0.0, 1.0)


def fused_distances(fused: np.ndarray) -> np.ndarray:
    """Fused scores (sums of confidence x share, never negative) as distances in [0, 1]:
    1 - s / max(s); 1 for all when nothing scored."""
    values = np.asarray(fused, dtype=np.float64)
    best = float(values.max()) if values.shape[0] else 0.0
    if best <= 0:
        return np.ones(values.shape[0], dtype=np.float64)
    return np.clip(1.0 - values / best, 0.0, 1.0)
