"""An answer's time and size are bounded, whatever the server sends (an attack on the HTTP
layer shared by Llm, Embedder and Reranker).

httpx's timeouts bound each wait for the next bytes, not the whole answer, and httpx reads a
whole body into memory: a server that trickles a body, or sends a huge (or compressed,
expanding) one, held a call for as long as it liked, or grew the process without bound.
"""

from __future__ import annotations

import asyncio
import gzip
import socket
import threading
from collections.abc import Iterator

import pytest

from oracleagentmemory.core.llms import http_client
from oracleagentmemory.core.llms.errors import LlmResponseError, LlmTimeoutError
from oracleagentmemory.core.llms.http_client import HttpJsonClient, RetryPolicy
from tests.support.llm_server import Scripted

PATH = "chat/completions"
TRICKLE_FOR = 8.0
"""Seconds the trickling server keeps sending before it ends its (valid) answer."""


@pytest.fixture
def trickling_server() -> Iterator[str]:
    """Answers 200 with a JSON object whose bytes come one every 20 ms for TRICKLE_FOR
    seconds: no wait for the next bytes is long, the whole answer is."""
    stop = threading.Event()
    listener = socket.create_server(("127.0.0.1", 0))

    def serve(conn: socket.socket) -> None:
        with conn:
            request = b""
            while b"\r\n\r\n" not in request:
                piece = conn.recv(65536)
                if not piece:
                    return
                request += piece
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                             b"1\r\n{\r\n")
                for _ in range(int(TRICKLE_FOR / 0.02)):
                    if stop.wait(0.02):
                        return
                    conn.sendall(b"1\r\n \r\n")
                conn.sendall(b'8\r\n"a": 1}\r\n0\r\n\r\n')
            except OSError:  # the client gave up
                return

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    listener.close()


def test_a_trickled_answer_times_out_at_the_timeout(trickling_server):
    http = HttpJsonClient(trickling_server, timeout=0.5, retry=RetryPolicy(max_retries=0))
    with pytest.raises(LlmTimeoutError):
        http.post(PATH, {})
    with pytest.raises(LlmTimeoutError):
        http.post_events(PATH, {})


def test_a_trickled_answer_times_out_on_the_async_path_too(trickling_server):
    http = HttpJsonClient(trickling_server, timeout=0.5, retry=RetryPolicy(max_retries=0))
    with pytest.raises(LlmTimeoutError):
        asyncio.run(http.post_async(PATH, {}))


LIMIT = 1 << 20


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(http_client, "MAX_RESPONSE_BYTES", LIMIT, raising=False)


def padded(size: int) -> bytes:
    return b'{"pad": "' + b"a" * size + b'"}'


@pytest.mark.parametrize("headers, body", [
    ({}, padded(4 * LIMIT)),
    ({"Content-Encoding": "gzip"}, gzip.compress(padded(4 * LIMIT))),  # a few KB on the wire
], ids=["plain", "gzip"])
def test_an_answer_larger_than_the_limit_is_refused(llm_server, small_limit, headers, body):
    http = HttpJsonClient(llm_server.base_url, retry=RetryPolicy(max_retries=0))
    llm_server.enqueue(Scripted(body=body, headers=headers),
                       Scripted(body=body, headers=headers))
    with pytest.raises(LlmResponseError, match="larger than"):
        http.post(PATH, {})
    with pytest.raises(LlmResponseError, match="larger than"):
        asyncio.run(http.post_async(PATH, {}))


def test_an_answer_within_the_limit_is_read_whole(llm_server, small_limit):
    http = HttpJsonClient(llm_server.base_url, retry=RetryPolicy(max_retries=0))
    llm_server.enqueue(Scripted(body=padded(LIMIT // 2)))
    assert len(http.post(PATH, {})["pad"]) == LIMIT // 2
