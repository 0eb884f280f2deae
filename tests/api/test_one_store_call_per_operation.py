"""One user operation is one store call and one transaction.

``add_messages`` used to make 3 store calls without an LLM (the last message, the thread's
existence, the write) and 8 with one (then the counters read and written back, the window
and the summary read, the summary written), its counters a read-modify-write that two
processes could interleave. The store now does what one batch needs in the transaction
that writes it (``append_messages``).
"""

from __future__ import annotations

import asyncio
import collections
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from oracleagentmemory.core import MemoryExtractionConfig, OracleAgentMemory
from oracleagentmemory.observability import (
    EventListener,
    MemoryStoreStartedEvent,
    register_event_listeners,
)
from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.operations import OPERATIONS
from tests.support.embedders import HashingEmbedder
from tests.support.images import PNG
from tests.support.llms import NeverCalledLlm

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = {op.name for op in OPERATIONS}
NEVER_DUE = MemoryExtractionConfig(memory_extraction_frequency=1_000_000,
                                   enable_context_summary=False)


class ContractCalls(EventListener):
    def __init__(self) -> None:
        self.calls: list[str] = []

    def on_event(self, event) -> None:
        if isinstance(event, MemoryStoreStartedEvent) and event.method in CONTRACT:
            self.calls.append(event.method)


@contextmanager
def counted(client):
    """(contract calls, transactions) of what runs inside: every read and write
    transaction of the embedded store is counted."""
    store = client.memory_service.backend
    while not isinstance(store, EmbeddedBackend):
        store = store.inner
    transactions = collections.Counter()
    real_read, real_write = store._read, store._write

    @contextmanager
    def read():
        transactions["read"] += 1
        with real_read() as conn:
            yield conn

    @contextmanager
    def write():
        transactions["write"] += 1
        with real_write() as conn:
            yield conn

    store._read, store._write = read, write
    listener = ContractCalls()
    try:
        with register_event_listeners([listener]):
            yield listener.calls, transactions
    finally:
        store._read, store._write = real_read, real_write


BATCH = [{"role": "user", "content": "I moved to Lyon"},
         {"role": "assistant", "content": "Noted: you live in Lyon now."}]


@pytest.mark.parametrize("llm", [None, NeverCalledLlm()], ids=["no-llm", "llm-not-due"])
def test_add_messages_of_a_batch_is_one_contract_call_and_one_transaction(tmp_path, llm):
    with OracleAgentMemory(connection=str(tmp_path / "m.db"), embedder=HashingEmbedder(),
                           llm=llm, memory_extraction_config=NEVER_DUE) as client:
        thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
        for batch in range(2):  # the first batch of a new thread, and the next one
            with counted(client) as (calls, transactions):
                thread.add_messages(BATCH)
            assert calls == ["append_messages"], batch
            assert transactions == {"write": 1}, batch
        state = client.memory_service.backend.get_records(
            {"ids": ["t"], "record_types": ["thread"]})[0]["config"]["state"]
        assert state.get("extraction", {}).get("messages_since_extraction") == (
            None if llm is None else 4)


def every_operation(client, thread):
    """(name, call) of every public operation of the client and the thread, each on
    records made for it, in an order in which each finds what it needs."""
    first, second = thread.add_messages(BATCH)
    memory = thread.add_memory("lives in Lyon", metadata={"a": 1})
    tram = thread.add_memory("rides trams")
    image = thread.add_image(PNG, description="a tram")
    client.add_user("u", "likes Lyon")
    relation = thread.link_records(memory, "memory", tram, "memory", "supports")
    return (
        ("add_user", lambda: client.add_user("v", "likes trains")),
        ("add_agent", lambda: client.add_agent("b", "plans trips")),
        ("create_thread", lambda: client.create_thread(thread_id="t2", user_id="v")),
        ("get_thread", lambda: client.get_thread("t")),
        ("update_thread", lambda: client.update_thread(
            "t", metadata={"k": 1}, max_message_token_length=500)),
        ("update_thread extraction", lambda: client.update_thread(
            "t", memory_extraction_config=MemoryExtractionConfig(memory_extraction_window=3))),
        ("list_threads", lambda: client.list_threads(user_id="u")),
        ("list_users", lambda: client.list_users()),
        ("list_agents", lambda: client.list_agents()),
        ("list_memories", lambda: client.list_memories(user_id="u")),
        ("list_messages", lambda: client.list_messages(thread_id="t")),
        ("client list_images", lambda: client.list_images(user_id="u")),
        ("client add_memory", lambda: client.add_memory("x", user_id="u")),
        ("client add_memory linked", lambda: client.add_memory(
            "works in Lyon", memory_id_to_link=memory, link_type="supports")),
        ("add_memory", lambda: thread.add_memory("likes trains")),
        ("add_memory linked", lambda: thread.add_memory(
            "takes line 4", memory_id_to_link=tram, link_type="refines")),
        ("update_memory content", lambda: thread.update_memory(memory, content="Lyon")),
        ("update_memory metadata", lambda: thread.update_memory(memory, metadata={"b": 2})),
        ("client update_memory", lambda: client.update_memory(memory, status="INVALID")),
        ("add_image", lambda: thread.add_image(PNG, description="a bridge")),
        ("client add_image", lambda: client.add_image(PNG, description="x", user_id="u")),
        ("update_image description", lambda: thread.update_image(image, description="a bus")),
        ("update_image bytes", lambda: client.update_image(
            image, image=PNG, mime_type="image/png", description=None)),
        ("update_image expiry", lambda: thread.update_image(image, ttl_days=3,
                                                            metadata={"c": 1})),
        ("search", lambda: thread.search("Lyon")),
        ("client search", lambda: client.search("Lyon", user_id="u")),
        ("update_record_link", lambda: thread.update_record_link(relation, metadata={"n": 1})),
        ("add_messages", lambda: thread.add_messages([{"role": "user", "content": "more"}])),
        ("update_message content", lambda: thread.update_message(first, content="hello")),
        ("update_message metadata", lambda: thread.update_message(second, metadata={"q": 1})),
        ("list_images", lambda: thread.list_images()),
        ("delete_record_link", lambda: client.delete_record_link(relation_id=relation)),
        ("delete_image", lambda: client.delete_image(image)),
        ("client delete_memory", lambda: client.delete_memory(tram)),
        ("delete_memory", lambda: thread.delete_memory(memory)),
        ("delete_message", lambda: thread.delete_message(second)),
        ("delete_user without cascade", lambda: client.delete_user("v", cascade=False)),
        ("delete_agent", lambda: client.delete_agent("b")),
        ("delete_thread", lambda: client.delete_thread("t2")),
        ("purge_expired", lambda: client.purge_expired()),
        ("delete_user", lambda: client.delete_user("u")),
    )


SEVERAL_READS = {
    "get_messages": "one more read per message with image parts, for its images",
    "get_message": "the message, then its images",
    "get_summary": "the messages, then the stored summary",
    "get_context_card": "the messages, the stored summary, one search per record type",
}
"""Reads that take several calls (each its own read transaction; nothing they could lose)."""


def test_every_public_operation_is_one_store_call_and_one_transaction(tmp_path):
    with OracleAgentMemory(connection=str(tmp_path / "m.db"),
                           embedder=HashingEmbedder()) as client:
        thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
        for name, operation in every_operation(client, thread):
            with counted(client) as (calls, transactions):
                operation()
            assert len(calls) == 1 and sum(transactions.values()) == 1, (name, calls)


def test_the_reads_of_several_calls_write_nothing(tmp_path):
    with OracleAgentMemory(connection=str(tmp_path / "m.db"),
                           embedder=HashingEmbedder()) as client:
        thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
        [message] = thread.add_messages([{"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "bytes": PNG, "mime_type": "image/png", "description": "x"}]}])
        for name, operation in (("get_messages", thread.get_messages),
                                ("get_message", lambda: thread.get_message(message)),
                                ("get_summary", thread.get_summary),
                                ("get_context_card", thread.get_context_card)):
            with counted(client) as (calls, transactions):
                operation()
            assert name in SEVERAL_READS and set(transactions) == {"read"}, (name, calls)
            assert len(calls) == transactions["read"] > 1, (name, calls)


def test_the_async_twins_make_the_same_one_call(tmp_path):
    async def run(client, thread, memory):
        await client.update_thread_async("t", max_message_token_length=600)
        await client.add_memory_async("x", memory_id_to_link=memory, link_type="supports")
        await thread.update_memory_async(memory, metadata={"b": 3})
        await thread.update_message_async(first, content="hi again")

    with OracleAgentMemory(connection=str(tmp_path / "m.db"),
                           embedder=HashingEmbedder()) as client:
        thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
        first, _ = thread.add_messages(BATCH)
        memory = thread.add_memory("lives in Lyon")
        with counted(client) as (calls, transactions):
            asyncio.run(run(client, thread, memory))
        assert calls == ["update_record", "write_records", "update_record", "update_record"]
        assert transactions == {"write": 4}


def test_a_batch_after_another_clients_message_is_embedded_against_that_message(tmp_path):
    # The handle knows the thread's last message; when another client wrote meanwhile, the
    # store refuses the batch (nothing written) and names the last message, and the first
    # message is embedded again against it: the vector is the one a read would have given.
    embedder = HashingEmbedder()
    path = str(tmp_path / "m.db")
    with OracleAgentMemory(connection=path, embedder=embedder) as mine, \
            OracleAgentMemory(connection=path, embedder=embedder) as other:
        thread = mine.create_thread(thread_id="t", user_id="u", agent_id="a")
        thread.add_messages([{"role": "user", "content": "where should I live?"}])
        other.get_thread("t").add_messages([{"role": "Tom", "content": "Lyon is lovely"}])
        with counted(mine) as (calls, _):
            [reply] = thread.add_messages([{"role": "user", "content": "then Lyon"}])
        assert calls == ["append_messages", "append_messages"]
        texts = [text for texts in embedder.calls for text in texts]
        assert texts[-1] == "then Lyon\nTom: Lyon is lovely"
        messages = [m.content for m in mine.get_thread("t").get_messages()]
        assert messages == ["where should I live?", "Lyon is lovely", "then Lyon"]
        assert [m.id for m in mine.get_thread("t").get_messages()][-1] == reply


def test_a_thread_deleted_by_another_client_between_calls_is_never_written_to(tmp_path):
    path = str(tmp_path / "m.db")
    with OracleAgentMemory(connection=path, embedder=HashingEmbedder(),
                           llm=NeverCalledLlm(), memory_extraction_config=NEVER_DUE) as mine, \
            OracleAgentMemory(connection=path, embedder=HashingEmbedder()) as other:
        thread = mine.create_thread(thread_id="t", user_id="u", agent_id="a")
        thread.add_messages(BATCH)
        other.delete_thread("t")
        with pytest.raises(KeyError, match="does not exist"):
            thread.add_messages([{"role": "user", "content": "after the end"}])
        with pytest.raises(KeyError, match="does not exist"):
            thread.add_memory("after the end")
        assert other.memory_service.backend.get_records({"thread_id": "t"}) == []


def counter(client, thread_id: str) -> int:
    [thread] = client.memory_service.backend.get_records(
        {"ids": [thread_id], "record_types": ["thread"]})
    return thread["config"]["state"]["extraction"]["messages_since_extraction"]


def write_in_another_process(path: str, thread_id: str, batches: int) -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'python'}{os.pathsep}{ROOT}"}
    done = subprocess.run([sys.executable, "-m", "tests.reliability.workers", "messages",
                           path, thread_id, str(batches)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr


def test_a_batch_of_another_process_between_two_steps_is_counted(tmp_path):
    # The counters were read by one store call and written back by another (under a lock
    # only this process honoured): another process's batch between the two was lost. Here
    # it lands exactly there, before this client writes any thread counters; the store
    # counts in the write itself now, so there is no such step to land before.
    path = str(tmp_path / "m.db")
    with OracleAgentMemory(connection=path, embedder=HashingEmbedder(),
                           llm=NeverCalledLlm(), memory_extraction_config=NEVER_DUE) as a:
        mine = a.create_thread(thread_id="t", user_id="u", agent_id="a")
        store = a.memory_service.backend
        while not isinstance(store, EmbeddedBackend):
            store = store.inner
        real_update = store.update_record
        interleaved = []

        def let_the_other_process_write_first(record_id, record_types, changes,
                                              thread_id=None):
            if list(record_types) == ["thread"] and not interleaved:
                interleaved.append(True)
                write_in_another_process(path, "t", 3)
            return real_update(record_id, record_types, changes, thread_id)

        store.update_record = let_the_other_process_write_first
        mine.add_messages(BATCH)
        if not interleaved:  # no counters written apart from the batch's own write
            write_in_another_process(path, "t", 3)
        assert counter(a, "t") == 5


def test_two_processes_counting_one_thread_lose_no_update(tmp_path):
    # Both add 25 one-message batches at once; every message is counted.
    path = str(tmp_path / "m.db")
    with OracleAgentMemory(connection=path, embedder=HashingEmbedder()) as client:
        client.create_thread(thread_id="t", user_id="u", agent_id="a")
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'python'}{os.pathsep}{ROOT}"}
    writers = [subprocess.Popen([sys.executable, "-m", "tests.reliability.workers",
                                 "messages", path, "t", "25"], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(2)]
    for writer in writers:
        out, err = writer.communicate(timeout=300)
        assert writer.returncode == 0 and out.strip() == "done", err
    with OracleAgentMemory(connection=path, embedder=HashingEmbedder()) as client:
        assert len(client.get_thread("t").get_messages(start=0, end=None)) == 50
        assert counter(client, "t") == 50
