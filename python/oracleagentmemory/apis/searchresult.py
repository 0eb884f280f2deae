"""Abstract search result, and how a result is rendered for a prompt."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory.errors import ArgumentTypeError

if TYPE_CHECKING:
    from oracleagentmemory.apis.records import Record, RecordStatus
    from oracleagentmemory.apis.relations import RecordRelation

__all__ = ["SearchResult", "SearchResultFormatConfig"]


@dataclass(frozen=True, slots=True)
class SearchResultFormatConfig:
    """How a search result renders as prompt text.

    ``include_invalid_results``: whether records with an INVALID status are rendered; when
    False an invalid result renders as '' and invalid linked records are left out. Omitted
    means yes.
    """

    include_invalid_results: bool | _NotSetMarker = NOT_SET_MARKER

    def __post_init__(self) -> None:
        for option in fields(self):
            value = getattr(self, option.name)
            if value is not NOT_SET_MARKER and not isinstance(value, bool):
                raise ArgumentTypeError(
                    f"{option.name} must be a bool, got {type(value).__name__}")


class SearchResult(ABC):
    """One record found by a search."""

    @property
    @abstractmethod
    def content(self) -> str:
        """Main text content of the matched record."""

    @property
    @abstractmethod
    def id(self) -> str | None:
        """Id of the matched record."""

    @property
    @abstractmethod
    def record(self) -> Record:
        """The matched record."""

    @property
    def status(self) -> RecordStatus | None:
        """Lifecycle status of the matched record."""
        return self.record.status

    @property
    def linked_results(self) -> list[tuple[RecordRelation, SearchResult]]:
        """Records reached from this one through relations (none unless the search asked)."""
        return []

    def format_content(
        self, format_config: SearchResultFormatConfig | _NotSetMarker = NOT_SET_MARKER
    ) -> str:
        """The result rendered for a prompt (plain content unless a subclass renders more)."""
        return self.content

    @property
    def formatted_content(self) -> str:
        """The result rendered for a prompt with the default format."""
        return self.format_content()
