"""The marker for an argument the caller did not pass.

``None`` is a meaningful value in this API (for example "no agent scope"), so an omitted
argument needs a marker of its own that never collides with a real value.
"""

from __future__ import annotations

from typing import Any, Final


class _NotSetMarker:
    """Singleton type of :data:`NOT_SET_MARKER`."""

    _instance: _NotSetMarker | None = None

    def __new__(cls) -> _NotSetMarker:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_SET_MARKER"

    def __bool__(self) -> bool:
        return False

    def __copy__(self) -> _NotSetMarker:
        return self

    def __deepcopy__(self, memo: dict) -> _NotSetMarker:
        return self

    def __reduce__(self) -> str:
        return "NOT_SET_MARKER"


NOT_SET_MARKER: Final = _NotSetMarker()


def is_set(value: Any) -> bool:
    """True when the caller passed the argument (``None`` counts as passed)."""
    return value is not NOT_SET_MARKER


def value_or(value: Any, default: Any) -> Any:
    """``value`` when it was passed, else ``default``."""
    return default if value is NOT_SET_MARKER else value
