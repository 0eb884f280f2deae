"""Embedder: the reference's remote embedder, over an OpenAI-compatible ``/embeddings`` API.

Why: teams that already serve an embedding model (OpenAI, vLLM, Ollama, llama.cpp, LM
Studio, a gateway) can use it instead of the local model. It shares the LLM's provider table
and HTTP layer (timeouts, retries, errors) and checks every vector against the dimension,
since the store's vector columns are fixed-size and a silent mismatch would corrupt search.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from oracleagentmemory._async_twins import document_twins
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory.apis.embedders.embedder import DIMENSION_PROBE_TEXT, IEmbedder
from oracleagentmemory.core.embedders.minilm_numpy import l2_normalize
from oracleagentmemory.core.llms.errors import LlmHttpError, LlmResponseError
from oracleagentmemory.core.llms.http_client import shown_url
from oracleagentmemory.core.llms.model_arguments import flag, optional_value, positive_int
from oracleagentmemory.core.llms.providers import (
    endpoint_client,
    location_argument,
    resolve_endpoint,
)
from oracleagentmemory.core.llms.structured_output import REJECTION_STATUSES
from oracleagentmemory.core.tokens import chars_for_tokens, estimate_tokens

logger = logging.getLogger(__name__)

PATH = "embeddings"
DEFAULT_MAX_INPUT_TOKENS = 8192
"""The input limit of OpenAI's embedding models and of most served long-context ones."""
DEFAULT_BATCH_SIZE = 64
MAX_BATCH_TOKENS = 250_000
"""Estimated tokens per request; OpenAI refuses more than 300,000 summed over the inputs."""


def checked_texts(texts: Any) -> list[str]:
    """``texts`` as a list of str; TypeError for a bare string or non-str items."""
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise TypeError("embed() takes a list of texts, not a single string")
    items = list(texts)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"texts must be str, got {type(item).__name__}")
    return items


def answer_vectors(payload: Mapping[str, Any], expected_count: int) -> list[list[float]]:
    """The vectors of an embeddings answer in input order (servers may reorder ``data``:
    its ``index`` fields put it back in order when they number the items 0 to n-1; other
    indexes keep the answer's order). A vector must be a list of numbers that are finite
    as float32, else LlmResponseError: a NaN or infinite vector would be stored and break
    search silently."""
    data = payload.get("data")
    if not isinstance(data, list) or len(data) != expected_count:
        got = len(data) if isinstance(data, list) else "no"
        raise LlmResponseError(f"embeddings answer has {got} vectors for {expected_count} texts")
    indexes = [item.get("index") if isinstance(item, Mapping) else None for item in data]
    numbers = [index for index in indexes if type(index) is int]
    if len(numbers) == len(data) and sorted(numbers) == list(range(expected_count)):
        data = [item for _, item in sorted(zip(numbers, data, strict=True),
                                           key=lambda pair: pair[0])]
    vectors = []
    for item in data:
        vector = item.get("embedding") if isinstance(item, Mapping) else None
        if not isinstance(vector, list) or not all(type(value) in (int, float)
                                                   for value in vector):
            raise LlmResponseError("embeddings answer item has no 'embedding' list of numbers")
        try:
            with np.errstate(over="ignore"):
                finite = bool(np.isfinite(np.asarray(vector, dtype=np.float32)).all())
        except OverflowError:  # an integer too large for a float
            finite = False
        if not finite:
            raise LlmResponseError("embeddings answer has a vector with a value that is not "
                                   "a finite float32 (NaN, infinite or out of range)")
        vectors.append(vector)
    return vectors


@document_twins
class Embedder(IEmbedder):
    """Embeds texts through an OpenAI-compatible ``POST {api_base}/embeddings``.

    It shares the ``Llm``'s provider table and HTTP layer (timeouts, retries, TLS, proxy,
    errors) and checks every vector against the dimension: the store's vector columns are
    fixed-size, and a silent mismatch would corrupt search. Extra keyword arguments
    (``default_kwargs``) are request fields, except the client options ``timeout``
    (seconds, default 60), ``max_retries`` (default 3) and ``batch_size`` (texts per
    request, default 64). ``base_url`` is taken as ``api_base``; any other keyword naming a
    location is refused (as for ``Llm``).

    Args:
        model: ``provider/name`` as for ``Llm`` (``openai/text-embedding-3-small``,
            ``ollama/nomic-embed-text``) or a plain name for OpenAI.
        api_base: Base URL of the server. Omitted: the provider's default URL.
        api_key: Bearer key. Omitted: the provider's key variable, read only for its own
            URL; None sends no key.
        embedding_dimension: Vector length, also sent as ``dimensions`` for models that can
            shorten their vectors (dropped for good if the server refuses it). Omitted or
            None: learned from the first answer.
        max_input_tokens: Texts longer than this (estimated) are cut before sending.
            Omitted: 8192.
        normalize: Scale vectors to unit length. Omitted: True.
        query_prefix: Prepended to queries (``is_query=True``). Omitted or None: nothing.
        document_prefix: Prepended to documents. Omitted or None: nothing.
        truncate_prompt_tokens: Ask the server to cut each text to this many tokens exactly
            (vLLM). Omitted or None: not sent.
        key_file: Private key of the client certificate. Omitted: None.
        cert_file: Client certificate for mutual TLS. Omitted: None.
        ca_file: CA bundle replacing the default one. Omitted: None.
        proxy: http(s) proxy URL. Omitted: None.
        trust_env: Read ``HTTP(S)_PROXY``, ``NO_PROXY`` and ``SSL_CERT_FILE``. Omitted: True.

    Raises:
        ValueError: An argument or client option has a value that is not allowed (an empty
            model, an unknown provider without ``api_base``, a number below 1, a file that
            does not exist); the message names it.
        TypeError: An argument or client option has the wrong type.
    """

    def __init__(
        self,
        model: str,
        api_base: str | None | _NotSetMarker = NOT_SET_MARKER,
        api_key: str | None | _NotSetMarker = NOT_SET_MARKER,
        embedding_dimension: int | None | _NotSetMarker = NOT_SET_MARKER,
        max_input_tokens: int | _NotSetMarker = NOT_SET_MARKER,
        normalize: bool | _NotSetMarker = NOT_SET_MARKER,
        query_prefix: str | None | _NotSetMarker = NOT_SET_MARKER,
        document_prefix: str | None | _NotSetMarker = NOT_SET_MARKER,
        truncate_prompt_tokens: int | None | _NotSetMarker = NOT_SET_MARKER,
        key_file: str | None | _NotSetMarker = NOT_SET_MARKER,
        cert_file: str | None | _NotSetMarker = NOT_SET_MARKER,
        ca_file: str | None | _NotSetMarker = NOT_SET_MARKER,
        proxy: str | None | _NotSetMarker = NOT_SET_MARKER,
        trust_env: bool | _NotSetMarker = NOT_SET_MARKER,
        **default_kwargs: Any,
    ) -> None:
        default_kwargs = dict(default_kwargs)
        api_base = location_argument(api_base, default_kwargs)
        endpoint = resolve_endpoint(model, api_base, api_key)
        self.model = model
        self._wire_model = endpoint.model
        self._dimension = positive_int("embedding_dimension", embedding_dimension, None)
        self._send_dimensions = self._dimension is not None
        self._max_input_tokens = positive_int("max_input_tokens", max_input_tokens,
                                              DEFAULT_MAX_INPUT_TOKENS)
        self.normalize = flag("normalize", normalize, True)
        self.query_prefix = optional_value("query_prefix", query_prefix, str)
        self.document_prefix = optional_value("document_prefix", document_prefix, str)
        self._truncate_prompt_tokens = positive_int("truncate_prompt_tokens",
                                                    truncate_prompt_tokens, None)
        options = dict(default_kwargs)
        self._batch_size = positive_int("batch_size", options.pop("batch_size", None),
                                        DEFAULT_BATCH_SIZE)
        self.http = endpoint_client(endpoint, options, key_file=key_file, cert_file=cert_file,
                                    ca_file=ca_file, proxy=proxy, trust_env=trust_env)
        self._default_kwargs = options

    def __repr__(self) -> str:
        return (f"Embedder(model={self.model!r}, api_base={shown_url(self.http.base_url)!r}, "
                f"embedding_dimension={self._dimension!r})")

    @property
    def embedding_dimension(self) -> int:
        """The declared dimension, else the one of the first answer (a probe if need be).

        Raises:
            LlmError: The probe request failed (only while the dimension is unknown).
        """
        if self._dimension is None:
            self._accept(self.http.post(PATH, self._body([DIMENSION_PROBE_TEXT])), 1)
        assert self._dimension is not None
        return self._dimension

    @property
    def max_input_tokens(self) -> int:
        """Longest input read per text, in tokens: ``max_input_tokens`` (default 8192).
        Longer texts are cut before sending."""
        return self._max_input_tokens

    # -- requests ----------------------------------------------------------------------

    def _inputs(self, texts: Any, is_query: bool) -> list[str]:
        """Prefixed, length-capped texts (the API refuses empty strings: those become a
        single space)."""
        prefix = (self.query_prefix if is_query else self.document_prefix) or ""
        limit = chars_for_tokens(self._max_input_tokens)
        return [(prefix + text)[:limit] or " " for text in checked_texts(texts)]

    def _batches(self, inputs: list[str]) -> list[list[str]]:
        """Runs of at most ``batch_size`` texts and about MAX_BATCH_TOKENS tokens."""
        batches: list[list[str]] = []
        tokens = 0
        for text in inputs:
            cost = estimate_tokens(text)
            if not batches or len(batches[-1]) >= self._batch_size \
                    or tokens + cost > MAX_BATCH_TOKENS:
                batches.append([])
                tokens = 0
            batches[-1].append(text)
            tokens += cost
        return batches

    def _body(self, batch: list[str]) -> dict[str, Any]:
        body: dict[str, Any] = {**self._default_kwargs, "model": self._wire_model,
                                "input": batch}
        if self._send_dimensions:
            body["dimensions"] = self._dimension
        if self._truncate_prompt_tokens is not None:
            body["truncate_prompt_tokens"] = self._truncate_prompt_tokens
        return body

    def _refused_dimensions(self, error: LlmHttpError) -> bool:
        """True (and ``dimensions`` dropped for good) when the refusal may be that field."""
        if not self._send_dimensions or error.status_code not in REJECTION_STATUSES:
            return False
        logger.info("%s refused the request with 'dimensions' (HTTP %s); sending it without",
                    shown_url(self.http.base_url), error.status_code)
        self._send_dimensions = False
        return True

    def _accept(self, payload: Mapping[str, Any], count: int) -> list[list[float]]:
        """The answer's vectors; the first answer fixes an undeclared dimension."""
        vectors = answer_vectors(payload, count)
        if self._dimension is None and vectors:
            self._dimension = len(vectors[0])
        for vector in vectors:
            if len(vector) != self._dimension:
                raise ValueError(f"embedding model {self.model!r} returned vectors of dimension "
                                 f"{len(vector)}, but embedding_dimension is {self._dimension}")
        return vectors

    def _array(self, rows: list[list[float]]) -> np.ndarray:
        if not rows:
            return np.zeros((0, self.embedding_dimension), dtype=np.float32)
        vectors = np.asarray(rows, dtype=np.float32)
        return l2_normalize(vectors) if self.normalize else vectors

    # -- IEmbedder ---------------------------------------------------------------------

    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        """Embed ``texts``, one request per batch of ``batch_size`` texts.

        Args:
            texts: The texts, as a list of str; an empty text is sent as one space.
            is_query: True for search queries (``query_prefix``), False (the default) for
                documents (``document_prefix``).

        Returns:
            A float32 array of shape ``(len(texts), embedding_dimension)``, rows in input
            order, unit length when ``normalize``.

        Raises:
            TypeError: ``texts`` is a single string or holds something other than str.
            ValueError: The server returned vectors of another dimension than declared or
                first seen.
            LlmHttpError: The server answered an error status after the retries.
            LlmTimeoutError: No answer within the timeout.
            LlmConnectionError: The connection failed or dropped.
            LlmResponseError: The answer has the wrong number of vectors, no vectors, or
                a vector that is not a list of finite numbers.
        """
        rows: list[list[float]] = []
        for batch in self._batches(self._inputs(texts, is_query)):
            try:
                payload = self.http.post(PATH, self._body(batch))
            except LlmHttpError as error:
                if not self._refused_dimensions(error):
                    raise
                payload = self.http.post(PATH, self._body(batch))
            rows.extend(self._accept(payload, len(batch)))
        return self._array(rows)

    async def embed_async(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        """Over native async HTTP."""
        rows: list[list[float]] = []
        for batch in self._batches(self._inputs(texts, is_query)):
            try:
                payload = await self.http.post_async(PATH, self._body(batch))
            except LlmHttpError as error:
                if not self._refused_dimensions(error):
                    raise
                payload = await self.http.post_async(PATH, self._body(batch))
            rows.extend(self._accept(payload, len(batch)))
        return self._array(rows)

    def close(self) -> None:
        """Release pooled connections. Idempotent.
        """
        self.http.close()
