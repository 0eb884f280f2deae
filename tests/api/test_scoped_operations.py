"""The operations the client and a thread share reach what each should reach.

They are written once (``core/scoped_operations.py``); what differs is the reach: the
client reaches the whole store, a thread its own records. These tests pin that difference
through the public API, for each kind of shared operation.
"""

from __future__ import annotations

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.errors import NotFoundError
from oracleagentmemory.stores.errors import LinkEndNotFoundError
from tests.support.images import PNG


@pytest.fixture
def client(embedder):
    with OracleAgentMemory(connection=":memory:", embedder=embedder) as client:
        yield client


@pytest.fixture
def threads(client):
    """Two threads of one user and agent: "a" and "b"."""
    return tuple(client.create_thread(thread_id=name, user_id="u", agent_id="g")
                 for name in "ab")


def stored(client, record_id):
    [record] = client.memory_service.backend.get_records({"ids": [record_id]})
    return record


@pytest.mark.parametrize("on", ["client", "thread"])
def test_autonomous_linking_that_is_not_a_bool_is_a_type_error(client, threads, on):
    target = client if on == "client" else threads[0]
    with pytest.raises(TypeError, match="autonomous_linking"):
        target.add_memory("likes tea", thread_id="a", autonomous_linking="yes")
    assert client.list_memories() == []


def test_the_client_refuses_autonomous_linking_of_a_memory_without_a_thread(client):
    with pytest.raises(ValueError, match="autonomous_linking"):
        client.add_memory("likes tea", user_id="u", autonomous_linking=True)
    assert client.list_memories() == []


def test_a_thread_updates_and_deletes_only_its_own_memories(client, threads):
    first, second = threads
    memory = first.add_memory("likes tea", memory_id="m")
    with pytest.raises(NotFoundError):
        second.update_memory(memory, content="likes coffee")
    assert second.delete_memory(memory) == 0
    assert stored(client, "m")["content"] == "likes tea"
    assert client.update_memory(memory, content="likes coffee") == "m"
    assert stored(client, "m")["content"] == "likes coffee"
    assert client.delete_memory(memory) == 1


def test_a_thread_links_only_to_a_memory_of_its_own(client, threads):
    first, second = threads
    first.add_memory("lives in Paris", memory_id="home", agent_id=None)
    with pytest.raises(LinkEndNotFoundError, match="memory_id_to_link 'home' is not a "
                                                   "memory of thread 'b'"):
        second.add_memory("works in Lyon", memory_id_to_link="home", link_type="supports")
    # the client reaches it, and the new memory takes the linked memory's scope
    client.add_memory("works in Lyon", memory_id="work", memory_id_to_link="home",
                      link_type="supports")
    record = stored(client, "work")
    assert (record["user_id"], record["agent_id"], record["thread_id"]) == ("u", None, "a")
    with pytest.raises(LinkEndNotFoundError, match="is not a stored memory"):
        client.add_memory("x", memory_id_to_link="missing", link_type="supports")


def test_a_thread_stores_images_in_its_own_scope_and_the_client_in_the_given_one(
        client, threads):
    first, _ = threads
    with pytest.raises(ValueError, match="user_id='v' does not match this thread's user_id"):
        first.add_image(PNG, description="a cat", user_id="v")
    mine = first.add_image(PNG, description="a cat", user_id="u")
    loose = client.add_image(PNG, description="a dog", user_id="v")
    assert [(r["user_id"], r["agent_id"], r["thread_id"])
            for r in (stored(client, mine), stored(client, loose))] == [
        ("u", "g", "a"), ("v", None, None)]
    # a thread deletes only its own images
    assert threads[1].delete_image(mine) == 0
    assert client.delete_image(mine) == 1


def test_a_thread_updates_and_deletes_only_its_own_relations(client, threads):
    first, second = threads
    first.add_memory("likes tea", memory_id="x")
    first.add_memory("drinks tea daily", memory_id="y")
    relation = first.link_records("x", "memory", "y", "memory", "supports")
    assert second.update_record_link(relation, metadata={"note": 1}) == 0
    assert second.delete_record_link(relation_id=relation) == 0
    assert client.update_record_link(relation, metadata={"note": 1}) == 1
    assert first.delete_record_link(relation_id=relation) == 1


def test_a_memory_expired_when_written_is_named_when_it_cannot_be_linked(client):
    # The store refuses the link because its source, the new memory, is expired when it is
    # written; the error said the stored memory it was to be linked to did not exist.
    client.add_memory("alice likes tea", user_id="u", memory_id="x1")
    with pytest.raises(LinkEndNotFoundError) as raised:
        client.add_memory("an old note", user_id="u", memory_id="x2",
                          memory_id_to_link="x1", link_type="supports",
                          timestamp="2001-01-01T00:00:00Z", ttl_days=1,
                          ttl_anchor="timestamp")
    message = str(raised.value)
    assert "'x2'" in message and "expired" in message
    assert "is not a stored memory" not in message
    assert [m.id for m in client.list_memories(user_id="u")] == ["x1"]  # nothing written
