"""The root of every error this library raises on purpose, and its typed families.

Each family also subclasses the built-in exception the reference documents for that case,
so ``except ValueError`` (or ``KeyError``, ``TypeError``, ``TimeoutError``) keeps working,
while ``except AgentMemoryError`` catches everything of ours and nothing else. Store errors
(``stores.errors``) and LLM errors (``core.llms.errors``) hang below the same root.
"""

from __future__ import annotations

__all__ = [
    "AccessDeniedError",
    "AgentMemoryError",
    "ArgumentTypeError",
    "InvalidArgumentError",
    "MissingFieldError",
    "NotFoundError",
    "OperationTimeoutError",
]


class AgentMemoryError(Exception):
    """Base of every error raised by oracleagentmemory."""


class InvalidArgumentError(AgentMemoryError, ValueError):
    """An argument has a value that is not allowed; the message names the argument."""


class ArgumentTypeError(AgentMemoryError, TypeError):
    """An argument has the wrong type, or a keyword argument is unknown."""


class NotFoundError(AgentMemoryError, KeyError):
    """A thread, message, memory or image that must exist does not (or is not visible)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class MissingFieldError(AgentMemoryError, KeyError):
    """A required key is missing from a mapping argument (a message without ``role``)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class OperationTimeoutError(AgentMemoryError, TimeoutError):
    """A wait (for background extraction, for example) ran out of time."""


class AccessDeniedError(AgentMemoryError, PermissionError):
    """The end user of the current security context may not see or change this."""
