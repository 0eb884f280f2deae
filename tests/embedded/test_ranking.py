"""The ranking rule (stores.ranking) and the embedded engine's use of it for HYBRID, on
hand-made rankings whose expected values are worked out in the comments."""

from __future__ import annotations

import math

import numpy as np
import pytest

from oracleagentmemory.stores import ranking
from oracleagentmemory.stores.embedded.search import _fuse


def fuse(vector: list[tuple[int, float]], keyword: list[tuple[int, float]], window: int = 10,
         size: int = 32) -> dict[int, float]:
    """_fuse over positions with seq = position: vector as (position, cosine distance),
    keyword as (position, bm25); the ranking values by position (checked equal to the
    reported distances where those are above 0)."""
    seqs = np.arange(size, dtype=np.int64)
    vs = np.array([s for s, _ in vector], dtype=np.int64)
    vd = np.array([d for _, d in vector], dtype=np.float64)
    ks = np.array([s for s, _ in keyword], dtype=np.int64)
    kd = np.array([1.0 / (1.0 + b) for _, b in keyword], dtype=np.float64)
    slots, ranking, distances = _fuse(seqs, (vs, vd), (ks, kd), window)
    assert distances.tolist() == pytest.approx(np.maximum(ranking, 0.0).tolist())
    return dict(zip(slots.tolist(), ranking.tolist(), strict=True))


def test_confidence_is_the_z_score_of_the_top() -> None:
    # [0.8, 0.6, 0.4, 0.2]: mean 0.5, population sd sqrt(0.05), top z 0.3 / sqrt(0.05)
    assert ranking.ranking_confidence(np.array([0.8, 0.6, 0.4, 0.2])) == pytest.approx(
        0.3 / math.sqrt(0.05))
    # [3, 1]: mean 2, sd 1 -> 1; a lone score or equal scores: 1 by definition
    assert ranking.ranking_confidence(np.array([3.0, 1.0])) == pytest.approx(1.0)
    assert ranking.ranking_confidence(np.array([7.0])) == 1.0
    assert ranking.ranking_confidence(np.array([2.0, 2.0, 2.0])) == 1.0


def test_shares_run_from_the_window_floor_to_the_top() -> None:
    # full window of 3: floor 0.4 -> (0.9-0.4)/0.5, (0.6-0.4)/0.5, 0
    assert ranking.window_shares(np.array([0.9, 0.6, 0.4]), 3).tolist() == \
        pytest.approx([1.0, 0.4, 0.0])
    # short list (2 of a window of 3): floor 0 -> 4/4, 1/4
    assert ranking.window_shares(np.array([4.0, 1.0]), 3).tolist() == \
        pytest.approx([1.0, 0.25])
    assert ranking.window_shares(np.array([5.0, 5.0]), 2).tolist() == [1.0, 1.0]


def test_the_vector_spread_is_the_window_from_its_best_to_its_last() -> None:
    assert ranking.vector_spread(np.array([0.1, 0.2, 0.4]), 3) == pytest.approx(0.3)
    assert ranking.vector_spread(np.array([0.1, 0.2, 0.4, 0.9]), 3) == pytest.approx(0.3)
    # fewer records than the window: the last counts as 1 (similarity 0)
    assert ranking.vector_spread(np.array([0.1, 0.2]), 3) == pytest.approx(0.9)
    # no vector, or a flat window: 1, so the keywords still order the records
    assert ranking.vector_spread(np.array([]), 3) == 1.0
    assert ranking.vector_spread(np.array([0.2, 0.2]), 2) == 1.0


def test_the_window_edge_is_its_last_distance_or_1() -> None:
    assert ranking.window_edge(np.array([0.1, 0.2, 0.4, 0.9]), 3) == pytest.approx(0.4)
    assert ranking.window_edge(np.array([0.1, 0.2]), 3) == 1.0
    assert ranking.window_edge(np.array([]), 3) == 1.0


def test_a_keyword_part_is_the_confidence_squared_times_the_share() -> None:
    # scores [4, 2, 2, 0]: mean 2, sd sqrt(2), top z sqrt(2), squared 2; the window of the
    # best 3 (4, 2, 2): floor 2 -> shares 1, 0, 0
    parts = ranking.keyword_parts(np.array([4.0, 2.0, 2.0, 0.0]), np.array([4.0, 2.0, 2.0]), 3)
    assert parts.tolist() == pytest.approx([2.0, 0.0, 0.0])


def test_the_pull_is_the_weight_times_the_spread_over_the_vector_confidence_squared() -> None:
    assert ranking.keyword_pull(2.0, 0.3) == pytest.approx(ranking.KEYWORD_WEIGHT * 0.075)
    assert ranking.keyword_pull(0.0, 0.5) == pytest.approx(ranking.KEYWORD_WEIGHT * 0.5)
    values, reported = ranking.hybrid_distances(
        np.array([0.1, np.nan, 0.3, 0.05, 0.9]), np.array([0.0, 1.0, 0.5, 1.0, 0.0]),
        np.array([False, True, True, True, False]), 0.25, 0.2)
    # no vector counts as distance 1, cut to the edge 0.25 in the keyword window (0.25 -
    # 0.2); 0.3 is cut to 0.25 too (0.25 - 0.1); outside the window 0.9 stays 0.9; the
    # reported distance never goes below 0
    assert values.tolist() == pytest.approx([0.1, 0.05, 0.15, -0.15, 0.9])
    assert reported.tolist() == pytest.approx([0.1, 0.05, 0.15, 0.0, 0.9])


def test_hybrid_by_hand() -> None:
    # vector over slots 0..3, cosines 0.8 0.6 0.4 0.2 (distances 0.2 .. 0.8): confidence
    # c_v = 0.3 / sqrt(0.05); a short list (4 < 10), so the edge is 1, the spread 1 - 0.2 =
    # 0.8 and the pull w x 0.8 / c_v^2. keyword: slot 3 bm25 3, slot 1 bm25 1: confidence 1
    # (z of [3, 1]), shares 1 and 1/3 (short list, floor 0).
    pull = ranking.KEYWORD_WEIGHT * 0.8 / (0.3 / math.sqrt(0.05)) ** 2
    got = fuse([(0, 0.2), (1, 0.4), (2, 0.6), (3, 0.8)], [(3, 3.0), (1, 1.0)])
    assert got == pytest.approx({0: 0.2, 1: 0.4 - pull / 3, 2: 0.6, 3: 0.8 - pull}, abs=1e-9)
    assert sorted(got, key=got.get) == [0, 1, 2, 3]


def test_a_keyword_match_beyond_the_vector_window_enters_it() -> None:
    # vector: 12 distances 0.10, 0.15, .., 0.65; window 3: edge 0.20, spread 0.10. keyword:
    # slot 11 alone (bm25 5: confidence 1, share 1). Slot 11 counts 0.20 (the edge, not
    # its 0.65), less the pull: ahead of slot 2 (0.20), behind none it did not pass.
    vector = [(i, 0.10 + 0.05 * i) for i in range(12)]
    distances = np.array([d for _, d in vector])
    c_v = (float((1 - distances).max()) - float((1 - distances).mean())) / float(
        (1 - distances).std())
    pull = ranking.KEYWORD_WEIGHT * 0.10 / c_v ** 2
    got = fuse(vector, [(11, 5.0)], window=3)
    assert got[11] == pytest.approx(0.20 - pull, abs=1e-9)
    assert got[2] == pytest.approx(0.20, abs=1e-9)            # no keyword: its own distance
    order = sorted(got, key=lambda slot: (got[slot], slot))
    assert order[:3] == ([0, 1, 11] if 0.20 - pull > 0.15 else [0, 11, 1])
    assert order.index(11) < order.index(2)


def test_a_standout_keyword_match_passes_its_vector_neighbours() -> None:
    # vector: 12 distances 0.10, 0.11, .., 0.21 (evenly spaced); window 10 full: edge 0.19,
    # spread 0.09; c_v = (0.155 - 0.10) / (0.01 sqrt(143 / 12)).
    vector = [(i, 0.10 + 0.01 * i) for i in range(12)]
    # keyword: slot 3 bm25 10, slots 5..9 bm25 1 each: mean 2.5, sd sqrt(11.25), top z
    # sqrt(5), squared 5; short list (6 < 10), floor 0: shares 1 and 0.1. All inside the
    # vector window, so the edge cuts nothing.
    keyword = [(3, 10.0)] + [(i, 1.0) for i in range(5, 10)]
    c_v = 0.055 / (0.01 * math.sqrt(143 / 12))
    pull = ranking.KEYWORD_WEIGHT * 0.09 / c_v ** 2
    got = fuse(vector, keyword)
    assert got[3] == pytest.approx(0.13 - pull * 5, abs=1e-9)
    assert got[5] == pytest.approx(0.15 - pull * 5 * 0.1, abs=1e-9)
    assert got[0] == pytest.approx(0.10, abs=1e-9)            # no keyword: its own distance
    order = sorted(got, key=lambda slot: (got[slot], slot))
    # slot 3 moves 0.1 x 0.09 x 5 / c_v^2 = 0.018 closer, to 0.112: past slot 2 (0.12),
    # not slot 1 (0.11)
    assert order[:4] == [0, 1, 3, 2]
    assert 0.14 < got[5] < 0.15                              # a weak match moves a little
    assert set(got) == set(range(12))                         # every record with a vector


def test_equal_scores_tie_and_a_single_ranking_stands_alone() -> None:
    # two equal distances, no keyword: both keep them (the search then ranks by seq)
    assert fuse([(5, 0.5), (2, 0.5)], []) == {2: 0.5, 5: 0.5}
    # keyword alone (no vector): distance 1 less the pull with spread 1 and c_v taken as 1,
    # times the keyword part (confidence 1, share 1)
    assert fuse([], [(4, 2.0)]) == pytest.approx({4: 1.0 - ranking.KEYWORD_WEIGHT})
    assert fuse([], []) == {}
