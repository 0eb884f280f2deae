"""The local rank-fusion reranker."""

from __future__ import annotations

import asyncio

import pytest

from oracleagentmemory.core.rerankers_local import RankFusionReranker, bm25_scores, keywords


def test_keywords_drop_stopwords_and_trim_endings():
    assert keywords("What did Caroline paint in the Summer?") == ["caroline", "paint",
                                                                  "summer"]
    assert keywords("She paints sunsets") == ["paint", "sunset"]


def test_bm25_rewards_rare_shared_words():
    scores = bm25_scores("sunset painting", ["I painted a sunset.", "I love the beach.",
                                             "Painting is fun."])
    assert scores[0] > scores[2] > scores[1] == 0.0


def test_a_keyword_match_moves_up_past_a_closer_vector_neighbour():
    documents = ["We talked about the weather.", "Nice day today.",
                 "Melanie painted a lake sunrise last year."]
    response = RankFusionReranker().rerank("When did Melanie paint a sunrise?", documents)
    assert [result.index for result in response.results] == [2, 0, 1]
    scores = [result.relevance_score for result in response.results]
    assert scores == sorted(scores, reverse=True)


def test_without_keyword_overlap_the_incoming_order_stays():
    documents = ["alpha", "beta", "gamma"]
    response = RankFusionReranker().rerank("delta?", documents)
    assert [result.index for result in response.results] == [0, 1, 2]


def test_keyword_weight_zero_keeps_the_incoming_order():
    documents = ["nothing here", "sunrise sunrise"]
    response = RankFusionReranker(keyword_weight=0).rerank("sunrise", documents)
    assert [result.index for result in response.results] == [0, 1]


def test_async_twin_gives_the_same_answer():
    reranker = RankFusionReranker()
    documents = ["a cat", "a dog"]
    assert asyncio.run(reranker.rerank_async("dog", documents)) == reranker.rerank(
        "dog", documents)


def test_bad_settings_name_themselves():
    with pytest.raises(ValueError, match="rank_constant"):
        RankFusionReranker(rank_constant=-1)
    with pytest.raises(ValueError, match="keyword_weight"):
        RankFusionReranker(keyword_weight=-0.5)
    with pytest.raises(TypeError, match="documents"):
        RankFusionReranker().rerank("q", "abc")
