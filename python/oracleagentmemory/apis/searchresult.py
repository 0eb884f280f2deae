"""Abstract search result."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class SearchResult(ABC):
    """One record found by a search, with its distance to the query."""

    @property
    @abstractmethod
    def content(self) -> str:
        """Main text content of the matched record."""

    @property
    @abstractmethod
    def metadata(self) -> dict[str, Any] | None:
        """Metadata of the matched record."""
