"""The OpenAI-compatible chat client against a real local HTTP server with scripted answers."""

from __future__ import annotations

import asyncio
import logging
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.core.llms import (
    LlmConnectionError,
    LlmError,
    LlmHttpError,
    LlmResponseError,
    LlmTimeoutError,
    OpenAICompatibleLlm,
    RetryPolicy,
)
from oracleagentmemory.core.llms.http_client import HttpJsonClient, parse_retry_after
from tests.support.llm_server import (
    Scripted,
    chat,
    dropped,
    error,
    hung_up,
    malformed,
)

HELLO = [{"role": "user", "content": "Hello"}]


def test_generate_sends_the_chat_completions_request_and_returns_the_text(llm_server):
    llm_server.enqueue(chat("Hi there"))
    llm = OpenAICompatibleLlm("my-model", base_url=llm_server.base_url + "/", api_key="sk-1",
                              default_options={"temperature": 0})
    assert isinstance(llm, ILlm)
    assert llm.generate(HELLO, max_tokens=50) == "Hi there"
    request = llm_server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == "Bearer sk-1"
    assert request.body == {"model": "my-model", "messages": HELLO, "temperature": 0,
                            "max_tokens": 50}
    llm.close()
    llm.close()  # idempotent


def test_api_key_comes_from_the_named_environment_variable(llm_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-default")
    monkeypatch.setenv("MY_GATEWAY_KEY", "sk-gateway")
    llm_server.enqueue(chat("a"), chat("b"), chat("c"))
    OpenAICompatibleLlm("m", base_url=llm_server.base_url).generate(HELLO)
    OpenAICompatibleLlm("m", base_url=llm_server.base_url,
                        api_key_env="MY_GATEWAY_KEY").generate(HELLO)
    OpenAICompatibleLlm("m", base_url=llm_server.base_url, api_key_env=None).generate(HELLO)
    headers = [r.headers for r in llm_server.requests]
    assert headers[0]["Authorization"] == "Bearer sk-default"
    assert headers[1]["Authorization"] == "Bearer sk-gateway"
    assert "Authorization" not in headers[2]  # local servers (Ollama, llama.cpp) need none


def test_a_500_is_retried_after_a_backoff_then_succeeds(llm_server, llm, sleeps):
    llm_server.enqueue(error(500), chat("recovered"))
    assert llm.generate(HELLO) == "recovered"
    assert len(llm_server.requests) == 2
    assert len(sleeps) == 1
    assert 0.25 <= sleeps[0] <= 0.5  # first step of 0.5 s, jittered to 50-100 %


def test_a_429_waits_for_the_servers_retry_after(llm_server, llm, sleeps):
    llm_server.enqueue(error(429, "slow down", retry_after="7"), chat("ok"))
    assert llm.generate(HELLO) == "ok"
    assert sleeps == [7.0]


def test_a_retry_after_longer_than_the_client_waits_ends_the_retries(llm_server, make_llm,
                                                                      sleeps):
    llm_server.enqueue(error(429, "quota", retry_after="3600"), chat("never sent"))
    with pytest.raises(LlmHttpError) as caught:
        make_llm(max_retry_after=60).generate(HELLO)
    assert caught.value.status_code == 429
    assert "3600" in str(caught.value)
    assert len(llm_server.requests) == 1
    assert sleeps == []


def test_retries_are_bounded_and_the_last_error_is_raised(llm_server, make_llm, sleeps):
    llm_server.enqueue(*[error(503, "overloaded")] * 5)
    with pytest.raises(LlmHttpError, match="HTTP 503: overloaded") as caught:
        make_llm(max_retries=2).generate(HELLO)
    assert caught.value.status_code == 503
    assert len(llm_server.requests) == 3
    assert len(sleeps) == 2
    assert sleeps[1] >= 0.5  # exponential: the second step is 1 s, jittered to >= 0.5 s


def test_a_client_error_is_not_retried(llm_server, llm, sleeps):
    llm_server.enqueue(error(401, "invalid api key"), chat("unused"))
    with pytest.raises(LlmHttpError, match="invalid api key") as caught:
        llm.generate(HELLO)
    assert caught.value.status_code == 401
    assert len(llm_server.requests) == 1
    assert sleeps == []


def test_a_slow_answer_times_out(llm_server, make_llm):
    llm_server.enqueue(Scripted(delay=10, body={}))
    with pytest.raises(LlmTimeoutError) as caught:
        make_llm(max_retries=0, timeout=0.2).generate(HELLO)
    assert isinstance(caught.value, TimeoutError)  # catchable as the builtin too


def test_a_timeout_is_retried(llm_server, make_llm):
    llm_server.enqueue(Scripted(delay=10, body={}), chat("fast this time"))
    assert make_llm(max_retries=1, timeout=0.2).generate(HELLO) == "fast this time"


def test_a_connection_dropped_mid_answer_is_retried(llm_server, llm):
    llm_server.enqueue(dropped(), hung_up(), chat("third time lucky"))
    assert llm.generate(HELLO) == "third time lucky"
    assert len(llm_server.requests) == 3


def test_dropped_connections_beyond_the_retries_raise_a_connection_error(llm_server,
                                                                         make_llm):
    llm_server.enqueue(dropped(), dropped())
    with pytest.raises(LlmConnectionError):
        make_llm(max_retries=1).generate(HELLO)


def test_a_malformed_json_body_is_a_response_error_and_not_retried(llm_server, llm):
    llm_server.enqueue(malformed(), chat("unused"))
    with pytest.raises(LlmResponseError, match="not JSON"):
        llm.generate(HELLO)
    assert len(llm_server.requests) == 1


@pytest.mark.parametrize("body", [{"choices": []}, {"unexpected": True},
                                  {"choices": [{"message": {"content": None},
                                                "finish_reason": "content_filter"}]}])
def test_an_answer_without_text_is_a_response_error(llm_server, llm, body):
    llm_server.enqueue(Scripted(body=body))
    with pytest.raises(LlmResponseError):
        llm.generate(HELLO)


def test_content_parts_are_joined(llm_server, llm):
    llm_server.enqueue(Scripted(body={"choices": [{"message": {"content": [
        {"type": "text", "text": "Hello "}, {"type": "text", "text": "world"}]}}]}))
    assert llm.generate(HELLO) == "Hello world"


def test_json_mode_is_requested_and_dropped_when_the_server_rejects_it(llm_server, llm,
                                                                       caplog):
    llm_server.enqueue(error(400, "response_format is not supported"), chat('{"a": 1}'),
                       chat('{"b": 2}'))
    with caplog.at_level(logging.INFO):
        assert llm.generate(HELLO, response_format={"type": "json_object"}) == '{"a": 1}'
    assert llm.generate(HELLO, response_format={"type": "json_object"}) == '{"b": 2}'
    sent = [r.body.get("response_format") for r in llm_server.requests]
    assert sent == [{"type": "json_object"}, None, None]
    assert llm.json_mode_supported is False
    assert "rejected response_format" in caplog.text


def test_json_mode_can_be_disabled_up_front(llm_server, make_llm):
    llm_server.enqueue(chat("{}"))
    make_llm(json_mode=False).generate(HELLO, response_format={"type": "json_object"})
    assert "response_format" not in llm_server.requests[0].body


def test_a_400_without_json_mode_is_raised(llm_server, llm):
    llm_server.enqueue(error(400, "context length exceeded"))
    with pytest.raises(LlmHttpError, match="context length exceeded"):
        llm.generate(HELLO)
    assert len(llm_server.requests) == 1


def test_generate_async_retries_with_the_same_policy(llm_server, llm, sleeps):
    llm_server.enqueue(error(502), chat("async answer"))
    assert asyncio.run(llm.generate_async(HELLO)) == "async answer"
    assert len(llm_server.requests) == 2
    assert len(sleeps) == 1


def test_generate_async_times_out_and_maps_errors(llm_server, make_llm):
    llm_server.enqueue(Scripted(delay=10, body={}))
    with pytest.raises(LlmTimeoutError):
        asyncio.run(make_llm(max_retries=0, timeout=0.2).generate_async(HELLO))
    llm_server.enqueue(error(404, "model not found"))
    with pytest.raises(LlmHttpError, match="model not found"):
        asyncio.run(make_llm(max_retries=0).generate_async(HELLO))


def test_generate_async_falls_back_without_json_mode(llm_server, llm):
    llm_server.enqueue(error(422, "unknown field response_format"), chat("[]"))
    answer = asyncio.run(llm.generate_async(HELLO, response_format={"type": "json_object"}))
    assert answer == "[]"
    assert "response_format" not in llm_server.requests[1].body


def test_every_failure_is_an_llm_error(llm_server, make_llm):
    llm = make_llm(max_retries=0, timeout=0.2)
    llm_server.enqueue(Scripted(delay=10, body={}), error(500), dropped(), malformed())
    for _ in range(4):
        with pytest.raises(LlmError):
            llm.generate(HELLO)


def test_an_unreachable_server_is_a_connection_error():
    http = HttpJsonClient("http://127.0.0.1:9/v1", retry=RetryPolicy(max_retries=1),
                          sleep=lambda seconds: None)
    with pytest.raises(LlmConnectionError):
        OpenAICompatibleLlm("m", http=http).generate(HELLO)


def test_a_closed_client_reopens_on_the_next_call(llm_server, llm):
    llm_server.enqueue(chat("one"), chat("two"))
    assert llm.generate(HELLO) == "one"
    llm.close()
    assert llm.generate(HELLO) == "two"


def test_concurrent_calls_share_the_client(llm_server, llm):
    llm_server.respond_with(lambda request: chat(request.body["messages"][0]["content"]))
    prompts = [[{"role": "user", "content": f"q{i}"}] for i in range(8)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(llm.generate, prompts))
    assert answers == [f"q{i}" for i in range(8)]


def test_backoff_grows_exponentially_with_jitter_and_is_capped():
    policy = RetryPolicy(initial_backoff=1.0, max_backoff=5.0)
    rng = random.Random(1)
    for retry_number, step in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 5.0), (8, 5.0)]:
        delays = {policy.backoff(retry_number, rng) for _ in range(20)}
        assert all(step / 2 <= delay <= step for delay in delays)
        assert len(delays) > 1  # jittered


def test_retry_after_accepts_seconds_and_http_dates():
    assert parse_retry_after("12") == 12.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT",
                             now=1445412480.0) == pytest.approx(10.0)
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412490.0) == 0.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


@pytest.mark.parametrize("kwargs", [{"max_retries": -1}, {"initial_backoff": -1.0}])
def test_retry_policy_rejects_negative_values(kwargs):
    with pytest.raises(ValueError):
        RetryPolicy(**kwargs)


def test_constructor_rejects_missing_model_and_url():
    with pytest.raises(ValueError, match="model"):
        OpenAICompatibleLlm("")
    with pytest.raises(ValueError, match="base_url"):
        OpenAICompatibleLlm("m", base_url=" ")
    with pytest.raises(ValueError, match="base_url"):
        OpenAICompatibleLlm("m", base_url="localhost:11434/v1")  # no scheme
