"""A scripted chat-completions server that answers each kind of request the thread makes."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.core.llms import Llm
from oracleagentmemory.core.llms.http_client import HttpJsonClient, RetryPolicy
from tests.support.embedders import HashingEmbedder
from tests.support.llm_server import RecordedRequest, Scripted, chat, llm_server  # noqa: F401


def kind_of(request: RecordedRequest) -> str:
    """Which of the library's prompts this request carries."""
    messages = request.body["messages"]
    first = messages[0]["content"]
    if isinstance(first, list):
        return "caption"
    for marker, kind in (("You extract long-term memories", "extract"),
                         ("running summary", "summary"), ("You list the topics", "topics"),
                         ("NEW memory", "link"), ("condense one chat message", "shorten")):
        if marker in first:
            return kind
    return "unknown"


class Script:
    """Per-kind answers; a kind may map to a Scripted or a function of the request."""

    def __init__(self) -> None:
        self.answers: dict[str, Callable[[RecordedRequest], Scripted]] = {
            "extract": lambda r: chat(json.dumps({"memories": []})),
            "summary": lambda r: chat("The user talks about travel."),
            "topics": lambda r: chat(json.dumps({"topics": ["travel"]})),
            "link": lambda r: chat(json.dumps({"links": []})),
            "caption": lambda r: chat("A red square."),
            "shorten": lambda r: chat("short"),
        }
        self.seen: list[str] = []

    def set(self, kind: str, answer: Scripted | Callable[[RecordedRequest], Scripted]) -> None:
        self.answers[kind] = answer if callable(answer) else (lambda r, a=answer: a)

    def __call__(self, request: RecordedRequest) -> Scripted:
        kind = kind_of(request)
        self.seen.append(kind)
        return self.answers[kind](request)


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")


@pytest.fixture
def script(llm_server) -> Script:  # noqa: F811
    script = Script()
    llm_server.respond_with(script)
    return script


@pytest.fixture
def make_client(llm_server, script):  # noqa: F811
    made = []

    def factory(timeout: float = 5.0, max_retries: int = 1, **client_options):
        http = HttpJsonClient(llm_server.base_url, timeout=timeout,
                              retry=RetryPolicy(max_retries=max_retries),
                              sleep=lambda seconds: None)
        llm = Llm("test-model", api_base=llm_server.base_url, timeout=timeout)
        llm.http = http
        client_options.setdefault("embedder", HashingEmbedder())
        client = OracleAgentMemory(connection=":memory:", llm=llm, **client_options)
        made.append((client, llm))
        return client

    yield factory
    for client, llm in made:
        client.close()
        llm.close()
