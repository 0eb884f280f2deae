"""An embeddings answer whose vectors are not finite numbers is refused (LlmResponseError),
not stored: the store's vectors would be NaN (search silently broken), another shape, or a
ValueError/TypeError escaped the steps that catch LlmError."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from oracleagentmemory.core.embedders.embedder import Embedder
from oracleagentmemory.core.llms.errors import LlmResponseError
from tests.support.llm_server import Scripted


def answer(*items: dict) -> Scripted:
    return Scripted(body={"object": "list", "data": list(items)})


@pytest.mark.parametrize("vector", [
    [None, 1.0],          # JSON null: became NaN
    ["0.5", 1.0],         # text: numpy turned it into a number, or raised ValueError
    ["x", 1.0],
    [[1.0], [2.0]],       # a list of lists of the right length: a 3-D array
    [1e39, 1.0],          # finite in JSON, infinite as float32: NaN once normalized
    [True, False],
    [10 ** 400, 1],       # an integer too large for any float: OverflowError
], ids=["null", "numeric-text", "text", "nested", "float32-overflow", "bools", "huge-int"])
def test_a_vector_that_is_not_finite_numbers_is_refused(llm_server, vector):
    embedder = Embedder("m", api_base=llm_server.base_url, max_retries=0,
                        embedding_dimension=2)
    llm_server.enqueue(answer({"index": 0, "embedding": vector}),
                       answer({"index": 0, "embedding": vector}))
    with pytest.raises(LlmResponseError):
        embedder.embed(["a"])
    with pytest.raises(LlmResponseError):
        asyncio.run(embedder.embed_async(["a"]))


def test_indexes_that_are_not_numbers_keep_the_answers_order(llm_server):
    embedder = Embedder("m", api_base=llm_server.base_url, max_retries=0,
                        embedding_dimension=2, normalize=False)
    llm_server.enqueue(answer({"index": "1", "embedding": [1.0, 0.0]},
                              {"index": 0, "embedding": [0.0, 1.0]}))
    np.testing.assert_array_equal(embedder.embed(["a", "b"]), [[1.0, 0.0], [0.0, 1.0]])
