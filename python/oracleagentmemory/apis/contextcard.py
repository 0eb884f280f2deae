"""Abstract context card returned by the thread API."""

from __future__ import annotations

from abc import ABC, abstractmethod


class ContextCard(ABC):
    """Prompt-ready context assembled for a thread."""

    @property
    @abstractmethod
    def content(self) -> str:
        """The rendered context card text."""
