"""Output caps, per-task timeouts, no retry of a timed-out generation, the circuit breaker.

The scripted server plays a small local model: a one-slot server (as llama.cpp with one
slot) that keeps "generating" an answer after the client stopped waiting, so a retry would
queue behind it. No test sleeps: answers wait on gates or scripted delays, clients use
short timeouts, and the breaker's clock is a variable the test moves.
"""

from __future__ import annotations

import json
import logging
import threading

import pytest

from oracleagentmemory.apis.llms.llm import ILlm, LlmResponse
from oracleagentmemory.apis.message import ImageMimeType, Message
from oracleagentmemory.core.extractors import (
    MemoryExtractor,
    caption_image,
    extract_topics,
    propose_links,
    summarize,
)
from oracleagentmemory.core.extractors.memoryextractionconfig import ResolvedExtractionConfig
from oracleagentmemory.core.llms import (
    Llm,
    LlmConnectionError,
    LlmHttpError,
    LlmTimeoutError,
    llm_from_env,
)
from tests.support.llm_server import (
    Scripted,
    ScriptedLlmServer,
    chat,
    chat_json,
    error,
)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
TEA = [Message("user", "I drink green tea every morning."), Message("assistant", "Noted.")]
CONFIG = ResolvedExtractionConfig()


@pytest.fixture
def one_slot():
    server = ScriptedLlmServer(slots=1)
    yield server
    server.close()


def run_every_task(llm: Llm, server: ScriptedLlmServer) -> dict[str, dict]:
    """One call of each library task; the request body each one sent, by task."""
    server.enqueue(chat("Condensed."), chat_json({"memories": []}), chat("A summary."),
                   chat_json({"topics": ["tea"]}), chat_json({"links": []}), chat("A square."))
    MemoryExtractor(llm).extract([Message("user", "tea " * 400)], None, CONFIG,
                                 max_message_token_length=100)
    summarize(llm, TEA)
    extract_topics(llm, TEA)
    propose_links(llm, "The user drinks tea.", [("a", "The user likes tea.")])
    caption_image(llm, PNG, ImageMimeType.PNG)
    names = ["shortening", "extraction", "summary", "topics", "linking", "caption"]
    return {name: request.body for name, request in zip(names, server.requests, strict=True)}


def test_every_library_call_carries_an_output_cap(llm_server):
    with Llm("test-model", api_base=llm_server.base_url, max_retries=0) as llm:
        bodies = run_every_task(llm, llm_server)
    for task, body in bodies.items():
        assert isinstance(body.get("max_tokens"), int), task
        assert 0 < body["max_tokens"] <= 4096, task
    assert bodies["shortening"]["max_tokens"] <= 100  # no longer than the length it asks for


def test_caps_are_set_per_task_or_for_every_call_in_code(llm_server):
    with Llm("test-model", api_base=llm_server.base_url, max_retries=0,
             max_tokens_by_task={"summary": 77, "topics": None}) as llm:
        bodies = run_every_task(llm, llm_server)
    assert bodies["summary"]["max_tokens"] == 77
    assert "max_tokens" not in bodies["topics"]  # None: no cap for this task
    assert bodies["extraction"]["max_tokens"] != 77
    llm_server.requests.clear()
    with Llm("test-model", api_base=llm_server.base_url, max_retries=0, max_tokens=321) as llm:
        bodies = run_every_task(llm, llm_server)
    assert {body["max_tokens"] for body in bodies.values()} == {321}


def test_caps_and_timeouts_are_set_by_environment(llm_server):
    llm = llm_from_env({
        "ORACLEAGENTMEMORY_LLM_BASE_URL": llm_server.base_url,
        "ORACLEAGENTMEMORY_LLM_MODEL": "m",
        "ORACLEAGENTMEMORY_LLM_MAX_TOKENS_SUMMARY": "99",
        "ORACLEAGENTMEMORY_LLM_TIMEOUT_TOPICS": "0.2",
        "ORACLEAGENTMEMORY_LLM_MAX_RETRIES": "0",
    })
    llm_server.enqueue(chat("A summary."))
    summarize(llm, TEA)
    assert llm_server.requests[0].body["max_tokens"] == 99
    llm_server.enqueue(Scripted(delay=3, body={}))
    with pytest.raises(LlmTimeoutError):
        extract_topics(llm, TEA)
    llm.close()


@pytest.mark.parametrize(("name", "value"), [
    ("ORACLEAGENTMEMORY_LLM_MAX_TOKENS_SUMMARY", "lots"),
    ("ORACLEAGENTMEMORY_LLM_MAX_TOKENS", "0"),
    ("ORACLEAGENTMEMORY_LLM_TIMEOUT_EXTRACTION", "-1"),
    ("ORACLEAGENTMEMORY_LLM_RETRY_TIMEOUTS", "perhaps"),
    ("ORACLEAGENTMEMORY_LLM_BREAKER_COOLDOWN", "0"),
])
def test_bad_variables_name_the_variable(name, value):
    with pytest.raises(ValueError, match=name):
        llm_from_env({"ORACLEAGENTMEMORY_LLM_BASE_URL": "http://127.0.0.1:1/v1",
                      "ORACLEAGENTMEMORY_LLM_MODEL": "m", name: value})


def test_timeouts_are_sized_per_task(llm_server):
    """The same slow answer times out the task given a short timeout, not another task."""
    with Llm("test-model", api_base=llm_server.base_url, max_retries=0,
             timeout_by_task={"topics": 0.2}, circuit_breaker_threshold=0) as llm:
        llm_server.enqueue(Scripted(delay=3, body={}))
        with pytest.raises(LlmTimeoutError):
            extract_topics(llm, TEA)
        llm_server.enqueue(Scripted(delay=0.5, body=chat("A summary.").body))
        assert summarize(llm, TEA) == "A summary."


def test_a_timed_out_generation_is_not_sent_again(one_slot):
    """The server keeps generating after the client gave up; a retry would queue behind
    it and cost another timeout."""
    gate = threading.Event()
    one_slot.enqueue(Scripted(gate=gate, body=chat("late").body))
    llm = Llm("test-model", api_base=one_slot.base_url, timeout=0.2, max_retries=3)
    try:
        with pytest.raises(LlmTimeoutError):
            summarize(llm, TEA)
        assert len(one_slot.requests) == 1
    finally:
        gate.set()
        llm.close()


def test_a_retry_of_a_timeout_happens_when_asked(llm_server):
    llm_server.enqueue(Scripted(delay=3, body={}), chat("second try"))
    with Llm("test-model", api_base=llm_server.base_url, timeout=0.2, max_retries=1,
             retry_timeouts=True, circuit_breaker_threshold=0) as llm:
        assert summarize(llm, TEA) == "second try"
    assert len(llm_server.requests) == 2


def test_an_unresponsive_endpoint_costs_one_timeout_not_one_per_call(one_slot, caplog):
    gate = threading.Event()
    one_slot.enqueue(Scripted(gate=gate, body=chat("late").body))
    llm = Llm("test-model", api_base=one_slot.base_url, timeout=0.2, max_retries=3)
    try:
        with caplog.at_level(logging.WARNING):
            with pytest.raises(LlmTimeoutError):
                summarize(llm, TEA)
            for call in (lambda: summarize(llm, TEA), lambda: extract_topics(llm, TEA),
                         lambda: MemoryExtractor(llm).extract(TEA, None, CONFIG)):
                with pytest.raises(LlmConnectionError, match="not sent"):
                    call()
        assert len(one_slot.requests) == 1
        assert "circuit breaker open" in caplog.text
    finally:
        gate.set()
        llm.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_the_breaker_lets_one_trial_through_after_its_cooldown(llm_server):
    from oracleagentmemory.core.llms.http_client import CircuitBreaker

    clock = Clock()
    llm = Llm("test-model", api_base=llm_server.base_url, max_retries=0)
    llm.http.breaker = CircuitBreaker(threshold=1, cooldown=10, clock=clock)
    llm_server.enqueue(error(503), error(503), chat("back"), chat("again"))
    with pytest.raises(LlmHttpError):
        llm.generate("x")
    clock.now += 5
    with pytest.raises(LlmConnectionError, match="not sent"):
        llm.generate("x")
    clock.now += 5                       # cooldown over: one trial, which fails
    with pytest.raises(LlmHttpError):
        llm.generate("x")
    clock.now += 15                      # the next cooldown is longer than the first
    with pytest.raises(LlmConnectionError, match="not sent"):
        llm.generate("x")
    clock.now += 5
    assert llm.generate("x").text == "back"   # the trial succeeds: closed again
    assert llm.generate("x").text == "again"
    assert len(llm_server.requests) == 4
    llm.close()


def test_answers_that_show_a_live_endpoint_do_not_open_the_breaker(llm_server):
    llm_server.enqueue(error(400, "bad request"), chat("fine"))
    with Llm("test-model", api_base=llm_server.base_url, max_retries=0) as llm:
        with pytest.raises(LlmHttpError):
            llm.generate("x")
        assert llm.generate("x").text == "fine"


def test_the_breaker_can_be_switched_off(llm_server):
    llm_server.enqueue(error(503), error(503), chat("ok"))
    with Llm("test-model", api_base=llm_server.base_url, max_retries=0,
             circuit_breaker_threshold=0) as llm:
        for _ in range(2):
            with pytest.raises(LlmHttpError):
                llm.generate("x")
        assert llm.generate("x").text == "ok"


def test_an_answer_cut_at_its_cap_is_reported_with_the_setting_to_raise(llm_server, caplog):
    cut = chat("The user drinks green tea every mor")
    cut.body["choices"][0]["finish_reason"] = "length"
    llm_server.enqueue(cut)
    with Llm("test-model", api_base=llm_server.base_url, max_retries=0) as llm, \
            caplog.at_level(logging.WARNING):
        summarize(llm, TEA)
    assert "summary answer" in caplog.text and "max_tokens_by_task" in caplog.text


@pytest.mark.parametrize(("options", "error_type", "name"), [
    ({"max_tokens_by_task": {"sumary": 5}}, ValueError, "max_tokens_by_task"),
    ({"max_tokens_by_task": {"summary": 0}}, ValueError, "max_tokens_by_task"),
    ({"max_tokens_by_task": [("summary", 5)]}, TypeError, "max_tokens_by_task"),
    ({"timeout_by_task": {"topics": 0}}, ValueError, "timeout_by_task"),
    ({"retry_timeouts": "yes"}, TypeError, "retry_timeouts"),
    ({"circuit_breaker_threshold": -1}, ValueError, "circuit_breaker_threshold"),
    ({"circuit_breaker_cooldown": 0}, ValueError, "circuit_breaker_cooldown"),
    ({"max_tokens": 0}, ValueError, "max_tokens"),
])
def test_bad_options_name_the_option(options, error_type, name):
    with pytest.raises(error_type, match=name):
        Llm("test-model", api_base="http://127.0.0.1:1/v1", **options)


def test_an_llm_of_your_own_gets_the_same_calls_as_before():
    """Caps and timeouts are our client's business: a custom ILlm sees no new arguments."""
    class Recording(ILlm):
        def __init__(self) -> None:
            self.kwargs: list[dict] = []

        def generate(self, prompt, *, response_json_schema=None, **kwargs):
            self.kwargs.append(kwargs)
            return LlmResponse(json.dumps({"memories": [], "topics": [], "links": []}))

        async def generate_async(self, prompt, *, response_json_schema=None, **kwargs):
            return self.generate(prompt, response_json_schema=response_json_schema, **kwargs)

    llm = Recording()
    MemoryExtractor(llm).extract(TEA, None, CONFIG)
    extract_topics(llm, TEA)
    assert llm.kwargs == [{}, {}]
