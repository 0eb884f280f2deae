"""The store's administration apart from its data path, and its compile checks: an upgrade that
leaves a package invalid is refused before it records the new version (python-oracledb
reports the compile failure as ``Cursor.warning``, not as an exception, and the double does
the same); PLW- warnings of a DBA's PLSQL_WARNINGS do not fail an install; the vector index
is rebuilt only once it has vectors."""

from __future__ import annotations

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.stores.errors import SchemaError  # noqa: E402
from oracleagentmemory.stores.oracle import OracleBackend  # noqa: E402
from oracleagentmemory.stores.oracle_admin import OracleStoreAdmin  # noqa: E402
from oracleagentmemory.stores.oracle_sql.migrations import MIGRATIONS  # noqa: E402
from oracleagentmemory.stores.oracle_sql.render import SCHEMA_VERSION  # noqa: E402
from tests.support.fake_oracledb import FakeConnection, database_error  # noqa: E402

MISSING = database_error(6550, "line 1, column 7:\nPLS-00201: identifier 'AGENT_MEMORY' must "
                               "be declared")
BROKEN_BODY = ("AGENT_MEMORY_SEARCH", "PACKAGE BODY", 12, 5,
               "PLS-00302: component 'RANKING' must be declared")


def version_3_store() -> FakeConnection:
    connection = FakeConnection(ENSURE_PURGE_JOB=True)
    connection.meta = {"schema_version": "3", "embedding_dimension": "384",
                       "search_strategy": "VECTOR", "vector_index": "IVF",
                       "sync_mode": "ON_COMMIT", "embedding_model": ""}
    return connection


def statements(connection: FakeConnection) -> list[str]:
    return [statement for statement, _ in connection.calls]


def test_the_double_reports_a_unit_created_with_errors_as_the_driver_does():
    connection = FakeConnection()
    connection.errors = [BROKEN_BODY]
    with connection.cursor() as cursor:
        cursor.execute("CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_SEARCH AS END;")
        assert cursor.warning is not None
        assert cursor.warning.full_code == "DPY-7000"
        assert "compilation errors" in cursor.warning.message
        assert ("AGENT_MEMORY_SEARCH", "PACKAGE BODY", "INVALID") in connection.objects
        cursor.execute("SELECT 1 FROM dual")
        assert cursor.warning is None  # cleared by the next execute


def test_an_upgrade_that_leaves_a_package_invalid_records_no_version():
    connection = version_3_store()
    connection.errors = [BROKEN_BODY]
    with pytest.raises(SchemaError, match=r"AGENT_MEMORY_SEARCH PACKAGE BODY 12:5 PLS-00302") \
            as raised:
        OracleBackend(connection, schema_policy="NO_CHECK").administration.upgrade()
    assert "PACKAGE BODY AGENT_MEMORY_SEARCH" in str(raised.value)  # the warned unit
    assert not any("SET_SCHEMA_VERSION" in s for s in statements(connection))
    assert not any("FILL_KEYWORD_TEXT" in s for s in statements(connection))


def test_plsql_warnings_do_not_fail_an_install():
    connection = FakeConnection(CHECK_SCHEMA=MISSING, ENSURE_PURGE_JOB=True)
    connection.errors = [("AGENT_MEMORY_CODEC", "PACKAGE BODY", 40, 3,
                          "PLW-06009: procedure \"NEW_ID\" OTHERS handler does not end in RAISE",
                          "WARNING")]
    OracleBackend(connection, embedding_dimension=384)  # installs
    assert any("ENSURE_PURGE_JOB" in s for s in statements(connection))


def test_an_install_with_a_compile_error_is_refused_with_the_error():
    connection = FakeConnection(CHECK_SCHEMA=MISSING, ENSURE_PURGE_JOB=True)
    connection.errors = [BROKEN_BODY]
    with pytest.raises(SchemaError, match="PLS-00302"):
        OracleBackend(connection, embedding_dimension=384)


def test_the_vector_index_is_rebuilt_only_once_it_has_vectors():
    connection = FakeConnection()
    admin = OracleBackend(connection, schema_policy="NO_CHECK").administration
    assert isinstance(admin, OracleStoreAdmin)
    assert admin.rebuild_vector_index() is False  # deferred: DIA-51875 on 0 vectors
    assert not any(s.startswith("ALTER INDEX") for s in statements(connection))
    connection.vectors = 10
    assert admin.rebuild_vector_index() is True
    assert "ALTER INDEX AGENT_MEMORY_RECORDS_VIX REBUILD ONLINE" in statements(connection)


def test_the_migration_list_reaches_this_schema_version_step_by_step():
    versions = [migration.version for migration in MIGRATIONS]
    assert versions == list(range(2, SCHEMA_VERSION + 1))
    assert all(migration.table_steps or migration.after_packages for migration in MIGRATIONS)


def test_the_data_path_holds_no_provisioning():
    """Install, upgrade and schema checks live in the administration, not on the backend."""
    for name in ("install", "upgrade", "uninstall", "install_state", "_stored_options"):
        assert not hasattr(OracleBackend, name)
    for name in ("install", "upgrade", "uninstall", "install_state", "rebuild_vector_index",
                 "open", "check_schema"):
        assert callable(getattr(OracleStoreAdmin, name))


def test_another_stores_broken_package_does_not_fail_this_install():
    """USER_ERRORS and ALL_OBJECTS are read by prefix; a store whose prefix starts alike
    (AGENT_MEMORY_X) is not this one."""
    connection = FakeConnection(CHECK_SCHEMA=MISSING, ENSURE_PURGE_JOB=True)
    connection.errors = [("AGENT_MEMORY_X_SEARCH", "PACKAGE BODY", 3, 1, "PLS-00302: other")]
    connection.objects = [("AGENT_MEMORY_X_SEARCH", "PACKAGE BODY", "INVALID")]
    OracleBackend(connection, embedding_dimension=384)  # installs
    assert any("ENSURE_PURGE_JOB" in s for s in statements(connection))
