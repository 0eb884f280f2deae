"""Parse one Oracle source file with parseora into positioned statements.

This is the single place the gate calls the parser: the documented parser gaps are masked
first (see ``parser_gaps``), then every SQL statement and PL/SQL unit comes back with its
kind, its syntax errors (file line and column) and its syntax tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import parseora

from oracleagentmemory_devtools.parser_gaps import mask_parser_gaps
from oracleagentmemory_devtools.sql_sources import SqlSource
from oracleagentmemory_devtools.syntax_tree import Node, attach_positions, parse_tree_text

#: The Oracle release the code targets; constructs newer than it are parser warnings.
TARGET_VERSION = "23ai"


@dataclass(frozen=True)
class SyntaxProblem:
    """A parser error at a file position."""

    line: int
    col: int
    message: str


@dataclass
class ParsedStatement:
    """One statement or PL/SQL unit: parser kind, start position, text, errors and tree."""

    kind: str
    line: int
    col: int
    text: str
    errors: list[SyntaxProblem]
    tree: Node


@dataclass
class ParsedFile:
    """A source file's statements, the gaps masked in it, and the raw source lines."""

    source: SqlSource
    statements: list[ParsedStatement]
    masked: tuple[tuple[str, int, int], ...] = ()
    lines: list[str] = field(default_factory=list)

    @property
    def rel_path(self) -> str:
        return self.source.rel_path

    def line_text(self, line: int) -> str:
        """The file's line ``line`` (1-based), or '' past the end."""
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""


def parse_source(source: SqlSource) -> ParsedFile:
    """Parse ``source`` (with parser gaps masked) into positioned statements."""
    masked = mask_parser_gaps(source.text)
    statements: list[ParsedStatement] = []
    for raw in parseora.parse(masked.text, version=TARGET_VERSION, tree=True):
        tree = parse_tree_text(raw["tree"])
        attach_positions(tree, parseora.tokenize(raw["text"]), raw["line"], raw["col"])
        errors = [SyntaxProblem(e["line"], e["col"], e["message"]) for e in raw["errors"]]
        statements.append(ParsedStatement(raw["statement"], raw["line"], raw["col"],
                                          raw["text"], errors, tree))
    return ParsedFile(source, statements, masked.applied, source.text.splitlines())
