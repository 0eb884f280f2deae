"""Every public path to a store passes the end-user guard (issue 28, item 9).

Before, the guard was put on inside the client's service: inside alice's security context
``client.list_memories(user_id="bob")`` was empty, but ``client.store.list(...)`` and a
standalone ``OracleDBMemoryStore`` returned bob's memory.
"""

from __future__ import annotations

import pytest

from oracleagentmemory.core import OracleAgentMemory, OracleDBMemoryStore
from oracleagentmemory.core.deepsec import (
    LocalEndUserPrincipal,
    OracleMemoryEndUserSecurityContext,
    UserOwnRowsDeepDataSecurityPolicy,
    add_deep_data_security_policies,
    grant_agent_memory_policies,
)
from oracleagentmemory.core.opening import service_for_store
from oracleagentmemory.stores.embedded import EmbeddedBackend

OWN = UserOwnRowsDeepDataSecurityPolicy()


@pytest.fixture
def location(embedder, tmp_path):
    path = str(tmp_path / "guarded.db")
    with OracleAgentMemory(connection=path, embedder=embedder) as client:
        client.create_thread(thread_id="tb", user_id="bob").add_memory(
            "bob's pin is 4321", memory_id="mb")
        client.create_thread(thread_id="ta", user_id="alice").add_memory(
            "alice likes tea", memory_id="ma")
    add_deep_data_security_policies(path, "APP", "AGENT_MEMORY", [OWN])
    grant_agent_memory_policies(path, "AGENT_MEMORY", "APP", [LocalEndUserPrincipal("alice")],
                                [OWN])
    return path


def test_the_client_the_store_a_standalone_store_and_a_bare_backend_all_hide_bobs_rows(
        location, embedder):
    client = OracleAgentMemory(connection=location, embedder=embedder)
    standalone = OracleDBMemoryStore(embedder, location)
    service = service_for_store(EmbeddedBackend(location))
    try:
        with OracleMemoryEndUserSecurityContext("alice"):
            assert [m.id for m in client.list_memories(user_id="bob")] == []
            assert client.store.list("memory", user_id="bob") == []
            assert standalone.list("memory", user_id="bob") == []
            assert service.backend.get_records({"user_id": "bob"}) == []
            # alice's own rows stay visible on every path
            assert [r.id for r in client.store.list("memory", user_id="alice")] == ["ma"]
            assert [r.id for r in standalone.list("memory", user_id="alice")] == ["ma"]
            assert standalone.delete("memory", "mb") == 0  # not alice's: nothing deleted
        # outside any security context the application sees everything
        assert [r.id for r in standalone.list("memory", user_id="bob")] == ["mb"]
    finally:
        client.close()
        standalone.close()
        service.backend.close()


def test_an_end_user_cannot_write_into_another_users_thread(location, embedder):
    # Issue 28, item 8: writes checked the records' user_id, not the thread's owner, so
    # alice could add messages and memories to bob's thread from her own context.
    from oracleagentmemory.core import OracleThread

    with OracleAgentMemory(connection=location, embedder=embedder) as client:
        into_bobs = OracleThread(client.store, client=client, thread_id="tb", user_id="alice")
        with OracleMemoryEndUserSecurityContext("alice"):
            with pytest.raises(PermissionError, match="thread it does not own"):
                into_bobs.add_messages([{"role": "user", "content": "planted"}])
            with pytest.raises(PermissionError, match="thread it does not own"):
                into_bobs.add_memory("planted memory")
            own = OracleThread(client.store, client=client, thread_id="ta", user_id="alice")
            assert own.add_memory("alice's own note")  # her own thread still takes writes
        contents = [r["content"] for r in client.memory_service.backend.get_records(
            {"thread_id": "tb"})]
        assert "planted" not in contents and "planted memory" not in contents
