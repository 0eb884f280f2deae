"""On Oracle, ``add_messages`` of a batch is one PL/SQL call, one round trip: the driver double
logs every statement the client sends."""

from __future__ import annotations

import pytest

pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.core import MemoryExtractionConfig, OracleAgentMemory  # noqa: E402
from tests.support.embedders import HashingEmbedder  # noqa: E402
from tests.support.fake_oracledb import FakeConnection, InTurn  # noqa: E402
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
