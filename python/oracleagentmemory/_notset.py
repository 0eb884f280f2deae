"""The marker for an argument the caller did not pass.

``None`` is a meaningful value in this API (for example "no agent scope"), so an omitted
argument needs a marker of its own that never collides with a real value.
"""

from __future__ import annotations

from typing import Final, TypeVar

T = TypeVar("T")


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


def value_or(value: T | _NotSetMarker, default: T) -> T:
    """``value`` when it was passed, else ``default``.

    Typed: ``value_or(x, d)`` with ``x: int | None | _NotSetMarker`` and ``d: int`` is an
    ``int | None``, so what a call resolves to is checked where it is used."""
    return default if isinstance(value, _NotSetMarker) else value
