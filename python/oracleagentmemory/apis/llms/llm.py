"""Interface of large language model adapters."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any


class ILlm(ABC):
    """A chat model: messages in, text out."""

    @abstractmethod
    def generate(self, messages: Sequence[dict[str, Any]], **options: Any) -> str:
        """Return the model's reply to chat ``messages`` (OpenAI-style role/content dicts)."""

    async def generate_async(self, messages: Sequence[dict[str, Any]], **options: Any) -> str:
        """Generate without blocking the event loop (default: a worker thread)."""
        return await asyncio.to_thread(self.generate, messages, **options)
