"""Check 9: a function declared only in a package body and called inside SQL is reported
(PLS-00231 on a real database); public functions, PL/SQL calls and variables are not."""

from __future__ import annotations

from pathlib import Path

from oracleagentmemory_devtools.static_gate import run_gate
from tests.static_gate.conftest import position

SPEC = """CREATE OR REPLACE PACKAGE am_private AUTHID DEFINER AS
  FUNCTION shown(p_x IN NUMBER) RETURN NUMBER;
  PROCEDURE run;
END am_private;
/
"""
BODY = """CREATE OR REPLACE PACKAGE BODY am_private AS
  FUNCTION hidden(p_x IN NUMBER) RETURN NUMBER IS
  BEGIN
    RETURN p_x * 2;
  END hidden;

  FUNCTION shown(p_x IN NUMBER) RETURN NUMBER IS
  BEGIN
    RETURN hidden(p_x);
  END shown;

  PROCEDURE run IS
    l_n NUMBER := hidden(1);
    FUNCTION nested(p_x IN NUMBER) RETURN NUMBER IS
    BEGIN
      RETURN p_x;
    END nested;
  BEGIN
    l_n := hidden(2) + nested(3);
    -- a comment naming SELECT hidden(4) FROM dual starts nothing
    SELECT shown(5) + am_private.shown(l_n) + l_n INTO l_n FROM dual;
    SELECT hidden(6) INTO l_n FROM dual;
    SELECT am_private.hidden(7) INTO l_n FROM dual;
    SELECT nested(8) INTO l_n FROM dual;
  END run;
END am_private;
/
"""


def _private_in_sql(root: Path) -> list[str]:
    return [f.format() for f in run_gate(root).findings if f.check == "private-in-sql"]


def test_private_and_nested_functions_in_sql_are_reported(repo: Path) -> None:
    (repo / "sql" / "am_private.pks").write_text(SPEC)
    (repo / "sql" / "am_private.pkb").write_text(BODY)
    found = _private_in_sql(repo)
    lines = [position(repo, "sql/am_private.pkb", needle)[0]
             for needle in ("SELECT hidden(6)", "am_private.hidden(7)", "SELECT nested(8)")]
    assert [int(f.split(":")[1]) for f in found] == lines
    assert "AM_PRIVATE.HIDDEN is declared in the package body only" in found[0]
    assert "PLS-00231" in found[0]
    assert "AM_PRIVATE.NESTED" in found[2]


def test_the_repository_calls_no_private_function_in_sql() -> None:
    root = Path(__file__).resolve().parents[2]
    assert _private_in_sql(root) == []
