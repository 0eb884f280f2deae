"""A change another client makes while an operation runs is never lost.

Each of these operations used to read the store, then write what it had made from that
read: a change another client wrote in between was overwritten, or the write was made
against what was no longer there. Each test lets the other client write right after the
operation's first read; an operation that no longer reads first (one store call) meets the
other client's change already stored, before its write. Either way the change must survive,
or the operation must take it into account.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.stores.embedded import EmbeddedBackend
from tests.support.embedders import HashingEmbedder
from tests.support.images import PNG

READS = ("get_records", "list_messages")
WRITES = ("write_records", "update_record", "append_messages")


def embedded(client: OracleAgentMemory) -> EmbeddedBackend:
    store = client.memory_service.backend
    while not isinstance(store, EmbeddedBackend):
        store = store.inner
    return store


@contextmanager
def meanwhile(client: OracleAgentMemory, change: Callable[[], None]):
    """Run ``change`` (another client's) once: right after the first read of ``client``'s
    store inside the block, or right before its first write when it reads nothing first."""
    store = embedded(client)
    done: list[bool] = []

    def once() -> None:
        if not done:
            done.append(True)
            change()

    def after(method):
        def call(*args, **kwargs):
            result = method(*args, **kwargs)
            once()
            return result
        return call

    def before(method):
        def call(*args, **kwargs):
            once()
            return method(*args, **kwargs)
        return call

    real = {name: getattr(store, name) for name in READS + WRITES}
    for name in READS:
        setattr(store, name, after(real[name]))
    for name in WRITES:
        setattr(store, name, before(real[name]))
    try:
        yield
    finally:
        for name, method in real.items():
            setattr(store, name, method)
    assert done, "the other client's change never ran"


@pytest.fixture
def clients(tmp_path):
    path = str(tmp_path / "m.db")
    embedder = HashingEmbedder()
    with OracleAgentMemory(connection=path, embedder=embedder) as mine, \
            OracleAgentMemory(connection=path, embedder=embedder) as other:
        yield mine, other, embedder


def stored(client: OracleAgentMemory, record_id: str, record_type: str):
    [record] = client.memory_service.backend.get_records(
        {"ids": [record_id], "record_types": [record_type]})
    return record


def test_update_thread_keeps_a_setting_another_client_stored_meanwhile(clients):
    mine, other, _ = clients
    mine.create_thread(thread_id="t", user_id="u")
    with meanwhile(mine, lambda: other.update_thread("t", context_card_token_limit=9000)):
        mine.update_thread("t", max_message_token_length=500)
    settings = other.get_thread("t").settings
    assert (settings.max_message_token_length, settings.context_card_token_limit) == (500, 9000)


def test_update_memory_keeps_the_bookkeeping_another_client_stored_meanwhile(clients):
    mine, other, _ = clients
    memory = mine.add_memory("likes tea", user_id="u", metadata={"a": 1})
    envelope = {"kind": "langgraph_store_item", "namespace": ["prefs"], "key": "tea"}
    with meanwhile(mine, lambda: other.memory_service.backend.update_record(
            memory, ["memory"], {"metadata": {"a": 1, "langgraph": envelope}})):
        mine.update_memory(memory, metadata={"b": 2})
    assert stored(other, memory, "memory")["metadata"] == {"b": 2, "langgraph": envelope}


def test_an_expiry_is_never_given_to_an_image_another_client_attached_meanwhile(clients):
    # The image is deleted and its id taken by an image attached to a message: an expiry
    # of its own would part it from its message's.
    mine, other, _ = clients
    thread = mine.create_thread(thread_id="t", user_id="u")
    image = thread.add_image(PNG, description="a cat", image_id="img")

    def attach() -> None:
        other.delete_image(image)
        other.get_thread("t").add_messages([{"role": "user", "content": [
            {"type": "text", "text": "my cat"},
            {"type": "image", "bytes": PNG, "mime_type": "image/png", "id": "img"}]}])

    with meanwhile(mine, attach), pytest.raises(ValueError, match="attached to a message"):
        thread.update_image(image, ttl_days=3)
    assert stored(other, "img", "image")["expires_at"] is None


def test_a_linked_memory_takes_the_scope_the_memory_has_when_it_is_written(clients):
    # The memory linked to is deleted and its id taken by one of another user: the new
    # memory takes that one's scope (the one its link now points to), not the one read.
    mine, other, _ = clients
    mine.add_memory("lives in Paris", memory_id="home", user_id="u", agent_id="a")

    def replace() -> None:
        other.delete_memory("home")
        other.add_memory("lives in Oslo", memory_id="home", user_id="v", agent_id="b")

    with meanwhile(mine, replace):
        work = mine.add_memory("works nearby", memory_id_to_link="home", link_type="supports")
    record = stored(other, work, "memory")
    assert (record["user_id"], record["agent_id"]) == ("v", "b")


def test_a_message_edit_is_embedded_against_the_message_before_it_when_written(clients):
    # The message the edit's vector was made with is deleted meanwhile: the vector is made
    # again against the one before it now, as a read would have given.
    mine, other, embedder = clients
    thread = mine.create_thread(thread_id="t", user_id="u")
    _, reply = thread.add_messages([{"role": "Tom", "content": "Lyon is lovely"},
                                    {"role": "user", "content": "then Lyon"}])
    with meanwhile(mine, lambda: other.get_thread("t").delete_message(
            other.get_thread("t").get_messages()[0].id)):
        thread.update_message(reply, content="then Paris")
    texts = [text for texts in embedder.calls for text in texts]
    assert texts[-1] == "then Paris"
    assert [m.content for m in other.get_thread("t").get_messages()] == ["then Paris"]
