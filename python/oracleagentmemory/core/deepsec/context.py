"""The end-user security context: which end user a block of code acts for."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextvars import ContextVar, Token
from types import TracebackType
from typing import Any

from oracleagentmemory._end_user import CURRENT_END_USER, EndUser
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError

__all__ = ["OracleMemoryEndUserSecurityContext"]

_ENTERED: ContextVar[tuple[Token[EndUser | None], ...]] = ContextVar(
    "oracleagentmemory_end_user_entered", default=())
"""The tokens of the blocks entered and not yet left in this thread or task, innermost
last: kept per context, not on the context object, so one object entered by several tasks
or threads at once leaves each one's own block."""


def _end_user(security_context: Any) -> EndUser:
    """An end user from a user name, a mapping (``username``, optional ``groups``) or an
    object with those attributes."""
    if isinstance(security_context, EndUser):
        return security_context
    username: object
    groups: object
    if isinstance(security_context, str):
        username, groups = security_context, ()
    elif isinstance(security_context, Mapping):
        username, groups = security_context.get("username"), security_context.get("groups", ())
    else:
        username = getattr(security_context, "username", None)
        groups = getattr(security_context, "groups", ())
    if not isinstance(username, str) or not username.strip():
        raise InvalidArgumentError("security_context must name an end user (a non-empty "
                                   "username)")
    if isinstance(groups, str) or not isinstance(groups, Sequence) or not all(
            isinstance(group, str) for group in groups):
        raise ArgumentTypeError("security_context groups must be a list of group names")
    return EndUser(username, tuple(groups))


class OracleMemoryEndUserSecurityContext:
    """Inside ``with`` (or ``async with``), every memory operation of this thread or task
    acts for the given end user: it sees and changes only the rows the deep data security
    policies granted to that user allow. Contexts nest; leaving one restores the outer.

    Args:
        security_context: The end user: a user name, a mapping with ``username`` and
            optional ``groups`` (a list of group names, default none), or an object with
            those attributes.

    Raises:
        InvalidArgumentError: No non-empty user name is given (a ``ValueError``).
        ArgumentTypeError: ``groups`` is not a list of str (a ``TypeError``).
    """

    def __init__(self, security_context: Any) -> None:
        self.end_user = _end_user(security_context)

    def __enter__(self) -> OracleMemoryEndUserSecurityContext:
        _ENTERED.set((*_ENTERED.get(), CURRENT_END_USER.set(self.end_user)))
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        *outer, token = _ENTERED.get()
        CURRENT_END_USER.reset(token)
        _ENTERED.set(tuple(outer))

    async def __aenter__(self) -> OracleMemoryEndUserSecurityContext:
        return self.__enter__()

    async def __aexit__(self, exc_type: Any, exc: Any, traceback: Any) -> None:
        self.__exit__(exc_type, exc, traceback)
