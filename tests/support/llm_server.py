"""A real local HTTP server speaking chat completions, Responses and embeddings, scripted.

Why: the LLM and embedder adapters must be tested through a real socket and a real HTTP
client (timeouts, retries, dropped connections are transport behaviour), without the
internet. Tests queue answers; the server pops one per request (FIFO), records every
request, and serves 500 "no scripted response" when the queue is empty. It binds
127.0.0.1 on an ephemeral port and the ``llm_server`` fixture shuts it down.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Scripted:
    """One answer. ``body``: dict/list (sent as JSON), str/bytes (sent raw), or None.

    ``delay``: seconds to wait before answering (interrupted at shutdown). ``gate``: an
    event to wait for before answering. ``drop``: send headers and half the body, then
    close the connection. ``hang_up``: close the connection without any answer.
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    gate: threading.Event | None = None
    drop: bool = False
    hang_up: bool = False


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


def chat(content: str | None, **extra: Any) -> Scripted:
    """A successful chat completion whose assistant message is ``content``."""
    return Scripted(body={
        "id": "chatcmpl-test", "object": "chat.completion", "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        **extra,
    })


def chat_json(value: Any) -> Scripted:
    """A chat completion whose content is ``value`` serialised as JSON."""
    return chat(json.dumps(value))


def responses_answer(text: str, status: str = "completed") -> Scripted:
    """A successful Responses answer whose one message holds ``text`` (``output_text``)."""
    return Scripted(body={
        "id": "resp-test", "object": "response", "status": status, "model": "test-model",
        "output": [
            {"type": "reasoning", "id": "rs-test", "summary": []},
            {"type": "message", "id": "msg-test", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text, "annotations": []}]},
        ],
    })


def sse(*events: Any, done: bool = True) -> Scripted:
    """A server-sent-events body: one ``data:`` line per event, then ``[DONE]``."""
    lines = [f"data: {json.dumps(event)}\n\n" for event in events]
    if done:
        lines.append("data: [DONE]\n\n")
    return Scripted(body="".join(lines), headers={"Content-Type": "text/event-stream"})


def embeddings(vectors: Sequence[Sequence[float]], reverse: bool = False) -> Scripted:
    """A successful embeddings answer (``reverse`` lists items in reverse index order)."""
    data = [{"object": "embedding", "index": i, "embedding": list(v)}
            for i, v in enumerate(vectors)]
    if reverse:
        data.reverse()
    return Scripted(body={"object": "list", "data": data, "model": "test-embedder"})


def error(status: int, message: str = "scripted error", retry_after: str | None = None
          ) -> Scripted:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Scripted(status=status, headers=headers,
                    body={"error": {"message": message, "type": "test_error"}})


def malformed() -> Scripted:
    """A 200 answer whose body is not JSON."""
    return Scripted(body='{"choices": [ this is not json')


def dropped() -> Scripted:
    """Headers and half a body, then the connection is closed."""
    return Scripted(body={"choices": [{"message": {"content": "x" * 200}}]}, drop=True)


def hung_up() -> Scripted:
    """The connection is closed before any answer."""
    return Scripted(hang_up=True)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
        return

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = RecordedRequest("POST", self.path, dict(self.headers.items()), body)
        owner = self.server.owner
        answer = owner._next(request)
        if answer.gate is not None:
            answer.gate.wait(owner.max_wait)
        if answer.delay:
            owner._stopping.wait(answer.delay)
        if answer.hang_up:
            self._close_now()
            return
        if isinstance(answer.body, (dict, list)):
            payload = json.dumps(answer.body).encode()
        elif isinstance(answer.body, str):
            payload = answer.body.encode()
        else:
            payload = answer.body or b""
        try:
            self.send_response(answer.status)
            if "Content-Type" not in answer.headers:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.end_headers()
            if answer.drop:
                self.wfile.write(payload[: len(payload) // 2])
                self.wfile.flush()
                self._close_now()
                return
            self.wfile.write(payload)
        except OSError:  # the client gave up (timeout) before we answered
            self.close_connection = True

    def _close_now(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: ScriptedLlmServer


class ScriptedLlmServer:
    """Serves queued answers on ``base_url`` (``http://127.0.0.1:PORT/v1``)."""

    max_wait = 30.0
    """Upper bound of any gate wait, so a forgotten gate cannot hang the suite."""

    def __init__(self) -> None:
        self._answers: deque[Scripted] = deque()
        self._responder: Callable[[RecordedRequest], Scripted] | None = None
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.01}, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def enqueue(self, *answers: Scripted) -> None:
        with self._lock:
            self._answers.extend(answers)

    def respond_with(self, responder: Callable[[RecordedRequest], Scripted] | None) -> None:
        """Answer every request with ``responder(request)`` once the queue is empty."""
        self._responder = responder

    def _next(self, request: RecordedRequest) -> Scripted:
        with self._lock:
            self.requests.append(request)
            if self._answers:
                return self._answers.popleft()
        if self._responder is not None:
            return self._responder(request)
        return error(500, f"no scripted response for request {len(self.requests)}")

    def close(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def llm_server() -> Iterator[ScriptedLlmServer]:
    """A fresh scripted server per test, shut down afterwards."""
    server = ScriptedLlmServer()
    try:
        yield server
    finally:
        server.close()
