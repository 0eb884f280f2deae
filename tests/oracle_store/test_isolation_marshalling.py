"""End-user binding of the Oracle store, against recording stand-ins for oracledb.

With ``end_user_id`` every operation runs between ``<prefix>_SESSION.SET_END_USER`` and
``CLEAR_END_USER`` in one anonymous block, so one round trip (it used to take
three) on one connection, and the block unbinds also when the operation fails (so a pooled
connection never leaves bound); without it the calls are exactly as before.
"""

from __future__ import annotations

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.stores.errors import (  # noqa: E402
    DuplicateRecordError,
    InvalidArgumentError,
    LinkEndNotFoundError,
    SchemaError,
    StoreClosedError,
    StoreError,
)
from oracleagentmemory.stores.oracle import PACKAGE_ALIASES, OracleBackend  # noqa: E402
from tests.support.fake_oracledb import FakePool, database_error  # noqa: E402, F401


def open_store(end_user_id=None, store_id="AGENT_MEMORY", **answers):
    pool = FakePool(**answers)
    store = OracleBackend(pool, embedding_dimension=3, store_id=store_id,
                              end_user_id=end_user_id)
    pool.log.clear()
    return store, pool


def test_the_session_alias_names_the_default_session_package():
    assert PACKAGE_ALIASES["SESSION"] == "AGENT_MEMORY_SESSION"


def test_an_unbound_store_sends_only_the_operation():
    store, pool = open_store(GET_RECORDS=[])
    assert store.get_records({"user_id": "B"}) == []
    assert [statement for _, statement, _ in pool.log] == [
        "BEGIN :result := AGENT_MEMORY.GET_RECORDS(p_query => :p_query); END;"]


def bound(call: str, session: str = "AGENT_MEMORY_SESSION") -> str:
    return (f"BEGIN {session}.SET_END_USER(p_user_id => :am_end_user); {call}; "
            f"{session}.CLEAR_END_USER; EXCEPTION WHEN OTHERS THEN ROLLBACK; BEGIN "
            f"{session}.CLEAR_END_USER; EXCEPTION WHEN OTHERS THEN NULL; END; RAISE; END;")


def test_a_bound_store_binds_and_unbinds_in_the_same_block_one_round_trip_each():
    store, pool = open_store(end_user_id="user-A", GET_RECORDS=[{"id": "a1"}], PURGE_EXPIRED=2)
    assert store.get_records({"user_id": "B"}) == [{"id": "a1"}]
    assert store.purge_expired() == 2
    assert [(statement, binds) for _, statement, binds in pool.log] == [
        (bound(":result := AGENT_MEMORY.GET_RECORDS(p_query => :p_query)"),
         {"am_end_user": "user-A", "p_query": {"user_id": "B"}}),
        (bound(":result := AGENT_MEMORY.PURGE_EXPIRED(p_commit => :p_commit)"),
         {"am_end_user": "user-A", "p_commit": True}),
    ]


def test_the_wrapping_members_exist_in_the_session_spec():
    from oracleagentmemory.stores.oracle import CLEAR_END_USER, SET_END_USER
    from oracleagentmemory.stores.oracle_sql.render import render_install
    from oracleagentmemory_devtools.plsql_units import package_units
    from oracleagentmemory_devtools.sql_parsing import parse_source
    from oracleagentmemory_devtools.sql_sources import SqlSource

    spec = dict(render_install())["agent_memory_session.pks"]
    [unit] = package_units([parse_source(SqlSource("sql/agent_memory_session.pks", spec))])
    [set_end_user] = unit.members(SET_END_USER)
    [clear_end_user] = unit.members(CLEAR_END_USER)
    assert [p.name.lower() for p in set_end_user.params] == ["p_user_id"]
    assert clear_end_user.params == ()


def test_the_end_user_is_a_bind_never_sql_text():
    hostile = "A'); DELETE FROM agent_memory_records; --"
    store, pool = open_store(end_user_id=hostile, LIST_LINKS=[])
    store.list_links({"thread_id": "t"})
    first_statement, first_binds = pool.log[0][1], pool.log[0][2]
    assert hostile not in first_statement
    assert first_binds == {"am_end_user": hostile, "p_query": {"thread_id": "t"}}


def test_a_custom_prefix_binds_through_its_own_session_package():
    store, pool = open_store(end_user_id="u", store_id="MEM_T1", DESCRIBE={"backend": "oracle"})
    store.describe()
    assert [statement for _, statement, _ in pool.log] == [
        bound(":result := MEM_T1.DESCRIBE()", session="MEM_T1_SESSION")]


def test_a_failing_operation_still_unbinds_and_raises_its_own_error():
    violation = database_error(28115, "policy with check option violation")
    store, pool = open_store(end_user_id="u", UPDATE_LINK=violation)
    with pytest.raises(StoreError, match="ORA-28115"):
        store.update_link("l", "t", {"relation_type": "supports"})
    [(_, statement, _)] = pool.log
    # the block's own handler unbinds, then re-raises the operation's error
    handler = statement[statement.index("EXCEPTION WHEN OTHERS THEN ROLLBACK; BEGIN"):]
    assert handler.startswith("EXCEPTION WHEN OTHERS THEN ROLLBACK; BEGIN AGENT_MEMORY_SESSION"
                              ".CLEAR_END_USER;")
    assert handler.endswith("RAISE; END;")


def test_binding_failure_stops_the_operation():
    # e.g. the DBA has not created the context: SET_CONTEXT is refused
    store, pool = open_store(end_user_id="u")
    pool.answers["SET_END_USER"] = database_error(1031, "insufficient privileges")
    with pytest.raises(StoreError, match="ORA-01031"):
        store.get_records({})
    assert [statement for _, statement, _ in pool.log] == [
        bound(":result := AGENT_MEMORY.GET_RECORDS(p_query => :p_query)")]


def test_a_bound_store_refuses_to_install_a_missing_schema():
    pool = FakePool(CHECK_SCHEMA=database_error(4043, "object AGENT_MEMORY does not exist"),
                    SET_END_USER=None, CLEAR_END_USER=None)
    with pytest.raises(SchemaError, match="does not install"):
        OracleBackend(pool, embedding_dimension=3, end_user_id="u")
    assert not any("CREATE TABLE" in statement for _, statement, _ in pool.log)


@pytest.mark.parametrize("bad", ["", 7, "x" * 513, "é" * 513])
def test_invalid_end_user_ids_are_rejected_before_any_call(bad):
    pool = FakePool()
    with pytest.raises(InvalidArgumentError):
        OracleBackend(pool, embedding_dimension=3, end_user_id=bad)
    assert pool.log == []


def test_an_end_user_id_of_512_non_ascii_characters_is_bound():
    # ids are VARCHAR2(512 CHAR): 512 characters whatever their bytes
    user = "中" * 512
    store, pool = open_store(end_user_id=user, LIST_LINKS=[])
    store.list_links({"thread_id": "t"})
    assert pool.log[0][2] == {"am_end_user": user, "p_query": {"thread_id": "t"}}


def test_a_unique_key_met_under_isolation_is_a_duplicate_record_error():
    # a bound session cannot see another user's row, so the insert meets the primary key
    collision = database_error(1, "unique constraint (AGENTMEM.AGENT_MEMORY_RECORDS_PK) "
                                  "violated")
    store, pool = open_store(end_user_id="u", WRITE_RECORDS=collision)
    with pytest.raises(DuplicateRecordError, match="already in use") as raised:
        store.write_records([{"record_type": "memory", "id": "taken", "content": "x"}])
    assert "AGENT_MEMORY_RECORDS_PK" not in str(raised.value)


def test_a_missing_link_end_is_a_key_error_and_a_value_error():
    # the link_graph package raises -20010 for an end that does not exist
    missing = database_error(20010, "source record 'nope' does not exist")
    store, _ = open_store(WRITE_RECORDS=missing)
    with pytest.raises(LinkEndNotFoundError, match="does not exist") as raised:
        store.write_records([], links=[{"source_id": "nope", "source_type": "memory",
                                        "target_id": "m", "target_type": "memory",
                                        "relation_type": "supports"}])
    assert isinstance(raised.value, KeyError) and isinstance(raised.value, ValueError)


def test_a_closed_store_refuses_with_a_runtime_error_before_any_call():
    store, pool = open_store()
    store.close()
    pool.log.clear()
    with pytest.raises(StoreClosedError) as raised:
        store.get_records({})
    assert isinstance(raised.value, RuntimeError)
    assert pool.log == []
