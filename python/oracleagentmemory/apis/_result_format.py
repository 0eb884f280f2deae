"""How a search result is rendered for a prompt: the interface-level options.

Lives here until ``apis/searchresult.py`` re-exports it as ``SearchResultFormatConfig``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker

__all__ = ["SearchResultFormatConfig"]


@dataclass(frozen=True, slots=True)
class SearchResultFormatConfig:
    """Options of :meth:`SearchResult.format_content`.

    ``include_invalid_results``: render records whose status is INVALID (default True);
    when False an invalid result renders as an empty string and invalid linked results
    are left out. Every option is a bool; ``NOT_SET_MARKER`` means the SDK default.
    """

    include_invalid_results: bool | _NotSetMarker = NOT_SET_MARKER

    def __post_init__(self) -> None:
        for option in fields(self):
            value = getattr(self, option.name)
            if value is not NOT_SET_MARKER and not isinstance(value, bool):
                raise TypeError(f"{option.name} must be a bool, got {type(value).__name__}")
