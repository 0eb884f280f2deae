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
import re
import select
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


# -- what small local models answer: scripted copies of real failures ----------


def bare_numbers() -> Scripted:
    """JSON mode on a weak model: the numbers of the transcript lines, as memories."""
    return chat(json.dumps({"memories": ["1", "2", "3", "4"]}))


def wrong_keys() -> Scripted:
    """Memories under other keys than the prompt asked for."""
    return chat(json.dumps({"facts": [{"text": "The user likes tea.", "kind": "fact"}]}))


def wrong_item_keys() -> Scripted:
    """The right list, items with keys of the model's own."""
    return chat(json.dumps({"memories": [{"text": "The user likes tea.", "kind": "fact"},
                                         {"memory": "The user lives in Lyon."}]}))


def user_prompt(request: RecordedRequest) -> str:
    """The text of the request's last message (the part carrying the stored data)."""
    content = request.body["messages"][-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


def system_prompt(request: RecordedRequest) -> str:
    content = request.body["messages"][0]["content"]
    return content if isinstance(content, str) else ""


def echo_prompt(request: RecordedRequest) -> Scripted:
    """The model repeats the prompt it was given, after a word of its own."""
    return chat("Sure. " + user_prompt(request))


def echo_example_json(request: RecordedRequest) -> Scripted:
    """The model answers with the JSON example of the instructions, as they stand."""
    example = next((line for line in system_prompt(request).splitlines()
                    if line.startswith("{") and "content" in line), "{}")
    return chat(example)


def echo_illustrations(request: RecordedRequest) -> Scripted:
    """The model lists the quoted example sentences of the instructions as memories."""
    sentences = re.findall(r'"([A-Z][^"]*\.)"', system_prompt(request))
    return chat(json.dumps({"memories": [{"content": sentence, "type": "fact",
                                          "source_messages": [1]} for sentence in sentences]}))


def _asks_for_json_schema(request: RecordedRequest) -> bool:
    body = request.body if isinstance(request.body, dict) else {}
    output = body.get("response_format") or (body.get("text") or {}).get("format") or {}
    return isinstance(output, dict) and output.get("type") == "json_schema"


def refusing_json_schema(answer: Callable[[RecordedRequest], Scripted], status: int = 500
                         ) -> Callable[[RecordedRequest], Scripted]:
    """A responder that fails ``json_schema`` requests with ``status`` (naming the format,
    as llama.cpp does for a grammar it cannot build) and answers the others."""
    def respond(request: RecordedRequest) -> Scripted:
        if _asks_for_json_schema(request):
            return error(status, "response_format json_schema: failed to parse grammar")
        return answer(request)
    return respond


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
        return

    def setup(self) -> None:
        super().setup()
        self.server.owner._connection_opened()

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.owner._connection_closed()

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
        with owner._slot():
            self._answer(owner, answer)

    def _answer(self, owner: ScriptedLlmServer, answer: Scripted) -> None:
        if answer.gate is not None:
            answer.gate.wait(owner.max_wait)
        if answer.delay:
            owner._stopping.wait(answer.delay)
        if answer.hang_up:
            self._close_now()
            return
        if self._client_gone():  # it stopped waiting: the "generation" was for nobody
            owner._abandoned()
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

    def _client_gone(self) -> bool:
        readable, _, _ = select.select([self.connection], [], [], 0)
        if not readable:
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _close_now(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: ScriptedLlmServer


class ScriptedLlmServer:
    """Serves queued answers on ``base_url`` (``http://127.0.0.1:PORT/v1``).

    ``slots=1`` serves one request at a time, as a local llama.cpp server with one slot
    does: an answer the client stopped waiting for still holds the slot until it is
    "generated" (its gate opens or its delay ends), and later requests queue behind it.
    ``abandoned`` counts answers whose client had gone when they were ready.
    """

    max_wait = 30.0
    """Upper bound of any gate wait, so a forgotten gate cannot hang the suite."""

    def __init__(self, slots: int | None = None) -> None:
        self._slots = threading.BoundedSemaphore(slots) if slots else None
        self.abandoned = 0
        self.open_connections = 0
        self._connections = threading.Condition()
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

    @contextlib.contextmanager
    def _slot(self) -> Iterator[None]:
        if self._slots is None:
            yield
            return
        with self._slots:
            yield

    def _connection_opened(self) -> None:
        with self._connections:
            self.open_connections += 1

    def _connection_closed(self) -> None:
        with self._connections:
            self.open_connections -= 1
            self._connections.notify_all()

    def wait_until_no_connections(self, timeout: float) -> bool:
        """True once every client connection is closed (keep-alive ones included)."""
        with self._connections:
            return self._connections.wait_for(lambda: self.open_connections == 0, timeout)

    def _abandoned(self) -> None:
        with self._lock:
            self.abandoned += 1

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
