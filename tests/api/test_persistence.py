"""What is written survives close() and reopening the file."""

from __future__ import annotations

from oracleagentmemory.core import OracleAgentMemory


def test_everything_survives_close_and_reopen(tmp_path, embedder):
    location = tmp_path / "memory.db"
    client = OracleAgentMemory(connection=str(location), embedder=embedder)
    thread = client.create_thread(thread_id="c1", user_id="u1", agent_id="a1",
                                  metadata={"topic": "trip"},
                                  message_shortening_input_token_limit=12_000)
    thread.add_messages([{"role": "user", "content": "I love Rome", "metadata": {"n": 1}},
                         {"role": "assistant", "content": "Noted"}])
    thread.add_memory("User loves Rome", memory_id="m1", memory_type="preference")
    thread.add_memory("User visits in May", memory_id="m2", memory_type="fact",
                      memory_id_to_link="m1", link_type="supports", link_id="l1")
    client.add_user("u1", "Alice")
    client.close()
    client.close()  # idempotent

    reopened = OracleAgentMemory(connection=str(location), embedder=embedder)
    loaded = reopened.get_thread("c1")
    assert (loaded.user_id, loaded.agent_id, loaded.metadata) == ("u1", "a1", {"topic": "trip"})
    assert loaded.message_shortening_input_token_limit == 12_000
    assert [(m.role, m.content, m.metadata) for m in loaded.get_messages()] == [
        ("user", "I love Rome", {"n": 1}), ("assistant", "Noted", None)]
    results = loaded.search("Rome", record_types=["preference"], num_hops=1)
    assert [r.id for r in results] == ["m1"]
    assert [(linked.record.id, relation.relation_type, relation.opposite_relation_type)
            for relation, linked in results[0].linked_results] == [
        ("m2", "supports", "is_supported_by")]
    assert [r.id for r in reopened.search("Alice", user_id="u1",
                                          record_types=["user_profile"])] == ["u1"]
    reopened.close()
