"""The end user a block of code acts for (set by the end-user security context).

Kept in a context variable, so each thread of an application and each asyncio task has its
own; backends read it on every operation to decide which rows the caller may see.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass


@dataclass(frozen=True)
class EndUser:
    """Who the application acts for: a user name and the groups the user is in."""

    username: str
    groups: tuple[str, ...] = ()


CURRENT_END_USER: contextvars.ContextVar[EndUser | None] = contextvars.ContextVar(
    "oracleagentmemory_end_user", default=None)


def current_end_user() -> EndUser | None:
    return CURRENT_END_USER.get()
