"""Checks 7 and 8: byte-length text declarations and long DBMS_LOB.SUBSTR in SQL
are reported where they are; the forms that are safe are not."""

from __future__ import annotations

from pathlib import Path

from oracleagentmemory_devtools.static_gate import run_gate
from tests.static_gate.conftest import position

BODY = """CREATE OR REPLACE PACKAGE BODY am_lengths AS
  PROCEDURE run(p_text IN CLOB, p_id IN VARCHAR2) IS
    l_bytes   VARCHAR2(512);
    l_chars   VARCHAR2(512 CHAR);
    l_raw     VARCHAR2(64 BYTE);
    l_id      VARCHAR2(512 BYTE);
    l_big     VARCHAR2(32767);
    l_piece   VARCHAR2(4000 CHAR);
  BEGIN
    l_id := am_codec.check_id(p_id, 'id');
    l_piece := DBMS_LOB.SUBSTR(p_text, 4000, 1);
    SELECT DBMS_LOB.SUBSTR(p_text, 1000, 1) INTO l_piece FROM dual;
    SELECT DBMS_LOB.SUBSTR(p_text, 2000, 1) INTO l_piece FROM dual;
    SELECT x INTO l_piece FROM JSON_TABLE(p_text, '$' COLUMNS (x VARCHAR2(16) PATH '$'));
  END run;
END am_lengths;
/
"""


def _found(root: Path, check: str) -> list[str]:
    return [f.format() for f in run_gate(root).findings if f.check == check]


def test_byte_declarations_and_byte_variables_holding_checked_ids_are_reported(repo: Path):
    (repo / "sql" / "am_lengths.pkb").write_text(BODY)
    found = _found(repo, "char-semantics")
    lines = [position(repo, "sql/am_lengths.pkb", needle)[0] for needle in (
        "l_bytes   VARCHAR2(512)", "l_id := am_codec", "x VARCHAR2(16) PATH")]
    assert [int(f.split(":")[1]) for f in found] == sorted(lines)
    assert "VARCHAR2(512 CHAR)" in found[0]
    assert "l_id is declared with BYTE length but holds a value checked in characters" in found[1]


def test_long_lob_substr_is_reported_inside_sql_only(repo: Path):
    (repo / "sql" / "am_lengths.pkb").write_text(BODY)
    found = _found(repo, "lob-substr")
    line, _ = position(repo, "sql/am_lengths.pkb", "DBMS_LOB.SUBSTR(p_text, 2000, 1)")
    assert len(found) == 1 and found[0].startswith(f"sql/am_lengths.pkb:{line}:")
    assert "amount 2000" in found[0]


def test_a_substr_without_amount_takes_32767_and_is_reported(repo: Path):
    (repo / "sql" / "am_lengths.pkb").write_text(
        BODY.replace("DBMS_LOB.SUBSTR(p_text, 2000, 1)", "DBMS_LOB.SUBSTR(p_text)"))
    assert ["32767 (the default)" in f for f in _found(repo, "lob-substr")] == [True]


def test_the_repository_renders_its_other_options_for_the_gate():
    root = Path(__file__).resolve().parents[2]
    report = run_gate(root)
    assert any("other renderings" in note for note in report.notes)
    assert report.passed, [f.format() for f in report.findings]
