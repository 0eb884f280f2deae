"""The Reranker takes the HTTP client options the Llm and Embedder take (``timeout``,
``max_retries``) instead of sending them to the server as request fields, and refuses a
score that is NaN (it made the order of the candidates arbitrary)."""

from __future__ import annotations

import asyncio

import pytest

from oracleagentmemory.core.llms.errors import LlmResponseError, LlmTimeoutError
from oracleagentmemory.core.reranker import Reranker
from tests.support.llm_server import Scripted


def test_timeout_and_max_retries_are_client_options(llm_server):
    reranker = Reranker("m", api_base=llm_server.base_url, api_key=None, timeout=0.3,
                        max_retries=0, top_n=1)
    llm_server.enqueue(Scripted(delay=10, body={"results": []}))
    with pytest.raises(LlmTimeoutError):
        asyncio.run(reranker.rerank_async("q", ["a", "b"]))
    assert len(llm_server.requests) == 1
    body = llm_server.requests[0].body
    assert "timeout" not in body and "max_retries" not in body
    assert body["top_n"] == 1  # request fields still go


def test_a_score_that_is_not_a_number_is_refused(llm_server):
    reranker = Reranker("m", api_base=llm_server.base_url, api_key=None)
    llm_server.enqueue(Scripted(body=(
        '{"results": [{"index": 0, "relevance_score": NaN}, '
        '{"index": 1, "relevance_score": 0.5}]}')))
    with pytest.raises(LlmResponseError):
        asyncio.run(reranker.rerank_async("q", ["a", "b"]))
