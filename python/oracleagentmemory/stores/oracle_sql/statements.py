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


_CREATED = re.compile(
    r"^CREATE\s+(?:OR\s+REPLACE\s+)?(?:VECTOR\s+|SEARCH\s+)?"
    r"(TABLE|INDEX|VIEW|PACKAGE\s+BODY|PACKAGE|TYPE)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)",
    re.IGNORECASE)
_GUARDED_INDEX = re.compile(
    r"^DECLARE\b.*\bFROM\s+user_indexes\b.*?EXECUTE\s+IMMEDIATE\s+'(CREATE\s+(?:VECTOR\s+)?"
    r"INDEX\s+\w+)", re.IGNORECASE | re.DOTALL)
"""An index the install script creates in a block only when USER_INDEXES lacks it."""
_PREFERENCE = re.compile(r"^DECLARE\b.*\bCTX_DDL\.CREATE_PREFERENCE\('(\w+)'",
                         re.IGNORECASE | re.DOTALL)
"""An Oracle Text preference the install script creates in a block when it is missing."""


def created_object(statement: str) -> tuple[str, str] | None:
    """(USER_OBJECTS type, name) of the object a CREATE statement, or a block that creates
    an index when it is missing, makes; ("PREFERENCE", name) for an Oracle Text preference
    block (not a schema object); else None."""
    preference = _PREFERENCE.match(statement)
    if preference:
        return "PREFERENCE", preference.group(1).upper()
    guarded = _GUARDED_INDEX.match(statement)
    match = _CREATED.match(guarded.group(1) if guarded else statement)
    if not match:
        return None
    return " ".join(match.group(1).upper().split()), match.group(2).upper()


def created_objects(scripts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every schema object (ALL_OBJECTS lists it) an installation creates, in order."""
    objects = [created_object(statement) for _, text in scripts
               for statement in split_script(text)]
    return [created for created in objects
            if created is not None and created[0] != "PREFERENCE"]
