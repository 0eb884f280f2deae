"""The rolling summary covers failed batches; close() finishes or cancels background work."""

from __future__ import annotations

import json
import logging
import threading
import warnings

import pytest

from oracleagentmemory.core import (
    MemoryExtractionConfig,
    MemoryExtractionMode,
    OracleAgentMemory,
)
from oracleagentmemory.core.llms import Llm
from tests.support.embedders import HashingEmbedder
from tests.support.llm_server import Scripted, chat, error

FACT = {"memories": [{"content": "The user drinks green tea.", "type": "fact",
                      "source_messages": [1]}]}
BATCHES = [[{"role": "user", "content": f"batch {b} message {m}"} for m in range(3)]
           for b in range(3)]


def memories(thread):
    return thread._service.backend.get_records(
        {"thread_id": thread.thread_id, "record_types": ["memory", "fact", "preference",
                                                         "guideline"]})


def summary_prompts(script_requests) -> list[str]:
    return [r.body["messages"][-1]["content"] for r in script_requests
            if "running summary" in r.body["messages"][0]["content"]]


def test_batches_whose_extraction_failed_still_reach_the_summary(make_client, script,
                                                                 llm_server):
    script.set("extract", error(500, "extraction is down"))
    thread = make_client(max_retries=0).create_thread(thread_id="t", user_id="u",
                                                      agent_id="a")
    for batch in BATCHES:
        with pytest.warns(UserWarning, match="memory extraction failed"):
            thread.add_messages(batch)
    prompts = "\n".join(summary_prompts(llm_server.requests))
    for batch in BATCHES:
        for message in batch:
            assert message["content"] in prompts


def test_a_failed_summary_refresh_is_named_and_its_messages_are_folded_in_later(
        make_client, script, llm_server):
    script.set("extract", chat(json.dumps(FACT)))
    script.set("summary", error(500, "summary is down"))
    thread = make_client(max_retries=0).create_thread(thread_id="t", user_id="u",
                                                      agent_id="a")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        thread.add_messages(BATCHES[0])
    messages = [str(w.message) for w in caught]
    assert any(m.startswith("summary refresh failed") for m in messages)
    assert not any("memory extraction failed" in m for m in messages)
    assert len(memories(thread)) == 1  # the extraction that succeeded is kept
    script.set("summary", chat("Summary of both batches."))
    thread.add_messages(BATCHES[1])
    last = summary_prompts(llm_server.requests)[-1]
    for message in BATCHES[0] + BATCHES[1]:
        assert message["content"] in last
    assert thread.get_summary().content == "Summary of both batches."


def background_client(make_client, **options):
    return make_client(memory_extraction_config=MemoryExtractionConfig(
        extraction_mode=MemoryExtractionMode.BACKGROUND, enable_context_summary=False),
        **options)


def test_close_after_its_timeout_cancels_queued_jobs_with_one_warning(script, llm_server,
                                                                      caplog):
    gate = threading.Event()
    script.set("extract", lambda r: Scripted(gate=gate, body=chat(json.dumps(FACT)).body))
    llm = Llm("test-model", api_base=llm_server.base_url, timeout=20)  # defaults otherwise
    client = OracleAgentMemory(
        connection=":memory:", llm=llm, embedder=HashingEmbedder(),
        memory_extraction_config=MemoryExtractionConfig(
            extraction_mode=MemoryExtractionMode.BACKGROUND, enable_context_summary=False))
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    for batch in BATCHES:  # one runs (held at the gate), two wait behind it
        thread.add_messages(batch)
    queue = client.memory_service.background_queue()
    with caplog.at_level(logging.DEBUG, logger="oracleagentmemory"), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client.close(timeout=0.2)
        gate.set()
        for worker in queue._workers:  # the running job ends; nothing else starts
            worker.join(10)
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(problems) == 1 and problems[0].levelno == logging.WARNING
    assert "3 background extraction job(s) dropped" in problems[0].getMessage()
    assert not [r for r in caplog.records if r.exc_info and r.levelno >= logging.ERROR]
    assert caught == []
    assert sum(1 for r in llm_server.requests  # the queued jobs never ran
               if "You extract" in r.body["messages"][0]["content"]) <= 1


def test_close_finishes_pending_jobs_and_logs_progress(make_client, script, caplog):
    script.set("extract", lambda r: Scripted(delay=0.3, body=chat(json.dumps(FACT)).body))
    client = background_client(make_client)
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages(BATCHES[0])
    with caplog.at_level(logging.INFO, logger="oracleagentmemory"):
        client.close(timeout=30)
    text = caplog.text
    assert "waiting up to 30s for 1 background extraction job(s)" in text
    assert "all 1 background extraction job(s) finished" in text
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_close_closes_the_llms_http_connections(llm_server, script):
    llm = Llm("test-model", api_base=llm_server.base_url, max_retries=0)
    client = OracleAgentMemory(connection=":memory:", llm=llm, embedder=HashingEmbedder())
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages(BATCHES[0])
    assert llm_server.open_connections >= 1  # kept alive for the next call
    client.close()
    assert llm_server.wait_until_no_connections(5)


def test_close_without_waiting_stops_a_job_blocked_in_an_llm_call(llm_server):
    # close(timeout=0) cancelled the job, but its worker stayed blocked
    # reading the LLM's socket until the 120 s read timeout (60 cycles left 17 threads).
    # Closing the HTTP pool does not wake a blocked read; shutting the socket down does.
    never = threading.Event()  # the "generation" never ends while the test runs
    arrived = threading.Semaphore(0)

    def hang(request):
        arrived.release()
        return Scripted(gate=never, body=chat("{}").body)

    llm_server.respond_with(hang)
    queues = []
    try:
        for cycle in range(60):
            llm = Llm("test-model", api_base=llm_server.base_url, timeout=120)
            client = OracleAgentMemory(
                connection=":memory:", llm=llm, embedder=HashingEmbedder(),
                memory_extraction_config=MemoryExtractionConfig(
                    extraction_mode=MemoryExtractionMode.BACKGROUND,
                    enable_context_summary=False))
            thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
            thread.add_messages([{"role": "user", "content": f"cycle {cycle}"}])
            assert arrived.acquire(timeout=30)  # the job is inside its LLM call
            queue = client.memory_service.background_queue()
            client.close(timeout=0)
            assert queue.join(10), f"cycle {cycle}: the worker is still blocked"
            queues.append(queue)
        alive = [worker for queue in queues for worker in queue._workers
                 if worker.is_alive()]
        assert alive == []
    finally:
        never.set()


def test_a_cancelled_job_leaves_a_shared_llm_serving_its_other_client(llm_server):
    # Cancelling interrupts the cancelled job's own call only: the same Llm object, used
    # inline by another client meanwhile, still gets its answer.
    never = threading.Event()
    arrived = threading.Semaphore(0)
    answered = threading.Event()
    other_arrived = threading.Event()

    def respond(request):
        if "held" in json.dumps(request.body):
            arrived.release()
            return Scripted(gate=never, body=chat("{}").body)
        other_arrived.set()
        return Scripted(gate=answered, body=chat("the other answer").body)

    llm_server.respond_with(respond)
    llm = Llm("test-model", api_base=llm_server.base_url, timeout=120)
    try:
        closing = OracleAgentMemory(
            connection=":memory:", llm=llm, embedder=HashingEmbedder(),
            memory_extraction_config=MemoryExtractionConfig(
                extraction_mode=MemoryExtractionMode.BACKGROUND,
                enable_context_summary=False))
        closing.create_thread(thread_id="t", user_id="u").add_messages(
            [{"role": "user", "content": "held"}])
        assert arrived.acquire(timeout=30)
        answers: list[str] = []
        other = threading.Thread(target=lambda: answers.append(llm.generate("other").text))
        other.start()
        assert other_arrived.wait(30)  # both calls are in flight on the one Llm
        queue = closing.memory_service.background_queue()
        queue.close(timeout=0)  # the cancel alone, the Llm left open
        assert queue.join(10)
        answered.set()
        other.join(30)
        assert answers == ["the other answer"]
    finally:
        never.set()
        answered.set()
        llm.close()
