"""Splitting rendered SQL*Plus-style scripts into statements a driver can execute.

SQL statements end with ``;`` at the end of a line (the driver wants them without it);
PL/SQL units (packages, anonymous blocks) end with a line holding only ``/`` and keep their
final ``END;``. Comment lines between statements are dropped.
"""

from __future__ import annotations

import re

_PLSQL_START = re.compile(
    r"^(CREATE\s+(OR\s+REPLACE\s+)?(EDITIONABLE\s+|NONEDITIONABLE\s+)?"
    r"(PACKAGE|PROCEDURE|FUNCTION|TRIGGER|TYPE)\b|BEGIN\b|DECLARE\b)",
    re.IGNORECASE,
)
_CLIENT_COMMANDS = re.compile(r"^(SET|PROMPT|WHENEVER|SPOOL|@@?|EXIT|SHOW)\b", re.IGNORECASE)


def split_script(text: str) -> list[str]:
    """The executable statements of a script, in order."""
    statements: list[str] = []
    buffer: list[str] = []
    plsql = False
    for line in text.splitlines():
        stripped = line.strip()
        if not buffer:
            if not stripped or stripped.startswith("--") or _CLIENT_COMMANDS.match(stripped):
                continue
            plsql = bool(_PLSQL_START.match(stripped))
        if stripped == "/":
            if buffer:
                statements.append("\n".join(buffer).strip())
                buffer = []
            continue
        buffer.append(line)
        if not plsql and stripped.endswith(";"):
            statements.append("\n".join(buffer).strip()[:-1].rstrip())
            buffer = []
    if buffer and "".join(buffer).strip():
        statements.append("\n".join(buffer).strip().rstrip(";"))
    return statements
