"""Requests go where the caller named the server, and only there; a missing key is named.

``Llm(model, base_url=...)`` (the OpenAI SDK's and LiteLLM's spelling) used to be taken as a
request field: every request went to https://api.openai.com/v1 with the user's key, and the
conversation left the machine although a local server was named. And the README's snippet
without ``OPENAI_API_KEY`` sent a request that could only fail, retried it, and ended in a
chained ``LlmConnectionError`` that named no variable.

Every test here runs with a trap for any other destination: HTTP(S)_PROXY points at a local
listener that records what reaches it (loopback stays direct), so a request meant for any
other host is caught on this machine instead of leaving it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Iterator

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.core.embedders import Embedder
from oracleagentmemory.core.llms import Llm, LlmMissingKeyError
from tests.support.llm_server import ScriptedLlmServer, chat, embeddings


class Trap:
    """A listener on 127.0.0.1 that records the first line of every request reaching it
    and closes the connection: as a proxy, it catches a request to any other host."""

    def __init__(self) -> None:
        self.caught: list[str] = []
        self._socket = socket.create_server(("127.0.0.1", 0))
        self._socket.settimeout(0.05)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._socket.getsockname()[1]}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._socket.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(5)
                with contextlib.suppress(OSError):
                    self.caught.append(connection.recv(4096).split(b"\r\n", 1)[0].decode())

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._socket.close()


@pytest.fixture
def trap(monkeypatch: pytest.MonkeyPatch) -> Iterator[Trap]:
    caught = Trap()
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):
        monkeypatch.setenv(name, caught.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-users-own-key")
    try:
        yield caught
    finally:
        caught.close()


def test_base_url_is_where_the_requests_go_without_the_providers_key(
        llm_server: ScriptedLlmServer, trap: Trap) -> None:
    llm_server.enqueue(chat("hello"))
    llm = Llm("openai/gpt-4o-mini", base_url=llm_server.base_url, max_retries=0)
    assert llm.generate("hi").text == "hello"
    assert trap.caught == []
    (request,) = llm_server.requests
    assert "base_url" not in request.body
    assert "authorization" not in {name.lower() for name in request.headers}


def test_an_embedder_takes_base_url_too(llm_server: ScriptedLlmServer, trap: Trap) -> None:
    llm_server.enqueue(embeddings([[1.0, 0.0]]))
    embedder = Embedder("openai/text-embedding-3-small", base_url=llm_server.base_url,
                        max_retries=0)
    assert embedder.embed(["hi"]).shape == (1, 2)
    assert trap.caught == [] and len(llm_server.requests) == 1


@pytest.mark.parametrize("keyword", ["api_url", "openai_api_base", "url", "host",
                                     "endpoint", "server_url", "API_BASE"])
def test_a_keyword_naming_another_location_is_refused_before_any_request(
        llm_server: ScriptedLlmServer, trap: Trap, keyword: str) -> None:
    for model_class, model in ((Llm, "gpt-4o-mini"), (Embedder, "text-embedding-3-small")):
        with pytest.raises(ValueError, match=rf"unknown argument '{keyword}': name the server "
                                             "with api_base"):
            model_class(model, **{keyword: llm_server.base_url})
    assert trap.caught == [] and llm_server.requests == []


def test_api_base_and_base_url_naming_two_servers_are_refused(
        llm_server: ScriptedLlmServer, trap: Trap) -> None:
    with pytest.raises(ValueError, match="api_base .* and base_url .* name two servers"):
        Llm("gpt-4o-mini", api_base=llm_server.base_url, base_url="http://127.0.0.1:9/v1")
    same = Llm("gpt-4o-mini", api_base=llm_server.base_url, base_url=llm_server.base_url)
    assert same.http.base_url == llm_server.base_url


def test_request_fields_still_go_in_the_body(llm_server: ScriptedLlmServer,
                                             trap: Trap) -> None:
    llm_server.enqueue(chat("ok"))
    llm = Llm("gpt-4o-mini", api_base=llm_server.base_url, user="alice", seed=7,
              max_retries=0)
    llm.generate("hi")
    assert llm_server.requests[0].body["user"] == "alice"
    assert llm_server.requests[0].body["seed"] == 7


def test_without_a_key_the_first_call_names_the_variable_and_sends_nothing(
        trap: Trap, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's "Use a real LLM" snippet without OPENAI_API_KEY: one error, at once."""
    monkeypatch.delenv("OPENAI_API_KEY")
    llm = Llm("openai/gpt-4o-mini")
    with pytest.raises(LlmMissingKeyError, match="set OPENAI_API_KEY") as raised:
        llm.generate("hi")
    assert raised.value.__cause__ is None and raised.value.__context__ is None
    assert "\n" not in str(raised.value)
    with pytest.raises(LlmMissingKeyError, match="set OPENAI_API_KEY"):
        OracleAgentMemory(connection=":memory:", llm=llm,
                          embedder=Embedder("openai/text-embedding-3-small"))
    assert trap.caught == []


def test_the_async_call_fails_the_same_way(trap: Trap,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(LlmMissingKeyError, match="set OPENAI_API_KEY"):
        asyncio.run(Llm("gpt-4o-mini").generate_async("hi"))
    assert trap.caught == []


def test_an_explicit_none_key_or_another_server_needs_no_key(
        llm_server: ScriptedLlmServer, trap: Trap, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    llm_server.enqueue(chat("one"), chat("two"))
    assert Llm("gpt-4o-mini", api_base=llm_server.base_url).generate("hi").text == "one"
    assert Llm("ollama/llama3.1", api_base=llm_server.base_url).generate("hi").text == "two"
    assert trap.caught == []
