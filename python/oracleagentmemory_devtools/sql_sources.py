"""Which files hold Oracle code, and their text.

The gate looks at the committed SQL and PL/SQL only (rendered templates included), so a
file a DBA would run is exactly a file the gate checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: Folders (relative to the repository root) whose Oracle files the gate checks.
SQL_DIRS: tuple[str, ...] = ("sql", "install", "tests/plsql")
#: File suffixes that hold SQL, PL/SQL or SQL*Plus scripts.
SQL_SUFFIXES: tuple[str, ...] = (".sql", ".pks", ".pkb")


@dataclass(frozen=True)
class SqlSource:
    """One Oracle source file: its path relative to the root (for messages) and its text."""

    rel_path: str
    text: str

    @property
    def top_dir(self) -> str:
        """The first path component (``sql``, ``install``, ``tests``)."""
        return self.rel_path.split("/", 1)[0]


def discover_sources(root: Path, dirs: tuple[str, ...] = SQL_DIRS) -> list[SqlSource]:
    """Every ``.sql/.pks/.pkb`` file under ``dirs`` of ``root``, sorted by path."""
    found: list[SqlSource] = []
    for folder in dirs:
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_file() and path.suffix.lower() in SQL_SUFFIXES:
                text = path.read_text(encoding="utf-8", errors="replace")
                found.append(SqlSource(path.relative_to(root).as_posix(), text))
    return found
