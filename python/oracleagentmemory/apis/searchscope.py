"""Scope of a search query, with an exact-match flag per dimension."""

from __future__ import annotations

from dataclasses import dataclass

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory.apis.scope import Scope
from oracleagentmemory.errors import ArgumentTypeError

__all__ = ["NOT_SET_MARKER", "SearchScope"]

FlagValue = bool | _NotSetMarker


@dataclass
class SearchScope(Scope):
    """Restricts what a search may return.

    With a resolved ``exact_*_match`` of True the dimension matches the id exactly,
    ``None`` included; with False the dimension is unconstrained (matching records may
    still rank higher). The ids are those of ``Scope``.

    Attributes:
        exact_user_match: Match ``user_id`` exactly. Default: left out (True; a client
            search refuses False).
        exact_agent_match: Match ``agent_id`` exactly. Default: left out (True when an
            ``agent_id`` is given to a client search; True on a thread).
        exact_thread_match: Match ``thread_id`` exactly. Default: left out (True when a
            ``thread_id`` is given to a client search; False on a thread).

    Raises:
        ArgumentTypeError: A flag that is not a bool (a ``TypeError``).
        InvalidArgumentError: An empty id (a ``ValueError``).
    """

    exact_user_match: FlagValue = NOT_SET_MARKER
    exact_agent_match: FlagValue = NOT_SET_MARKER
    exact_thread_match: FlagValue = NOT_SET_MARKER

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("exact_user_match", "exact_agent_match", "exact_thread_match"):
            value = getattr(self, name)
            if value is not NOT_SET_MARKER and not isinstance(value, bool):
                raise ArgumentTypeError(f"{name} must be a bool, got {type(value).__name__}")
