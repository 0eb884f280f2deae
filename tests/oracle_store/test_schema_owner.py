"""A runtime user working with another owner's store: ``OracleBackend(..., schema_owner=...)``.

The runtime user has EXECUTE on the owner's facade and session packages (install/
grants_runtime.sql) and nothing else: no synonym, no CURRENT_SCHEMA. Every call names
``OWNER.<prefix>...``; the owner is checked like the prefix before it reaches the call text;
such a store is never installed, upgraded or repaired from the runtime session.
"""

from __future__ import annotations

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.stores.errors import InvalidArgumentError, SchemaError  # noqa: E402
from oracleagentmemory.stores.oracle import OracleBackend  # noqa: E402
from tests.support.fake_oracledb import FakeConnection, database_error  # noqa: E402

NOT_VISIBLE = database_error(6550, "line 1, column 7:\nPLS-00201: identifier "
                                   "'AGENTMEM.AGENT_MEMORY' must be declared")


def runtime_session(**answers) -> FakeConnection:
    connection = FakeConnection(**answers)
    connection.schema = ("APP_USER", "APP_USER")  # its own schema: no CURRENT_SCHEMA change
    return connection


def test_every_call_names_the_owners_packages():
    connection = runtime_session(GET_RECORDS=[])
    store = OracleBackend(connection, embedding_dimension=3, schema_owner="AGENTMEM",
                          schema_policy="REQUIRE_EXISTING")
    store.get_records({"ids": ["a"]})
    (check, _), (get, binds) = connection.calls
    assert check.startswith("BEGIN AGENTMEM.AGENT_MEMORY.CHECK_SCHEMA(")
    assert get == ("BEGIN :result := AGENTMEM.AGENT_MEMORY.GET_RECORDS(p_query => :p_query); "
                   "END;")
    assert binds == {"p_query": {"ids": ["a"]}}


def test_an_end_user_is_bound_through_the_owners_session_package():
    connection = runtime_session(DESCRIBE={"backend": "oracle"})
    store = OracleBackend(connection, schema_owner="AGENTMEM", store_id="MEM_T1",
                          end_user_id="u1", schema_policy="REQUIRE_EXISTING")
    connection.log.clear()
    assert store.describe() == {"backend": "oracle"}
    [(block, binds)] = connection.calls
    assert block.startswith("BEGIN AGENTMEM.MEM_T1_SESSION.SET_END_USER(p_user_id => "
                            ":am_end_user); :result := AGENTMEM.MEM_T1.DESCRIBE(); "
                            "AGENTMEM.MEM_T1_SESSION.CLEAR_END_USER; ")
    assert binds == {"am_end_user": "u1"}


@pytest.mark.parametrize("owner", ["agentmem", "AGENTMEM; DROP TABLE X", 'AGENT"MEM', "1OWNER",
                                   "O" * 31, "TABLE", "", "OWNER.X", 42])
def test_owners_are_checked_like_prefixes_before_any_call(owner):
    connection = runtime_session()
    with pytest.raises(InvalidArgumentError, match="schema_owner"):
        OracleBackend(connection, schema_owner=owner)
    assert connection.calls == []


@pytest.mark.parametrize("policy", ["CREATE_IF_NECESSARY", "CREATE_IF_EMPTY", "REQUIRE_EXISTING"])
def test_a_missing_or_ungranted_store_of_another_owner_is_never_installed(policy):
    connection = runtime_session(CHECK_SCHEMA=NOT_VISIBLE)
    with pytest.raises(SchemaError, match=r"not visible in schema AGENTMEM.*"
                                          r"lacks EXECUTE on AGENTMEM\.AGENT_MEMORY"):
        OracleBackend(connection, schema_owner="AGENTMEM", schema_policy=policy)
    objects_query = next(binds for statement, binds in connection.calls
                         if "FROM all_objects" in statement)
    assert objects_query["owner"] == "AGENTMEM"  # looked for in the owner's schema
    assert not any(s.startswith(("CREATE", "ALTER")) for s, _ in connection.calls)


def test_install_and_upgrade_are_refused_for_another_owner():
    connection = runtime_session()
    store = OracleBackend(connection, schema_owner="AGENTMEM", schema_policy="NO_CHECK")
    with pytest.raises(SchemaError, match="install the store as the owner"):
        store.administration.install()
    with pytest.raises(SchemaError, match="upgrade the store as its owner AGENTMEM: this "
                                          "session is user APP_USER"):
        store.administration.upgrade()
    assert not any(s.startswith(("CREATE", "ALTER")) for s, _ in connection.calls)


def test_the_owner_may_name_itself_and_install():
    connection = FakeConnection(CHECK_SCHEMA=NOT_VISIBLE, ENSURE_PURGE_JOB=True)
    connection.schema = ("AGENTMEM", "AGENTMEM")
    OracleBackend(connection, embedding_dimension=3, schema_owner="AGENTMEM",
                  schema_policy="CREATE_IF_NECESSARY")
    assert ("AGENT_MEMORY", "PACKAGE BODY", "VALID") in connection.objects
    assert any(s.startswith("BEGIN :result := AGENTMEM.AGENT_MEMORY.ENSURE_PURGE_JOB(")
               for s, _ in connection.calls)


def test_the_public_client_reaches_the_owners_store():
    from oracleagentmemory.core import OracleAgentMemory

    connection = runtime_session(GET_RECORDS=[], DESCRIBE={"backend": "oracle",
                                                          "store_id": "AGENT_MEMORY"})
    client = OracleAgentMemory(connection=connection, embedder=None, schema_owner="AGENTMEM",
                               schema_policy="require_existing")
    assert client.list_memories(user_id="u1") == []
    calls = [block for block, _ in connection.calls]
    assert calls[0].startswith("BEGIN AGENTMEM.AGENT_MEMORY.CHECK_SCHEMA(")
    assert any("AGENTMEM.AGENT_MEMORY.GET_RECORDS(" in block for block in calls)


def test_schema_owner_is_refused_for_an_embedded_store():
    from oracleagentmemory.core import OracleAgentMemory

    with pytest.raises(ValueError, match="schema_owner"):
        OracleAgentMemory(connection=":memory:", embedder=None, schema_owner="AGENTMEM")
