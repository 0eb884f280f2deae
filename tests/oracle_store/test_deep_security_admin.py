"""Deep data security administration on the Oracle backend, against the driver double.

``core.deepsec``'s admin functions given an oracledb connection or pool call the owner-only
package ``<owner>.<prefix>_SECURITY`` (sql/templates/security.pks.j2): one block per call,
every name a bind, the owner and prefix checked before they reach the call text; the
database's refusals come back as the library's errors. The schema version 3 step that
creates the policy and grant tables is the same text in the install, the migration list
and install/upgrade.sql.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.core.deepsec import (  # noqa: E402
    GlobalMemoriesDeepDataSecurityPolicy,
    LocalEndUserPrincipal,
    OciGroupPrincipal,
    OracleMemoryEndUserSecurityContext,
    UserOwnRowsDeepDataSecurityPolicy,
    add_deep_data_security_policies,
    get_end_user_username,
    grant_agent_memory_policies,
    list_agent_memory_granted_policies,
    list_deep_data_security_policies,
    remove_deep_data_security_policies,
    revoke_agent_memory_policies,
)
from oracleagentmemory.stores.oracle import OracleBackend  # noqa: E402
from oracleagentmemory.stores.oracle_sql.migrations import MIGRATIONS  # noqa: E402
from oracleagentmemory.stores.oracle_sql.render import (  # noqa: E402
    object_names,
    render_install,
)
from tests.support.fake_oracledb import FakeConnection, FakePool, database_error  # noqa: E402

OWN, GLOBAL = UserOwnRowsDeepDataSecurityPolicy(), GlobalMemoriesDeepDataSecurityPolicy()
ALICE, READERS = LocalEndUserPrincipal("alice"), OciGroupPrincipal("readers")
ROOT = Path(__file__).resolve().parents[2]


def owner_session(**answers) -> FakeConnection:
    connection = FakeConnection(**answers)
    connection.schema = ("APP", "APP")
    return connection


def security_call(member: str, arguments: str, owner: str = "APP",
                  prefix: str = "AGENT_MEMORY") -> str:
    return f"BEGIN {owner}.{prefix}_SECURITY.{member}({arguments}); END;"


def test_adding_and_removing_policies_call_the_owners_security_package():
    connection = owner_session()
    add_deep_data_security_policies(connection, "APP", "AGENT_MEMORY", [OWN, GLOBAL, OWN])
    remove_deep_data_security_policies(connection, "APP", "AGENT_MEMORY", [GLOBAL])
    assert connection.calls == [
        (security_call("ADD_POLICIES", "p_policies => :p_policies, p_commit => :p_commit"),
         {"p_policies": ["GLOBAL_MEMORIES", "USER_OWN_ROWS"], "p_commit": True}),
        (security_call("REMOVE_POLICIES", "p_policies => :p_policies, p_commit => :p_commit"),
         {"p_policies": ["GLOBAL_MEMORIES"], "p_commit": True}),
    ]


def test_granting_and_revoking_send_each_principal_as_kind_and_name():
    connection = owner_session()
    grant_agent_memory_policies(connection, "MEM_T1", "AGENTMEM", [ALICE, READERS], [OWN])
    revoke_agent_memory_policies(connection, "MEM_T1", "AGENTMEM", [READERS], [OWN, GLOBAL])
    principals = "p_principals => :p_principals, p_policies => :p_policies, p_commit => :p_commit"
    assert connection.calls == [
        (security_call("GRANT_POLICIES", principals, "AGENTMEM", "MEM_T1"),
         {"p_principals": [{"kind": "LOCAL_USER", "name": "alice"},
                           {"kind": "GROUP", "name": "readers"}],
          "p_policies": ["USER_OWN_ROWS"], "p_commit": True}),
        (security_call("REVOKE_POLICIES", principals, "AGENTMEM", "MEM_T1"),
         {"p_principals": [{"kind": "GROUP", "name": "readers"}],
          "p_policies": ["GLOBAL_MEMORIES", "USER_OWN_ROWS"], "p_commit": True}),
    ]


def test_listing_reads_the_stored_names_back_as_the_public_objects():
    connection = owner_session(
        LIST_POLICIES=["USER_OWN_ROWS", "GLOBAL_MEMORIES"],
        LIST_GRANTS=[{"kind": "LOCAL_USER", "name": "alice", "policies": ["USER_OWN_ROWS"]},
                     {"kind": "GROUP", "name": "readers",
                      "policies": ["USER_OWN_ROWS", "GLOBAL_MEMORIES"]}])
    assert list_deep_data_security_policies(connection, "APP", "AGENT_MEMORY") == [GLOBAL, OWN]
    granted = list_agent_memory_granted_policies(connection, "AGENT_MEMORY", "APP")
    # the order of the embedded backend: by (kind, name), policies by name
    assert granted == [(READERS, [GLOBAL, OWN]), (ALICE, [OWN])]
    assert [block for block, _ in connection.calls] == [
        "BEGIN :result := APP.AGENT_MEMORY_SECURITY.LIST_POLICIES(); END;",
        "BEGIN :result := APP.AGENT_MEMORY_SECURITY.LIST_GRANTS(); END;"]


def test_a_pool_works_like_a_connection():
    pool = FakePool(LIST_POLICIES=[])
    assert list_deep_data_security_policies(pool, "APP", "AGENT_MEMORY") == []
    assert [statement for _, statement, _ in pool.log] == [
        "BEGIN :result := APP.AGENT_MEMORY_SECURITY.LIST_POLICIES(); END;"]


def test_administration_is_never_bound_to_the_end_user_of_a_security_context():
    connection = owner_session()
    with OracleMemoryEndUserSecurityContext({"username": "carol", "groups": ["readers"]}):
        grant_agent_memory_policies(connection, "AGENT_MEMORY", "APP", [ALICE], [OWN])
    [(block, binds)] = connection.calls
    assert "SESSION" not in block and "am_end_user" not in binds


@pytest.mark.parametrize("owner", ["app", "APP; DROP TABLE X", 'A"B', "O" * 31, "TABLE", "",
                                   "APP.X"])
def test_owner_schemas_are_checked_like_schema_owner_before_any_call(owner):
    connection = owner_session()
    with pytest.raises(ValueError, match="owner_schema"):
        add_deep_data_security_policies(connection, owner, "AGENT_MEMORY", [OWN])
    assert connection.calls == []


@pytest.mark.parametrize("store_id", ["agent_memory", "AM; DROP", "1AM", "A" * 31, "SELECT"])
def test_store_ids_are_checked_like_prefixes_before_any_call(store_id):
    connection = owner_session()
    with pytest.raises(ValueError, match="memory_store_id"):
        list_agent_memory_granted_policies(connection, store_id, "APP")
    assert connection.calls == []


def test_wrong_argument_types_are_refused_before_any_call():
    connection = owner_session()
    with pytest.raises(TypeError, match="policies"):
        add_deep_data_security_policies(connection, "APP", "AGENT_MEMORY", ["user_own_rows"])
    with pytest.raises(TypeError, match="principals"):
        grant_agent_memory_policies(connection, "AGENT_MEMORY", "APP", ["alice"], [OWN])
    with pytest.raises(TypeError, match="owner_schema"):
        list_deep_data_security_policies(connection, 42, "AGENT_MEMORY")
    assert connection.calls == []


def test_a_session_that_is_not_the_owner_gets_a_permission_error():
    refusal = database_error(20009, "add_policies is reserved to the store owner")
    connection = owner_session(ADD_POLICIES=refusal)
    with pytest.raises(PermissionError, match="reserved to the store owner"):
        add_deep_data_security_policies(connection, "APP", "AGENT_MEMORY", [OWN])


def test_granting_an_unregistered_policy_is_a_value_error():
    refusal = database_error(20001, "policies not registered on the store: GLOBAL_MEMORIES; "
                                    "add them with add_policies first")
    connection = owner_session(GRANT_POLICIES=refusal)
    with pytest.raises(ValueError, match="not registered"):
        grant_agent_memory_policies(connection, "AGENT_MEMORY", "APP", [ALICE], [GLOBAL])


def test_a_missing_security_package_says_so():
    missing = database_error(6550, "line 1, column 7:\nPLS-00201: identifier "
                                   "'APP.AGENT_MEMORY_SECURITY' must be declared")
    connection = owner_session(LIST_GRANTS=missing)
    with pytest.raises(RuntimeError, match=r"APP\.AGENT_MEMORY_SECURITY cannot be called"
                                           r".*older than schema version 3"):
        list_agent_memory_granted_policies(connection, "AGENT_MEMORY", "APP")


def test_another_user_without_execute_gets_a_permission_error_not_a_schema_error():
    # The package is granted to nobody: another user meets PLS-00201 before the package's
    # own -20009 could run, and the session user tells the two cases apart.
    missing = database_error(6550, "line 1, column 7:\nPLS-00201: identifier "
                                   "'APP.AGENT_MEMORY_SECURITY' must be declared")
    connection = FakeConnection(ADD_POLICIES=missing)
    connection.schema = ("APPUSER", "APPUSER")
    with pytest.raises(PermissionError, match=r"reserved to the store owner APP; this "
                                              r"session is user APPUSER"):
        add_deep_data_security_policies(connection, "APP", "AGENT_MEMORY", [OWN])
    assert [statement for statement, _ in connection.calls][-1].startswith(
        "SELECT SYS_CONTEXT('USERENV', 'CURRENT_SCHEMA')")


# -- who the caller acts for --------------------------------------------------------------


def test_get_end_user_username_inside_a_context_is_the_contexts_user_without_a_call():
    connection = owner_session()
    with OracleMemoryEndUserSecurityContext({"username": "carol", "groups": ["g"]}):
        assert get_end_user_username(connection) == "carol"
    assert connection.calls == []


def test_get_end_user_username_outside_a_context_asks_the_session():
    connection = owner_session(END_USER_ID=None)
    assert get_end_user_username(connection) is None
    connection.answers["END_USER_ID"] = "bound-by-the-app"
    assert get_end_user_username(connection) == "bound-by-the-app"
    assert [block for block, _ in connection.calls] == [
        "BEGIN :result := AGENT_MEMORY_SESSION.END_USER_ID(); END;"] * 2


# -- the tables of schema version 3 -------------------------------------------------------


def normalized(statement: str) -> str:
    text = " ".join(statement.split())
    return re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", text))


def test_the_version_3_step_creates_the_install_tables_in_an_older_store():
    names = object_names("AGENT_MEMORY")
    tables = dict(render_install())["agent_memory_tables.sql"]
    installed = [normalized(statement.rstrip(";")) for statement in re.findall(
        r"^CREATE (?:TABLE|INDEX) IF NOT EXISTS AGENT_MEMORY_SEC_\w+.*?;$", tables,
        flags=re.M | re.S)]
    [version_3] = [migration for migration in MIGRATIONS if migration.version == 3]
    steps = [normalized(step.statement(names)) for step in version_3.table_steps]
    assert steps == installed and len(steps) == 3
    script = (ROOT / "install" / "upgrade.sql").read_text(encoding="utf-8")
    for step in version_3.table_steps:
        literal = step.statement(names).replace("'", "''")
        assert f"EXECUTE IMMEDIATE '{literal}';" in script


def test_upgrading_a_version_2_store_creates_the_security_tables_before_the_packages():
    connection = owner_session()
    connection.meta = {"schema_version": "2", "embedding_dimension": "384",
                       "search_strategy": "VECTOR", "vector_index": "IVF",
                       "sync_mode": "ON_COMMIT", "embedding_model": ""}
    OracleBackend(connection, schema_policy="NO_CHECK").administration.upgrade()
    done = [statement for statement, _ in connection.calls]
    created = [i for i, s in enumerate(done)
               if s.startswith(("CREATE TABLE IF NOT EXISTS AGENT_MEMORY_SEC_",
                                "CREATE INDEX IF NOT EXISTS AGENT_MEMORY_SEC_"))]
    assert len(created) == 3
    # version 2 is done: no relations change (version 4 adds the records' keyword text)
    assert not any(s.startswith("ALTER TABLE AGENT_MEMORY_RELATIONS") for s in done)
    security_body = next(i for i, s in enumerate(done)
                         if s.startswith("CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_SECURITY"))
    assert max(created) < security_body
    assert ("AGENT_MEMORY_SEC_GRANTS", "TABLE", "VALID") in connection.objects


def test_the_administration_reads_the_deep_data_security_mode():
    """'NATIVE' on a 26ai database with Deep Data Security, 'VPD' elsewhere (the package's
    VARCHAR2 result, read as text)."""
    from oracleagentmemory.stores.oracle_security import OracleSecurityAdmin

    connection = owner_session(DEEP_DATA_SECURITY="NATIVE")
    assert OracleSecurityAdmin(connection, "APP", "AGENT_MEMORY").deep_data_security() == "NATIVE"
    [(statement, _)] = connection.calls
    assert statement == "BEGIN :result := APP.AGENT_MEMORY_SECURITY.DEEP_DATA_SECURITY(); END;"
