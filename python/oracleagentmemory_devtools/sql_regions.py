"""Where SQL runs inside PL/SQL text: the regions checks 6 and 7 look into.

A region starts at the first SELECT/INSERT/UPDATE/DELETE/MERGE keyword of a statement (the
text up to ``;``) and ends at the statement's end or, for a cursor FOR loop, at ``LOOP``.
Text inside a dynamic SQL string counts too: it runs as SQL. Comments are blanked first, so
a word in a comment starts nothing.
"""

from __future__ import annotations

import re

_SQL_START = re.compile(r"\b(?:SELECT|INSERT|UPDATE|DELETE|MERGE)\b", re.IGNORECASE)
_LOOP = re.compile(r"\bLOOP\b", re.IGNORECASE)
_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.DOTALL)


def blank_comments(text: str) -> str:
    """The text with comments replaced by spaces (newlines kept, so positions hold)."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def sql_regions(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the SQL parts of comment-blanked PL/SQL ``text``."""
    regions: list[tuple[int, int]] = []
    start = 0
    for end in [m.start() for m in re.finditer(";", text)] + [len(text)]:
        sql = _SQL_START.search(text, start, end)
        if sql:
            loop = _LOOP.search(text, sql.start(), end)
            regions.append((sql.start(), loop.start() if loop else end))
        start = end + 1
    return regions


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
