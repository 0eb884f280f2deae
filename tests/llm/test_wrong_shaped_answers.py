"""Every failure of a model call is an LlmError, whatever shape the answer has (an attack
on the answers of the HTTP layer): the library's steps catch LlmError to keep raw data, so
another exception escaped them."""

from __future__ import annotations

import asyncio

import pytest

from oracleagentmemory.core.llms import Llm
from oracleagentmemory.core.llms.errors import LlmHttpError, LlmResponseError
from oracleagentmemory.core.llms.http_client import HttpJsonClient, RetryPolicy
from tests.support.llm_server import Scripted, sse

DEEP = b"[" * 100_000 + b"]" * 100_000
"""Valid JSON nested deeper than Python's recursion limit."""


def test_a_deeply_nested_answer_is_a_response_error(llm_server):
    http = HttpJsonClient(llm_server.base_url, retry=RetryPolicy(max_retries=0))
    llm_server.enqueue(Scripted(body=DEEP), Scripted(body=DEEP))
    with pytest.raises(LlmResponseError):
        http.post("chat/completions", {})
    with pytest.raises(LlmResponseError):
        asyncio.run(http.post_async("chat/completions", {}))


def test_a_deeply_nested_error_answer_is_an_http_error(llm_server):
    http = HttpJsonClient(llm_server.base_url, retry=RetryPolicy(max_retries=0))
    llm_server.enqueue(Scripted(status=400, body=DEEP))
    with pytest.raises(LlmHttpError) as caught:
        http.post("chat/completions", {})
    assert caught.value.status_code == 400


def test_a_deeply_nested_streamed_event_is_a_response_error(llm_server):
    http = HttpJsonClient(llm_server.base_url, retry=RetryPolicy(max_retries=0))
    llm_server.enqueue(Scripted(body=b"data: " + DEEP + b"\n\ndata: [DONE]\n\n",
                                headers={"Content-Type": "text/event-stream"}))
    with pytest.raises(LlmResponseError):
        http.post_events("chat/completions", {})


@pytest.mark.parametrize("choices", [5, True])
def test_choices_that_are_not_a_list_are_a_response_error(llm_server, choices):
    llm = Llm("m", api_base=llm_server.base_url, max_retries=0)
    llm_server.enqueue(Scripted(body={"choices": choices}))
    with pytest.raises(LlmResponseError):
        llm.generate("hi")


@pytest.mark.parametrize("choices", [5, True])
def test_streamed_choices_that_are_not_a_list_are_a_response_error(llm_server, choices):
    llm = Llm("m", api_base=llm_server.base_url, max_retries=0, stream=True)
    llm_server.enqueue(sse({"choices": choices}))
    with pytest.raises(LlmResponseError):
        llm.generate("hi")
    llm_server.enqueue(sse({"choices": choices}))
    with pytest.raises(LlmResponseError):
        asyncio.run(llm.generate_async("hi"))
