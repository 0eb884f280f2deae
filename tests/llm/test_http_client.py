"""The HTTP layer shared by Llm and Embedder, against a real local server with scripted answers."""

from __future__ import annotations

import asyncio
import random
import ssl
import threading
from concurrent.futures import ThreadPoolExecutor

import certifi
import pytest

from oracleagentmemory.core.llms.errors import (
    LlmConnectionError,
    LlmError,
    LlmHttpError,
    LlmResponseError,
    LlmTimeoutError,
)
from oracleagentmemory.core.llms.http_client import (
    ConnectionOptions,
    HttpJsonClient,
    RetryPolicy,
    parse_retry_after,
)
from tests.support.llm_server import (
    Scripted,
    chat,
    dropped,
    error,
    hung_up,
    malformed,
    sse,
)

HELLO = {"model": "m", "messages": [{"role": "user", "content": "Hello"}]}
PATH = "chat/completions"


def answer(payload: dict) -> str:
    return payload["choices"][0]["message"]["content"]


@pytest.fixture
def http(make_http):
    """3 retries, waits recorded, not slept."""
    return make_http()


def test_a_500_is_retried_after_a_backoff_then_succeeds(llm_server, http, sleeps):
    llm_server.enqueue(error(500), chat("recovered"))
    assert answer(http.post(PATH, HELLO)) == "recovered"
    assert len(llm_server.requests) == 2
    assert len(sleeps) == 1
    assert 0.25 <= sleeps[0] <= 0.5  # first step of 0.5 s, jittered to 50-100 %


def test_a_429_waits_for_the_servers_retry_after(llm_server, http, sleeps):
    llm_server.enqueue(error(429, "slow down", retry_after="7"), chat("ok"))
    assert answer(http.post(PATH, HELLO)) == "ok"
    assert sleeps == [7.0]


def test_a_retry_after_longer_than_the_client_waits_ends_the_retries(llm_server, make_http,
                                                                      sleeps):
    llm_server.enqueue(error(429, "quota", retry_after="3600"), chat("never sent"))
    with pytest.raises(LlmHttpError) as caught:
        make_http(max_retry_after=60).post(PATH, HELLO)
    assert caught.value.status_code == 429
    assert "3600" in str(caught.value)
    assert len(llm_server.requests) == 1
    assert sleeps == []


def test_retries_are_bounded_and_the_last_error_is_raised(llm_server, make_http, sleeps):
    llm_server.enqueue(*[error(503, "overloaded")] * 5)
    with pytest.raises(LlmHttpError, match="HTTP 503: overloaded") as caught:
        make_http(max_retries=2).post(PATH, HELLO)
    assert caught.value.status_code == 503
    assert len(llm_server.requests) == 3
    assert len(sleeps) == 2
    assert sleeps[1] >= 0.5  # exponential: the second step is 1 s, jittered to >= 0.5 s


def test_a_client_error_is_not_retried(llm_server, http, sleeps):
    llm_server.enqueue(error(401, "invalid api key"), chat("unused"))
    with pytest.raises(LlmHttpError, match="invalid api key") as caught:
        http.post(PATH, HELLO)
    assert caught.value.status_code == 401
    assert len(llm_server.requests) == 1
    assert sleeps == []


def test_a_slow_answer_times_out(llm_server, make_http):
    llm_server.enqueue(Scripted(delay=10, body={}))
    with pytest.raises(LlmTimeoutError) as caught:
        make_http(max_retries=0, timeout=0.2).post(PATH, HELLO)
    assert isinstance(caught.value, TimeoutError)  # catchable as the builtin too


def test_a_timeout_is_retried(llm_server, make_http):
    llm_server.enqueue(Scripted(delay=10, body={}), chat("fast this time"))
    assert answer(make_http(max_retries=1, timeout=0.2).post(PATH, HELLO)) == "fast this time"


def test_a_connection_dropped_mid_answer_is_retried(llm_server, http):
    llm_server.enqueue(dropped(), hung_up(), chat("third time lucky"))
    assert answer(http.post(PATH, HELLO)) == "third time lucky"
    assert len(llm_server.requests) == 3


def test_dropped_connections_beyond_the_retries_raise_a_connection_error(llm_server,
                                                                         make_http):
    llm_server.enqueue(dropped(), dropped())
    with pytest.raises(LlmConnectionError):
        make_http(max_retries=1).post(PATH, HELLO)


def test_a_malformed_json_body_is_a_response_error_and_not_retried(llm_server, http):
    llm_server.enqueue(malformed(), chat("unused"))
    with pytest.raises(LlmResponseError, match="not JSON"):
        http.post(PATH, HELLO)
    assert len(llm_server.requests) == 1


def test_generate_async_retries_with_the_same_policy(llm_server, http, sleeps):
    llm_server.enqueue(error(502), chat("async answer"))
    assert answer(asyncio.run(http.post_async(PATH, HELLO))) == "async answer"
    assert len(llm_server.requests) == 2
    assert len(sleeps) == 1


def test_generate_async_times_out_and_maps_errors(llm_server, make_http):
    llm_server.enqueue(Scripted(delay=10, body={}))
    with pytest.raises(LlmTimeoutError):
        asyncio.run(make_http(max_retries=0, timeout=0.2).post_async(PATH, HELLO))
    llm_server.enqueue(error(404, "model not found"))
    with pytest.raises(LlmHttpError, match="model not found"):
        asyncio.run(make_http(max_retries=0).post_async(PATH, HELLO))


def test_every_failure_is_an_llm_error(llm_server, make_http):
    http = make_http(max_retries=0, timeout=0.2)
    llm_server.enqueue(Scripted(delay=10, body={}), error(500), dropped(), malformed())
    for _ in range(4):
        with pytest.raises(LlmError):
            http.post(PATH, HELLO)


def test_an_unreachable_server_is_a_connection_error():
    http = HttpJsonClient("http://127.0.0.1:9/v1", retry=RetryPolicy(max_retries=1),
                          sleep=lambda seconds: None)
    with pytest.raises(LlmConnectionError):
        http.post(PATH, HELLO)


def test_a_closed_client_reopens_on_the_next_call(llm_server, http):
    llm_server.enqueue(chat("one"), chat("two"))
    assert answer(http.post(PATH, HELLO)) == "one"
    http.close()
    assert answer(http.post(PATH, HELLO)) == "two"


def test_concurrent_calls_share_the_client(llm_server, http):
    llm_server.respond_with(lambda request: chat(request.body["messages"][0]["content"]))
    bodies = [{"messages": [{"role": "user", "content": f"q{i}"}]} for i in range(8)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = [answer(payload) for payload in pool.map(lambda b: http.post(PATH, b), bodies)]
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




def test_base_url_must_be_an_http_url():
    for bad in (" ", "localhost:11434/v1", None):
        with pytest.raises(ValueError, match="base_url"):
            HttpJsonClient(bad)  # type: ignore[arg-type]


def test_streamed_events_are_decoded_in_order(llm_server, http):
    llm_server.enqueue(sse({"n": 1}, {"n": 2}))
    assert http.post_events(PATH, HELLO) == [{"n": 1}, {"n": 2}]


def test_an_event_split_over_data_lines_is_joined_and_done_ends_the_stream(llm_server, http):
    body = 'event: message\ndata: {"a":\ndata: 1}\n\ndata: [DONE]\n\ndata: {"late": true}\n\n'
    llm_server.enqueue(Scripted(body=body))
    assert asyncio.run(http.post_events_async(PATH, HELLO)) == [{"a": 1}]


def test_a_streamed_event_that_is_not_json_is_a_response_error(llm_server, http):
    llm_server.enqueue(Scripted(body="data: {oops\n\n"))
    with pytest.raises(LlmResponseError, match="not JSON"):
        http.post_events(PATH, HELLO)


def test_a_stream_error_status_is_retried_like_any_request(llm_server, http, sleeps):
    llm_server.enqueue(error(503), sse({"n": 1}))
    assert http.post_events(PATH, HELLO) == [{"n": 1}]
    assert len(sleeps) == 1


def test_an_explicit_proxy_receives_the_request_for_the_target_url(llm_server):
    proxy = llm_server.base_url.removesuffix("/v1")
    http = HttpJsonClient("http://llm.invalid/v1", retry=RetryPolicy(max_retries=0),
                          connection=ConnectionOptions(proxy=proxy))
    llm_server.enqueue(chat("through the proxy"))
    assert answer(http.post(PATH, HELLO)) == "through the proxy"
    assert llm_server.requests[0].path == "http://llm.invalid/v1/chat/completions"
    http.close()


def test_a_ca_file_replaces_the_default_verification(tmp_path):
    options = ConnectionOptions(ca_file=certifi.where()).httpx_options()
    assert isinstance(options["verify"], ssl.SSLContext)
    assert ConnectionOptions().httpx_options()["verify"] is True
    assert ConnectionOptions(trust_env=False).httpx_options()["trust_env"] is False


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"ca_file": "/no/such/ca.pem"}, "ca_file"),
    ({"cert_file": "/no/such/cert.pem"}, "cert_file"),
    ({"key_file": __file__}, "key_file needs cert_file"),
    ({"proxy": " "}, "proxy"),
])
def test_bad_connection_options_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        ConnectionOptions(**kwargs)
    with pytest.raises(TypeError, match="trust_env"):
        ConnectionOptions(trust_env="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("tls_files", [False, True], ids=["default-ca", "ca_file"])
def test_async_calls_build_no_tls_context_on_the_event_loop(llm_server, monkeypatch,
                                                             tls_files):
    """An async call makes its own httpx.AsyncClient (one is bound to one loop), whose
    TLS context loads a CA bundle from disk: done on the loop thread, every call blocked
    the loop that the async path is there to keep free (asyncio's debug mode flagged each
    call as a slow callback). Counted by where the CA bundles are loaded, not by timing:
    every httpx that pyproject allows loads one with load_verify_locations, where 0.27 and
    0.28 make the context with ssl.SSLContext, not ssl.create_default_context."""
    made_on: list[int] = []
    load = ssl.SSLContext.load_verify_locations

    def recording(self, *args, **kwargs):
        made_on.append(threading.get_ident())
        return load(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", recording)
    options = ConnectionOptions(ca_file=certifi.where()) if tls_files else None
    client = HttpJsonClient(llm_server.base_url, timeout=5.0, connection=options)
    llm_server.enqueue(chat("one"), sse({"choices": [{"delta": {"content": "two"}}]}))

    async def calls() -> int:
        loop_thread = threading.get_ident()
        await client.post_async(PATH, HELLO)
        await client.post_events_async(PATH, {**HELLO, "stream": True})
        return loop_thread

    loop_thread = asyncio.run(asyncio.wait_for(calls(), 20))
    assert made_on, "the calls made no TLS context: the test no longer sees them"
    assert loop_thread not in made_on
