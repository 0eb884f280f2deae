"""The OpenAI-compatible embedder against the scripted local server."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core.embedders.openai_compatible import OpenAICompatibleEmbedder
from oracleagentmemory.core.llms import LlmHttpError, LlmResponseError
from tests.support.llm_server import Scripted, embeddings, error


def vector(seed: int, dimension: int = 3) -> list[float]:
    return [float(seed + i) for i in range(dimension)]


@pytest.fixture
def embedder(make_http):
    made = OpenAICompatibleEmbedder("embed-model", embedding_dimension=3, batch_size=2,
                                    http=make_http())
    yield made
    made.close()


def test_texts_are_embedded_in_batches_in_input_order(llm_server, embedder):
    llm_server.enqueue(embeddings([vector(0), vector(1)], reverse=True),
                       embeddings([vector(2), vector(3)]), embeddings([vector(4)]))
    result = embedder.embed(["a", "b", "c", "d", "e"])
    assert isinstance(embedder, IEmbedder)
    assert result.dtype == np.float32
    assert result.shape == (5, 3)
    np.testing.assert_array_equal(result[:, 0], [0, 1, 2, 3, 4])
    assert [r.body["input"] for r in llm_server.requests] == [["a", "b"], ["c", "d"], ["e"]]
    assert {r.path for r in llm_server.requests} == {"/v1/embeddings"}
    assert all(r.body["model"] == "embed-model" for r in llm_server.requests)


def test_a_dimension_mismatch_names_both_numbers(llm_server, embedder):
    llm_server.enqueue(embeddings([vector(0, 5)]))
    with pytest.raises(ValueError, match=r"dimension 5.*embedding_dimension is 3"):
        embedder.embed(["a"])


def test_an_undeclared_dimension_is_learned_from_the_first_answer(llm_server, make_http):
    embedder = OpenAICompatibleEmbedder("m", http=make_http())
    llm_server.enqueue(embeddings([vector(0, 4)]), embeddings([vector(1, 4), vector(2, 4)]))
    assert embedder.embedding_dimension == 4
    assert llm_server.requests[0].body["input"] == ["dimension probe"]
    assert embedder.embed(["x", "y"]).shape == (2, 4)


def test_no_texts_need_no_request(llm_server, embedder):
    assert embedder.embed([]).shape == (0, 3)
    assert llm_server.requests == []


def test_the_dimensions_field_is_sent_on_request(llm_server, make_http):
    embedder = OpenAICompatibleEmbedder("text-embedding-3-small", embedding_dimension=3,
                                        send_dimensions=True, http=make_http())
    llm_server.enqueue(embeddings([vector(0)]))
    embedder.embed(["a"])
    assert llm_server.requests[0].body["dimensions"] == 3


def test_retries_are_shared_with_the_llm_client(llm_server, embedder, sleeps):
    llm_server.enqueue(error(503), embeddings([vector(7)]))
    assert embedder.embed(["a"])[0, 0] == 7.0
    assert len(sleeps) == 1


def test_a_wrong_vector_count_is_a_response_error(llm_server, embedder):
    llm_server.enqueue(embeddings([vector(0)]))
    with pytest.raises(LlmResponseError, match="1 vectors for 2 texts"):
        embedder.embed(["a", "b"])
    llm_server.enqueue(Scripted(body={"data": [{"index": 0, "embedding": "nope"}]}))
    with pytest.raises(LlmResponseError):
        embedder.embed(["a"])


def test_embed_async(llm_server, embedder):
    llm_server.enqueue(embeddings([vector(1), vector(2)]), embeddings([vector(3)]))
    result = asyncio.run(embedder.embed_async(["a", "b", "c"]))
    np.testing.assert_array_equal(result[:, 0], [1, 2, 3])
    llm_server.enqueue(error(400, "bad input"))
    with pytest.raises(LlmHttpError, match="bad input"):
        asyncio.run(embedder.embed_async(["a"]))


def test_bad_arguments():
    with pytest.raises(ValueError):
        OpenAICompatibleEmbedder("m", embedding_dimension=0, base_url="http://127.0.0.1:1")
    with pytest.raises(ValueError):
        OpenAICompatibleEmbedder("m", batch_size=0, base_url="http://127.0.0.1:1")
    with pytest.raises(ValueError):
        OpenAICompatibleEmbedder("m", send_dimensions=True, base_url="http://127.0.0.1:1")
    embedder = OpenAICompatibleEmbedder("m", embedding_dimension=2,
                                        base_url="http://127.0.0.1:1")
    with pytest.raises(TypeError):
        embedder.embed("one string")
