"""Installing is idempotent and tells its states apart, the
default vector index works without a vector memory pool, and upgrade keeps the store's own
choices.

The double keeps a small catalog like the database's (tests/support/fake_oracledb.py):
CREATE of an existing object fails with ORA-00955 unless it says IF NOT EXISTS or OR
REPLACE, and the install MERGE fills the META rows that upgrade reads.
"""

from __future__ import annotations

import contextlib
import io

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.stores.errors import SchemaError  # noqa: E402
from oracleagentmemory.stores.oracle import OracleBackend  # noqa: E402
from oracleagentmemory.stores.oracle_sql.render import (  # noqa: E402
    object_names,
    render_install,
)
from oracleagentmemory.stores.oracle_sql.statements import split_script  # noqa: E402
from tests.support.fake_oracledb import FakeConnection, database_error  # noqa: E402

NAMES = object_names("AGENT_MEMORY")
MISSING = database_error(6550, "line 1, column 7:\nPLS-00201: identifier 'AGENT_MEMORY' must "
                               "be declared")


def fresh(**answers) -> FakeConnection:
    return FakeConnection(CHECK_SCHEMA=MISSING, ENSURE_PURGE_JOB=True, **answers)


def executed(connection: FakeConnection, prefix: str) -> list[str]:
    """Statements that start with ``prefix``, or blocks that run it as dynamic DDL."""
    return [statement for statement, _ in connection.calls
            if statement.startswith(prefix) or f"EXECUTE IMMEDIATE '{prefix}" in statement]


def test_an_interrupted_install_is_completed_by_the_next_start():
    connection = fresh()
    connection.failures["CREATE VECTOR INDEX"] = database_error(
        1652, "unable to extend temp segment")  # any failure half-way
    with pytest.raises(Exception, match="ORA-01652"):
        OracleBackend(connection, embedding_dimension=384)
    assert (NAMES["t_records"], "TABLE", "VALID") in connection.objects
    del connection.failures["CREATE VECTOR INDEX"]
    connection.log.clear()
    OracleBackend(connection, embedding_dimension=384)  # used to stop on ORA-00955
    assert executed(connection, "BEGIN :result := AGENT_MEMORY.ENSURE_PURGE_JOB")
    assert (NAMES["ix_vector"], "INDEX", "VALID") in connection.objects
    assert (NAMES["facade"], "PACKAGE BODY", "VALID") in connection.objects


def test_installing_twice_creates_nothing_twice():
    connection = fresh()
    store = OracleBackend(connection, embedding_dimension=384)
    connection.log.clear()
    store.administration.install()
    assert executed(connection, "CREATE VECTOR INDEX") == []
    assert executed(connection, "CREATE INDEX AGENT_MEMORY_RECORDS_TIX") == []
    assert executed(connection, "CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY")


def test_partly_installed_is_told_apart_from_not_installed():
    connection = fresh()
    with pytest.raises(SchemaError, match=r"AGENT_MEMORY is not installed \(REQUIRE_EXISTING\)"):
        OracleBackend(connection, schema_policy="REQUIRE_EXISTING")
    connection.objects = [(NAMES["t_meta"], "TABLE", "VALID"),
                          (NAMES["t_records"], "TABLE", "VALID"),
                          (NAMES["facade"], "PACKAGE", "VALID"),
                          (NAMES["facade"], "PACKAGE BODY", "INVALID")]
    with pytest.raises(SchemaError, match="partly installed") as raised:
        OracleBackend(connection, schema_policy="REQUIRE_EXISTING")
    message = str(raised.value)
    assert f"TABLE {NAMES['t_images']}" in message
    assert f"INDEX {NAMES['ix_vector']}" in message
    assert f"PACKAGE BODY {NAMES['facade']} (invalid)" in message
    assert not executed(connection, "CREATE")


def test_a_user_without_the_grant_is_told_so_and_installs_nothing():
    connection = fresh()
    connection.schema = ("AGENTMEM", "APP_USER")  # current_schema set to the owner's
    with pytest.raises(SchemaError, match=r"lacks EXECUTE on AGENTMEM\.AGENT_MEMORY"):
        OracleBackend(connection)
    assert not executed(connection, "CREATE")


def test_missing_owner_grants_are_named():
    connection = fresh()
    connection.errors = [("AGENT_MEMORY_SESSION", "PACKAGE BODY", 140, 9,
                          "PLS-00201: identifier 'DBMS_RLS' must be declared")]
    with pytest.raises(SchemaError, match=r"Missing grant: the owner needs EXECUTE on DBMS_RLS"):
        OracleBackend(connection)


def test_the_default_vector_index_needs_no_vector_memory_pool():
    connection = fresh()
    OracleBackend(connection, embedding_dimension=384)
    [statement] = executed(connection, "CREATE VECTOR INDEX")
    assert "ORGANIZATION NEIGHBOR PARTITIONS" in statement
    assert connection.meta["vector_index"] == "IVF"


def test_hnsw_without_a_vector_pool_falls_back_to_ivf_with_a_warning():
    connection = fresh()
    connection.failures["INMEMORY NEIGHBOR GRAPH"] = database_error(
        51962, "The vector memory area is out of space for the current container.")
    ivf = next(s for s in split_script(dict(render_install())["agent_memory_indexes.sql"])
               if "EXECUTE IMMEDIATE 'CREATE VECTOR INDEX" in s)
    with pytest.warns(UserWarning, match="ORA-51962.*IVF"):
        OracleBackend(connection, embedding_dimension=384, vector_index="HNSW")
    assert executed(connection, "CREATE VECTOR INDEX")[-1] == ivf
    assert connection.meta["vector_index"] == "IVF"


def store_with_meta(dimension: str, model: str = "DOC_MODEL") -> FakeConnection:
    connection = FakeConnection(ENSURE_PURGE_JOB=True)
    connection.meta = {"schema_version": "1", "embedding_dimension": dimension,
                       "search_strategy": "HYBRID", "vector_index": "HNSW",
                       "sync_mode": "MANUAL", "embedding_model": model}
    return connection


def test_upgrade_renders_with_the_stores_own_choices():
    connection = store_with_meta("768")
    # no --dimension given
    OracleBackend(connection, schema_policy="NO_CHECK").administration.upgrade()
    statements = [statement for statement, _ in connection.calls]
    codec = next(s for s in statements
                 if s.startswith("CREATE OR REPLACE PACKAGE AGENT_MEMORY_CODEC "))
    assert "c_dimension     CONSTANT PLS_INTEGER := 768;" in codec
    api = next(s for s in statements
               if s.startswith("CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_RECORD_API"))
    assert "TO_VECTOR(p_rows(i).embedding, 768, FLOAT32)" in api
    assert '"model": "DOC_MODEL"' in api
    admin = next(s for s in statements
                 if s.startswith("CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_ADMIN"))
    assert "CTX_DDL.SYNC_INDEX" in admin  # MANUAL, as installed
    assert statements[-1].startswith("BEGIN AGENT_MEMORY.SET_SCHEMA_VERSION")


@pytest.mark.parametrize("given", [{"embedding_dimension": 384}, {"vector_index": "IVF"},
                                   {"embedding_model": "other_model"},
                                   {"search_strategy": "VECTOR"}])
def test_upgrade_refuses_options_that_differ_from_the_store(given):
    connection = store_with_meta("768")
    store = OracleBackend(connection, schema_policy="NO_CHECK", **given)
    with pytest.raises(SchemaError, match="upgrade keeps the store's own choices"):
        store.administration.upgrade()
    assert not any(s.startswith("CREATE") for s, _ in connection.calls)


def test_cli_upgrade_without_options_keeps_a_768_dimension_store(monkeypatch):
    from oracleagentmemory import cli

    connection = store_with_meta("768", model="")
    connection.answers["DESCRIBE"] = {"backend": "oracle", "embedding_dimension": 768}
    monkeypatch.setattr(oracledb, "connect", lambda **kwargs: connection)
    monkeypatch.setenv("ORACLEAGENTMEMORY_PASSWORD", "secret")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = cli.main(["upgrade", "--dsn", "db/svc", "--user", "app"])
    assert code == 0, err.getvalue()
    joined = "\n".join(statement for statement, _ in connection.calls)
    assert "TO_VECTOR(p_rows(i).embedding, 768, FLOAT32)" in joined
    assert ", 384, FLOAT32" not in joined


def _cli_uninstall(monkeypatch, connection) -> None:
    """``oracleagentmemory uninstall`` on ``connection``; it must succeed."""
    from oracleagentmemory import cli

    monkeypatch.setattr(oracledb, "connect", lambda **kwargs: connection)
    monkeypatch.setenv("ORACLEAGENTMEMORY_PASSWORD", "secret")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = cli.main(["uninstall", "--dsn", "db/svc", "--user", "agentmem"])
    assert code == 0, err.getvalue()


def test_cli_uninstall_removes_a_partly_installed_store(monkeypatch):
    """An install stopped half way (here: the tables, no packages) is what a DBA most needs
    to remove; uninstall must not first require the complete store (REQUIRE_EXISTING)."""

    connection = fresh()
    connection.objects = [(NAMES["t_meta"], "TABLE", "VALID"),
                          (NAMES["t_records"], "TABLE", "VALID")]
    _cli_uninstall(monkeypatch, connection)
    assert executed(connection, f"DROP TABLE IF EXISTS {NAMES['t_records']}")
    assert (NAMES["t_records"], "TABLE", "VALID") not in connection.objects


def test_cli_uninstall_removes_a_store_of_an_older_schema_version(monkeypatch):

    connection = store_with_meta("384", model="")
    connection.answers["CHECK_SCHEMA"] = database_error(20007, "schema version 1, expected 5")
    _cli_uninstall(monkeypatch, connection)
    assert executed(connection, f"DROP TABLE IF EXISTS {NAMES['t_meta']}")


def test_uninstall_refuses_a_session_that_is_not_the_owner():
    """The script drops by unqualified name and looks the lexer preference up in
    CTX_USER_PREFERENCES (the session user's): another user would drop the owner's tables
    by CURRENT_SCHEMA yet leave its preference behind."""
    connection = FakeConnection(ENSURE_PURGE_JOB=True)
    connection.schema = ("AGENTMEM", "SYSTEM")
    store = OracleBackend(connection, schema_policy="NO_CHECK")
    with pytest.raises(SchemaError, match="uninstall the store as the owner"):
        store.administration.uninstall()
    assert not executed(connection, "DROP")
