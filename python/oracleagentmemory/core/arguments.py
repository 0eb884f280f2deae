"""Checks of public-API arguments shared by the client and threads.

Each raises the exception the reference pages document, with a message naming the
argument, before anything reaches the store.
"""

from __future__ import annotations

from typing import Any

from oracleagentmemory._notset import value_or
from oracleagentmemory.apis.records import MEMORY_TYPES, RecordStatus


def reject_store_kwargs(method: str, store_kwargs: dict[str, Any]) -> None:
    """No backend takes extra options yet: an unknown keyword is a TypeError naming it."""
    if store_kwargs:
        raise TypeError(
            f"{method}() got unexpected keyword argument(s): {', '.join(sorted(store_kwargs))}"
        )


def check_memory_type(memory_type: Any) -> str:
    memory_type = value_or(memory_type, "memory")
    if memory_type not in MEMORY_TYPES:
        raise ValueError(
            f"memory_type must be one of {', '.join(MEMORY_TYPES)}, got {memory_type!r}"
        )
    return memory_type


def check_status(status: Any) -> str:
    try:
        return RecordStatus(value_or(status, RecordStatus.VALID)).value
    except ValueError:
        raise ValueError(f"status must be a RecordStatus (VALID or INVALID), got {status!r}") \
            from None


def check_text(value: Any, argument: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{argument} must be a str, got {type(value).__name__}")
    return value
