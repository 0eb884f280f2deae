"""Abstract thread summary returned by the thread API."""

from __future__ import annotations

from abc import ABC, abstractmethod


class Summary(ABC):
    """A synthesised summary of a thread."""

    @property
    @abstractmethod
    def content(self) -> str:
        """The summary text."""
