"""The HYBRID fusion rule (stores.hybrid_fusion) and the embedded engine's use of it, on
hand-made rankings whose expected values are worked out in the comments."""

from __future__ import annotations

import math

import numpy as np
import pytest

from oracleagentmemory.stores import hybrid_fusion
from oracleagentmemory.stores.embedded.search import _fuse


def fuse(vector: list[tuple[int, float]], keyword: list[tuple[int, float]], window: int = 10,
         size: int = 32) -> dict[int, float]:
    """_fuse over positions with seq = position: vector as (position, cosine), keyword as
    (position, bm25)."""
    seqs = np.arange(size, dtype=np.int64)
    vs = np.array([s for s, _ in vector], dtype=np.int64)
    vd = np.array([1.0 - c for _, c in vector], dtype=np.float32)
    ks = np.array([s for s, _ in keyword], dtype=np.int64)
    kd = np.array([1.0 / (1.0 + b) for _, b in keyword], dtype=np.float64)
    slots, distances = _fuse(seqs, (vs, vd), (ks, kd), window)
    return dict(zip(slots.tolist(), distances.tolist(), strict=True))


def test_confidence_is_the_z_score_of_the_top() -> None:
    # [0.8, 0.6, 0.4, 0.2]: mean 0.5, population sd sqrt(0.05), top z 0.3 / sqrt(0.05)
    assert hybrid_fusion.ranking_confidence(np.array([0.8, 0.6, 0.4, 0.2])) == pytest.approx(
        0.3 / math.sqrt(0.05))
    # [3, 1]: mean 2, sd 1 -> 1; a lone score or equal scores: 1 by definition
    assert hybrid_fusion.ranking_confidence(np.array([3.0, 1.0])) == pytest.approx(1.0)
    assert hybrid_fusion.ranking_confidence(np.array([7.0])) == 1.0
    assert hybrid_fusion.ranking_confidence(np.array([2.0, 2.0, 2.0])) == 1.0


def test_shares_run_from_the_window_floor_to_the_top() -> None:
    # full window of 3: floor 0.4 -> (0.9-0.4)/0.5, (0.6-0.4)/0.5, 0
    assert hybrid_fusion.window_shares(np.array([0.9, 0.6, 0.4]), 3).tolist() == \
        pytest.approx([1.0, 0.4, 0.0])
    # short list (2 of a window of 3): floor 0 -> 4/4, 1/4
    assert hybrid_fusion.window_shares(np.array([4.0, 1.0]), 3).tolist() == \
        pytest.approx([1.0, 0.25])
    assert hybrid_fusion.window_shares(np.array([5.0, 5.0]), 2).tolist() == [1.0, 1.0]


def test_fused_distances_by_hand() -> None:
    # vector over slots 0..3, cosines 0.8 0.6 0.4 0.2: weight w = 0.3 / sqrt(0.05) = 1.3416;
    # short window (4 < 10), floor 0: shares 1, 0.75, 0.5, 0.25.
    # keyword: slot 3 bm25 3, slot 1 bm25 1: weight 1 (z of [3, 1]); shares 1, 1/3.
    # fused: 0 -> w, 1 -> 0.75 w + 1/3, 2 -> 0.5 w, 3 -> 0.25 w + 1; best: slot 0 (w)
    w = 0.3 / math.sqrt(0.05)
    got = fuse([(0, 0.8), (1, 0.6), (2, 0.4), (3, 0.2)], [(3, 3.0), (1, 1.0)])
    assert got == pytest.approx({0: 0.0, 1: 1 - (0.75 * w + 1 / 3) / w, 2: 0.5,
                                 3: 1 - (0.25 * w + 1) / w}, abs=1e-6)


def test_a_strong_keyword_first_stays_first_over_a_flat_vector_ranking() -> None:
    """The case reciprocal-rank fusion got wrong: every vector rank gets the same vote there,
    so the vector's first (which no keyword matched) tied the keyword's first (outside the
    vector window) at 1 / 61 and won the tie as the older record."""
    # vector: 20 cosines 0.500, 0.499, ..., 0.481, evenly spread: top z = 9.5 / sqrt(399 / 12)
    # = 1.6475; window of 10 full, so slot 19 (the last) gets no vector share.
    vector = [(i, 0.5 - 0.001 * i) for i in range(20)]
    # keyword: slot 19 bm25 10, slots 10..14 bm25 1 each: mean 15 / 6 = 2.5, sd
    # sqrt((7.5^2 + 5 * 1.5^2) / 6) = sqrt(11.25): top z = 7.5 / sqrt(11.25) = sqrt(5);
    # short list, floor 0: shares 1 and 0.1 each.
    keyword = [(19, 10.0)] + [(i, 1.0) for i in range(10, 15)]
    vector_weight = 9.5 / math.sqrt(399 / 12)
    keyword_weight = math.sqrt(5)
    got = fuse(vector, keyword)
    assert min(got, key=lambda slot: (got[slot], slot)) == 19
    assert got[19] == pytest.approx(0.0, abs=1e-9)
    # slot 0: the vector's top, share 1, no keyword: w_v / w_k of the best
    assert got[0] == pytest.approx(1 - vector_weight / keyword_weight, abs=1e-6)
    # slot 12: vector rank 13 (outside the window), keyword share 0.1
    assert got[12] == pytest.approx(1 - 0.1 * keyword_weight / keyword_weight, abs=1e-6)
    assert all(0.0 <= d <= 1.0 for d in got.values())
    assert set(got) == set(range(10)) | {10, 11, 12, 13, 14, 19}  # the two windows


def test_equal_scores_tie_and_a_single_ranking_stands_alone() -> None:
    # two equal cosines, no keyword: weight 1 (equal scores), short list, floor 0, shares
    # 0.5 / 0.5 = 1: both distance 0 (the search then ranks them by seq)
    assert fuse([(5, 0.5), (2, 0.5)], []) == {2: 0.0, 5: 0.0}
    # cosines all 0: top == floor (0), every share 1 by definition
    assert fuse([(0, 0.0), (1, 0.0)], []) == {0: 0.0, 1: 0.0}
    assert fuse([], [(4, 2.0)]) == {4: 0.0}
    assert fuse([], []) == {}
    # nothing scored at all (only reachable with zero shares): every distance 1
    assert hybrid_fusion.fused_distances(np.zeros(2)).tolist() == [1.0, 1.0]
