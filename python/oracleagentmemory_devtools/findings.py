"""One problem the static gate found, located by file, line and column.

Every check reports through this type so the gate prints one uniform, clickable
``path:line:col: [check] message`` line per problem.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Finding:
    """A problem at ``path:line:col`` (1-based) found by the check named ``check``."""

    path: str
    line: int
    col: int
    check: str
    message: str

    def format(self) -> str:
        """The compiler-style line editors and CI logs recognise."""
        return f"{self.path}:{self.line}:{self.col}: [{self.check}] {self.message}"
