"""An IEmbedder over an OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

Why: teams that already serve an embedding model (OpenAI, OCI Generative AI, vLLM, Ollama,
llama.cpp, TEI) can use it instead of the local model. It shares the LLM's HTTP layer
(timeouts, retries, errors) and checks every vector against the declared dimension, since
the store's vector columns are fixed-size and a silent mismatch would corrupt search.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
import numpy as np

from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core.llms.errors import LlmResponseError
from oracleagentmemory.core.llms.from_env import env_number
from oracleagentmemory.core.llms.http_client import HttpJsonClient, RetryPolicy
from oracleagentmemory.core.llms.openai_compatible import (
    DEFAULT_API_KEY_ENV,
    OPENAI_BASE_URL,
    openai_http,
)

DEFAULT_BATCH_SIZE = 64
ENV_PREFIX = "ORACLEAGENTMEMORY_EMBEDDER_"
DIMENSION_PROBE_TEXT = "dimension probe"


def _vectors(payload: Mapping[str, Any], expected_count: int) -> list[list[float]]:
    """The vectors of an embeddings answer in input order (servers may reorder ``data``)."""
    data = payload.get("data")
    if not isinstance(data, list) or len(data) != expected_count:
        got = len(data) if isinstance(data, list) else "no"
        raise LlmResponseError(f"embeddings answer has {got} vectors for {expected_count} texts")
    items = sorted(
        data, key=lambda item: item.get("index", 0) if isinstance(item, Mapping) else 0
    )
    vectors = []
    for item in items:
        vector = item.get("embedding") if isinstance(item, Mapping) else None
        if not isinstance(vector, list):
            raise LlmResponseError("embeddings answer item has no 'embedding' list of floats")
        vectors.append(vector)
    return vectors


class OpenAICompatibleEmbedder(IEmbedder):
    """Embeds texts in batches of ``batch_size`` through ``/embeddings``.

    ``embedding_dimension`` declares the vector length; a vector of another length is a
    ValueError naming both numbers. Leave it None to learn it from one probe request on
    first use. ``send_dimensions=True`` also sends it as the ``dimensions`` field (for models
    that can shorten their vectors, such as OpenAI's text-embedding-3 family).
    """

    def __init__(
        self,
        model: str,
        *,
        embedding_dimension: int | None = None,
        base_url: str = OPENAI_BASE_URL,
        api_key: str | None = None,
        api_key_env: str | None = DEFAULT_API_KEY_ENV,
        batch_size: int = DEFAULT_BATCH_SIZE,
        timeout: float = 60.0,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        send_dimensions: bool = False,
        auth: httpx.Auth | None = None,
        http: HttpJsonClient | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model must be a non-empty model name")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        if embedding_dimension is not None and (
            isinstance(embedding_dimension, bool) or not isinstance(embedding_dimension, int)
            or embedding_dimension < 1
        ):
            raise ValueError(f"embedding_dimension must be a positive int, got "
                             f"{embedding_dimension!r}")
        if send_dimensions and embedding_dimension is None:
            raise ValueError("send_dimensions needs an explicit embedding_dimension")
        self.model = model
        self.batch_size = batch_size
        self.send_dimensions = send_dimensions
        self._dimension = embedding_dimension
        self.http = http or openai_http(base_url, api_key, api_key_env, headers, timeout,
                                        retry, max_retries, auth)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None
                 ) -> OpenAICompatibleEmbedder | None:
        """The embedder named by ``ORACLEAGENTMEMORY_EMBEDDER_*`` variables, or None.

        ``…_BASE_URL`` and ``…_MODEL`` are required together; ``…_DIMENSION``,
        ``…_API_KEY`` and ``…_BATCH_SIZE`` are optional.
        """
        environ = os.environ if environ is None else environ
        base_url = environ.get(ENV_PREFIX + "BASE_URL", "").strip()
        model = environ.get(ENV_PREFIX + "MODEL", "").strip()
        if not base_url and not model:
            return None
        if not base_url or not model:
            raise ValueError(f"set both {ENV_PREFIX}BASE_URL and {ENV_PREFIX}MODEL")
        dimension = int(env_number(environ, ENV_PREFIX + "DIMENSION", int, 0)) or None
        return cls(
            model,
            embedding_dimension=dimension,
            base_url=base_url,
            api_key=environ.get(ENV_PREFIX + "API_KEY", "").strip() or None,
            api_key_env=None,
            batch_size=int(env_number(environ, ENV_PREFIX + "BATCH_SIZE", int,
                                      DEFAULT_BATCH_SIZE)) or DEFAULT_BATCH_SIZE,
        )

    def __repr__(self) -> str:
        return (f"OpenAICompatibleEmbedder(model={self.model!r}, "
                f"base_url={self.http.base_url!r}, embedding_dimension={self._dimension!r})")

    @property
    def embedding_dimension(self) -> int:
        if self._dimension is None:
            self._accept(self.http.post("embeddings", self._body([DIMENSION_PROBE_TEXT])), 1)
        assert self._dimension is not None
        return self._dimension

    def _body(self, texts: Sequence[str]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "input": list(texts)}
        if self.send_dimensions:
            body["dimensions"] = self._dimension
        return body

    def _accept(self, payload: Mapping[str, Any], count: int) -> list[list[float]]:
        """The answer's vectors; the first answer fixes an undeclared dimension."""
        vectors = _vectors(payload, count)
        if self._dimension is None and vectors:
            self._dimension = len(vectors[0])
        for vector in vectors:
            if len(vector) != self._dimension:
                raise ValueError(
                    f"embedding model {self.model!r} returned vectors of dimension "
                    f"{len(vector)}, but embedding_dimension is {self._dimension}"
                )
        return vectors

    def _batches(self, texts: Sequence[str]) -> list[list[str]]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single str")
        items = list(texts)
        for text in items:
            if not isinstance(text, str):
                raise TypeError(f"texts must be str, got {type(text).__name__}")
        return [items[i:i + self.batch_size] for i in range(0, len(items), self.batch_size)]

    def _array(self, rows: list[list[float]], count: int) -> np.ndarray:
        if count == 0:
            return np.zeros((0, self.embedding_dimension), dtype=np.float32)
        return np.asarray(rows, dtype=np.float32).reshape(count, -1)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Float32 array of shape (len(texts), embedding_dimension), one request per batch."""
        rows: list[list[float]] = []
        for batch in self._batches(texts):
            rows.extend(self._accept(self.http.post("embeddings", self._body(batch)), len(batch)))
        return self._array(rows, len(rows))

    async def embed_async(self, texts: Sequence[str]) -> np.ndarray:
        """Async twin of :meth:`embed` (native async HTTP, same checks and errors)."""
        rows: list[list[float]] = []
        for batch in self._batches(texts):
            payload = await self.http.post_async("embeddings", self._body(batch))
            rows.extend(self._accept(payload, len(batch)))
        return self._array(rows, len(rows))

    def close(self) -> None:
        """Release pooled connections. Idempotent."""
        self.http.close()
