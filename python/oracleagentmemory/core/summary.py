"""The concrete thread summary type."""

from __future__ import annotations

from oracleagentmemory.apis.summary import Summary
from oracleagentmemory.errors import ArgumentTypeError


class OracleSummary(Summary):
    """A summary returned by an Oracle thread.

    Args:
        content: The summary text.

    Raises:
        ArgumentTypeError: A ``content`` that is not a str (a ``TypeError``).
    """

    def __init__(self, content: str) -> None:
        if not isinstance(content, str):
            raise ArgumentTypeError(f"content must be a str, got {type(content).__name__}")
        self._content = content

    @property
    def content(self) -> str:
        """The summary text."""
        return self._content

    @property
    def formatted_content(self) -> str:
        """The summary text as it goes into prompts."""
        return self._content

    def __str__(self) -> str:
        return self._content

    def __repr__(self) -> str:
        return f"OracleSummary(content={self._content!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OracleSummary) and other._content == self._content

    def __hash__(self) -> int:
        return hash(self._content)
