"""How a search ranks its hits, the one rule both backends follow (docs/store-contract.md,
"Search"); the Oracle packages get these numbers rendered from here.

Every strategy ranks by a distance, smaller first. VECTOR's is the cosine distance of the
record to the query. HYBRID keeps that distance and brings the records that match the
query's words closer, so the number a user reads stays a distance to the query: a query
that matches nothing ("xyzzy") keeps its plain, large vector distances, while a record that
is near in meaning and shares the query's words is nearer still.

HYBRID, with a window of W = ``fusion_window(max_results)`` records per ranking:

1. The vector side: every candidate's cosine distance d (1 for a record without a vector).
   Its ``window_edge`` is the W-th best distance (1 when fewer records have a vector), its
   ``spread`` that edge less the best distance (1 when that is not positive: a flat ranking
   lets the keywords decide). Its confidence c_v is ``ranking_confidence`` of the
   similarities 1 - d.
2. The keyword side: the |bm25| of every matching candidate (Oracle: its Text score); its
   confidence c_k is ``ranking_confidence`` of those scores, and each of its best W records
   a ``window_shares`` share in [0, 1] (0 for every other record).
3. A record in the keyword window counts at most the edge: its d becomes min(d, edge).
4. A record's distance is that d - KEYWORD_WEIGHT x (c_k / c_v)^2 x spread x share, never
   below 0 (``keyword_parts`` x ``keyword_pull``). Only records with a vector or in the
   keyword window take part.

Why this shape: each ranking nominates its best W records (step 3: a record the words find
is at least as near as the vector window's last one), and the two then order them together.
The keyword evidence is measured in the vector side's own units (its window's spread), so
it reorders records near the top without a model's or a language's scale mattering; each
side's say follows how far its own best stands out (scale-free z-score confidences), so a
flat vector ranking (a model that does not read the language) leaves the keywords more say,
and a keyword list matched only by common words less. The say is the confidence squared: a
z-score is a signal-to-noise ratio, and evidence is weighed by its precision, the square
(measured: the weights that meet the criterion run from 0.07 to 0.15, against 0.175 to 0.25
with the plain ratio, and the LoCoMo conversations keep more of their keyword gains at the
top).
Nominating and ordering are apart on
purpose: a keyword match far down the vector ranking (a name, a date) needs a long move to
enter the results at all, while reordering the vector side's best needs a short, cautious
one; with one pull doing both, the pull large enough for the first overturned correct
vector answers at rank 1. Reciprocal-rank fusion, a normalised score sum (1 - s / max(s))
and the pull without the nomination step (the previous rule: weight 0.8, plain ratio) were
tried before: the first two report the best hit of any query, nonsense included, as a
perfect match, and all three fell below VECTOR alone at rank 1 in Korean or English; the
measurements are in
``benchmarks/fusion_variants.py`` and its results file.

Scope affinity (a non-exact scope dimension) ranks a matching record SCOPE_AFFINITY closer
per dimension without changing the distance it reports.
"""

from __future__ import annotations

import numpy as np

FUSION_MIN_WINDOW = 10
"""HYBRID fuses the best max(max_results, FUSION_MIN_WINDOW) of each ranking."""

KEYWORD_WEIGHT = 0.1
"""How far the keyword side may move a record, in spreads of the vector window, when both
sides are equally confident (after the nomination step). Chosen on the development sets
(docs/store-contract.md): every weight from 0.07 to 0.15 keeps each of the four languages
and the LoCoMo conversations at or above the better of VECTOR and KEYWORD at recall@1, 5
and 10 and MRR, with LoCoMo recall@10 at 0.664 to 0.670; 0.1 is the middle of that range
(in ratio), and chosen on any three languages the range and the pick (0.1 or 0.11) hold on
the fourth."""

SCOPE_AFFINITY = 0.05
"""Ranking bonus (in distance units) per non-exact scope dimension the record matches."""


def fusion_window(max_results: int) -> int:
    """How many of each ranking take part in HYBRID fusion: the results asked for, at least
    FUSION_MIN_WINDOW (so a search for 1 or 2 results still fuses real lists)."""
    return max(max_results, FUSION_MIN_WINDOW)


def ranking_confidence(scores: np.ndarray) -> float:
    """How far a ranking's best score stands out from all the scores it gave: the z-score
    (top - mean) / standard deviation (population); 1 when they are all equal (a lone
    match, say: nothing to compare it with). Never negative; 0 for no scores."""
    values = np.asarray(scores, dtype=np.float64)
    if not values.shape[0]:
        return 0.0
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


def window_edge(distances_best_first: np.ndarray, window: int) -> float:
    """The vector window's edge: its ``window``-th best distance, 1 when fewer records
    have a vector."""
    values = np.asarray(distances_best_first, dtype=np.float64)
    return float(values[window - 1]) if values.shape[0] >= window else 1.0


def vector_spread(distances_best_first: np.ndarray, window: int) -> float:
    """The vector window's spread: its edge (``window_edge``) less the best distance; 1
    when that is not positive (no vector, or a flat ranking)."""
    values = np.asarray(distances_best_first, dtype=np.float64)
    if not values.shape[0]:
        return 1.0
    spread = window_edge(values, window) - float(values[0])
    return spread if spread > 0 else 1.0


def keyword_parts(scores: np.ndarray, window_best_first: np.ndarray, window: int) -> np.ndarray:
    """The keyword window's parts, best first: c_k^2 x ``window_shares``, c_k the
    ``ranking_confidence`` of every match's score (``scores``), the window's scores best
    first."""
    return ranking_confidence(scores) ** 2 * window_shares(window_best_first, window)


def keyword_pull(vector_confidence: float, spread: float) -> float:
    """How far a keyword part of 1 moves a record: KEYWORD_WEIGHT x spread / c_v^2 (c_v
    taken as 1 when there is no vector side)."""
    return KEYWORD_WEIGHT * spread / (vector_confidence if vector_confidence > 0 else 1.0) ** 2


def hybrid_distances(distances: np.ndarray, keyword_parts: np.ndarray, windowed: np.ndarray,
                     edge: float, pull: float) -> tuple[np.ndarray, np.ndarray]:
    """(ranking values, reported distances) of HYBRID records: the vector distance (NaN: no
    vector, counted as 1), at most ``edge`` for a record in the keyword window
    (``windowed``), less ``pull`` x the record's keyword part (``keyword_parts``, 0 outside
    the keyword window); the reported distance is the same, never below 0."""
    vector = np.where(np.isnan(distances), 1.0, np.asarray(distances, dtype=np.float64))
    vector = np.where(np.asarray(windowed, dtype=bool), np.minimum(vector, edge), vector)
    ranking = vector - pull * np.asarray(keyword_parts, dtype=np.float64)
    return ranking, np.maximum(ranking, 0.0)
