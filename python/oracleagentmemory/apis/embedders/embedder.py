"""Interface of text embedders."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np


class IEmbedder(ABC):
    """Turns texts into fixed-size float vectors."""

    @property
    @abstractmethod
    def embedding_dimension(self) -> int:
        """Length of every vector this embedder returns."""

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed a batch; returns a float32 array of shape (len(texts), dimension)."""

    async def embed_async(self, texts: Sequence[str]) -> np.ndarray:
        """Embed without blocking the event loop (default: a worker thread)."""
        return await asyncio.to_thread(self.embed, texts)
