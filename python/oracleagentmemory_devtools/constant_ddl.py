"""Constant DDL that a PL/SQL block runs with ``EXECUTE IMMEDIATE '<literal>'``.

Install scripts wrap DDL that has no ``IF NOT EXISTS`` (``CREATE VECTOR INDEX``) in a block
that checks the dictionary first; the DDL is then a string literal, which the parser does
not look inside. This module finds those literals and where they start in the file, so the
grammar and guard checks judge them like top-level statements.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from oracleagentmemory_devtools.sql_parsing import ParsedFile, ParsedStatement, parse_source
from oracleagentmemory_devtools.sql_sources import SqlSource

_LITERAL = re.compile(r"EXECUTE\s+IMMEDIATE\s+'((?:[^']|'')*)'(?!\s*\|\|)", re.IGNORECASE)
"""A single literal (not one piece of a ``||`` concatenation) run by EXECUTE IMMEDIATE."""


@dataclass(frozen=True)
class ConstantDdl:
    """The text of one literal (quotes undoubled) and the file position of its first
    character."""

    line: int
    col: int
    text: str

    def parsed(self, rel_path: str) -> ParsedFile:
        """The literal parsed as a statement of its own (positions relative to it)."""
        return parse_source(SqlSource(rel_path, self.text + ";\n"))

    def file_position(self, line: int, col: int) -> tuple[int, int]:
        """A position inside the literal (1-based, as ``parsed`` reports it) as a file
        position."""
        return self.line + line - 1, (self.col + col - 1 if line == 1 else col)


def constant_ddl(statement: ParsedStatement) -> list[ConstantDdl]:
    """Every constant DDL literal a PL/SQL statement runs, in order."""
    found = []
    for match in _LITERAL.finditer(statement.text):
        before = statement.text[:match.start(1)]
        newlines = before.count("\n")
        line = statement.line + newlines
        col = (statement.col + len(before) if not newlines
               else len(before) - before.rfind("\n"))
        found.append(ConstantDdl(line, col, match.group(1).replace("''", "'")))
    return found
