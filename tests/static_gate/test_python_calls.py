"""PL/SQL calls issued by the Python Oracle store must name real members and parameters."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracleagentmemory_devtools.static_gate import run_gate
from tests.static_gate.conftest import edit, position

STORE = "python/oracleagentmemory/stores/oracle.py"


def _calls(root: Path) -> list[str]:
    return [f.format() for f in run_gate(root).findings if f.check == "python-calls"]


@pytest.mark.parametrize(("old", "new", "expected"), [
    ('"API.WRITE_RECORD"', '"API.WRITE_RECORDZ"', "package AM_API has no member WRITE_RECORDZ"),
    ("p_record=record, p_replace=True", "p_record=record, p_overwrite=True",
     "no parameter P_OVERWRITE"),
    ("p_record=record, p_replace=True", "p_replace=True", "required P_RECORD not passed"),
    ('self._call("API.DELETE_RECORDS", p_ids=ids, p_count=count)',
     'self._call("API.DELETE_RECORDS", p_ids=ids)', "required P_COUNT not passed"),
    ('self._call_function("AM_API.SEARCH"', 'self._call("AM_API.SEARCH"',
     "AM_API.SEARCH is not a PROCEDURE; use _call_function"),
    ('"AM_API.SEARCH"', '"MEMORY.SEARCH"', "no package spec MEMORY under sql/"),
    ('self._call("API.DELETE_RECORDS", p_ids=ids, p_count=count)',
     'self._call("API." + "DELETE_RECORDS", p_ids=ids, p_count=count)',
     "the member name must be a string literal"),
    ('self._call("API.DELETE_RECORDS", p_ids=ids, p_count=count)',
     'self._call("API.DELETE_RECORDS", ids, count)', "binds must be keyword arguments"),
    ('self._call("API.DELETE_RECORDS", p_ids=ids, p_count=count)',
     'self._call("API.DELETE_RECORDS", **{"p_ids": ids})', "**kwargs binds cannot be checked"),
])
def test_bad_calls_are_reported_at_the_call(repo: Path, old: str, new: str,
                                            expected: str) -> None:
    edit(repo, STORE, old, new)
    line = position(repo, STORE, new)[0]
    findings = _calls(repo)
    assert len(findings) == 1, findings
    assert findings[0].startswith(f"{STORE}:{line}:")
    assert expected in findings[0]


def test_overload_is_chosen_by_keywords(repo: Path) -> None:
    """Both DELETE_RECORDS overloads are reachable; a mix of their parameters is not."""
    assert _calls(repo) == []
    edit(repo, STORE, "p_thread_id=thread_id, p_record_type=", "p_ids=thread_id, p_record_type=")
    (finding,) = _calls(repo)
    assert "matches no overload" in finding
    assert "PROCEDURE DELETE_RECORDS(P_IDS IN JSON, P_COUNT OUT NUMBER): no parameter " \
           "P_RECORD_TYPE" in finding


def test_alias_must_name_a_package(repo: Path) -> None:
    edit(repo, STORE, 'PACKAGE_ALIASES = {"API": "AM_API"}', 'PACKAGE_ALIASES = {"API": "AM_APX"}')
    findings = _calls(repo)
    assert any("PACKAGE_ALIASES['API'] names package AM_APX" in f for f in findings)
