"""The client methods the reference has beyond the seed examples: listing, client-level
links and images, profiles with their information, cascades, close(timeout)."""

from __future__ import annotations

import asyncio

import pytest

from oracleagentmemory.apis.records import (
    AgentProfileRecord,
    FactRecord,
    ImageRecord,
    MessageRecord,
    ThreadRecord,
    UserProfileRecord,
)
from oracleagentmemory.apis.relations import MemoryLink
from oracleagentmemory.core import OracleAgentMemory
from tests.support.images import PNG


@pytest.fixture
def client(embedder):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    yield client
    client.close()


def test_profiles_are_listed_with_their_information(client):
    client.add_user("u1", "Prefers concise answers.", metadata={"tier": "gold"})
    client.add_user("u2", "Likes detail.")
    client.add_agent("a1", "Support assistant")
    users = client.list_users()
    assert [type(u) for u in users] == [UserProfileRecord, UserProfileRecord]
    assert [(u.id, u.content) for u in users] == [("u1", "Prefers concise answers."),
                                                  ("u2", "Likes detail.")]
    assert [u.id for u in client.list_users(metadata_filter={"tier": "gold"})] == ["u1"]
    assert [u.id for u in client.list_users(limit=1)] == ["u1"]
    [agent] = client.list_agents()
    assert isinstance(agent, AgentProfileRecord) and agent.content == "Support assistant"
    with pytest.raises(ValueError, match="limit"):
        client.list_users(limit=0)
    with pytest.raises(ValueError, match="information"):
        client.add_user("u3", "   ")


def test_threads_memories_and_messages_are_listed_by_scope(client):
    thread = client.create_thread(thread_id="t1", user_id="u1", agent_id="a1",
                                  metadata={"topic": "trip"})
    client.create_thread(thread_id="t2", user_id="u2", agent_id="a1")
    thread.add_messages([{"role": "user", "content": "I fly to Rome"},
                         {"role": "assistant", "content": "Noted"}])
    thread.add_memory("User flies to Rome", memory_type="fact", memory_id="f1")
    client.add_memory("A global tip", memory_id="g1")
    [listed] = client.list_threads("u1")
    assert isinstance(listed, ThreadRecord) and (listed.id, listed.metadata) == (
        "t1", {"topic": "trip"})
    assert [t.id for t in client.list_threads("u2", agent_id="a1")] == ["t2"]
    assert client.list_threads("u1", agent_id="other") == []
    memories = client.list_memories(user_id="u1")
    assert [(type(m), m.id) for m in memories] == [(FactRecord, "f1")]
    assert [m.id for m in client.list_memories(user_id=None)] == ["g1"]  # None: no user
    messages = client.list_messages(thread_id="t1")
    assert all(isinstance(m, MessageRecord) for m in messages)
    assert [(m.role, m.content) for m in messages] == [("user", "I fly to Rome"),
                                                       ("assistant", "Noted")]
    assert messages[0].seq_no < messages[1].seq_no


def test_client_level_links_join_memories_of_different_threads(client):
    first = client.create_thread(thread_id="t1", user_id="u")
    second = client.create_thread(thread_id="t2", user_id="u")
    first.add_memory("Lives in Paris", memory_id="old")
    second.add_memory("Moved to Lyon", memory_id="new")
    relation_id = client.link_records("new", "memory", "old", "memory", "supersedes",
                                      metadata={"why": "moved"})
    [result] = client.search("Lyon", user_id="u", record_types=["memory"], max_results=1,
                             num_hops=1)
    [(relation, linked)] = result.linked_results
    assert isinstance(relation, MemoryLink)
    assert (relation.id, relation.link_type, relation.source_memory_id, linked.id) == (
        relation_id, "supersedes", "new", "old")
    # A thread sees only its own links; this one belongs to no thread.
    assert first.delete_record_link(relation_id=relation_id) == 0
    assert client.update_record_link(relation_id, metadata={"why": "relocated"}) == 1
    assert client.delete_record_link(relation_id=relation_id) == 1
    assert client.delete_record_link(relation_id=relation_id) == 0
    with pytest.raises(ValueError, match="itself"):
        client.link_records("new", "memory", "new", "memory", "refines")


def test_client_level_images(client):
    image_id = client.add_image(PNG, description="a red square", user_id="u",
                                metadata={"k": 1})
    [image] = client.list_images(user_id="u")
    assert isinstance(image, ImageRecord)
    assert (image.id, image.content, image.thread_id, image.bytes) == (
        image_id, "a red square", None, None)
    assert client.list_images(image_id=image_id, include_bytes=True)[0].bytes == PNG
    assert client.update_image(image_id, description="a crimson square") == image_id
    assert client.list_images(user_id="u")[0].content == "a crimson square"
    assert client.delete_image(image_id) == 1
    assert client.list_images(user_id="u") == []


def test_delete_user_without_cascade_keeps_what_the_user_owns(client):
    client.add_user("u", "Someone")
    client.create_thread(thread_id="t", user_id="u").add_memory("kept", memory_id="m")
    assert client.delete_user("u", cascade=False) == 1
    assert client.list_users() == []
    assert [m.id for m in client.list_memories(user_id="u")] == ["m"]
    client.add_user("u", "Someone again")
    assert client.delete_user("u") == 1
    assert client.list_memories(user_id="u") == []
    assert client.list_threads("u") == []


def test_thread_identity_is_read_only_and_generated_ids_are_uuids(client):
    thread = client.create_thread()
    assert len(thread.thread_id) == 36 and thread.thread_id.count("-") == 4
    with pytest.raises(AttributeError):
        thread.thread_id = "other"  # type: ignore[misc]
    assert thread.max_message_token_length == 15_000
    assert thread.message_shortening_input_token_limit == 30_000


def test_close_takes_a_timeout_and_its_async_twin_works(embedder):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    asyncio.run(client.close_async(timeout=1.0))
    client.close()  # idempotent
