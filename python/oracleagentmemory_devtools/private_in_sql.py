"""Check 9: no function declared only in a package body is called inside a SQL statement.

A SQL statement, even static SQL inside the package's own body, can call a PL/SQL function
only if it is a schema-level function or declared in a package specification; a function
declared only in the body (or nested in a subprogram) is private to PL/SQL, and the body
fails to compile with PLS-00231 "function ... may not be used in SQL" (docs/oracle.md,
"Pages the code rests on": static gate rules). Such code looks fine until the first
compile on a real database; the fix is to compute the value in PL/SQL first and use the
variable in the statement (it becomes a bind).

The check reads the text, as check 6 does (``sql_regions``): inside each package body it
reports every unqualified ``name(`` (or ``own_package.name(``) in a SQL region whose
``name`` is a function the body declares and the spec does not.
"""

from __future__ import annotations

import re

from oracleagentmemory_devtools.findings import Finding
from oracleagentmemory_devtools.plsql_units import PackageUnit
from oracleagentmemory_devtools.sql_parsing import ParsedFile
from oracleagentmemory_devtools.sql_regions import blank_comments, line_col, sql_regions
from oracleagentmemory_devtools.syntax_tree import identifier

CHECK = "private-in-sql"
_CALL = re.compile(r"(?<![\w$#.\"])(?:(\w+)\s*\.\s*)?(\w+)\s*\(")


def check_private_in_sql(parsed: list[ParsedFile], units: list[PackageUnit]) -> list[Finding]:
    specs = {u.name: u for u in units if not u.is_body}
    by_path = {p.rel_path: p for p in parsed}
    findings: list[Finding] = []
    for body in (u for u in units if u.is_body):
        private = _body_functions(body) - _spec_functions(specs.get(body.name))
        source = by_path.get(body.path)
        if not private or source is None:
            continue
        text = blank_comments(source.source.text)
        start = _offset(text, body.statement.line, body.statement.col)
        stop = start + len(body.statement.text)
        for region_start, region_stop in sql_regions(text[:stop]):
            if region_stop <= start:
                continue
            for call in _CALL.finditer(text, max(region_start, start), region_stop):
                qualifier, name = call.group(1), identifier(call.group(2))
                if name not in private:
                    continue
                if qualifier is not None and identifier(qualifier) != body.name:
                    continue
                line, col = line_col(text, call.start(2))
                findings.append(Finding(
                    body.path, line, col, CHECK,
                    f"{body.name}.{name} is declared in the package body only, but is called"
                    " inside a SQL statement: PLS-00231 when the body compiles; compute the"
                    " value in PL/SQL first and use the variable in the statement"))
    return findings


def _spec_functions(spec: PackageUnit | None) -> set[str]:
    if spec is None:
        return set()
    return {s.name for s in spec.subprograms if s.kind == "FUNCTION"}


def _body_functions(body: PackageUnit) -> set[str]:
    """Every function the body declares or defines, at any depth."""
    names: set[str] = set()
    for node in body.statement.tree.find_all("SubprogramDecl"):
        words = [c for c in node.children if c.is_leaf]
        if len(words) > 1 and (words[0].text or "").upper() == "FUNCTION":
            names.add(identifier(words[1].text or ""))
    return names


def _offset(text: str, line: int, col: int) -> int:
    """The offset of 1-based ``line``/``col`` in ``text``."""
    offset = 0
    for _ in range(line - 1):
        offset = text.index("\n", offset) + 1
    return offset + col - 1
