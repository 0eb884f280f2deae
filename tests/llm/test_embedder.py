"""Embedder (the remote, OpenAI-compatible one) against the scripted local server."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from oracleagentmemory.apis.embedders import IEmbedder
from oracleagentmemory.core.embedders import Embedder
from oracleagentmemory.core.llms import LlmHttpError, LlmResponseError
from tests.support.llm_server import Scripted, embeddings, error


def vector(seed: int, dimension: int = 3) -> list[float]:
    return [float(seed + i) for i in range(dimension)]


@pytest.fixture
def make_embedder(llm_server):
    made: list[Embedder] = []

    def factory(model: str = "embed-model", **options) -> Embedder:
        options.setdefault("max_retries", 0)
        embedder = Embedder(model, api_base=llm_server.base_url, **options)
        made.append(embedder)
        return embedder

    yield factory
    for embedder in made:
        embedder.close()


def test_texts_are_embedded_in_batches_in_input_order(llm_server, make_embedder):
    embedder = make_embedder(embedding_dimension=3, batch_size=2, normalize=False,
                             encoding_format="float")
    llm_server.enqueue(embeddings([vector(0), vector(1)], reverse=True),
                       embeddings([vector(2), vector(3)]), embeddings([vector(4)]))
    result = embedder.embed(["a", "b", "c", "d", "e"])
    assert isinstance(embedder, IEmbedder)
    assert result.dtype == np.float32
    assert result.shape == (5, 3)
    np.testing.assert_array_equal(result[:, 0], [0, 1, 2, 3, 4])
    assert [r.body["input"] for r in llm_server.requests] == [["a", "b"], ["c", "d"], ["e"]]
    assert {r.path for r in llm_server.requests} == {"/v1/embeddings"}
    assert llm_server.requests[0].body == {"model": "embed-model", "input": ["a", "b"],
                                           "dimensions": 3, "encoding_format": "float"}


def test_vectors_are_normalized_by_default(llm_server, make_embedder):
    llm_server.enqueue(embeddings([[3.0, 4.0]]))
    np.testing.assert_allclose(make_embedder().embed(["a"]), [[0.6, 0.8]])


def test_queries_and_documents_get_their_prefixes(llm_server, make_embedder):
    embedder = make_embedder(query_prefix="search_query: ",
                             document_prefix="search_document: ")
    llm_server.enqueue(embeddings([vector(0)]), embeddings([vector(0)]))
    embedder.embed(["where is Ana?"], is_query=True)
    embedder.embed(["Ana lives in Lyon."])
    assert [r.body["input"] for r in llm_server.requests] == [
        ["search_query: where is Ana?"], ["search_document: Ana lives in Lyon."]]
    assert (embedder.query_prefix, embedder.document_prefix) == ("search_query: ",
                                                                 "search_document: ")


def test_long_texts_are_cut_and_empty_ones_sent_as_a_space(llm_server, make_embedder):
    embedder = make_embedder(max_input_tokens=10, truncate_prompt_tokens=8)
    llm_server.enqueue(embeddings([vector(0), vector(1)]))
    embedder.embed(["x" * 1000, ""])
    body = llm_server.requests[0].body
    assert len(body["input"][0]) < 1000  # about ten tokens' worth of characters
    assert body["input"][1] == " "  # the API refuses empty strings
    assert body["truncate_prompt_tokens"] == 8
    assert embedder.max_input_tokens == 10


def test_a_refused_dimensions_field_is_dropped_for_good(llm_server, make_embedder):
    embedder = make_embedder(embedding_dimension=3)
    llm_server.enqueue(error(400, "This model does not support specifying dimensions."),
                       embeddings([vector(0)]), embeddings([vector(1)]))
    embedder.embed(["a"])
    embedder.embed(["b"])
    assert ["dimensions" in r.body for r in llm_server.requests] == [True, False, False]


def test_a_dimension_mismatch_names_both_numbers(llm_server, make_embedder):
    llm_server.enqueue(embeddings([vector(0, 5)]))
    with pytest.raises(ValueError, match=r"dimension 5.*embedding_dimension is 3"):
        make_embedder(embedding_dimension=3).embed(["a"])


def test_an_undeclared_dimension_is_learned_from_a_probe(llm_server, make_embedder):
    embedder = make_embedder()
    llm_server.enqueue(embeddings([vector(0, 4)]), embeddings([vector(1, 4), vector(2, 4)]))
    assert embedder.embedding_dimension == 4
    assert llm_server.requests[0].body["input"] == ["dimension probe"]
    assert "dimensions" not in llm_server.requests[0].body
    assert embedder.embed(["x", "y"]).shape == (2, 4)


def test_no_texts_need_no_request(llm_server, make_embedder):
    assert make_embedder(embedding_dimension=3).embed([]).shape == (0, 3)
    assert llm_server.requests == []


def test_a_wrong_vector_count_is_a_response_error(llm_server, make_embedder):
    embedder = make_embedder(embedding_dimension=3)
    llm_server.enqueue(embeddings([vector(0)]))
    with pytest.raises(LlmResponseError, match="1 vectors for 2 texts"):
        embedder.embed(["a", "b"])
    llm_server.enqueue(Scripted(body={"data": [{"index": 0, "embedding": "nope"}]}))
    with pytest.raises(LlmResponseError):
        embedder.embed(["a"])


def test_embed_async(llm_server, make_embedder):
    embedder = make_embedder(embedding_dimension=3, batch_size=2, normalize=False)
    llm_server.enqueue(embeddings([vector(1), vector(2)]), embeddings([vector(3)]))
    result = asyncio.run(embedder.embed_async(["a", "b", "c"], is_query=True))
    np.testing.assert_array_equal(result[:, 0], [1, 2, 3])
    llm_server.enqueue(error(404, "no such model"))
    with pytest.raises(LlmHttpError, match="no such model"):
        asyncio.run(embedder.embed_async(["a"]))


def test_the_provider_table_applies(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    embedder = Embedder("openai/text-embedding-3-small")
    assert embedder.http.base_url == "https://api.openai.com/v1"
    assert embedder.http._headers["Authorization"] == "Bearer sk-env"
    assert Embedder("ollama/nomic-embed-text").http.base_url == "http://localhost:11434/v1"
    assert embedder.model == "openai/text-embedding-3-small"
    assert embedder.max_input_tokens == 8192
    with pytest.raises(ValueError, match="agentmemory-plsql\\[litellm\\]"):
        Embedder("cohere/embed-english-v3.0")


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"embedding_dimension": 0}, ValueError, "embedding_dimension"),
    ({"batch_size": 0}, ValueError, "batch_size"),
    ({"max_input_tokens": -5}, ValueError, "max_input_tokens"),
    ({"normalize": "yes"}, TypeError, "normalize"),
    ({"query_prefix": 3}, TypeError, "query_prefix"),
    ({"truncate_prompt_tokens": 1.5}, TypeError, "truncate_prompt_tokens"),
])
def test_bad_arguments_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        Embedder("m", api_base="http://127.0.0.1:1/v1", **kwargs)


def test_a_single_string_is_refused():
    embedder = Embedder("m", api_base="http://127.0.0.1:1/v1", embedding_dimension=2)
    with pytest.raises(TypeError, match="list of texts"):
        embedder.embed("one string")  # type: ignore[arg-type]
