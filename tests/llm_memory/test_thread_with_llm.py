"""The thread with a real HTTP LLM client against a local scripted server."""

from __future__ import annotations

import json
import threading

import pytest

from oracleagentmemory.core import (
    BackgroundExtractionQueueFullBehavior,
    MemoryExtractionConfig,
    MemoryExtractionMode,
)
from oracleagentmemory.core.extractors import background
from tests.support.embedders import HashingEmbedder
from tests.support.images import PNG
from tests.support.llm_server import Scripted, chat, dropped, error, malformed

PIZZA = {"memories": [{"content": "The user loves pizza.", "type": "preference",
                       "source_messages": [1]},
                      {"content": "The user lives in Rome.", "type": "fact",
                       "source_messages": [1]}]}


def memories(thread):
    return sorted((r["record_type"], r["content"]) for r in thread._service.backend.get_records(
        {"thread_id": thread.thread_id,
         "record_types": ["memory", "fact", "preference", "guideline"]}))


def message_texts(thread):
    return [m.content for m in thread.get_messages()]


def test_inline_extraction_stores_typed_memories_with_inherited_metadata(make_client, script):
    script.set("extract", chat(json.dumps(PIZZA)))
    thread = make_client().create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "I live in Rome and love pizza",
                          "metadata": {"channel": "web"}}])
    assert memories(thread) == [("fact", "The user lives in Rome."),
                                ("preference", "The user loves pizza.")]
    [stored] = thread._service.backend.get_records({"record_types": ["preference"]})
    assert (stored["user_id"], stored["agent_id"], stored["thread_id"]) == ("u", "a", "t")
    assert stored["metadata"] == {"channel": "web"}
    assert "extract" in script.seen and "summary" in script.seen


def test_extracted_duplicates_of_stored_memories_are_not_stored_again(make_client, script):
    script.set("extract", chat(json.dumps(PIZZA)))
    thread = make_client().create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_memory("The user loves pizza.", memory_type="preference",
                      autonomous_linking=False)
    thread.add_messages([{"role": "user", "content": "pizza in Rome"}])
    assert memories(thread).count(("preference", "The user loves pizza.")) == 1


def test_a_second_thread_of_the_user_gets_its_own_memory(make_client, script):
    """The reference keeps extracted memories per thread: what the user said in one thread
    and says again in another is stored in both (deduplication looks in the thread)."""
    script.set("extract", chat(json.dumps(PIZZA)))
    client = make_client()
    first = client.create_thread(thread_id="t1", user_id="u", agent_id="a")
    second = client.create_thread(thread_id="t2", user_id="u", agent_id="a")
    for thread in (first, second):
        thread.add_messages([{"role": "user", "content": "I live in Rome and love pizza"}])
    assert memories(second) == memories(first) == [
        ("fact", "The user lives in Rome."), ("preference", "The user loves pizza.")]


def test_stored_memories_are_compared_by_their_stored_vectors(make_client, script):
    reworded = {"memories": [{"content": "Pizza the user loves", "type": "preference",
                              "source_messages": [1]}]}
    script.set("extract", chat(json.dumps(reworded)))
    embedder = HashingEmbedder()
    thread = make_client(embedder=embedder).create_thread(thread_id="t", user_id="u",
                                                          agent_id="a")
    thread.add_memory("The user loves pizza.", memory_type="preference",
                      autonomous_linking=False)
    embedder.calls.clear()
    thread.add_messages([{"role": "user", "content": "pizza in Rome"}])
    embedded = [text for call in embedder.calls for text in call]
    assert "Pizza the user loves" in embedded  # the candidate, once
    assert "The user loves pizza." not in embedded  # the stored one is not embedded again
    assert ("preference", "Pizza the user loves") not in memories(thread)  # same words
    assert memories(thread).count(("preference", "The user loves pizza.")) == 1


@pytest.mark.parametrize("failure", [
    error(500, "boom"), malformed(), dropped(), chat("no json here at all"),
    Scripted(delay=3.0, body={"choices": []}),
])
def test_raw_messages_survive_every_llm_failure(make_client, script, failure):
    script.set("extract", failure)
    script.set("summary", failure)
    thread = make_client(timeout=0.5).create_thread(thread_id="t", user_id="u", agent_id="a")
    with pytest.warns(UserWarning, match="failed, raw data kept"):
        ids = thread.add_messages([{"role": "user", "content": "remember me"}])
    assert len(ids) == 1 and message_texts(thread) == ["remember me"]
    assert memories(thread) == []


def test_extraction_frequency_and_window(make_client, script):
    windows = []

    def answer(request):
        windows.append(request.body["messages"][-1]["content"].count("[message"))
        return chat(json.dumps({"memories": []}))

    script.set("extract", answer)
    client = make_client(memory_extraction_config=MemoryExtractionConfig(
        memory_extraction_frequency=3, memory_extraction_window=2, enable_context_summary=False))
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    for text in ("one", "two"):
        thread.add_messages([{"role": "user", "content": text}])
    assert script.seen.count("extract") == 0
    thread.add_messages([{"role": "user", "content": "three"}])
    assert script.seen.count("extract") == 1
    assert "summary" not in script.seen


def test_background_extraction_and_waiting(make_client, script):
    gate = threading.Event()
    script.set("extract", lambda r: Scripted(gate=gate, body={
        "choices": [{"index": 0, "message": {"role": "assistant",
                                             "content": json.dumps(PIZZA)}}]}))
    client = make_client(memory_extraction_config=MemoryExtractionConfig(
        extraction_mode=MemoryExtractionMode.BACKGROUND, enable_context_summary=False))
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    ids = thread.add_messages([{"role": "user", "content": "pizza in Rome"}])
    assert len(ids) == 1 and memories(thread) == []          # returned before extraction
    with pytest.raises(TimeoutError):
        thread.wait_for_memory_extraction(timeout=0.2)
    gate.set()
    thread.wait_for_memory_extraction(timeout=10)
    assert len(memories(thread)) == 2
    client.wait_for_memory_extraction(timeout=10)             # nothing left: returns at once


def test_delete_waits_for_earlier_background_extraction(make_client, script):
    gate = threading.Event()
    script.set("extract", lambda r: Scripted(gate=gate, body={
        "choices": [{"index": 0, "message": {"role": "assistant",
                                             "content": json.dumps(PIZZA)}}]}))
    client = make_client(memory_extraction_config=MemoryExtractionConfig(
        extraction_mode=MemoryExtractionMode.BACKGROUND, enable_context_summary=False))
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "pizza"}])
    threading.Timer(0.1, gate.set).start()  # releases the server; the delete must wait for it
    assert client.delete_thread("t") == 1
    assert thread._service.backend.get_records({"thread_id": "t"}) == []  # extracted ones went too


@pytest.mark.parametrize("behavior", list(BackgroundExtractionQueueFullBehavior))
def test_queue_full_behaviours_keep_raw_messages(make_client, script, behavior, monkeypatch):
    monkeypatch.setattr(background, "DEFAULT_QUEUE_SIZE", 1)
    gate = threading.Event()
    script.set("extract", lambda r: Scripted(gate=gate, body={
        "choices": [{"index": 0, "message": {"role": "assistant",
                                             "content": '{"memories": []}'}}]}))
    client = make_client(memory_extraction_config=MemoryExtractionConfig(
        extraction_mode=MemoryExtractionMode.BACKGROUND, enable_context_summary=False,
        background_extraction_queue_full_behavior=behavior,
        background_extraction_queue_put_timeout_seconds=0.1))
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "first"}])   # running (held at the gate)
    thread.add_messages([{"role": "user", "content": "second"}])  # queued: the queue is full
    if behavior is BackgroundExtractionQueueFullBehavior.WAIT_THEN_RAISE:
        with pytest.raises(TimeoutError):
            thread.add_messages([{"role": "user", "content": "third"}])
    else:
        thread.add_messages([{"role": "user", "content": "third"}])
    assert message_texts(thread) == ["first", "second", "third"]
    gate.set()
    client.wait_for_memory_extraction(timeout=10)


def test_close_returns_within_its_timeout_under_load(make_client, script):
    gate = threading.Event()
    script.set("extract", lambda r: Scripted(gate=gate, body={"choices": []}))
    client = make_client(memory_extraction_config=MemoryExtractionConfig(
        extraction_mode=MemoryExtractionMode.BACKGROUND, enable_context_summary=False))
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "held"}])
    finished = threading.Event()
    threading.Thread(target=lambda: (client.close(timeout=0.2), finished.set())).start()
    assert finished.wait(10)
    client.close()  # idempotent
    gate.set()


def test_summary_is_persisted_and_prefix_summaries_are_not(make_client, script):
    script.set("summary", chat("Rolling summary."))
    thread = make_client(memory_extraction_config=MemoryExtractionConfig(
        extract_memories=False)).create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "hello"},
                         {"role": "user", "content": "world"}])
    assert thread.get_summary().content == "Rolling summary."
    script.set("summary", chat("Prefix summary."))
    assert thread.get_summary(except_last=1).content == "Prefix summary."
    assert thread.get_summary().content == "Rolling summary."
    script.set("summary", chat("x" * 500))
    assert len(thread.get_summary(except_last=1, token_budget=10).content) <= 35


def test_context_card_with_llm_has_summary_and_topics(make_client, script):
    script.set("summary", chat("They plan a Rome trip."))
    script.set("topics", chat(json.dumps({"topics": ["rome trip", "trains"]})))
    thread = make_client(memory_extraction_config=MemoryExtractionConfig(
        extract_memories=False)).create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "Rome by train"}])
    thread.add_memory("User likes trains", autonomous_linking=False)
    card = thread.get_context_card()
    assert card.summary == "They plan a Rome trip."
    assert card.topics == ["rome trip", "trains"]
    assert "<topics>" in card.content and "User likes trains" in card.content


def test_card_falls_back_to_the_transcript_when_the_llm_fails(make_client, script):
    script.set("summary", error(500))
    thread = make_client(memory_extraction_config=MemoryExtractionConfig(
        extract_memories=False, enable_context_summary=False)).create_thread(
        thread_id="t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "plain text"}])
    with pytest.warns(UserWarning, match="context card summary"):
        card = thread.get_context_card()
    [message] = thread.get_messages()
    assert message.timestamp.endswith("Z")  # the record's form; prompts write +00:00
    assert card.summary == f"user ({message.timestamp[:-1]}+00:00): plain text"


def test_autonomous_linking_writes_proposed_links_and_keeps_memory_on_failure(make_client,
                                                                                script):
    thread = make_client().create_thread(thread_id="t", user_id="u", agent_id="a")
    old = thread.add_memory("User lives in Paris", memory_id="old", autonomous_linking=False)
    script.set("link", chat(json.dumps({"links": [{"memory": 1, "relation": "supersedes"}]})))
    new = thread.add_memory("User moved to Rome", memory_id="new")
    [link] = thread._service.backend.list_links({"thread_id": "t"})
    assert (link["source_id"], link["target_id"], link["relation_type"]) == (new, old,
                                                                             "supersedes")
    script.set("link", error(500))
    with pytest.warns(UserWarning, match="autonomous linking"):
        kept = thread.add_memory("User likes Rome", memory_id="kept")
    assert thread._service.backend.get_records({"ids": [kept]})


def test_image_without_description_gets_an_llm_caption(make_client, script):
    thread = make_client().create_thread(thread_id="t", user_id="u", agent_id="a")
    image_id = thread.add_image(PNG)
    assert thread.list_images(image_id=image_id)[0].content == "A red square."
    assert thread.add_image(PNG, description="given") and "caption" in script.seen
    script.set("caption", error(500))
    with pytest.warns(UserWarning, match="captioning"):
        failed = thread.add_image(PNG)
    assert thread.list_images(image_id=failed)[0].content == ""


def test_update_message_extracts_again(make_client, script):
    thread = make_client(memory_extraction_config=MemoryExtractionConfig(
        enable_context_summary=False)).create_thread(thread_id="t", user_id="u", agent_id="a")
    [message_id] = thread.add_messages([{"role": "user", "content": "draft"}])
    script.set("extract", chat(json.dumps({"memories": [{"content": "Edited fact",
                                                          "type": "fact"}]})))
    thread.update_message(message_id, content="edited")
    assert memories(thread) == [("fact", "Edited fact")]


def test_demo_uses_the_llm_named_by_the_environment(llm_server, script, monkeypatch):
    import io

    from oracleagentmemory.demo import run_demo

    monkeypatch.setenv("ORACLEAGENTMEMORY_LLM_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("ORACLEAGENTMEMORY_LLM_MODEL", "test-model")
    script.set("topics", chat(json.dumps({"topics": ["rome trip"]})))
    out = io.StringIO()
    run_demo(":memory:", out)
    assert "Using the LLM at" in out.getvalue()
    assert "<topics>" in out.getvalue() and "rome trip" in out.getvalue()
    assert {"extract", "summary", "topics"} <= set(script.seen)
