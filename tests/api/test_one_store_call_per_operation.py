"""One user operation is one store call and one transaction.

``add_messages`` used to make 3 store calls without an LLM (the last message, the thread's
existence, the write) and 8 with one (then the counters read and written back, the window
and the summary read, the summary written), its counters a read-modify-write that two
processes could interleave. The store now does what one batch needs in the transaction
that writes it (``append_messages``).
"""

from __future__ import annotations

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


def test_the_other_thread_operations_are_one_call_each(tmp_path):
    with OracleAgentMemory(connection=str(tmp_path / "m.db"),
                           embedder=HashingEmbedder()) as client:
        thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
        first, second = thread.add_messages(BATCH)
        memory = thread.add_memory("lives in Lyon")
        tram = thread.add_memory("rides trams")
        for name, operation in (
                ("create_thread", lambda: client.create_thread(thread_id="t2", user_id="v")),
                ("add_image", lambda: thread.add_image(PNG, description="a tram")),
                ("add_memory", lambda: thread.add_memory("likes trains")),
                ("client add_memory", lambda: client.add_memory("x", user_id="u")),
                ("update_memory", lambda: thread.update_memory(memory, content="Lyon")),
                ("update_memory status", lambda: client.update_memory(memory,
                                                                      status="INVALID")),
                ("update_message metadata", lambda: thread.update_message(
                    first, metadata={"k": 1})),
                ("delete_message", lambda: thread.delete_message(second)),
                ("link_records", lambda: thread.link_records(
                    memory, "memory", tram, "memory", "supports")),
                ("delete_memory", lambda: thread.delete_memory(memory)),
                ("delete_thread", lambda: client.delete_thread("t")),
                ("delete_user", lambda: client.delete_user("v"))):
            with counted(client) as (calls, transactions):
                operation()
            assert len(calls) == 1 and sum(transactions.values()) == 1, (name, calls)


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
