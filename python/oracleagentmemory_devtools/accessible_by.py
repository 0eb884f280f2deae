"""Check 6: no ACCESSIBLE BY package is called from inside a SQL statement.

The PL/SQL Language Reference (ACCESSIBLE BY clause, usage notes): the clause "allows
access only if the call is direct"; for access through static SQL, DBMS_SQL or dynamic SQL
the check fails. Such code compiles, so without this check the first image write on a real
database would have been the first to fail. The check reads the text: for each statement
(up to ``;``) it takes the part from its first SELECT/INSERT/UPDATE/DELETE/MERGE keyword
(up to a ``LOOP`` of a cursor FOR loop) and reports every ``package.member(`` call there
whose package's spec has an ACCESSIBLE BY clause. Calls inside dynamic SQL strings count.
"""

from __future__ import annotations

import re

from oracleagentmemory_devtools.findings import Finding
from oracleagentmemory_devtools.sql_parsing import ParsedFile
from oracleagentmemory_devtools.sql_regions import blank_comments, line_col, sql_regions

CHECK = "accessible-by"
_SPEC_HEAD = re.compile(
    r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:NON)?EDITIONABLE\s+)?PACKAGE\s+(?!BODY\b)(\w+)(.*?)"
    r"\b(?:AS|IS)\b",
    re.IGNORECASE | re.DOTALL,
)
_CALL = re.compile(r"\b(\w+)\s*\.\s*(\w+)\s*\(")


def restricted_packages(parsed: list[ParsedFile]) -> set[str]:
    """Upper-case names of the packages whose spec has an ACCESSIBLE BY clause."""
    names: set[str] = set()
    for p in parsed:
        for head in _SPEC_HEAD.finditer(blank_comments(p.source.text)):
            if re.search(r"\bACCESSIBLE\s+BY\b", head.group(2), re.IGNORECASE):
                names.add(head.group(1).upper())
    return names


def check_accessible_by(parsed: list[ParsedFile]) -> list[Finding]:
    restricted = restricted_packages(parsed)
    findings: list[Finding] = []
    for p in parsed:
        text = blank_comments(p.source.text)
        for start, stop in sql_regions(text):
            for call in _CALL.finditer(text, start, stop):
                if call.group(1).upper() in restricted:
                    line, col = line_col(text, call.start())
                    findings.append(Finding(
                        p.rel_path, line, col, CHECK,
                        f"{call.group(1)}.{call.group(2)} is called inside a SQL statement,"
                        f" but {call.group(1)} is ACCESSIBLE BY: the accessor check fails"
                        " for calls through SQL; call it in PL/SQL and bind the result"))
    return findings
