"""Abstract thread interface."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from oracleagentmemory.apis.message import Message

__all__ = ["IThread", "Message"]


class IThread(ABC):
    """A conversation thread: messages plus the memories scoped to it."""

    @abstractmethod
    def add_messages(self, messages: Any, **store_kwargs: Any) -> list[str]:
        """Append messages and index them."""

    @abstractmethod
    def get_messages(self, start: int | None = None, end: int | None = None) -> list[Message]:
        """Messages of the thread in chronological order."""

    @abstractmethod
    def add_memory(self, content: str, **kwargs: Any) -> str:
        """Store a memory scoped to the thread."""

    @abstractmethod
    def search(self, query: str, **kwargs: Any) -> list:
        """Search records relevant to a query."""
