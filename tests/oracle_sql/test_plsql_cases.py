"""The utPLSQL suite of the metadata filter and the scope rules comes from the contract's
cases: the committed files are the current rendering, and every case that JSON can carry is
in it (the others, NaN or a set, can only be given from Python)."""

from __future__ import annotations

import re
from pathlib import Path

from oracleagentmemory.conformance.cases import FILTER_CASES, MALFORMED_FILTERS, SCOPE_CASES
from oracleagentmemory_devtools.plsql_cases import render_suite

ROOT = Path(__file__).resolve().parents[2]
RENDERED = render_suite(ROOT)


def test_the_committed_suite_is_the_current_rendering():
    for name, text in RENDERED.items():
        committed = (ROOT / "tests" / "plsql" / name).read_text(encoding="utf-8")
        assert committed == text, (
            f"tests/plsql/{name} is stale: run python -m oracleagentmemory_devtools.plsql_cases")


def test_every_case_is_an_expectation_of_the_suite():
    body = RENDERED["ut_agent_memory_filter.pkb"]
    assert len(re.findall(r"ut\.expect\(m\(", body)) == len(FILTER_CASES)
    assert '"$array_contains_any": ["b", "a"]' in body
    assert "to_equal(1)" in body and "to_equal(0)" in body
    validations = re.findall(r"agent_memory_filter\.validate\(j\('(.*)'\)\);", body)
    assert '{"": 1}' in validations and '{"$not": {"a": 1}}' in validations
    assert len(validations) == len(MALFORMED_FILTERS) - 4  # a string, NaN, a set, an int key
    assert len(re.findall(r"agent_memory_scope\.matches\(", body)) == len(SCOPE_CASES)
    affinities = re.findall(r"agent_memory_scope\.affinity\(.*\.to_equal\((\d)\);", body)
    assert affinities.count("2") == 1


def test_every_invalid_filter_test_expects_the_invalid_filter_error():
    spec = RENDERED["ut_agent_memory_filter.pks"]
    procedures = re.findall(r"--%throws\(-20004\)\n  PROCEDURE (invalid_filter_\d\d);", spec)
    assert len(procedures) == len(MALFORMED_FILTERS) - 4
    for procedure in procedures:
        assert f"PROCEDURE {procedure} IS" in RENDERED["ut_agent_memory_filter.pkb"]
