"""The multilingual recall harness on a tiny synthetic set: it scores what it should.

Every expected value below is worked out by hand from the set made here (not the dev data),
with an embedder that maps a text to the one-hot vector of the first fruit word in it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import multilingual_recall as harness

FRUIT_EMBEDDER = '''
import asyncio
import numpy as np
from oracleagentmemory.apis.embedders.embedder import IEmbedder

WORDS = ("apple", "banana", "cherry")


class FruitEmbedder(IEmbedder):
    """One-hot of the first fruit word of a text; the fourth axis when it has none."""

    @property
    def embedding_dimension(self):
        return 4

    def embed(self, texts, *, is_query=False):
        out = np.zeros((len(texts), 4), dtype=np.float32)
        for row, text in enumerate(texts):
            found = [w for w in text.lower().split() if w in WORDS]
            out[row, WORDS.index(found[0]) if found else 3] = 1.0
        return out

    async def embed_async(self, texts, *, is_query=False):
        return await asyncio.to_thread(self.embed, texts, is_query=is_query)
'''

MEMORIES = [
    "apple pie recipe from grandma",   # 0: apple axis
    "banana bread needs ripe fruit",   # 1: banana axis
    "cherry jam is sweet",             # 2: cherry axis
    "weather is cold",                 # 3: no fruit (fourth axis), the shortest sentence
]
QUESTIONS = [
    {"q": "apple", "gold": [0]},
    {"q": "cherry dessert", "gold": [1]},
    {"q": "banana weather", "gold": [3]},
]


def test_scores_count_a_hit_per_question_and_the_first_gold_rank() -> None:
    found = [["a", "b"], ["c", "d", "e"], ["f"]]
    gold = [["b"], ["x"], ["f", "g"]]
    # hits: question 1 at rank 2, question 2 never, question 3 at rank 1
    assert harness.scores(found, gold) == pytest.approx(
        {"recall@1": 1 / 3, "recall@5": 2 / 3, "recall@10": 2 / 3, "mrr": (1 / 2 + 1) / 3})


def test_bm25_tokens_cut_han_and_hangul_runs_into_bigrams() -> None:
    assert harness.bm25_tokens("東京タワー 서울역, GPU는 L'été") == [
        "東京", "タワー", "서울", "울역", "gpu", "는", "l", "été"]


def test_bm25_ranks_by_term_weight_and_length() -> None:
    documents = ["b a", "b c c", "d"]
    # "c": only document 1 holds it; "b": both 0 and 1 (tf 1), 0 is shorter so first;
    # "zz": nothing
    assert harness.bm25_rankings(documents, ["c", "b", "zz"]) == [[1], [0, 1], []]


def test_the_harness_scores_every_strategy_on_a_tiny_set(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "en.json").write_text(json.dumps({"lang": "en", "memories": MEMORIES, "questions": [
        {"id": str(i), **q} for i, q in enumerate(QUESTIONS)]}))
    module = tmp_path / "fruit_embedder.py"
    module.write_text(FRUIT_EMBEDDER)
    run = harness.main([str(data), "--embedder", f"{module}:FruitEmbedder", "--no-speed",
                        "--out", str(tmp_path / "out.json")])
    (result,) = run["results"]
    rows = {row["configuration"]: row for row in result["rows"]}
    # VECTOR: "apple" -> memory 0 first. "cherry dessert" -> 2, then the cosine-0 ties in
    # insertion order 0, 1, 3: gold 1 at rank 3. "banana weather" -> 1, then 0, 2, 3: gold 3
    # at rank 4.
    assert {k: rows["VECTOR"][k] for k in ("recall@1", "recall@5", "recall@10", "mrr")} == \
        pytest.approx({"recall@1": 1 / 3, "recall@5": 1.0, "recall@10": 1.0,
                       "mrr": (1 + 1 / 3 + 1 / 4) / 3})
    # KEYWORD: "apple" matches memory 0 only; "cherry dessert" matches 2 only (gold 1 never
    # found); "banana weather" matches 1 and 3 one word each, 3 is shorter so first.
    assert {k: rows["KEYWORD"][k] for k in ("recall@1", "recall@5", "recall@10", "mrr")} == \
        pytest.approx({"recall@1": 2 / 3, "recall@5": 2 / 3, "recall@10": 2 / 3,
                       "mrr": 2 / 3})
    # BM25 baseline, the same three questions: as KEYWORD.
    assert {k: run["bm25"]["en"][k] for k in ("recall@1", "recall@5", "mrr")} == \
        pytest.approx({"recall@1": 2 / 3, "recall@5": 2 / 3, "mrr": 2 / 3})
    assert result["ingestion"]["memories_per_s"] > 0
    assert json.loads((tmp_path / "out.json").read_text())["results"][0]["questions"] == 3
    section = "\n".join(harness.report_section(run))
    assert "| (no embedder) | BM25 baseline | 0.667 / 0.667 / 0.667 / 0.667 |" in section


def test_speed_rounds_never_repeat_a_query() -> None:
    """A repeated query would be answered by an embedder's query cache, not its model."""

    class Recorder:
        def __init__(self) -> None:
            self.queries: list[str] = []

        def embed(self, texts: list[str], *, is_query: bool = False) -> list[list[float]]:
            if is_query:
                self.queries.extend(texts)
            return [[1.0] for _ in texts]

    sets = {lang: {"memories": [f"{lang} memory {i}" for i in range(5)],
                   "questions": [{"q": f"{lang} question {i}", "gold": [0]} for i in range(40)]}
            for lang in ("zh", "en")}
    first, second = Recorder(), Recorder()
    speed = harness.embedder_speed({"a": first, "b": second}, sets)
    for recorder in (first, second):
        # one warm-up query, then per round 10 new questions of each language
        assert len(recorder.queries) == 1 + harness.SPEED_ROUNDS * 2 * harness.SPEED_QUERIES
        assert len(set(recorder.queries)) == len(recorder.queries)
    assert speed["a"]["queries_per_round"] == 2 * harness.SPEED_QUERIES
