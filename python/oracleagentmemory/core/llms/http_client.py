"""JSON-over-HTTP with bounded retries, shared by the OpenAI-compatible LLM and embedder.

Why one module: chat completions and embeddings speak the same protocol family (bearer key,
JSON bodies, the same error statuses), so timeouts, retries, backoff and error mapping are
written once. The retry decision is a pure function; the sync and async loops only differ
in how they send and sleep.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import os
import random
import ssl
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import certifi
import httpx

from oracleagentmemory.core.llms.errors import (
    LlmConnectionError,
    LlmError,
    LlmHttpError,
    LlmResponseError,
    LlmTimeoutError,
)

logger = logging.getLogger(__name__)

RETRYABLE_STATUSES = frozenset({408, 409, 425, 429})
"""Client-side statuses worth retrying; every 5xx is retried too."""
BODY_SNIPPET_CHARS = 500


@dataclass(frozen=True)
class RetryPolicy:
    """How many times and how long to wait before retrying a failed request.

    Why bounded: a caller's write must not hang for minutes behind a sick endpoint.
    ``max_retries`` counts retries after the first attempt. A server's ``Retry-After`` is
    honoured up to ``max_retry_after`` seconds; a longer one ends the retries at once.
    """

    max_retries: int = 3
    initial_backoff: float = 0.5
    max_backoff: float = 20.0
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be at least 0, got {self.max_retries}")
        if self.initial_backoff < 0 or self.max_backoff < 0 or self.max_retry_after < 0:
            raise ValueError("backoff and retry-after limits must not be negative")

    def backoff(self, retry_number: int, rng: random.Random) -> float:
        """Exponential delay with jitter (50-100% of the capped exponential step)."""
        step = min(self.max_backoff, self.initial_backoff * (2 ** retry_number))
        return step * rng.uniform(0.5, 1.0)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date), or None."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


@dataclass(frozen=True)
class ConnectionOptions:
    """TLS files, proxy and environment use of one endpoint's connections.

    ``ca_file`` replaces the default CA bundle; ``cert_file`` (with ``key_file`` when the
    key is separate) is a client certificate for mutual TLS; ``proxy`` is an http(s) proxy
    URL; ``trust_env=False`` ignores ``HTTP(S)_PROXY``, ``NO_PROXY`` and ``SSL_CERT_FILE``.
    """

    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    proxy: str | None = None
    trust_env: bool = True

    def __post_init__(self) -> None:
        for name in ("ca_file", "cert_file", "key_file"):
            path = getattr(self, name)
            if path is not None and not (isinstance(path, str) and os.path.isfile(path)):
                raise ValueError(f"{name} must be the path of an existing file, got {path!r}")
        if self.key_file is not None and self.cert_file is None:
            raise ValueError("key_file needs cert_file (the client certificate it belongs to)")
        if self.proxy is not None and not (isinstance(self.proxy, str) and self.proxy.strip()):
            raise ValueError(f"proxy must be a proxy URL such as http://proxy:3128, "
                             f"got {self.proxy!r}")
        if not isinstance(self.trust_env, bool):
            raise TypeError(f"trust_env must be a bool, got {type(self.trust_env).__name__}")

    def httpx_options(self) -> dict[str, Any]:
        """Keyword arguments for ``httpx.Client`` / ``httpx.AsyncClient``."""
        verify: bool | ssl.SSLContext = True
        if self.ca_file or self.cert_file:
            verify = ssl.create_default_context(cafile=self.ca_file or certifi.where())
            if self.cert_file:
                verify.load_cert_chain(self.cert_file, self.key_file)
        return {"verify": verify, "proxy": self.proxy, "trust_env": self.trust_env}


@dataclass(frozen=True)
class _Decision:
    """What to do after one attempt: retry after ``delay`` seconds, or raise ``error``."""

    error: LlmError
    retry: bool
    delay: float = 0.0


def _error_message(response: httpx.Response) -> str:
    """The server's own error text when it follows the OpenAI error shape, else the body."""
    text = response.text[:BODY_SNIPPET_CHARS]
    try:
        payload = response.json()
    except ValueError:
        return text
    if isinstance(payload, Mapping):
        error = payload.get("error")
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            return error["message"]
        if isinstance(error, str):
            return error
        if isinstance(payload.get("message"), str):
            return payload["message"]
    return text


def _decide_response(response: httpx.Response, retry_number: int, policy: RetryPolicy,
                     rng: random.Random) -> _Decision:
    status = response.status_code
    detail = _error_message(response)
    error = LlmHttpError(
        f"{response.request.method} {response.request.url} returned HTTP {status}: {detail}",
        status_code=status,
        body=response.text[:BODY_SNIPPET_CHARS],
    )
    retryable = status >= 500 or status in RETRYABLE_STATUSES
    if not retryable or retry_number >= policy.max_retries:
        return _Decision(error, retry=False)
    retry_after = parse_retry_after(response.headers.get("retry-after"))
    if retry_after is not None:
        if retry_after > policy.max_retry_after:
            return _Decision(
                LlmHttpError(
                    f"{error} (server asked to retry after {retry_after:.0f}s, more than the "
                    f"{policy.max_retry_after:.0f}s this client waits)",
                    status_code=status, body=error.body,
                ),
                retry=False,
            )
        return _Decision(error, retry=True, delay=retry_after)
    return _Decision(error, retry=True, delay=policy.backoff(retry_number, rng))


def _decide_exception(exc: httpx.HTTPError, url: str, retry_number: int,
                      policy: RetryPolicy, rng: random.Random) -> _Decision:
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.LocalProtocolError)):
        return _Decision(LlmConnectionError(f"POST {url} cannot be sent: {exc}"), retry=False)
    if isinstance(exc, httpx.TimeoutException):
        error: LlmError = LlmTimeoutError(f"POST {url} timed out: {type(exc).__name__}")
    elif isinstance(exc, httpx.TransportError):
        error = LlmConnectionError(f"POST {url} failed: {type(exc).__name__}: {exc}")
    else:
        return _Decision(LlmError(f"POST {url} failed: {exc}"), retry=False)
    if retry_number >= policy.max_retries:
        return _Decision(error, retry=False)
    return _Decision(error, retry=True, delay=policy.backoff(retry_number, rng))


def _decode_events(response: httpx.Response) -> list[dict[str, Any]]:
    """The JSON objects of a server-sent-events body (``data:`` lines), up to ``[DONE]``."""
    events: list[dict[str, Any]] = []
    data: list[str] = []
    for line in [*response.text.splitlines(), ""]:
        if line.startswith("data:"):
            data.append(line[5:].strip())
            continue
        if line or not data:
            continue
        payload, data = "\n".join(data), []
        if payload == "[DONE]":
            break
        try:
            event = json.loads(payload)
        except ValueError:
            raise LlmResponseError(f"{response.request.url} streamed an event that is not "
                                   f"JSON: {payload[:BODY_SNIPPET_CHARS]!r}") from None
        if isinstance(event, dict):
            events.append(event)
    return events


def _decode(response: httpx.Response) -> dict[str, Any]:
    try:
        payload = response.json()
    except ValueError:
        raise LlmResponseError(
            f"{response.request.url} answered HTTP {response.status_code} with a body that is "
            f"not JSON: {response.text[:BODY_SNIPPET_CHARS]!r}"
        ) from None
    if not isinstance(payload, dict):
        raise LlmResponseError(
            f"{response.request.url} answered with JSON that is not an object: "
            f"{type(payload).__name__}"
        )
    return payload


class HttpJsonClient:
    """POSTs JSON to ``base_url + path`` and returns the decoded JSON object.

    Why: retries on 429, 408/409/425, every 5xx, timeouts and dropped connections, with
    exponential backoff and jitter (or the server's ``Retry-After``); other statuses raise
    :class:`LlmHttpError` at once. ``sleep``/``async_sleep``/``rng`` are injectable so tests
    can observe waits without waiting. The sync client is shared (thread-safe); the async
    client is made per call, since an ``httpx.AsyncClient`` is bound to one event loop.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        auth: httpx.Auth | None = None,
        connection: ConnectionOptions | None = None,
        sleep: Callable[[float], None] = time.sleep,
        async_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.strip().lower().startswith(
                ("http://", "https://")):
            raise ValueError("base_url must be an http(s) URL such as http://localhost:8000/v1, "
                             f"got {base_url!r}")
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be positive seconds, got {timeout}")
        self.base_url = base_url.strip().rstrip("/")
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._headers = {"Accept": "application/json", **(headers or {})}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._auth = auth
        self.connection = connection or ConnectionOptions()
        self._sleep = sleep
        self._async_sleep = async_sleep
        self._rng = rng or random.Random()
        self._client: httpx.Client | None = None
        self._client_lock = threading.Lock()

    def url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}"

    def _client_options(self) -> dict[str, Any]:
        return {"headers": self._headers, "timeout": httpx.Timeout(self.timeout),
                "auth": self._auth, **self.connection.httpx_options()}

    def _sync_client(self) -> httpx.Client:
        with self._client_lock:
            if self._client is None:
                self._client = httpx.Client(**self._client_options())
            return self._client

    def post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST with retries; the decoded JSON object of the first 2xx answer."""
        return self._send(path, body, _decode)

    def post_events(self, path: str, body: Mapping[str, Any]) -> list[dict[str, Any]]:
        """POST a streaming request with retries; the events of the first 2xx answer.

        The whole stream is read before returning; a connection dropped mid-stream is
        retried like any dropped connection.
        """
        return self._send(path, body, _decode_events)

    async def post_async(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Async twin of :meth:`post` with the same retry policy and errors."""
        return await self._send_async(path, body, _decode)

    async def post_events_async(self, path: str, body: Mapping[str, Any]
                                ) -> list[dict[str, Any]]:
        """Async twin of :meth:`post_events`."""
        return await self._send_async(path, body, _decode_events)

    def _send(self, path: str, body: Mapping[str, Any],
              read: Callable[[httpx.Response], Any]) -> Any:
        url = self.url(path)
        client = self._sync_client()
        retry_number = 0
        while True:
            try:
                response = client.post(url, json=dict(body))
            except httpx.HTTPError as exc:
                decision = _decide_exception(exc, url, retry_number, self.retry, self._rng)
                cause: BaseException = exc
            else:
                if response.is_success:
                    return read(response)
                decision = _decide_response(response, retry_number, self.retry, self._rng)
                cause = decision.error
            if not decision.retry:
                raise decision.error from (None if cause is decision.error else cause)
            self._log_retry(decision, retry_number)
            self._sleep(decision.delay)
            retry_number += 1

    async def _send_async(self, path: str, body: Mapping[str, Any],
                          read: Callable[[httpx.Response], Any]) -> Any:
        url = self.url(path)
        retry_number = 0
        async with httpx.AsyncClient(**self._client_options()) as client:
            while True:
                try:
                    response = await client.post(url, json=dict(body))
                except httpx.HTTPError as exc:
                    decision = _decide_exception(exc, url, retry_number, self.retry, self._rng)
                    cause: BaseException = exc
                else:
                    if response.is_success:
                        return read(response)
                    decision = _decide_response(response, retry_number, self.retry, self._rng)
                    cause = decision.error
                if not decision.retry:
                    raise decision.error from (None if cause is decision.error else cause)
                self._log_retry(decision, retry_number)
                await self._async_sleep(decision.delay)
                retry_number += 1

    def _log_retry(self, decision: _Decision, retry_number: int) -> None:
        logger.warning("%s; retry %d of %d in %.2fs", decision.error, retry_number + 1,
                       self.retry.max_retries, decision.delay)

    def close(self) -> None:
        """Release pooled connections. Idempotent; a later call reopens a client."""
        with self._client_lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()
