"""Spec members without a matching body implementation are reported at the spec member."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracleagentmemory_devtools.static_gate import run_gate
from tests.static_gate.conftest import edit, position

BODY = "sql/am_api.pkb"
SPEC = "sql/am_api.pks"


def _spec_body(root: Path) -> list[str]:
    return [f.format() for f in run_gate(root).findings if f.check == "spec-body"]


def test_member_missing_in_body(repo: Path) -> None:
    text = (repo / BODY).read_text()
    start = text.index("  PROCEDURE purge_table")
    end = text.index("END purge_table;") + len("END purge_table;")
    (repo / BODY).write_text(text[:start] + text[end:])
    line, col = position(repo, SPEC, "PROCEDURE purge_table")
    assert _spec_body(repo) == [
        f"{SPEC}:{line}:{col}: [spec-body] AM_API.PURGE_TABLE: PROCEDURE PURGE_TABLE(P_TABLE IN "
        f"VARCHAR2) is declared in the spec but not implemented in the body ({BODY})"]


@pytest.mark.parametrize(("old", "new", "difference"), [
    ("PROCEDURE delete_records(p_ids IN JSON, p_count OUT NUMBER) IS",
     "PROCEDURE delete_records(p_id IN JSON, p_count OUT NUMBER) IS",
     "parameter 1: spec P_IDS IN JSON / body P_ID IN JSON"),
    ("PROCEDURE delete_records(p_ids IN JSON, p_count OUT NUMBER) IS",
     "PROCEDURE delete_records(p_ids IN JSON, p_count IN OUT NUMBER) IS",
     "parameter 2: spec P_COUNT OUT NUMBER / body P_COUNT IN OUT NUMBER"),
    ("PROCEDURE delete_records(p_ids IN JSON, p_count OUT NUMBER) IS",
     "PROCEDURE delete_records(p_ids IN CLOB, p_count OUT NUMBER) IS",
     "parameter 1: spec P_IDS IN JSON / body P_IDS IN CLOB"),
    ("RETURN hits_t PIPELINED IS", "RETURN hits_t IS", "options: spec ['PIPELINED'] / body []"),
    ("p_k IN PLS_INTEGER DEFAULT 10) RETURN hits_t PIPELINED IS",
     "p_k IN PLS_INTEGER) RETURN hits_t PIPELINED IS",
     "parameter 2: spec P_K IN PLS_INTEGER DEFAULT ... / body P_K IN PLS_INTEGER"),
    ("PROCEDURE purge_table(p_table IN VARCHAR2) IS",
     "PROCEDURE purge_table(p_table IN VARCHAR2, p_force IN BOOLEAN) IS",
     "body has extra parameter 2 P_FORCE IN BOOLEAN"),
])
def test_parameter_mismatch(repo: Path, old: str, new: str, difference: str) -> None:
    edit(repo, BODY, old, new)
    findings = _spec_body(repo)
    assert len(findings) == 1, findings
    assert difference in findings[0]
    assert "body does not match the spec" in findings[0]


def test_overloads_are_matched_one_to_one(repo: Path) -> None:
    """Each overload needs its own implementation; the other overload's does not count."""
    edit(repo, BODY,
         "PROCEDURE delete_records(p_thread_id IN VARCHAR2, p_record_type IN VARCHAR2, "
         "p_count OUT NUMBER) IS",
         "PROCEDURE delete_records(p_thread_id IN VARCHAR2, p_count OUT NUMBER) IS")
    line, col = position(repo, SPEC, "PROCEDURE delete_records(p_thread_id")
    findings = _spec_body(repo)
    assert len(findings) == 1
    assert findings[0].startswith(f"{SPEC}:{line}:{col}: [spec-body] AM_API.DELETE_RECORDS")
    assert "body lacks parameter 3 P_COUNT OUT NUMBER" in findings[0]


def test_private_body_members_are_fine_and_lone_units_are_not(repo: Path) -> None:
    assert _spec_body(repo) == []      # TABLE_NAME is private to the body
    (repo / BODY).unlink()
    assert _spec_body(repo) == [f"{SPEC}:1:1: [spec-body] package AM_API declares "
                                "subprograms but has no body"]
