"""Checks 7 and 8: text lengths that hold in characters, not only in ASCII bytes.

7. ``char-semantics``: every ``VARCHAR2(n)`` / ``CHAR(n)`` declaration (columns, PL/SQL
   variables, record fields, collection elements, JSON_TABLE columns, also inside dynamic
   SQL strings) states its length semantics. Without ``CHAR`` or ``BYTE`` the length is in
   bytes (NLS_LENGTH_SEMANTICS defaults to BYTE, and sessions of SYS always use BYTE;
   docs/oracle.md, "length semantics"), while the store checks ids, scopes and labels in
   characters: a valid non-ASCII value then fails with ORA-06502 or ORA-12899. Write
   ``VARCHAR2(n CHAR)``; ``BYTE`` is for a byte-sized value on purpose, and such a variable
   must not be assigned a value the store checked in characters (``check_id`` / ``opt_id``
   results), which is reported too.
   ``VARCHAR2(32767)`` is exempt: it is the PL/SQL maximum, 32767 bytes under either
   semantics, so the qualifier changes nothing.
8. ``lob-substr``: ``DBMS_LOB.SUBSTR`` inside a SQL statement returns a SQL VARCHAR2 (or
   RAW), at most 4000 bytes (2000 for RAW) with MAX_STRING_SIZE STANDARD, while its amount
   counts characters of up to 4 bytes in AL32UTF8: 2000 CJK characters already fail. In
   SQL the amount must be an integer literal of at most 1000; for more, work in PL/SQL or
   bind the CLOB (DBMS_LOB.SUBSTR's amount is a number of characters for CLOBs).
"""

from __future__ import annotations

import re

from oracleagentmemory_devtools.findings import Finding
from oracleagentmemory_devtools.sql_parsing import ParsedFile
from oracleagentmemory_devtools.sql_regions import blank_comments, line_col, sql_regions

CHAR_CHECK = "char-semantics"
LOB_CHECK = "lob-substr"
#: Largest DBMS_LOB.SUBSTR amount (characters) that fits a 4000-byte SQL VARCHAR2 in
#: AL32UTF8, whose characters take up to 4 bytes.
MAX_SQL_SUBSTR_AMOUNT = 1000
#: The largest PL/SQL VARCHAR2, in bytes whatever the semantics.
PLSQL_MAX_VARCHAR2 = 32767

_DECLARED = re.compile(r"\b(VARCHAR2|VARCHAR|CHAR)\s*\(\s*(\d+)\s*(CHAR|BYTE)?\s*\)",
                       re.IGNORECASE)
_BYTE_VARIABLE = re.compile(r"\b(\w+)\s+VARCHAR2\s*\(\s*\d+\s+BYTE\s*\)", re.IGNORECASE)
_CHAR_CHECKED = r"\b{name}\s*:=\s*[\w.]*\b(?:check_id|opt_id)\s*\("
_LOB_SUBSTR = re.compile(r"\bDBMS_LOB\s*\.\s*SUBSTR\s*\(", re.IGNORECASE)


def check_length_semantics(parsed: list[ParsedFile]) -> list[Finding]:
    findings: list[Finding] = []
    for p in parsed:
        text = blank_comments(p.source.text)
        findings += _declarations(p.rel_path, text)
        findings += _lob_substr(p.rel_path, text)
    return findings


def _declarations(path: str, text: str) -> list[Finding]:
    findings = []
    for match in _DECLARED.finditer(text):
        if match.group(3) is None and int(match.group(2)) != PLSQL_MAX_VARCHAR2:
            line, col = line_col(text, match.start())
            findings.append(Finding(
                path, line, col, CHAR_CHECK,
                f"{match.group(0)} has byte length semantics by default; write "
                f"{match.group(1).upper()}({match.group(2)} CHAR) (or BYTE on purpose)"))
    for match in _BYTE_VARIABLE.finditer(text):
        name = match.group(1)
        assigned = re.search(_CHAR_CHECKED.format(name=re.escape(name)), text, re.IGNORECASE)
        if assigned:
            line, col = line_col(text, assigned.start())
            findings.append(Finding(
                path, line, col, CHAR_CHECK,
                f"{name} is declared with BYTE length but holds a value checked in characters"
                " (check_id / opt_id); declare it with CHAR"))
    return findings


def _lob_substr(path: str, text: str) -> list[Finding]:
    findings = []
    for start, stop in sql_regions(text):
        for match in _LOB_SUBSTR.finditer(text, start, stop):
            arguments = _arguments(text, match.end())
            amount = arguments[1].strip() if len(arguments) > 1 else "32767 (the default)"
            if not amount.isdigit() or int(amount) > MAX_SQL_SUBSTR_AMOUNT:
                line, col = line_col(text, match.start())
                findings.append(Finding(
                    path, line, col, LOB_CHECK,
                    f"DBMS_LOB.SUBSTR with amount {amount} inside SQL: in SQL it returns a "
                    f"VARCHAR2 of at most 4000 bytes, so more than {MAX_SQL_SUBSTR_AMOUNT} "
                    "characters can fail; take the substring in PL/SQL or bind the CLOB"))
    return findings


def _arguments(text: str, start: int) -> list[str]:
    """The top-level comma-separated arguments of the call whose ``(`` ends at ``start``."""
    depth = 0
    current: list[str] = []
    arguments: list[str] = []
    for char in text[start:]:
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            arguments.append("".join(current))
            current = []
        else:
            current.append(char)
    arguments.append("".join(current))
    return arguments
