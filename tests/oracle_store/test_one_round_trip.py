"""On Oracle, ``add_messages`` of a batch is one PL/SQL call, one round trip: the driver double
logs every statement the client sends."""

from __future__ import annotations

import pytest

pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.core import MemoryExtractionConfig, OracleAgentMemory  # noqa: E402
from tests.support.embedders import HashingEmbedder  # noqa: E402
from tests.support.fake_oracledb import FakeConnection, InTurn, database_error  # noqa: E402
from tests.support.llms import NeverCalledLlm  # noqa: E402

THREAD = {"id": "t", "record_type": "thread", "user_id": "u", "agent_id": "a",
          "thread_id": "t", "config": {"settings": {}, "state": {}}, "metadata": None}


def written(*ids: str) -> dict:
    return {"ids": list(ids), "written": True, "last_message": None,
            "extraction_window": 0, "summary_window": 0, "messages": [],
            "thread_summary": None}


@pytest.mark.parametrize("llm", [None, NeverCalledLlm()], ids=["no-llm", "llm-not-due"])
def test_add_messages_of_a_batch_is_one_plsql_call(llm):
    connection = FakeConnection(
        DESCRIBE={"backend": "oracle", "store_id": "AGENT_MEMORY"}, WRITE_RECORDS=["t"],
        GET_RECORDS=[THREAD], APPEND_MESSAGES=InTurn(written("m1", "m2"), written("m3")))
    client = OracleAgentMemory(
        connection=connection, embedder=HashingEmbedder(), llm=llm,
        memory_extraction_config=MemoryExtractionConfig(
            memory_extraction_frequency=1_000_000, enable_context_summary=False))
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    for batch, ids in (([{"role": "user", "content": "hi", "id": "m1"},
                         {"role": "assistant", "content": "hello", "id": "m2"}], ["m1", "m2"]),
                       ([{"role": "user", "content": "again", "id": "m3"}], ["m3"])):
        before = len(connection.calls)
        assert thread.add_messages(batch) == ids
        blocks = [block for block, _ in connection.calls[before:]]
        assert len(blocks) == 1 and "AGENT_MEMORY.APPEND_MESSAGES(" in blocks[0]
        sent = connection.calls[before][1]["p_batch"]
        assert sent["thread_id"] == "t" and sent["thread_required"] is True
        assert [r["id"] for r in sent["records"]] == ids
        # the first message was embedded against the thread's last one, as the handle knew
        assert sent["after_message_id"] == (None if ids == ["m1", "m2"] else "m2")
        assert (sent["schedule"] is None) == (llm is None)


# -- every other write: one PL/SQL call, what it depended on read by the package ------------

MEMORY = {"id": "m", "record_type": "fact", "user_id": "u", "agent_id": "a", "thread_id": "t",
          "content": "lives in Lyon", "metadata": {"a": 1}}
IMAGE = {"id": "img", "record_type": "image", "user_id": "u", "agent_id": "a",
         "thread_id": "t", "content": "a cat", "mime_type": "image/png"}
MESSAGE = {"id": "m2", "record_type": "message", "user_id": "u", "agent_id": "a",
           "thread_id": "t", "role": "user", "content": "then Lyon", "seq_no": 2}


def opened(**answers) -> tuple[FakeConnection, OracleAgentMemory]:
    connection = FakeConnection(**{
        "DESCRIBE": {"backend": "oracle", "store_id": "AGENT_MEMORY"},
        "WRITE_RECORDS": ["t"], "GET_RECORDS": [THREAD], **answers})
    return connection, OracleAgentMemory(connection=connection, embedder=HashingEmbedder())


def one_call(connection: FakeConnection, operation) -> dict:
    """The binds of the one PL/SQL call ``operation`` sends, and its member."""
    before = len(connection.calls)
    operation()
    blocks = connection.calls[before:]
    assert len(blocks) == 1, [block for block, _ in blocks]
    block, binds = blocks[0]
    return {"member": block.split(":result := ")[1].split("(")[0], **binds}


def test_update_thread_sends_only_the_calls_settings_for_the_package_to_layer():
    connection, client = opened(UPDATE_RECORD={**THREAD, "metadata": {"k": 1}})
    sent = one_call(connection, lambda: client.update_thread(
        "t", metadata={"k": 1}, max_message_token_length=500,
        memory_extraction_config=MemoryExtractionConfig(memory_extraction_window=3)))
    assert sent["member"] == "AGENT_MEMORY.UPDATE_RECORD"
    assert sent["p_changes"] == {"settings": {
        "max_message_token_length": 500,
        "memory_extraction_config": {"memory_extraction_window": 3}}, "metadata": {"k": 1}}


def test_update_memory_metadata_asks_the_package_to_keep_the_bookkeeping():
    connection, client = opened(UPDATE_RECORD=MEMORY)
    sent = one_call(connection, lambda: client.update_memory("m", metadata={"b": 2}))
    assert sent["member"] == "AGENT_MEMORY.UPDATE_RECORD"
    assert sent["p_changes"] == {"metadata": {"b": 2}, "keep_bookkeeping": True}


def test_update_image_is_one_call_and_the_package_refuses_an_attached_images_expiry():
    connection, client = opened(UPDATE_RECORD=IMAGE)
    sent = one_call(connection, lambda: client.update_image("img", description="a cat",
                                                            ttl_days=3))
    assert sent["member"] == "AGENT_MEMORY.UPDATE_RECORD"
    assert sent["p_changes"]["content"] == "a cat" and sent["p_changes"]["ttl_days"] == 3
    connection.answers["UPDATE_RECORD"] = database_error(
        20008, "the image is attached to a message: change its expiry with the message's")
    with pytest.raises(ValueError, match="change its expiry with update_message"):
        one_call(connection, lambda: client.update_image("img", ttl_days=3))


def test_a_memory_linked_to_a_stored_one_is_one_call_the_package_scopes():
    connection, client = opened(WRITE_RECORDS=["new"])
    sent = one_call(connection, lambda: client.add_memory(
        "works in Lyon", memory_id="new", agent_id="b", memory_id_to_link="m",
        link_type="supports"))
    assert sent["member"] == "AGENT_MEMORY.WRITE_RECORDS"
    [record] = sent["p_records"]
    assert record["scope_from"] == "m" and record["agent_id"] == "b"
    assert "user_id" not in record and "thread_id" not in record
    [link] = sent["p_links"]
    assert (link["source_id"], link["target_id"]) == ("new", "m")
    assert "target_type" not in link  # the package reads the stored type
    connection.answers["WRITE_RECORDS"] = database_error(
        20010, "records[0].scope_from 'gone' is not a stored memory")
    with pytest.raises(KeyError, match="memory_id_to_link 'gone' is not a stored memory"):
        one_call(connection, lambda: client.add_memory(
            "x", memory_id_to_link="gone", link_type="supports"))


def test_editing_a_message_the_handle_wrote_is_one_call_checked_against_the_one_before():
    connection, client = opened(
        APPEND_MESSAGES=written("m1", "m2"), UPDATE_RECORD={**MESSAGE, "content": "then Paris"})
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "Tom", "content": "Lyon is lovely", "id": "m1"},
                         {"role": "user", "content": "then Lyon", "id": "m2"}])
    sent = one_call(connection, lambda: thread.update_message("m2", content="then Paris"))
    assert sent["member"] == "AGENT_MEMORY.UPDATE_RECORD"
    assert sent["p_changes"]["after_message_id"] == "m1"
    # another session changed what is before it: the package refuses (-20011), the thread is
    # read and the message embedded again against the message before it now
    connection.answers["UPDATE_RECORD"] = InTurn(
        database_error(20011, "the message before 'm2' is not 'm1' any more"),
        {**MESSAGE, "content": "then Rome"})
    connection.answers["LIST_MESSAGES"] = [MESSAGE]
    before = len(connection.calls)
    thread.update_message("m2", content="then Rome")
    members = [block.split(":result := ")[1].split("(")[0]
               for block, _ in connection.calls[before:]]
    assert members == ["AGENT_MEMORY.UPDATE_RECORD", "AGENT_MEMORY.LIST_MESSAGES",
                       "AGENT_MEMORY.UPDATE_RECORD"]
    assert connection.calls[-1][1]["p_changes"]["after_message_id"] is None
