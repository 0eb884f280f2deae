"""The HTTP reranker against a real local server speaking the common rerank protocol."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from oracleagentmemory.apis.reranker import IReranker, RerankResponse, RerankResponseResult
from oracleagentmemory.core.llms.errors import LlmHttpError, LlmResponseError
from oracleagentmemory.core.reranker import API_BASE_ENV, API_KEY_ENV, Reranker
from tests.support.llm_server import Scripted, error

DOCUMENTS = ["Paris is in France.", "Bananas are yellow.", "The Eiffel Tower is in Paris."]


def ranked(*pairs, with_text: bool = False) -> Scripted:
    """A rerank answer listing (index, score) pairs in the given order."""
    results = []
    for index, score in pairs:
        item = {"index": index, "relevance_score": score}
        if with_text:
            item["document"] = {"text": DOCUMENTS[index]}
        results.append(item)
    return Scripted(body={"id": "rr-1", "results": results, "meta": {"billed_units": {}}})


def test_rerank_posts_the_common_request_and_returns_results_best_first(llm_server):
    llm_server.enqueue(ranked((2, 0.91), (0, 0.40), (1, 0.01)))
    reranker = Reranker("rerank-test", api_base=llm_server.base_url, api_key="k-1", top_n=3)
    response = reranker.rerank("Where is the Eiffel Tower?", DOCUMENTS)
    [request] = llm_server.requests
    assert request.path == "/v1/rerank"
    assert request.body == {"model": "rerank-test", "query": "Where is the Eiffel Tower?",
                            "documents": DOCUMENTS, "top_n": 3}
    assert request.headers["Authorization"] == "Bearer k-1"
    assert response == RerankResponse(results=[
        RerankResponseResult(index=2, relevance_score=0.91),
        RerankResponseResult(index=0, relevance_score=0.40),
        RerankResponseResult(index=1, relevance_score=0.01),
    ])


def test_results_are_sorted_and_documents_read_from_either_shape(llm_server):
    llm_server.enqueue(Scripted(body={"results": [
        {"index": 1, "relevance_score": 0.2, "document": "Bananas are yellow."},
        {"index": 0, "relevance_score": 0.7, "document": {"text": "Paris is in France."}},
    ]}))
    reranker = Reranker("m", api_base=llm_server.base_url)
    response = reranker.rerank("q", DOCUMENTS[:2], return_documents=True)
    assert [(r.index, r.document) for r in response.results] == [
        (0, "Paris is in France."), (1, "Bananas are yellow.")]
    assert llm_server.requests[0].body["return_documents"] is True
    assert "Authorization" not in llm_server.requests[0].headers


def test_async_rerank_and_sync_rerank_inside_a_running_loop(llm_server):
    llm_server.enqueue(ranked((1, 0.9), (0, 0.1)), ranked((0, 0.8), (1, 0.3)))
    reranker = Reranker("m", api_base=llm_server.base_url)

    async def main() -> tuple[RerankResponse, RerankResponse]:
        first = await reranker.rerank_async("q", DOCUMENTS[:2])
        second = reranker.rerank("q", DOCUMENTS[:2])  # blocking call from a loop
        return first, second

    first, second = asyncio.run(main())
    assert [r.index for r in first.results] == [1, 0]
    assert [r.index for r in second.results] == [0, 1]


def test_no_documents_means_no_request(llm_server):
    reranker = Reranker("m", api_base=llm_server.base_url)
    assert reranker.rerank("q", []) == RerankResponse(results=[])
    assert llm_server.requests == []


def test_server_errors_and_malformed_answers_raise_llm_errors(llm_server):
    reranker = Reranker("m", api_base=llm_server.base_url)
    llm_server.enqueue(error(400, "unknown model m"))
    with pytest.raises(LlmHttpError, match="unknown model m"):
        reranker.rerank("q", DOCUMENTS)
    llm_server.enqueue(Scripted(body={"data": []}))
    with pytest.raises(LlmResponseError, match="results"):
        reranker.rerank("q", DOCUMENTS)
    llm_server.enqueue(ranked((7, 0.5)))
    with pytest.raises(LlmResponseError, match="index 7"):
        reranker.rerank("q", DOCUMENTS)
    llm_server.enqueue(Scripted(body={"results": [{"index": 0, "score": "high"}]}))
    with pytest.raises(LlmResponseError, match="relevance_score"):
        reranker.rerank("q", DOCUMENTS)


def test_api_base_and_key_come_from_our_environment_variables(llm_server, monkeypatch):
    monkeypatch.setenv(API_BASE_ENV, llm_server.base_url)
    monkeypatch.setenv(API_KEY_ENV, "env-key")
    monkeypatch.setenv("COHERE_API_KEY", "someone-elses-key")
    llm_server.enqueue(ranked((0, 0.5)))
    Reranker("m").rerank("q", DOCUMENTS[:1])
    assert llm_server.requests[0].headers["Authorization"] == "Bearer env-key"
    monkeypatch.delenv(API_BASE_ENV)
    with pytest.raises(ValueError, match="api_base"):
        Reranker("m")


def test_bad_arguments_name_themselves(llm_server):
    with pytest.raises(ValueError, match="model"):
        Reranker("", api_base=llm_server.base_url)
    with pytest.raises(ValueError, match="base_url"):
        Reranker("m", api_base="ftp://example")
    reranker = Reranker("m", api_base=llm_server.base_url)
    with pytest.raises(TypeError, match="documents"):
        reranker.rerank("q", "one string")
    with pytest.raises(TypeError, match=r"documents\[1\]"):
        reranker.rerank("q", ["ok", 3])
    with pytest.raises(TypeError, match="query"):
        reranker.rerank(None, ["ok"])
    assert llm_server.requests == []


def test_response_types_are_frozen_value_objects():
    result = RerankResponseResult(index=0, relevance_score=1.0)
    assert result.document is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.index = 2
    assert RerankResponse([result]) == RerankResponse([RerankResponseResult(0, 1.0)])
    with pytest.raises(TypeError):
        IReranker()
