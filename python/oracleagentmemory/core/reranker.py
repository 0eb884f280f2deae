"""A reranker behind an HTTP ``POST {api_base}/rerank`` endpoint.

Why this shape: Cohere's rerank API, Jina's, vLLM's and Infinity's servers and the OpenVINO
model server all take ``{"model", "query", "documents": [str], "top_n"?}`` and answer
``{"results": [{"index", "relevance_score", "document"?}]}``, so one adapter covers hosted
and self-hosted cross-encoders. Hugging Face's text-embeddings-inference speaks a different
shape (``texts`` in, a bare list out) and needs a proxy that translates.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory.apis.reranker import IReranker, RerankResponse, RerankResponseResult
from oracleagentmemory.core.llms.errors import LlmResponseError
from oracleagentmemory.core.llms.http_client import HttpJsonClient, RetryPolicy, shown_url
from oracleagentmemory.core.llms.providers import client_options
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError

__all__ = ["Reranker", "check_rerank_arguments", "parse_rerank_payload"]

API_BASE_ENV = "ORACLEAGENTMEMORY_RERANKER_API_BASE"
"""Where ``api_base`` comes from when it is not passed."""
API_KEY_ENV = "ORACLEAGENTMEMORY_RERANKER_API_KEY"
"""Where ``api_key`` comes from when it is not passed (no key: no Authorization header)."""


class Reranker(IReranker):
    """Scores documents with a rerank model served over HTTP.

    ``api_base`` is the URL the ``/rerank`` path is appended to (``https://api.cohere.com/v2``,
    ``https://api.jina.ai/v1``, ``http://localhost:8000/v1`` for vLLM); when omitted it is
    read from ``ORACLEAGENTMEMORY_RERANKER_API_BASE``. ``api_key`` is sent as a bearer token;
    when omitted it is read from ``ORACLEAGENTMEMORY_RERANKER_API_KEY`` (a key meant for
    another provider is never picked up). ``default_kwargs`` are extra request fields
    (``top_n``, ``return_documents``, ``max_tokens_per_doc``...) that each call's ``kwargs``
    override, except the client options ``timeout`` (seconds, default 60) and
    ``max_retries`` (default 3), as for ``Llm`` and ``Embedder``. Failures raise
    :class:`~oracleagentmemory.core.llms.errors.LlmError` subclasses after the shared
    client's retries.
    """

    def __init__(self, model: str, api_base: str | None | _NotSetMarker = NOT_SET_MARKER,
                 api_key: str | None | _NotSetMarker = NOT_SET_MARKER,
                 **default_kwargs: Any) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidArgumentError(f"model must be a non-empty model name, got {model!r}")
        base = os.environ.get(API_BASE_ENV, "").strip() if api_base in (
            NOT_SET_MARKER, None) else api_base
        if not base:
            raise InvalidArgumentError(f"api_base is required (or set {API_BASE_ENV}), e.g. "
                                       "http://localhost:8000/v1")
        if not isinstance(base, str):
            raise ArgumentTypeError(f"api_base must be a URL string, got {type(base).__name__}")
        key = (os.environ.get(API_KEY_ENV, "").strip() or None) if api_key is NOT_SET_MARKER \
            else api_key
        if key is not None and not isinstance(key, str):
            raise ArgumentTypeError(f"api_key must be a string or None, got {type(key).__name__}")
        self.model = model
        self.default_kwargs = dict(default_kwargs)
        timeout, retries = client_options(self.default_kwargs)
        self.http = HttpJsonClient(base, api_key=key, timeout=timeout,
                                   retry=RetryPolicy(max_retries=retries))

    def __repr__(self) -> str:
        return f"Reranker(model={self.model!r}, api_base={shown_url(self.http.base_url)!r})"

    async def rerank_async(self, query: str, documents: list[str], **kwargs: Any
                           ) -> RerankResponse:
        documents = check_rerank_arguments(query, documents)
        if not documents:
            return RerankResponse(results=[])
        body = {**self.default_kwargs, **kwargs, "model": self.model, "query": query,
                "documents": documents}
        payload = await self.http.post_async("rerank", body)
        return parse_rerank_payload(payload, len(documents))


def check_rerank_arguments(query: str, documents: Sequence[str]) -> list[str]:
    """The documents as a list; TypeError naming the argument when the input is not text."""
    if not isinstance(query, str):
        raise ArgumentTypeError(f"query must be a string, got {type(query).__name__}")
    if isinstance(documents, (str, bytes)) or not isinstance(documents, Sequence):
        raise ArgumentTypeError(
            f"documents must be a list of strings, got {type(documents).__name__}")
    for index, document in enumerate(documents):
        if not isinstance(document, str):
            raise ArgumentTypeError(f"documents[{index}] must be a string, got "
                                    f"{type(document).__name__}")
    return list(documents)


def parse_rerank_payload(payload: Mapping[str, Any], document_count: int) -> RerankResponse:
    """The results of a rerank answer, most relevant first; LlmResponseError if malformed."""
    items = payload.get("results")
    if not isinstance(items, list):
        raise LlmResponseError(f"rerank answer has no results list: {str(payload)[:200]}")
    results = [_parse_result(item, document_count) for item in items]
    results.sort(key=lambda result: result.relevance_score, reverse=True)
    return RerankResponse(results=results)


def _parse_result(item: Any, document_count: int) -> RerankResponseResult:
    if not isinstance(item, Mapping):
        raise LlmResponseError(f"rerank result is not an object: {item!r:.200}")
    index = item.get("index")
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < document_count:
        raise LlmResponseError(f"rerank result index {index!r} is not a position among the "
                               f"{document_count} documents sent")
    score = item.get("relevance_score")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or (
            isinstance(score, float) and math.isnan(score)):
        raise LlmResponseError(f"rerank result {index} has no numeric relevance_score: "
                               f"{item!r:.200}")
    document = item.get("document")
    if isinstance(document, Mapping):  # Cohere/Jina: {"text": ...}
        document = document.get("text")
    return RerankResponseResult(index=index, relevance_score=float(score),
                                document=document if isinstance(document, str) else None)
