"""Scope of a record: who (user), which agent, which thread."""

from __future__ import annotations

from dataclasses import dataclass

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError

ScopeValue = str | None | _NotSetMarker

__all__ = ["NOT_SET_MARKER", "Scope"]


def _check_scope_value(name: str, value: object) -> None:
    if value is NOT_SET_MARKER or value is None or isinstance(value, str):
        if isinstance(value, str) and not value:
            raise InvalidArgumentError(f"{name} must be a non-empty string or None")
        return
    raise ArgumentTypeError(f"{name} must be a str or None, got {type(value).__name__}")


@dataclass
class Scope:
    """Scope for inserting or searching information.

    Each field is a concrete id, ``None`` (the record is not scoped on that dimension) or
    left out (the operation applies its own default).

    Attributes:
        user_id: The user. Default: left out.
        agent_id: The agent. Default: left out.
        thread_id: The thread. Default: left out.

    Raises:
        InvalidArgumentError: An empty id (a ``ValueError``).
        ArgumentTypeError: An id that is neither a str nor None (a ``TypeError``).
    """

    user_id: ScopeValue = NOT_SET_MARKER
    agent_id: ScopeValue = NOT_SET_MARKER
    thread_id: ScopeValue = NOT_SET_MARKER

    def __post_init__(self) -> None:
        for name in ("user_id", "agent_id", "thread_id"):
            _check_scope_value(name, getattr(self, name))
