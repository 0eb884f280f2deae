"""JSON-over-HTTP with bounded retries, shared by the OpenAI-compatible LLM and embedder.

Why one module: chat completions and embeddings speak the same protocol family (bearer key,
JSON bodies, the same error statuses), so timeouts, retries, backoff and error mapping are
written once. The retry decision is a pure function; the sync and async loops only differ
in how they send and sleep.

Two guards keep a slow or dead endpoint cheap. ``retry_timeouts=False`` does not resend a
request that timed out: the server may still be generating the abandoned answer, and a
retry would queue behind it. A :class:`CircuitBreaker` stops sending after failed calls and
lets one trial call through after a cool-down.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import os
import random
import socket
import ssl
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit, urlunsplit

if TYPE_CHECKING:  # imported where a request is made: a process that never calls a model
    import httpx  # server does not pay httpx's import (about a tenth of this package's)

from oracleagentmemory.core.cancellation import CancelScope, current_scope
from oracleagentmemory.core.llms.errors import (
    LlmConnectionError,
    LlmError,
    LlmHttpError,
    LlmMissingKeyError,
    LlmResponseError,
    LlmTimeoutError,
    LlmUnavailableError,
)
from oracleagentmemory.core.llms.model_arguments import positive_seconds

logger = logging.getLogger(__name__)

RETRYABLE_STATUSES = frozenset({408, 409, 425, 429})
"""Client-side statuses worth retrying; every 5xx is retried too."""
BODY_SNIPPET_CHARS = 500
MAX_CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a connection, whatever the answer's timeout: an endpoint that does
not accept a connection in this time is down or overloaded."""
MAX_RESPONSE_BYTES = 256 * 1024 * 1024
"""Largest answer body read, after any ``Content-Encoding`` is undone: a larger one is
refused (:class:`LlmResponseError`) rather than held in memory. An embeddings answer for
2,048 texts of 3,072 dimensions is about 130 MB of JSON."""
FinalError = Callable[[int, str], bool]
"""``(status, error message) -> True`` when an error answer must not be retried."""
_CONNECTED = frozenset({"connection.connect_tcp.complete", "connection.start_tls.complete"})
"""The httpx ``trace`` request extension's events whose ``return_value`` is the new network
stream (httpx's "trace" request extension); its ``get_extra_info("socket")`` is the socket
(httpcore's network stream extensions; docs/reliability.md, "Pages the code rests on")."""


def _shut(sock: socket.socket) -> None:
    """Shut a socket down, which wakes a thread blocked reading it (closing it does not)."""
    with suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


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


class CircuitBreaker:
    """Stops calling an endpoint after ``threshold`` failed calls in a row.

    A failed call is one that ended, after its retries, in a timeout, a connection error or
    a 5xx/429 answer; any other answer shows the endpoint is alive and resets the count.
    While open, calls raise :class:`LlmUnavailableError` at once. After ``cooldown``
    seconds one trial call goes through: success closes the breaker, failure opens it again
    for twice as long (up to ``max_cooldown``). ``threshold`` 0 disables it. ``clock`` is
    injectable so tests can move time without waiting.
    """

    def __init__(self, threshold: int = 1, cooldown: float = 30.0, max_cooldown: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 0:
            raise ValueError(f"circuit_breaker_threshold must be an int of at least 0 (0 turns "
                             f"the breaker off), got {threshold!r}")
        self.threshold = threshold
        self.cooldown = positive_seconds("circuit_breaker_cooldown", cooldown)
        self.max_cooldown = max(positive_seconds("max_cooldown", max_cooldown), self.cooldown)
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._open_until: float | None = None
        self._current_cooldown = self.cooldown
        self._trial = False
        self._last_error = ""

    @property
    def is_open(self) -> bool:
        with self._lock:
            return self._open_until is not None

    def before_call(self, url: str) -> bool:
        """Raise LlmUnavailableError while open; True when this call is the trial."""
        if not self.threshold:
            return False
        with self._lock:
            if self._open_until is None:
                return False
            left = self._open_until - self._clock()
            if left > 0 or self._trial:
                raise LlmUnavailableError(
                    f"POST {shown_url(url)} not sent: the endpoint failed {self._failures} "
                    f"call(s) in a row (last: {self._last_error}); "
                    + (f"next attempt in {left:.0f}s" if left > 0
                       else "a trial call is in progress"))
            self._trial = True
            return True

    def succeeded(self, trial: bool) -> None:
        if not self.threshold:
            return
        with self._lock:
            was_open = self._open_until is not None
            self._failures = 0
            self._open_until = None
            self._current_cooldown = self.cooldown
            if trial:
                self._trial = False
        if was_open and trial:
            logger.info("the LLM endpoint answers again; circuit breaker closed")

    def failed(self, trial: bool, error: BaseException) -> None:
        if not self.threshold:
            return
        with self._lock:
            self._failures += 1
            self._last_error = str(error)[:BODY_SNIPPET_CHARS]
            if trial:
                self._trial = False
                self._current_cooldown = min(self._current_cooldown * 2, self.max_cooldown)
            elif self._failures < self.threshold or self._open_until is not None:
                return
            self._open_until = self._clock() + self._current_cooldown
            cooldown = self._current_cooldown
        logger.warning("%s; no further calls to this endpoint for %.0fs (circuit breaker "
                       "open after %d failed call(s))", error, cooldown, self._failures)

    def released(self, trial: bool) -> None:
        """The call ended without telling anything about the endpoint (cancelled)."""
        if trial:
            with self._lock:
                self._trial = False


class ClientClosedError(LlmConnectionError):
    """The call was abandoned because its client was closed (says nothing of the endpoint)."""


def counts_against_endpoint(error: BaseException) -> bool:
    """Timeouts, connection errors and 5xx/429 answers say the endpoint is unwell."""
    if isinstance(error, ClientClosedError):
        return False
    if isinstance(error, LlmHttpError):
        return error.status_code >= 500 or error.status_code == 429
    return isinstance(error, (LlmTimeoutError, LlmConnectionError))


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
        import certifi

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


def shown_url(url: Any) -> str:
    """``url`` for a message, a ``repr`` or a log line: a password in its userinfo
    (``http://user:password@host/v1``, which httpx sends as HTTP Basic credentials) is
    replaced with ``[secure]``, as httpx's own ``repr(URL)`` does."""
    text = str(url)
    try:
        parts = urlsplit(text)
        if parts.password is None:
            return text
        user = parts.netloc.rpartition("@")[0].partition(":")[0]
        host = parts.netloc.rpartition("@")[2]
        return urlunsplit(parts._replace(netloc=f"{user}:[secure]@{host}"))
    except ValueError:  # not a URL urlsplit reads: show none of it
        return "<url>"


def _without_userinfo(url: str) -> tuple[str, tuple[str, str] | None]:
    """``url`` without its ``user:password@``, and that user and password (decoded, as
    httpx reads a URL's userinfo), or None when it has none.

    Why: httpx logs each request at INFO as ``HTTP Request: POST <url>`` with ``str(url)``,
    which keeps the password; sent as Basic auth from a URL without them, the credentials
    are the same on the wire and absent from the log line."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL urlsplit reads: httpx says what is wrong when it is sent
        return url, None
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    if not (user or password):
        return urlunsplit(parts._replace(netloc=host)), None
    return urlunsplit(parts._replace(netloc=host)), (unquote(user), unquote(password))


def _error_message(response: httpx.Response) -> str:
    """The server's own error text when it follows the OpenAI error shape, else the body."""
    text = response.text[:BODY_SNIPPET_CHARS]
    try:
        payload = response.json()
    except (ValueError, RecursionError):  # RecursionError: JSON nested too deep to read
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
                     rng: random.Random, final: FinalError | None = None) -> _Decision:
    status = response.status_code
    detail = _error_message(response)
    error = LlmHttpError(
        f"{response.request.method} {shown_url(response.request.url)} returned HTTP {status}: "
        f"{detail}",
        status_code=status,
        body=response.text[:BODY_SNIPPET_CHARS],
    )
    retryable = (status >= 500 or status in RETRYABLE_STATUSES) and not (
        final is not None and final(status, detail))
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
                      policy: RetryPolicy, rng: random.Random,
                      retry_timeouts: bool = True, timeout: float | None = None) -> _Decision:
    import httpx

    shown = shown_url(url)
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.LocalProtocolError)):
        return _Decision(LlmConnectionError(f"POST {shown} cannot be sent: {exc}"), retry=False)
    if isinstance(exc, httpx.TimeoutException):
        waited = f" after {timeout:g}s" if timeout is not None else ""
        error: LlmError = LlmTimeoutError(
            f"POST {shown} timed out{waited}: {type(exc).__name__}")
        if not retry_timeouts:
            return _Decision(error, retry=False)
    elif isinstance(exc, httpx.TransportError):
        error = LlmConnectionError(f"POST {shown} failed: {type(exc).__name__}: {exc}")
    else:
        return _Decision(LlmError(f"POST {shown} failed: {exc}"), retry=False)
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
        except (ValueError, RecursionError):
            raise LlmResponseError(f"{shown_url(response.request.url)} streamed an event that "
                                   f"is not JSON: {payload[:BODY_SNIPPET_CHARS]!r}") from None
        if isinstance(event, dict):
            events.append(event)
    return events


def _decode(response: httpx.Response) -> dict[str, Any]:
    try:
        payload = response.json()
    except (ValueError, RecursionError):
        raise LlmResponseError(
            f"{shown_url(response.request.url)} answered HTTP {response.status_code} with a "
            f"body that is not JSON: {response.text[:BODY_SNIPPET_CHARS]!r}"
        ) from None
    if not isinstance(payload, dict):
        raise LlmResponseError(
            f"{shown_url(response.request.url)} answered with JSON that is not an object: "
            f"{type(payload).__name__}"
        )
    return payload


class _Body:
    """Collects one answer's body: refused past MAX_RESPONSE_BYTES, and a timeout once
    ``seconds`` have passed since the request was sent.

    Why: httpx's timeouts bound each wait for the next bytes, not the whole answer, and
    httpx would read any body whole into memory; a server trickling its answer, or
    sending a huge (or compressed, expanding) one, could hold a call or grow the process
    without bound. A byte that arrives after the timeout ends the call as a timeout; a
    silence ends it at httpx's own read timeout (the same seconds), so an answer never
    takes much more than twice its timeout."""

    def __init__(self, url: str, seconds: float | None) -> None:
        self._url = url
        self._deadline = None if seconds is None else time.monotonic() + seconds
        self._seconds = seconds
        self._chunks: list[bytes] = []
        self._size = 0

    def add(self, chunk: bytes) -> None:
        import httpx

        self._size += len(chunk)
        if self._size > MAX_RESPONSE_BYTES:
            raise LlmResponseError(
                f"{shown_url(self._url)} answered with a body larger than "
                f"{MAX_RESPONSE_BYTES} bytes; not read further")
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise httpx.ReadTimeout(f"the answer took longer than {self._seconds:g}s")
        self._chunks.append(chunk)

    def keep(self, response: httpx.Response) -> httpx.Response:
        """``response`` with the collected body as its content (httpx's ``read()`` stores
        it the same way), so ``text`` and ``json()`` read it."""
        response._content = b"".join(self._chunks)
        return response


class HttpJsonClient:
    """POSTs JSON to ``base_url + path`` and returns the decoded JSON object.

    Why: retries on 429, 408/409/425, every 5xx, timeouts and dropped connections, with
    exponential backoff and jitter (or the server's ``Retry-After``); other statuses raise
    :class:`LlmHttpError` at once. ``retry_timeouts=False`` never resends a request that
    timed out; ``breaker`` stops calling after failed calls; ``missing_key`` (the reason
    the endpoint cannot be used without a key) fails every call at once, sending nothing
    (:class:`LlmMissingKeyError`). A call may give its own
    ``timeout`` and a ``final`` test for error answers that retrying cannot fix.
    ``sleep``/``async_sleep``/``rng`` are injectable so tests can observe waits without
    waiting. The sync client is shared (thread-safe); the async client is made per call,
    since an ``httpx.AsyncClient`` is bound to one event loop.
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
        retry_timeouts: bool = True,
        breaker: CircuitBreaker | None = None,
        missing_key: str | None = None,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.strip().lower().startswith(
                ("http://", "https://")):
            raise ValueError("base_url must be an http(s) URL such as http://localhost:8000/v1, "
                             f"got {base_url!r}")
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be positive seconds, got {timeout}")
        self.base_url = base_url.strip().rstrip("/")
        self._wire_base, self._credentials = _without_userinfo(self.base_url)
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
        if not isinstance(retry_timeouts, bool):
            raise TypeError(f"retry_timeouts must be a bool, got {type(retry_timeouts).__name__}")
        self.retry_timeouts = retry_timeouts
        self.breaker = breaker
        self.missing_key = missing_key

    def url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}"

    def _wire(self, url: str) -> str:
        """``url`` as sent: its credentials go as the client's Basic auth instead."""
        return self._wire_base + url[len(self.base_url):]

    def _timeout(self, seconds: float | None = None) -> httpx.Timeout:
        import httpx

        seconds = self.timeout if seconds is None else seconds
        if seconds is None:
            return httpx.Timeout(None, connect=MAX_CONNECT_TIMEOUT)
        return httpx.Timeout(seconds, connect=min(seconds, MAX_CONNECT_TIMEOUT))

    def _client_options(self) -> dict[str, Any]:
        import httpx

        auth = self._auth  # given auth wins over a URL's userinfo, as in httpx
        if auth is None and self._credentials is not None:
            auth = httpx.BasicAuth(*self._credentials)
        return {"headers": self._headers, "timeout": self._timeout(),
                "auth": auth, **self.connection.httpx_options()}

    def _sync_client(self) -> httpx.Client:
        import httpx

        with self._client_lock:
            if self._client is None:
                self._client = httpx.Client(**self._client_options())
            return self._client

    def post(self, path: str, body: Mapping[str, Any], *, timeout: float | None = None,
             final: FinalError | None = None) -> dict[str, Any]:
        """POST with retries; the decoded JSON object of the first 2xx answer."""
        return self._send(path, body, _decode, timeout, final)

    def post_events(self, path: str, body: Mapping[str, Any], *, timeout: float | None = None,
                    final: FinalError | None = None) -> list[dict[str, Any]]:
        """POST a streaming request with retries; the events of the first 2xx answer.

        The whole stream is read before returning; a connection dropped mid-stream is
        retried like any dropped connection.
        """
        return self._send(path, body, _decode_events, timeout, final)

    async def post_async(self, path: str, body: Mapping[str, Any], *,
                         timeout: float | None = None, final: FinalError | None = None
                         ) -> dict[str, Any]:
        """Async twin of :meth:`post` with the same retry policy and errors."""
        return await self._send_async(path, body, _decode, timeout, final)

    async def post_events_async(self, path: str, body: Mapping[str, Any], *,
                                timeout: float | None = None, final: FinalError | None = None
                                ) -> list[dict[str, Any]]:
        """Async twin of :meth:`post_events`."""
        return await self._send_async(path, body, _decode_events, timeout, final)

    def _guard(self, url: str) -> bool:
        if self.missing_key is not None:
            raise LlmMissingKeyError(self.missing_key)
        return self.breaker.before_call(url) if self.breaker is not None else False

    def _outcome(self, trial: bool, error: BaseException | None,
                 final: FinalError | None) -> None:
        """Tell the breaker how the call ended (None: an answer came)."""
        if self.breaker is None:
            return
        if error is not None and (not isinstance(error, LlmError)
                                  or isinstance(error, ClientClosedError)):
            self.breaker.released(trial)
        elif error is None or not counts_against_endpoint(error) or (
                isinstance(error, LlmHttpError) and final is not None
                and final(error.status_code, str(error))):
            self.breaker.succeeded(trial)  # the endpoint answered
        else:
            self.breaker.failed(trial, error)

    def _send(self, path: str, body: Mapping[str, Any],
              read: Callable[[httpx.Response], Any], timeout: float | None = None,
              final: FinalError | None = None) -> Any:
        url = self.url(path)
        trial = self._guard(url)
        try:
            result = self._send_loop(url, body, read, timeout, final)
        except BaseException as exc:
            self._outcome(trial, exc, final)
            raise
        self._outcome(trial, None, final)
        return result

    @contextmanager
    def _call_client(self, scope: CancelScope | None
                     ) -> Iterator[tuple[httpx.Client, dict[str, Any]]]:
        """The client one call sends with, and the request extensions it passes.

        Outside background work: the shared client, whose connections stay open for the
        next call. Inside a job that may be given up on (``scope``): a client of its own,
        whose sockets the scope shuts down when it is cancelled, so the job's blocked read
        returns at once; closing a pool does not wake a thread blocked reading one of its
        sockets. Only this call's sockets are shut: a model shared with another client
        keeps serving it."""
        import httpx

        if scope is None:
            yield self._sync_client(), {}
            return
        sockets: list[socket.socket] = []

        def trace(event: str, info: Mapping[str, Any]) -> None:
            if event in _CONNECTED:
                sock = info["return_value"].get_extra_info("socket")
                if sock is not None:
                    sockets.append(sock)
                    if scope.cancelled:  # cancelled while connecting
                        _shut(sock)

        def interrupt() -> None:
            for sock in list(sockets):
                _shut(sock)

        unregister = scope.on_cancel(interrupt)
        try:
            with httpx.Client(**self._client_options()) as client:
                yield client, {"trace": trace}
        finally:
            unregister()

    def _abandoned(self, client: httpx.Client, scope: CancelScope | None) -> bool:
        """The call ended because its work was given up on, or its client closed."""
        return scope.cancelled if scope is not None else client is not self._client

    def _send_loop(self, url: str, body: Mapping[str, Any],
                   read: Callable[[httpx.Response], Any], timeout: float | None,
                   final: FinalError | None) -> Any:
        import httpx

        scope = current_scope()
        wait = httpx.USE_CLIENT_DEFAULT if timeout is None else self._timeout(timeout)
        retry_number = 0
        with self._call_client(scope) as (client, extensions):
            while True:
                if scope is not None and scope.cancelled:
                    raise ClientClosedError(f"POST {shown_url(url)} abandoned: its work was "
                                            "cancelled")
                try:
                    collected = _Body(url, timeout or self.timeout)
                    with client.stream("POST", self._wire(url), json=dict(body),
                                       timeout=wait, extensions=extensions) as response:
                        for chunk in response.iter_bytes():
                            collected.add(chunk)
                    collected.keep(response)
                except httpx.HTTPError as exc:
                    if self._abandoned(client, scope):  # close() ended the call: no retry
                        raise ClientClosedError(f"POST {shown_url(url)} abandoned: the client was "
                                                "closed while it waited") from exc
                    decision = _decide_exception(exc, url, retry_number, self.retry,
                                                 self._rng, self.retry_timeouts,
                                                 timeout or self.timeout)
                    cause: BaseException = exc
                else:
                    if response.is_success:
                        return read(response)
                    decision = _decide_response(response, retry_number, self.retry,
                                                self._rng, final)
                    cause = decision.error
                if not decision.retry:
                    raise decision.error from (None if cause is decision.error else cause)
                self._log_retry(decision, retry_number)
                if scope is not None and self._sleep is time.sleep:
                    scope.wait(decision.delay)  # a cancel ends the pause; the loop stops
                else:
                    self._sleep(decision.delay)
                retry_number += 1

    async def _send_async(self, path: str, body: Mapping[str, Any],
                          read: Callable[[httpx.Response], Any], timeout: float | None = None,
                          final: FinalError | None = None) -> Any:
        url = self.url(path)
        trial = self._guard(url)
        try:
            result = await self._send_loop_async(url, body, read, timeout, final)
        except BaseException as exc:
            self._outcome(trial, exc, final)
            raise
        self._outcome(trial, None, final)
        return result

    async def _send_loop_async(self, url: str, body: Mapping[str, Any],
                               read: Callable[[httpx.Response], Any], timeout: float | None,
                               final: FinalError | None) -> Any:
        import httpx

        wait = httpx.USE_CLIENT_DEFAULT if timeout is None else self._timeout(timeout)
        retry_number = 0
        # Made in a worker thread: its TLS context loads a CA bundle from disk, which
        # would block the loop on every call.
        made = await asyncio.to_thread(lambda: httpx.AsyncClient(**self._client_options()))
        async with made as client:
            while True:
                try:
                    collected = _Body(url, timeout or self.timeout)
                    async with client.stream("POST", self._wire(url), json=dict(body),
                                             timeout=wait) as response:
                        async for chunk in response.aiter_bytes():
                            collected.add(chunk)
                    collected.keep(response)
                except httpx.HTTPError as exc:
                    decision = _decide_exception(exc, url, retry_number, self.retry,
                                                 self._rng, self.retry_timeouts,
                                                 timeout or self.timeout)
                    cause: BaseException = exc
                else:
                    if response.is_success:
                        return read(response)
                    decision = _decide_response(response, retry_number, self.retry,
                                                self._rng, final)
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
        """Release pooled connections. Idempotent; a later call reopens a client. A call
        in flight on another thread ends with LlmConnectionError, without a retry."""
        with self._client_lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()
