"""Checks of the model classes' keyword arguments, where NOT_SET_MARKER means "default".

Why shared: Llm, Embedder and OracleDBEmbedder take the reference's optional arguments
(and the HTTP client and task limits behind them their own options); each bad one must
fail the same way, with a TypeError or ValueError naming it.
"""

from __future__ import annotations

from typing import Any, overload

from oracleagentmemory._notset import NOT_SET_MARKER


def optional_value(name: str, value: Any, kind: type | tuple[type, ...]) -> Any:
    """``value`` of type ``kind``, or None when unset or None (bools are not numbers)."""
    value = None if value is NOT_SET_MARKER else value
    if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
        expected = kind.__name__ if isinstance(kind, type) else "a number"
        raise TypeError(f"{name} must be {expected} or None, got {type(value).__name__}")
    return value


@overload
def positive_int(name: str, value: Any, default: int) -> int: ...
@overload
def positive_int(name: str, value: Any, default: None) -> int | None: ...
def positive_int(name: str, value: Any, default: int | None) -> int | None:
    """A positive int, or ``default`` when unset or None."""
    value = optional_value(name, value, int)
    if value is None:
        return default
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return value


def positive_seconds(name: str, value: Any) -> float:
    """A duration: an int or float above 0, as a float (a bool is not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    return float(value)


def flag(name: str, value: Any, default: bool) -> bool:
    """A bool, or ``default`` when unset."""
    value = default if value is NOT_SET_MARKER else value
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value
