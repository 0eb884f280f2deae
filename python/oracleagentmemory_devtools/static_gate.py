"""The static gate: keeps the Oracle code honest on machines without an Oracle database.

Run ``python -m oracleagentmemory_devtools.static_gate [--root .] [--list-dynamic-sql]``;
it prints one ``path:line:col: [check] message`` line per problem and exits 1 if there is
any. Checks:

1. ``syntax``: every ``.sql/.pks/.pkb`` under ``sql/``, ``install/`` and ``tests/plsql/``
   parses with zero errors under qivo-parseora (documented parser gaps masked first, see
   ``parser_gaps``); ``index-ddl``: vector, hybrid vector and search index statements,
   which the parser does not check inside, follow the documented grammar (``index_ddl``).
2. ``spec-body``: every package spec member is implemented in its body with the same
   parameter list (``spec_body``).
3. ``python-calls``: every PL/SQL call of the Oracle store's modules (``stores/oracle.py``,
   ``oracle_admin.py``, ``oracle_security.py``) names an existing member and existing
   parameters. Convention (see ``python_calls``): a literal ``PACKAGE_ALIASES = {"API":
   "AGENT_MEMORY"}`` (in ``oracle_calls.py``) and database calls only as
   ``caller.call("API.MEMBER", p_name=value, ...)`` for procedures and
   ``caller.call_function("API.MEMBER", p_name=value, ...)`` for functions, with a string
   literal member name and keyword binds named after the PL/SQL parameters.
4. ``schema``: every table and column named in static SQL under ``sql/`` exists in the DDL
   (``schema_catalog``, ``schema_refs``).
5. ``dynamic-sql``: every ``EXECUTE IMMEDIATE`` / ``OPEN ... FOR <string>`` /
   ``DBMS_SQL.PARSE`` site under ``sql/`` is listed, and every value concatenated into its
   SQL text passes ``DBMS_ASSERT`` or is whitelisted with a
   ``-- dynamic-sql: whitelisted <why>`` comment (``dynamic_sql``).
6. ``accessible-by``: no package with an ACCESSIBLE BY clause is called inside a SQL
   statement, static or dynamic, where Oracle's accessor check fails (``accessible_by``).
7. ``char-semantics``: every VARCHAR2/CHAR length states CHAR (or BYTE on purpose), and no
   BYTE variable holds a value checked in characters (``length_semantics``).
8. ``lob-substr``: no DBMS_LOB.SUBSTR inside SQL takes more than 1000 characters, which
   may not fit the 4000-byte SQL VARCHAR2 it returns (``length_semantics``).
9. ``private-in-sql``: no function declared only in a package body (or nested in one of its
   subprograms) is called inside a SQL statement, which fails to compile with PLS-00231
   (``private_in_sql``).
10. ``index-guard``: every index DDL of an install script (``.sql`` under ``sql/`` and
    ``install/``) says ``IF NOT EXISTS`` or runs in a block that looks the index up first,
    so a second run does not stop on ORA-00955 (``index_guard``); the grammar check of
    check 1 also reads the DDL such a block runs.
11. ``vpd-merge``: no ``MERGE INTO`` a table whose VPD policies do not all cover INSERT,
    UPDATE and DELETE (ORA-28132; ``vpd_merge``).

Checks 1, 6, 7, 8 and 10 also run on the renderings of other store options (``variants``).
Checks 2 to 5 read the syntax trees (6 to 8 read the text), so a file with syntax errors is
still analysed as far as the parser got; fix syntax errors first.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import parseora

from oracleagentmemory_devtools.accessible_by import check_accessible_by
from oracleagentmemory_devtools.dynamic_sql import (
    DynamicSqlSite,
    check_dynamic_sql,
    find_dynamic_sql,
)
from oracleagentmemory_devtools.findings import Finding
from oracleagentmemory_devtools.index_ddl import check_index_ddl
from oracleagentmemory_devtools.index_guard import check_index_guards
from oracleagentmemory_devtools.length_semantics import check_length_semantics
from oracleagentmemory_devtools.plsql_units import package_units
from oracleagentmemory_devtools.private_in_sql import check_private_in_sql
from oracleagentmemory_devtools.python_calls import ORACLE_MODULES, check_python_calls
from oracleagentmemory_devtools.schema_catalog import build_catalog
from oracleagentmemory_devtools.schema_refs import check_schema_refs
from oracleagentmemory_devtools.spec_body import check_spec_body
from oracleagentmemory_devtools.sql_parsing import TARGET_VERSION, ParsedFile, parse_source
from oracleagentmemory_devtools.sql_sources import SQL_DIRS, discover_sources
from oracleagentmemory_devtools.variants import VARIANTS, rendered_variants
from oracleagentmemory_devtools.vpd_merge import check_vpd_merge

#: The parser release whose gaps ``parser_gaps`` documents (dev dependency pin).
PINNED_PARSER = "0.1.8"
#: Folders whose CREATE TABLE/VIEW statements make up the schema catalog.
DDL_DIRS = ("sql", "install")


@dataclass
class GateReport:
    """Everything one gate run found: problems, dynamic SQL listing and notes."""

    findings: list[Finding] = field(default_factory=list)
    dynamic_sql: list[DynamicSqlSite] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.findings


def run_gate(root: Path, sql_dirs: tuple[str, ...] = SQL_DIRS,
             store_path: str | tuple[str, ...] = ORACLE_MODULES) -> GateReport:
    """Run every check on the repository (or fixture tree) at ``root``."""
    report = GateReport()
    report.notes.append(f"parser: qivo-parseora {parseora.__version__} (pinned: "
                        f"{PINNED_PARSER}), Oracle {TARGET_VERSION}")
    sources = discover_sources(root, sql_dirs)
    parsed: list[ParsedFile] = [parse_source(source) for source in sources]
    statements = sum(len(p.statements) for p in parsed)
    report.notes.append(f"{len(parsed)} Oracle file(s), {statements} statement(s) parsed "
                        f"from {', '.join(sql_dirs)}")
    if not parsed:
        report.notes.append("no .sql/.pks/.pkb files yet: nothing to parse")
    variants = [parse_source(source) for source in rendered_variants(root)]
    if variants:
        report.notes.append(f"{len(variants)} file(s) of {len(VARIANTS)} other renderings "
                            "checked for syntax, index DDL, accessible-by and lengths")
    masked = sum(len(p.masked) for p in parsed)
    if masked:
        report.notes.append(f"{masked} parser-gap construct(s) masked (see parser_gaps)")
    for p in parsed + variants:
        for statement in p.statements:
            for error in statement.errors:
                report.findings.append(Finding(p.rel_path, error.line, error.col, "syntax",
                                               error.message))
    catalog = build_catalog([p for p in parsed if p.source.top_dir in DDL_DIRS])
    report.notes.append(f"schema catalog: {catalog.describe()}")
    report.findings += check_index_ddl(parsed + variants, catalog)
    report.findings += check_index_guards(parsed + variants)
    report.findings += check_vpd_merge(parsed)
    units = package_units(parsed)
    report.notes.append(f"{sum(not u.is_body for u in units)} package spec(s), "
                        f"{sum(u.is_body for u in units)} package body(ies)")
    report.findings += check_spec_body(units)
    call_findings, call_notes = check_python_calls(root, units, store_path)
    report.findings += call_findings
    report.notes += call_notes
    report.findings += check_schema_refs(parsed, catalog)
    report.dynamic_sql = find_dynamic_sql(parsed)
    report.findings += check_dynamic_sql(report.dynamic_sql)
    report.notes.append(f"{len(report.dynamic_sql)} dynamic SQL site(s) under sql/")
    report.findings += check_accessible_by(parsed + variants)
    report.findings += check_length_semantics(parsed + variants)
    report.findings += check_private_in_sql(parsed, units)
    report.findings.sort()
    return report


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the process exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m oracleagentmemory_devtools.static_gate",
        description="Static checks of the Oracle SQL/PL/SQL and its Python callers.")
    parser.add_argument("--root", type=Path, default=Path("."),
                        help="repository root (default: current directory)")
    parser.add_argument("--list-dynamic-sql", action="store_true",
                        help="print every dynamic SQL site and its verdict")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    report = run_gate(args.root.resolve())
    if args.list_dynamic_sql:
        print("dynamic SQL sites:")
        for site in report.dynamic_sql:
            print(f"  {site.format()}")
    for finding in report.findings:
        print(finding.format())
    for note in report.notes:
        print(f"note: {note}")
    elapsed = time.perf_counter() - started
    status = "passed" if report.passed else f"FAILED with {len(report.findings)} problem(s)"
    print(f"static gate {status} in {elapsed:.1f} s")
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
