"""Checks of public-API arguments shared by the client and threads.

Each raises the exception the reference documents (a subclass of the built-in, below
``AgentMemoryError``), with a message naming the argument, before anything reaches the
store.
"""

from __future__ import annotations

from typing import Any

from oracleagentmemory._notset import value_or
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.apis.records import RecordStatus
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError
from oracleagentmemory.stores import limits
from oracleagentmemory.stores.protocol import Status


def reject_store_kwargs(method: str, store_kwargs: dict[str, Any]) -> None:
    """No backend takes extra options yet: an unknown keyword is a TypeError naming it."""
    if store_kwargs:
        raise ArgumentTypeError(
            f"{method}() got unexpected keyword argument(s): {', '.join(sorted(store_kwargs))}"
        )


def check_memory_type(memory_type: Any) -> str:
    memory_type = value_or(memory_type, "memory")
    if memory_type not in MEMORY_TYPES:
        raise InvalidArgumentError(
            f"memory_type must be one of {', '.join(MEMORY_TYPES)}, got {memory_type!r}"
        )
    return str(memory_type)


def check_status(status: Any) -> Status:
    """The contract's spelling (VALID/INVALID) of a RecordStatus argument."""
    try:
        valid = RecordStatus(value_or(status, RecordStatus.VALID)) is RecordStatus.VALID
        return "VALID" if valid else "INVALID"
    except ValueError:
        raise InvalidArgumentError(
            f"status must be a RecordStatus (valid or invalid), got {status!r}") from None


def check_text(value: Any, argument: str) -> str:
    """A str of valid Unicode (an unpaired surrogate can be stored nowhere)."""
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{argument} must be a str, got {type(value).__name__}")
    return limits.check_text(value, argument)


def check_content(value: Any, argument: str) -> str:
    """Text that must say something: a str that is not empty or only whitespace, within the
    store's content size limit."""
    check_text(value, argument)
    if not value.strip():
        raise InvalidArgumentError(f"{argument} must not be empty or only whitespace")
    return limits.check_content(value, argument)


def check_stored_text(value: Any, argument: str) -> str:
    """Text stored as a record's content that may be empty (a message, a description)."""
    check_text(value, argument)
    return limits.check_content(value, argument)


def check_id_argument(value: Any, argument: str) -> str:
    """An id a caller passes: a non-empty str (a non-str is an ``ArgumentTypeError``).

    Its length is the store's rule, checked where the record is written."""
    check_text(value, argument)
    if not value:
        raise InvalidArgumentError(f"{argument} must not be empty")
    return value


def scope_id(value: Any, argument: str) -> str | None:
    """A user, agent or thread id (or None): a non-empty str, or an int taken as its str.

    Applications keep user ids as integers, and the reference accepts them there
    (``create_thread(user_id=123)``); the stored id is the text ``"123"``. Only scope ids
    convert: a record's own id and a profile's id stay strings."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None if value is None else check_id_argument(value, argument)


def thread_key(value: Any) -> str:
    """A ``thread_id`` naming an existing thread: as :func:`scope_id`, but never None."""
    key = scope_id(value, "thread_id")
    return check_id_argument(value, "thread_id") if key is None else key


def check_optional_int(value: Any, argument: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"{argument} must be an int, got {type(value).__name__}")
    return value


def check_count(value: Any, argument: str) -> int:
    """A non-negative int."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"{argument} must be an int, got {type(value).__name__}")
    if value < 0:
        raise InvalidArgumentError(f"{argument} must not be negative, got {value}")
    return value


def check_flag(value: Any, argument: str) -> bool:
    if not isinstance(value, bool):
        raise ArgumentTypeError(f"{argument} must be a bool, got {type(value).__name__}")
    return value


def check_timeout(value: Any, argument: str = "timeout") -> float | None:
    """Seconds to wait (an int or float, at least 0), or None for no limit."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentTypeError(
            f"{argument} must be a number of seconds or None, got {type(value).__name__}")
    if not value >= 0:  # NaN too
        raise InvalidArgumentError(f"{argument} must be None or at least 0, got {value!r}")
    return float(value)
