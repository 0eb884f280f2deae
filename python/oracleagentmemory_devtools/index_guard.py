"""Check ``index-guard``: install scripts create each index only when it is missing.

An install script runs under ``WHENEVER SQLERROR EXIT``; an index that exists already
stops a second run with ORA-00955 before the packages are reached. So every index DDL of a
``.sql`` script under ``sql/`` or ``install/`` either says ``IF NOT EXISTS`` (CREATE INDEX
in 23ai) or is run by a PL/SQL block that first looks the index up in ``USER_INDEXES`` (or
``ALL_INDEXES``): ``CREATE VECTOR INDEX`` has no ``IF NOT EXISTS`` (docs/oracle.md,
"idempotent install").
Package bodies are not install scripts and are not checked here.
"""

from __future__ import annotations

import re

from oracleagentmemory_devtools.constant_ddl import constant_ddl
from oracleagentmemory_devtools.findings import Finding
from oracleagentmemory_devtools.sql_parsing import ParsedFile

CHECK = "index-guard"
#: Folders whose ``.sql`` scripts a DBA runs to install or upgrade a store.
SCRIPT_DIRS = ("sql", "install")
_INDEX_DDL = re.compile(
    r"^\s*CREATE\s+(?:UNIQUE\s+|BITMAP\s+|MULTIVALUE\s+|VECTOR\s+|SEARCH\s+|HYBRID\s+VECTOR\s+)?"
    r"INDEX\b(?P<guard>\s+IF\s+NOT\s+EXISTS\b)?", re.IGNORECASE)
_LOOKUP = re.compile(r"\bFROM\s+(?:USER|ALL)_INDEXES\b", re.IGNORECASE)
MESSAGE = ("index DDL in an install script must run only when the index is missing: "
           "IF NOT EXISTS, or a block that looks it up in USER_INDEXES first (a second run "
           "stops on ORA-00955 otherwise)")


def check_index_guards(files: list[ParsedFile]) -> list[Finding]:
    """Findings for every unguarded index DDL of the install scripts."""
    findings: list[Finding] = []
    for parsed in files:
        if parsed.source.top_dir not in SCRIPT_DIRS or not parsed.rel_path.endswith(".sql"):
            continue
        for statement in parsed.statements:
            match = _INDEX_DDL.match(statement.text)
            if match and not match.group("guard"):
                findings.append(Finding(parsed.rel_path, statement.line, statement.col, CHECK,
                                        MESSAGE))
            looked_up = bool(_LOOKUP.search(statement.text))
            for ddl in constant_ddl(statement):
                inner = _INDEX_DDL.match(ddl.text)
                if inner and not inner.group("guard") and not looked_up:
                    findings.append(Finding(parsed.rel_path, ddl.line, ddl.col, CHECK, MESSAGE))
    return findings
