"""What opening an Oracle store does with its schema, per SchemaPolicy, and the upgrade from
schema version 1 (docs/store-contract.md; the embedded reference: stores/embedded/store.py
``_open_schema``).

REQUIRE_EXISTING and CREATE_IF_EMPTY never upgrade nor repair: a store that exists must be
complete and current. CREATE_IF_NECESSARY installs what is missing and upgrades an older
store. The double answers CHECK_SCHEMA the way each installed version of the facade does:
a version 1 facade has no ``p_version`` parameter (PLS-00306 inside ORA-06550).
"""

from __future__ import annotations

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.stores.errors import InvalidArgumentError, SchemaError  # noqa: E402
from oracleagentmemory.stores.oracle import TABLE_STEPS, OracleBackend  # noqa: E402
from oracleagentmemory.stores.oracle_sql.render import (  # noqa: E402
    SCHEMA_VERSION,
    object_names,
)
from tests.support.fake_oracledb import FakeConnection, InTurn, database_error  # noqa: E402

NAMES = object_names("AGENT_MEMORY")
NOT_INSTALLED = database_error(6550, "line 1, column 7:\nPLS-00201: identifier "
                                     "'AGENT_MEMORY' must be declared")
VERSION_1_FACADE = database_error(6550, "line 1, column 7:\nPLS-00306: wrong number or types "
                                        "of arguments in call to 'CHECK_SCHEMA'")
ALTER = f"ALTER TABLE {NAMES['t_relations']} MODIFY (thread_id NULL)"


def version_1_store(check_schema=VERSION_1_FACADE) -> FakeConnection:
    """A store installed by the previous release: its META rows say version 1."""
    connection = FakeConnection(CHECK_SCHEMA=check_schema, ENSURE_PURGE_JOB=True)
    connection.meta = {"schema_version": "1", "embedding_dimension": "384",
                       "search_strategy": "VECTOR", "vector_index": "IVF",
                       "sync_mode": "ON_COMMIT", "embedding_model": ""}
    connection.objects = [(NAMES[key], kind, "VALID") for key, kind in (
        ("t_meta", "TABLE"), ("t_records", "TABLE"), ("t_images", "TABLE"),
        ("t_relations", "TABLE"), ("facade", "PACKAGE"), ("facade", "PACKAGE BODY"))]
    return connection


def statements(connection: FakeConnection) -> list[str]:
    return [statement for statement, _ in connection.calls]


def changed_schema(connection: FakeConnection) -> list[str]:
    return [s for s in statements(connection)
            if s.startswith(("CREATE", "ALTER", "DROP")) or "SET_SCHEMA_VERSION" in s]


@pytest.mark.parametrize("policy", ["REQUIRE_EXISTING", "CREATE_IF_EMPTY"])
def test_an_older_store_is_never_upgraded_by_these_policies(policy):
    connection = version_1_store()
    with pytest.raises(SchemaError, match=rf"has schema version 1; this library needs "
                                          rf"{SCHEMA_VERSION}.*{policy} never upgrades"):
        OracleBackend(connection, embedding_dimension=384, schema_policy=policy)
    assert changed_schema(connection) == []


def test_create_if_necessary_upgrades_an_older_store_then_checks_again():
    connection = version_1_store(check_schema=InTurn(VERSION_1_FACADE, None))
    OracleBackend(connection, embedding_dimension=384, schema_policy="CREATE_IF_NECESSARY")
    done = statements(connection)
    assert ALTER in done
    types = [s for s in done if s.startswith("CREATE TYPE IF NOT EXISTS")]
    assert [s.split()[5] for s in types] == [NAMES["number_list"], NAMES["text_list"]]
    first_package = next(i for i, s in enumerate(done) if s.startswith("CREATE OR REPLACE PACKAGE"))
    assert done.index(ALTER) < done.index(types[0]) < first_package
    set_version = next(i for i, s in enumerate(done) if "SET_SCHEMA_VERSION" in s)
    assert connection.calls[set_version][1] == {"p_version": SCHEMA_VERSION}
    assert "CHECK_SCHEMA" in done[-1] and set_version < len(done) - 1


def test_a_store_bound_to_an_end_user_never_upgrades():
    connection = version_1_store()
    with pytest.raises(SchemaError, match="has schema version 1"):
        OracleBackend(connection, embedding_dimension=384, end_user_id="u1")
    assert changed_schema(connection) == []


def test_create_if_empty_installs_where_nothing_of_the_store_exists():
    connection = FakeConnection(CHECK_SCHEMA=NOT_INSTALLED, ENSURE_PURGE_JOB=True)
    OracleBackend(connection, embedding_dimension=384, schema_policy="CREATE_IF_EMPTY")
    assert any(s.startswith(f"CREATE TABLE IF NOT EXISTS {NAMES['t_records']}")
               for s in statements(connection))
    assert (NAMES["facade"], "PACKAGE BODY", "VALID") in connection.objects


def test_create_if_empty_does_not_repair_a_partial_install():
    connection = FakeConnection(CHECK_SCHEMA=NOT_INSTALLED, ENSURE_PURGE_JOB=True)
    connection.objects = [(NAMES["t_meta"], "TABLE", "VALID"),
                          (NAMES["t_records"], "TABLE", "VALID")]
    with pytest.raises(SchemaError, match=r"partly installed \(missing: .*TABLE "
                                          rf"{NAMES['t_relations']}") as raised:
        OracleBackend(connection, embedding_dimension=384, schema_policy="CREATE_IF_EMPTY")
    assert f"TYPE {NAMES['number_list']}" in str(raised.value)
    assert changed_schema(connection) == []


def test_create_if_necessary_completes_a_partial_install():
    connection = FakeConnection(CHECK_SCHEMA=NOT_INSTALLED, ENSURE_PURGE_JOB=True)
    connection.objects = [(NAMES["t_meta"], "TABLE", "VALID"),
                          (NAMES["t_records"], "TABLE", "VALID")]
    OracleBackend(connection, embedding_dimension=384, schema_policy="CREATE_IF_NECESSARY")
    created = {row[:2] for row in connection.objects}
    assert {(NAMES["t_relations"], "TABLE"), (NAMES["text_list"], "TYPE"),
            (NAMES["facade"], "PACKAGE BODY")} <= created


def test_a_current_store_with_another_dimension_is_refused_whatever_the_policy():
    connection = FakeConnection(CHECK_SCHEMA=database_error(
        20007, "the store holds 768-dimensional vectors; the embedder gives 384"))
    connection.meta = {"schema_version": str(SCHEMA_VERSION), "embedding_dimension": "768"}
    with pytest.raises(SchemaError, match="768-dimensional"):
        OracleBackend(connection, embedding_dimension=384, schema_policy="CREATE_IF_NECESSARY")
    assert changed_schema(connection) == []


def test_an_unknown_policy_is_refused_before_any_call():
    connection = FakeConnection()
    with pytest.raises(InvalidArgumentError, match="schema_policy must be one of"):
        OracleBackend(connection, schema_policy="create_if_necessary")
    assert connection.calls == []


# -- upgrade ----------------------------------------------------------------------------------


def test_upgrade_from_version_1_makes_relation_threads_nullable_first():
    connection = version_1_store()
    OracleBackend(connection, schema_policy="NO_CHECK").upgrade()
    done = statements(connection)
    assert done.count(ALTER) == 1
    assert done.index(ALTER) < next(i for i, s in enumerate(done) if s.startswith("CREATE"))


def test_upgrade_of_a_current_store_runs_no_table_step():
    connection = version_1_store()
    connection.meta["schema_version"] = str(SCHEMA_VERSION)
    OracleBackend(connection, schema_policy="NO_CHECK").upgrade()
    assert not any(s.startswith("ALTER") for s in statements(connection))
    assert any(s.startswith("CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY ")
               for s in statements(connection))


def test_an_interrupted_upgrade_runs_again_past_the_step_it_already_made():
    connection = version_1_store()
    connection.failures[ALTER] = database_error(
        1451, "column to be modified to NULL cannot be modified to NULL")
    OracleBackend(connection, schema_policy="NO_CHECK").upgrade()
    assert "SET_SCHEMA_VERSION" in statements(connection)[-1]


def test_other_upgrade_failures_stop_it():
    connection = version_1_store()
    connection.failures[ALTER] = database_error(54, "resource busy and acquire with NOWAIT")
    with pytest.raises(Exception, match="ORA-00054"):
        OracleBackend(connection, schema_policy="NO_CHECK").upgrade()
    assert not any("SET_SCHEMA_VERSION" in s for s in statements(connection))


def test_a_store_newer_than_the_library_is_not_upgraded():
    connection = version_1_store()
    connection.meta["schema_version"] = str(SCHEMA_VERSION + 1)
    with pytest.raises(SchemaError, match="newer than this library"):
        OracleBackend(connection, schema_policy="NO_CHECK").upgrade()
    assert changed_schema(connection) == []


def test_the_sqlplus_upgrade_runs_the_same_table_steps_to_the_same_version():
    from pathlib import Path

    script = (Path(__file__).resolve().parents[2] / "install" / "upgrade.sql").read_text()
    assert f"c_target CONSTANT PLS_INTEGER := {SCHEMA_VERSION};" in script
    assert f"set_schema_version(p_version => {SCHEMA_VERSION});" in script
    for version, steps in TABLE_STEPS:
        assert f"IF l_current < {version} THEN" in script
        for step in steps:
            literal = step.format(**NAMES).replace("'", "''")  # a PL/SQL string literal
            assert f"EXECUTE IMMEDIATE '{literal}';" in script


def test_opening_upgrades_with_the_stores_own_choices_not_the_clients_defaults():
    connection = version_1_store(check_schema=InTurn(VERSION_1_FACADE, None))
    connection.meta.update(search_strategy="HYBRID", sync_mode="MANUAL")
    # what OracleDBMemoryStore passes: its own strategy and sync defaults
    OracleBackend(connection, embedding_dimension=384, schema_policy="CREATE_IF_NECESSARY",
                  search_strategy="VECTOR", sync_mode="ON_COMMIT")
    admin = next(s for s in statements(connection)
                 if s.startswith("CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_ADMIN"))
    assert "CTX_DDL.SYNC_INDEX" in admin  # MANUAL, as installed


def test_the_explicit_upgrade_still_refuses_other_choices():
    connection = version_1_store()
    with pytest.raises(SchemaError, match="upgrade keeps the store's own choices"):
        OracleBackend(connection, schema_policy="NO_CHECK", search_strategy="HYBRID").upgrade()
    assert changed_schema(connection) == []


def test_upgrading_a_version_3_store_fills_the_keyword_text_before_indexing_it():
    """Version 4: the column is added and the old text index over content dropped before
    the packages; the keyword text is filled with the new packages, then the lexer and the
    text index over keyword_text are created, then the version is recorded."""
    connection = version_1_store()
    connection.meta["schema_version"] = "3"
    OracleBackend(connection, schema_policy="NO_CHECK").upgrade()
    done = statements(connection)
    add = done.index(f"ALTER TABLE {NAMES['t_records']} ADD (keyword_text CLOB)")
    drop = done.index(f"DROP INDEX IF EXISTS {NAMES['ix_text']} FORCE")
    keyword_body = next(i for i, s in enumerate(done)
                        if s.startswith(f"CREATE OR REPLACE PACKAGE BODY {NAMES['keyword']}"))
    fill = next(i for i, s in enumerate(done) if "FILL_KEYWORD_TEXT" in s)
    lexer = next(i for i, s in enumerate(done)
                 if f"CTX_DDL.CREATE_PREFERENCE('{NAMES['text_lexer']}', 'BASIC_LEXER')" in s)
    index = next(i for i, s in enumerate(done)
                 if s.startswith(f"CREATE INDEX {NAMES['ix_text']} ON {NAMES['t_records']} "
                                 "(keyword_text)"))
    set_version = next(i for i, s in enumerate(done) if "SET_SCHEMA_VERSION" in s)
    assert add < drop < keyword_body < fill < lexer < index < set_version
    assert connection.calls[fill][1] == {"p_batch": 1000}
    assert not any(s.startswith("CREATE VECTOR INDEX") for s in done)  # kept as it is
    assert not any(s.startswith(f"ALTER TABLE {NAMES['t_relations']}") for s in done)


def test_a_store_of_this_version_is_not_filled_again():
    connection = version_1_store()
    connection.meta["schema_version"] = str(SCHEMA_VERSION)
    OracleBackend(connection, schema_policy="NO_CHECK").upgrade()
    assert not any("FILL_KEYWORD_TEXT" in s for s in statements(connection))


def test_upgrading_a_version_4_store_cuts_the_keyword_text_again():
    """Version 5: the keyword text is emptied before the packages are re-created and filled
    again by the new keyword_text after them; the text index is kept."""
    connection = version_1_store()
    connection.meta["schema_version"] = "4"
    OracleBackend(connection, schema_policy="NO_CHECK").upgrade()
    done = statements(connection)
    empty = done.index(f"UPDATE {NAMES['t_records']} SET keyword_text = NULL"
                       " WHERE keyword_text IS NOT NULL")
    keyword_body = next(i for i, s in enumerate(done)
                        if s.startswith(f"CREATE OR REPLACE PACKAGE BODY {NAMES['keyword']}"))
    fill = next(i for i, s in enumerate(done) if "FILL_KEYWORD_TEXT" in s)
    set_version = next(i for i, s in enumerate(done) if "SET_SCHEMA_VERSION" in s)
    assert empty < keyword_body < fill < set_version
    assert not any(s.startswith(f"ALTER TABLE {NAMES['t_records']} ADD") for s in done)
    assert not any(s.startswith(f"DROP INDEX IF EXISTS {NAMES['ix_text']}") for s in done)
