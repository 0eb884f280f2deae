"""Every dynamic SQL site is listed; a value that may carry user input into SQL text fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracleagentmemory_devtools.dynamic_sql import find_dynamic_sql
from oracleagentmemory_devtools.sql_parsing import parse_source
from oracleagentmemory_devtools.sql_sources import discover_sources
from oracleagentmemory_devtools.static_gate import run_gate
from tests.static_gate.conftest import edit, position

REPO_ROOT = Path(__file__).resolve().parents[2]
BODY = "sql/am_api.pkb"


def test_every_dynamic_sql_site_of_this_repository_is_validated() -> None:
    """The listing of every site, each validated or whitelisted."""
    sites = find_dynamic_sql([parse_source(s) for s in discover_sources(REPO_ROOT)])
    print(f"\n{len(sites)} dynamic SQL site(s) under sql/:")
    for site in sites:
        print(f"  {site.format()}")
    assert [s.format() for s in sites if not s.ok] == []


def test_fixture_sites_are_listed_with_their_reasons(repo: Path) -> None:
    sites = run_gate(repo).dynamic_sql
    assert [(s.kind, s.verdict) for s in sites] == [
        ("EXECUTE IMMEDIATE", "validated"), ("EXECUTE IMMEDIATE", "validated"),
        ("OPEN FOR", "validated")]
    assert "DBMS_ASSERT.ENQUOTE_NAME" in sites[0].detail
    assert "L_LIMIT is numeric" in sites[0].detail
    assert "TABLE_NAME whitelisted: returns c_records" in sites[1].detail
    assert sites[0].unit == "AM_API.PURGE_TABLE"


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("'DELETE FROM ' || DBMS_ASSERT.ENQUOTE_NAME(p_table, FALSE)", "'DELETE FROM ' || p_table",
     "parameter P_TABLE reaches SQL text unvalidated"),
    ("DBMS_ASSERT.ENQUOTE_NAME(p_table, FALSE)", "DBMS_ASSERT.NOOP(p_table)",
     "DBMS_ASSERT.NOOP does not validate"),
    ("TO_CHAR(l_limit)", "TO_CHAR(SYSDATE)", "SYSDATE is not declared"),
    ("'TRUNCATE TABLE ' || table_name(p_table)", "'TRUNCATE TABLE ' || UPPER(p_table)",
     "parameter P_TABLE reaches SQL text unvalidated"),
    ("'TRUNCATE TABLE ' || table_name(p_table)", "'TRUNCATE TABLE ' || REPLACE(p_table, ' ')",
     "parameter P_TABLE reaches SQL text unvalidated"),
    ("    EXECUTE IMMEDIATE l_sql;",
     "    SELECT MAX(content) INTO l_sql FROM am_records;\n    EXECUTE IMMEDIATE l_sql;",
     "L_SQL is filled by a query"),
])
def test_unvalidated_values_fail_the_gate(repo: Path, old: str, new: str,
                                          expected: str) -> None:
    edit(repo, BODY, old, new)
    findings = [f for f in run_gate(repo).findings if f.check == "dynamic-sql"]
    assert len(findings) == 1, findings
    assert expected in findings[0].message
    assert findings[0].message.startswith("EXECUTE IMMEDIATE in AM_API.PURGE_TABLE")


def test_open_for_with_a_parameter_fails_at_its_position(repo: Path) -> None:
    edit(repo, BODY, "'SELECT id FROM ' || c_records ||", "'SELECT id FROM ' || p_table ||")
    line, col = position(repo, BODY, "OPEN l_cur FOR")
    (finding,) = [f for f in run_gate(repo).findings if f.check == "dynamic-sql"]
    assert (finding.path, finding.line, finding.col) == (BODY, line, col)
    assert "OPEN FOR" in finding.message


def test_dbms_sql_parse_is_a_site(repo: Path) -> None:
    edit(repo, BODY, "    CLOSE l_cur;\n",
         "    CLOSE l_cur;\n"
         "    DBMS_SQL.PARSE(l_limit, 'LOCK TABLE ' || p_table, DBMS_SQL.NATIVE);\n")
    findings = [f for f in run_gate(repo).findings if f.check == "dynamic-sql"]
    assert [f.message.split(":")[0] for f in findings] == ["DBMS_SQL.PARSE in AM_API.PURGE_TABLE"]


def test_whitelist_marker_needs_a_reason_and_is_listed(repo: Path) -> None:
    edit(repo, BODY, "'TRUNCATE TABLE ' || table_name(p_table)", "'TRUNCATE TABLE ' || p_table")
    assert not run_gate(repo).passed
    edit(repo, BODY, "    EXECUTE IMMEDIATE 'TRUNCATE TABLE ' || p_table;",
         "    -- dynamic-sql: whitelisted\n    EXECUTE IMMEDIATE 'TRUNCATE TABLE ' || p_table;")
    assert not run_gate(repo).passed, "a marker without a reason does not count"
    edit(repo, BODY, "    -- dynamic-sql: whitelisted\n",
         "    -- dynamic-sql: whitelisted p_table was checked against USER_TABLES above\n")
    report = run_gate(repo)
    assert report.passed
    whitelisted = [s for s in report.dynamic_sql if s.verdict == "whitelisted"]
    assert [s.detail for s in whitelisted] == ["p_table was checked against USER_TABLES above"]


BUILDER = """  FUNCTION ids_sql(p_table IN VARCHAR2) RETURN VARCHAR2 IS
    l_sql VARCHAR2(4000 CHAR);
  BEGIN
    l_sql := 'SELECT id FROM ' || c_records;
    l_sql := l_sql || ' WHERE ROWNUM <= :n';
    RETURN l_sql;
  END ids_sql;

  PROCEDURE purge_table("""


def _build_in_a_function(repo: Path) -> None:
    """SQL text built in one function of the package body and opened in another."""
    edit(repo, BODY, "  PROCEDURE purge_table(", BUILDER)
    edit(repo, BODY, "OPEN l_cur FOR 'SELECT id FROM ' || c_records || ' WHERE ROWNUM <= :n'",
         "OPEN l_cur FOR ids_sql(p_table)")


def test_sql_text_built_by_a_local_function_is_judged_inside_it(repo: Path) -> None:
    _build_in_a_function(repo)
    report = run_gate(repo)
    assert report.passed, report.findings
    [site] = [s for s in report.dynamic_sql if s.kind == "OPEN FOR"]
    assert site.verdict == "validated"
    assert "IDS_SQL returns built SQL text" in site.detail


def test_a_local_function_that_splices_a_parameter_fails_the_gate(repo: Path) -> None:
    _build_in_a_function(repo)
    edit(repo, BODY, "l_sql := 'SELECT id FROM ' || c_records;",
         "l_sql := 'SELECT id FROM ' || p_table;")
    findings = [f for f in run_gate(repo).findings if f.check == "dynamic-sql"]
    assert len(findings) == 1, findings
    assert "parameter P_TABLE reaches SQL text unvalidated" in findings[0].message
    assert findings[0].message.startswith("OPEN FOR in AM_API.PURGE_TABLE")
