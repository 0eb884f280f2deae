"""The gate as CI runs it: it passes on this repository and on the fixture, and its command
line fails with file:line:col messages when a package is broken."""

from __future__ import annotations

from pathlib import Path

from oracleagentmemory_devtools.static_gate import main, run_gate
from tests.static_gate.conftest import FIXTURE_REPO, edit, position

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_gate_passes_on_this_repository() -> None:
    report = run_gate(REPO_ROOT)
    assert [f.format() for f in report.findings] == []
    assert report.notes, "the gate says what it looked at"


def test_gate_passes_on_the_fixture_repository() -> None:
    report = run_gate(FIXTURE_REPO)
    assert report.findings == []
    assert any("4 Oracle file(s)" in note for note in report.notes)
    assert any("4 PL/SQL call site(s) checked" in note for note in report.notes)
    assert len(report.dynamic_sql) == 3


def test_command_line_exit_status_and_message(repo: Path, capsys) -> None:
    assert main(["--root", str(repo)]) == 0
    assert "static gate passed" in capsys.readouterr().out
    edit(repo, "sql/am_api.pkb", "WHERE r.id = l_id;", "WHERE r.id = = l_id;")
    line, col = position(repo, "sql/am_api.pkb", "= = l_id")
    assert main(["--root", str(repo)]) == 1
    out = capsys.readouterr().out
    assert f"sql/am_api.pkb:{line}:{col + 2}: [syntax] expected an expression" in out
    assert "static gate FAILED" in out


def test_missing_python_store_is_a_note_not_a_failure(repo: Path) -> None:
    (repo / "python/oracleagentmemory/stores/oracle.py").unlink()
    report = run_gate(repo)
    assert report.passed
    assert any("does not exist yet" in note for note in report.notes)
