"""ACCESSIBLE BY packages called inside SQL are reported; direct PL/SQL calls are not."""

from __future__ import annotations

from pathlib import Path

from oracleagentmemory_devtools.static_gate import run_gate
from tests.static_gate.conftest import position

CODEC_SPEC = """CREATE OR REPLACE PACKAGE am_codec AUTHID DEFINER
  ACCESSIBLE BY (PACKAGE am_user)
AS
  FUNCTION f(p_x IN NUMBER) RETURN NUMBER;
END am_codec;
/
"""
CODEC_BODY = """CREATE OR REPLACE PACKAGE BODY am_codec AS
  FUNCTION f(p_x IN NUMBER) RETURN NUMBER IS
  BEGIN
    RETURN p_x + 1;
  END f;
END am_codec;
/
"""
USER_SPEC = """CREATE OR REPLACE PACKAGE am_user AUTHID DEFINER AS
  -- The word ACCESSIBLE BY in a comment makes no package restricted.
  PROCEDURE run;
END am_user;
/
"""
USER_BODY = """CREATE OR REPLACE PACKAGE BODY am_user AS
  PROCEDURE run IS
    l_n NUMBER;
  BEGIN
    l_n := am_codec.f(1);
    -- a comment naming am_codec.f(2) inside no statement
    FOR r IN (SELECT 1 AS x FROM dual) LOOP
      l_n := am_codec.f(r.x);
    END LOOP;
    SELECT am_codec.f(3) INTO l_n FROM dual;
    EXECUTE IMMEDIATE 'SELECT am_user.run FROM dual';
  END run;
END am_user;
/
"""


def _accessible_by(root: Path) -> list[str]:
    return [f.format() for f in run_gate(root).findings if f.check == "accessible-by"]


def test_only_the_call_inside_sql_is_reported(repo: Path) -> None:
    for name, text in (("am_codec.pks", CODEC_SPEC), ("am_codec.pkb", CODEC_BODY),
                       ("am_user.pks", USER_SPEC), ("am_user.pkb", USER_BODY)):
        (repo / "sql" / name).write_text(text)
    line, _ = position(repo, "sql/am_user.pkb", "am_codec.f(3)")
    found = _accessible_by(repo)
    assert len(found) == 1
    assert found[0].startswith(f"sql/am_user.pkb:{line}:")
    assert "am_codec.f is called inside a SQL statement" in found[0]


def test_the_fixture_repository_has_none(repo: Path) -> None:
    assert _accessible_by(repo) == []
