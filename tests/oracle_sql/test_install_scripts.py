"""The rendered scripts: the install scripts run twice under
``WHENEVER SQLERROR EXIT`` (every index is created only when missing), no MERGE reaches a
table whose VPD policies do not all cover INSERT, UPDATE and DELETE, and no package file
holds an ``&`` that SQL*Plus would take for a substitution variable when the file is run
alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracleagentmemory.stores.oracle_sql import render
from oracleagentmemory.stores.oracle_sql.statements import split_script
from oracleagentmemory_devtools.sql_parsing import parse_source
from oracleagentmemory_devtools.sql_sources import SqlSource
from oracleagentmemory_devtools.vpd_merge import check_vpd_merge, vpd_policies

pytest.importorskip("oracledb", reason="the oracle extra is not installed")
from tests.support.fake_oracledb import FakeConnection  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def run_scripts(connection: FakeConnection, scripts: list[tuple[str, str]]) -> None:
    """Every statement of the scripts, in order, as SQL*Plus sends them: the first error
    stops the run (WHENEVER SQLERROR EXIT)."""
    with connection.cursor() as cursor:
        for _, text in scripts:
            for statement in split_script(text):
                cursor.execute(statement)


@pytest.mark.parametrize("vector_index", ["IVF", "HNSW"])
def test_the_install_scripts_run_a_second_time(vector_index):
    connection = FakeConnection()
    scripts = render.render_install(vector_index=vector_index)
    run_scripts(connection, scripts)
    created = {name for name, kind, _ in connection.objects if kind == "INDEX"}
    assert {"AGENT_MEMORY_RECORDS_VIX", "AGENT_MEMORY_RECORDS_TIX"} <= created
    run_scripts(connection, scripts)  # was ORA-00955 at CREATE VECTOR INDEX
    assert sorted(connection.objects) == sorted(set(connection.objects))


def test_no_merge_reaches_a_table_with_a_narrower_vpd_policy():
    files = [parse_source(SqlSource(f"sql/{name}", text)) for name, text in render.render_all()]
    tables = {policy.table for policy in vpd_policies(files)}
    assert {"AGENT_MEMORY_IMAGES", "AGENT_MEMORY_RECORDS", "AGENT_MEMORY_RELATIONS"} <= tables
    assert check_vpd_merge(files) == []


@pytest.mark.parametrize("name", sorted(name for name, _ in render.render_all()
                                        if name.endswith((".pks", ".pkb"))))
def test_no_package_file_prompts_for_a_substitution_variable(name):
    """SQL*Plus replaces '&name' with a prompt unless SET DEFINE OFF: the packages may be
    compiled alone (the utPLSQL instructions run each file), so they hold no '&'."""
    assert "&" not in dict(render.render_all())[name]
    assert "&" not in (ROOT / "sql" / name).read_text(encoding="utf-8")


def dba_scripts() -> dict[str, str]:
    """The scripts a DBA or the owner runs by name in SQL*Plus / SQLcl (packages.sql is
    only called from install.sql and upgrade.sql)."""
    scripts = {f"install/{path.name}": path.read_text(encoding="utf-8")
               for path in sorted((ROOT / "install").glob("*.sql"))
               if path.name != "packages.sql"}
    scripts["sql/agent_memory_context.sql"] = dict(render.render_all())[
        "agent_memory_context.sql"]
    return scripts


@pytest.mark.parametrize("name", sorted(dba_scripts()))
def test_a_failing_script_exits_with_a_failure_status(name):
    """On UNIX an exit status is one byte (SQL*Plus User's Guide, EXIT: "the range for
    return codes is limited to zero to 255"), so EXIT SQL.SQLCODE reports ORA-01536 (space
    quota exceeded, the quota grants_owner.sql leaves to the DBA) as 1536 % 256 == 0:
    success to the shell and to tests/oracle/first_contact.sh. The exit must be FAILURE,
    set before the first statement, and roll back (EXIT alone commits)."""
    lines = [line.strip() for line in dba_scripts()[name].splitlines()]
    whenever = [i for i, line in enumerate(lines) if line.upper().startswith("WHENEVER SQLERROR")]
    assert [lines[i] for i in whenever] == ["WHENEVER SQLERROR EXIT FAILURE ROLLBACK"]
    first_statement = next(i for i, line in enumerate(lines)
                           if line and not line.startswith("--")
                           and not line.upper().startswith(("SET ", "PROMPT", "WHENEVER")))
    assert whenever[0] < first_statement
