"""Lenient lookup for the public enums: the reference spells values in lower case, older
code of ours and the store contract in upper case; either spelling finds the member."""

from __future__ import annotations

from enum import Enum
from typing import Any

from oracleagentmemory.errors import InvalidArgumentError


def case_insensitive_lookup(cls: type[Enum], value: object) -> Any:
    """``Enum._missing_``: the member whose name or value matches ``value`` in any case; for
    a string that names none, a ValueError that lists the values there are."""
    if not isinstance(value, str):
        return None
    wanted = value.casefold()
    for member in cls:
        if member.name.casefold() == wanted or str(member.value).casefold() == wanted:
            return member
    allowed = ", ".join(str(member.value) for member in cls)
    raise InvalidArgumentError(f"{value!r} is not a valid {cls.__name__}; use one of: {allowed}")
