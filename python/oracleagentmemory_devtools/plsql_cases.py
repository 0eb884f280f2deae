"""The utPLSQL suite of the metadata filter and the scope rules, generated from the contract's
cases (``oracleagentmemory.conformance.cases``), so PL/SQL is held to the same table as the
backends and the reference evaluator.

``python -m oracleagentmemory_devtools.plsql_cases`` rewrites
``tests/plsql/ut_agent_memory_filter.pks/.pkb`` from ``tests/plsql/templates/``;
``tests/oracle_sql/test_plsql_cases.py`` checks the committed files are current. A case
whose filter JSON cannot hold (NaN, a set, a non-string key) or that is not an object stays
Python-only: PL/SQL receives filters as JSON objects.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from oracleagentmemory.conformance.cases import (
    FILTER_CASES,
    FILTER_GROUPS,
    MALFORMED_FILTERS,
    SCOPE_CASES,
    STORED,
    Document,
    json_text,
)

SUITE = "ut_agent_memory_filter"
TEMPLATES = Path("tests/plsql/templates")
OUTPUT = Path("tests/plsql")


def sql_text(value: str | None) -> str:
    """A PL/SQL string literal of ``value`` (NULL for None)."""
    return "NULL" if value is None else "'" + value.replace("'", "''") + "'"


def _json_literal(value: object) -> str:
    text = json_text(value)
    if text is None:
        raise ValueError(f"a PL/SQL case needs a JSON value, got {value!r}")
    return sql_text(text)


Row = dict[str, Any]
"""What the templates read of one case, its values already PL/SQL literals."""


def _metadata(metadata: Document | None) -> str:
    """The metadata argument: NULL, the suite's constant c_stored, or a literal."""
    if metadata is None:
        return "NULL"
    return "c_stored" if metadata is STORED else _json_literal(metadata)


def _groups() -> list[Row]:
    return [{"name": group.name, "rule": group.rule, "cases": [
        {"metadata": _metadata(case.metadata), "filter": _json_literal(case.metadata_filter),
         "expected": int(case.matches)}
        for case in FILTER_CASES if case.group == group]} for group in FILTER_GROUPS]


def _malformed() -> list[Row]:
    given = [bad for bad in MALFORMED_FILTERS
             if isinstance(bad.metadata_filter, dict) and json_text(bad.metadata_filter)]
    return [{"procedure": f"invalid_filter_{number:02d}", "why": bad.why,
             "filter": _json_literal(bad.metadata_filter)}
            for number, bad in enumerate(given, start=1)]


def _scopes() -> list[Row]:
    return [{"name": case.name, "rule": case.rule,
             "record": ", ".join(sql_text(value) for value in case.record),
             "scope": _json_literal(case.scope), "matches": int(case.matches),
             "affinity": case.affinity if case.matches else None} for case in SCOPE_CASES]


def render_suite(root: Path) -> dict[str, str]:
    """File name -> text of the generated suite, from the templates under ``root``."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(root / TEMPLATES), undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)
    context = {"groups": _groups(), "malformed": _malformed(), "scopes": _scopes(),
               "stored": _json_literal(STORED)}
    return {f"{SUITE}{suffix}": environment.get_template(f"{SUITE}{suffix}.j2").render(context)
            for suffix in (".pks", ".pkb")}


def write_suite(root: Path) -> list[Path]:
    written = []
    for name, text in render_suite(root).items():
        path = root / OUTPUT / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    for written_path in write_suite(Path(__file__).resolve().parents[2]):
        print(written_path)
