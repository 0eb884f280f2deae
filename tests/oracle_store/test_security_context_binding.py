"""The end-user security context on the Oracle backend, against the driver double.

Inside ``OracleMemoryEndUserSecurityContext`` every operation's anonymous block binds that
end user with its groups (``<prefix>_SESSION.SET_END_USER_CONTEXT``), runs the call and
unbinds (also when it fails), in one round trip; the database then applies the policies
granted to the user or its groups. The context variable is read when each operation is
sent, so threads and asyncio tasks each bind their own end user; outside a context nothing
changes. Refusals of the database (-20009, ORA-28115) are ``PermissionError``s.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.core.deepsec import OracleMemoryEndUserSecurityContext  # noqa: E402
from oracleagentmemory.stores.errors import (  # noqa: E402
    AccessDeniedError,
    InvalidArgumentError,
    SchemaError,
    StoreError,
)
from oracleagentmemory.stores.oracle import (  # noqa: E402
    CLEAR_END_USER,
    SET_END_USER_CONTEXT,
    OracleBackend,
)
from tests.support.fake_oracledb import FakeConnection, FakePool, database_error  # noqa: E402

SESSION = "AGENT_MEMORY_SESSION"


def open_store(end_user_id=None, **answers):
    pool = FakePool(**answers)
    store = OracleBackend(pool, embedding_dimension=3, end_user_id=end_user_id)
    pool.log.clear()
    return store, pool


def bound(call: str, session: str = SESSION) -> str:
    return (f"BEGIN {session}.SET_END_USER_CONTEXT(p_username => :am_end_user, "
            f"p_groups => :am_end_user_groups); {call}; {session}.CLEAR_END_USER; "
            f"EXCEPTION WHEN OTHERS THEN ROLLBACK; BEGIN {session}.CLEAR_END_USER; "
            "EXCEPTION WHEN OTHERS THEN NULL; END; RAISE; END;")


def test_an_operation_inside_a_context_binds_the_user_and_groups_in_its_own_block():
    store, pool = open_store(GET_RECORDS=[{"id": "a1"}])
    with OracleMemoryEndUserSecurityContext({"username": "carol", "groups": ["customers",
                                                                          "readers"]}):
        assert store.get_records({"user_id": "carol"}) == [{"id": "a1"}]
    assert [(statement, binds) for _, statement, binds in pool.log] == [
        (bound(":result := AGENT_MEMORY.GET_RECORDS(p_query => :p_query)"),
         {"am_end_user": "carol", "am_end_user_groups": ["customers", "readers"],
          "p_query": {"user_id": "carol"}})]


def test_the_context_is_read_per_operation_and_nests():
    store, pool = open_store(DELETE_RECORDS=1)
    with OracleMemoryEndUserSecurityContext("alice"):
        store.delete_records(["m"], ["memory"])
        with OracleMemoryEndUserSecurityContext({"username": "bob", "groups": ["g"]}):
            store.delete_records(["m"], ["memory"])
        store.delete_records(["m"], ["memory"])
    store.delete_records(["m"], ["memory"])
    users = [binds.get("am_end_user") for _, _, binds in pool.log]
    groups = [binds.get("am_end_user_groups") for _, _, binds in pool.log]
    assert users == ["alice", "bob", "alice", None]
    assert groups == [[], ["g"], [], None]  # a user name alone binds no group
    assert pool.log[-1][1] == ("BEGIN :result := AGENT_MEMORY.DELETE_RECORDS(p_record_ids => "
                               ":p_record_ids, p_record_types => :p_record_types, "
                               "p_thread_id => :p_thread_id, p_commit => :p_commit); END;")


def test_two_threads_with_different_contexts_each_bind_their_own_user():
    store, pool = open_store(GET_RECORDS=[])
    start = threading.Barrier(2)

    def work(user: str) -> None:
        with OracleMemoryEndUserSecurityContext({"username": user, "groups": [f"{user}-g"]}):
            start.wait()
            for _ in range(50):
                store.get_records({"user_id": user})

    threads = [threading.Thread(target=work, args=(user,)) for user in ("alice", "bob")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    calls = [binds for _, _, binds in pool.log]
    assert len(calls) == 100
    for binds in calls:  # the query each thread sent names its own user
        assert binds["am_end_user"] == binds["p_query"]["user_id"]
        assert binds["am_end_user_groups"] == [binds["am_end_user"] + "-g"]
    assert {binds["am_end_user"] for binds in calls} == {"alice", "bob"}


def test_asyncio_tasks_with_different_contexts_each_bind_their_own_user():
    store, pool = open_store(LIST_LINKS=[])

    async def as_user(user: str) -> None:
        async with OracleMemoryEndUserSecurityContext(user):
            await asyncio.sleep(0)
            await asyncio.to_thread(store.list_links, {"source_id": user})

    async def both() -> None:
        await asyncio.gather(as_user("alice"), as_user("bob"))

    asyncio.run(both())
    pairs = sorted((b["am_end_user"], b["p_query"]["source_id"]) for _, _, b in pool.log)
    assert pairs == [("alice", "alice"), ("bob", "bob")]


def test_a_failing_operation_unbinds_in_its_block_and_raises_its_error():
    denied = database_error(20009, "end user 'carol' may not purge the store")
    store, pool = open_store(PURGE_EXPIRED=denied)
    with OracleMemoryEndUserSecurityContext("carol"), pytest.raises(PermissionError,
                                                                    match="may not purge"):
        store.purge_expired()
    [(_, statement, _)] = pool.log
    handler = statement[statement.index("EXCEPTION WHEN OTHERS THEN ROLLBACK; BEGIN"):]
    assert handler.startswith(
        f"EXCEPTION WHEN OTHERS THEN ROLLBACK; BEGIN {SESSION}.{CLEAR_END_USER};")


def test_the_policy_check_of_a_write_is_a_permission_error_that_keeps_its_code():
    violation = database_error(28115, "policy with check option violation")
    store, _ = open_store(WRITE_RECORDS=violation)
    with OracleMemoryEndUserSecurityContext("carol"), pytest.raises(AccessDeniedError) as caught:
        store.write_records([{"record_type": "memory", "user_id": "bob", "content": "x"}])
    assert isinstance(caught.value, PermissionError) and isinstance(caught.value, StoreError)
    assert "ORA-28115" in str(caught.value)


def test_a_binding_the_database_refuses_stops_the_operation():
    store, pool = open_store()
    pool.answers[SET_END_USER_CONTEXT] = database_error(
        20001, "set_end_user_context: p_username must have 1 to 512 characters")
    with OracleMemoryEndUserSecurityContext("x" * 600), pytest.raises(InvalidArgumentError):
        store.describe()
    assert len(pool.log) == 1


def test_the_end_user_and_groups_are_binds_never_sql_text():
    hostile = "A'); DELETE FROM agent_memory_records; --"
    store, pool = open_store(LIST_LINKS=[])
    with OracleMemoryEndUserSecurityContext({"username": hostile, "groups": [hostile]}):
        store.list_links({"thread_id": "t"})
    [(_, statement, binds)] = pool.log
    assert hostile not in statement
    assert binds["am_end_user"] == hostile and binds["am_end_user_groups"] == [hostile]


def test_another_owners_store_binds_through_the_owners_session_package():
    connection = FakeConnection(DESCRIBE={"backend": "oracle"})
    connection.schema = ("APP_USER", "APP_USER")
    store = OracleBackend(connection, schema_owner="AGENTMEM", store_id="MEM_T1",
                          schema_policy="REQUIRE_EXISTING")
    connection.log.clear()
    with OracleMemoryEndUserSecurityContext("carol"):
        store.describe()
    [(block, _)] = connection.calls
    assert block == bound(":result := AGENTMEM.MEM_T1.DESCRIBE()",
                          session="AGENTMEM.MEM_T1_SESSION")


def test_a_store_bound_to_one_end_user_refuses_a_context_for_another_before_any_call():
    store, pool = open_store(end_user_id="alice", GET_RECORDS=[])
    with OracleMemoryEndUserSecurityContext("bob"), pytest.raises(PermissionError,
                                                                  match="bound to end user"):
        store.get_records({})
    assert pool.log == []
    with OracleMemoryEndUserSecurityContext({"username": "alice", "groups": ["g"]}):
        store.get_records({})  # the same user: the context's policies decide
    [(_, statement, binds)] = pool.log
    assert statement.startswith(f"BEGIN {SESSION}.SET_END_USER_CONTEXT(")
    assert binds["am_end_user_groups"] == ["g"]


def test_a_store_opened_inside_a_context_never_installs():
    missing = database_error(4043, "object AGENT_MEMORY does not exist")
    pool = FakePool(CHECK_SCHEMA=missing, SET_END_USER_CONTEXT=None, CLEAR_END_USER=None)
    with OracleMemoryEndUserSecurityContext("carol"), pytest.raises(SchemaError,
                                                                    match="does not install"):
        OracleBackend(pool, embedding_dimension=3)
    assert not any("CREATE TABLE" in statement for _, statement, _ in pool.log)


def test_the_binding_member_exists_in_the_session_spec_with_these_parameters():
    from oracleagentmemory.stores.oracle_sql.render import render_install
    from oracleagentmemory_devtools.plsql_units import package_units
    from oracleagentmemory_devtools.sql_parsing import parse_source
    from oracleagentmemory_devtools.sql_sources import SqlSource

    spec = dict(render_install())["agent_memory_session.pks"]
    [unit] = package_units([parse_source(SqlSource("sql/agent_memory_session.pks", spec))])
    [member] = unit.members(SET_END_USER_CONTEXT)
    assert [p.name.lower() for p in member.params] == ["p_username", "p_groups"]


# -- through the public client --------------------------------------------------------------


def test_the_client_sends_each_operation_bound_and_adds_no_guard_of_its_own():
    from oracleagentmemory.core import OracleAgentMemory

    connection = FakeConnection(DESCRIBE={"backend": "oracle", "store_id": "AGENT_MEMORY"},
                                DELETE_RECORDS=0, GET_RECORDS=[])
    client = OracleAgentMemory(connection=connection, embedder=None,
                               schema_policy="require_existing")
    connection.log.clear()
    with OracleMemoryEndUserSecurityContext({"username": "carol", "groups": ["readers"]}):
        assert client.delete_memory("mb") == 0
        assert client.list_memories(user_id="carol") == []
    blocks = [block for block, _ in connection.calls]
    # the delete (no lookup of the memory first: no extraction is pending; the embedded
    # backend's guard would have looked the record up first and skipped the delete), then
    # the listing: every call bound, the database decides what each may touch
    assert [b.split(":result := ")[1].split("(")[0] for b in blocks] == [
        "AGENT_MEMORY.DELETE_RECORDS", "AGENT_MEMORY.GET_RECORDS"]
    assert all(b.startswith(f"BEGIN {SESSION}.SET_END_USER_CONTEXT(") for b in blocks)
    assert all(binds["am_end_user"] == "carol" for _, binds in connection.calls)
