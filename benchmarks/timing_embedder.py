"""An embedder wrapper that adds up the time spent embedding, and may reuse vectors.

Why: end-to-end ingestion is split into model time and everything else (client + store),
and the quality benchmark embeds each text once and gives the same vectors to every system.
"""

from __future__ import annotations

import asyncio
import time

import numpy as np

from oracleagentmemory.apis.embedders.embedder import IEmbedder


class TimingEmbedder(IEmbedder):
    """Delegates to ``inner``; ``seconds`` is the total time spent in ``inner.embed``."""

    def __init__(self, inner: IEmbedder, cache: dict[str, np.ndarray] | None = None) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.cache = cache

    @property
    def embedding_dimension(self) -> int:
        return self.inner.embedding_dimension

    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        items = list(texts)
        if self.cache is not None:
            # A model with query and passage prefixes (e5) embeds one text two ways.
            key = ("query: " if is_query else "") + "{}"
            missing = [t for t in dict.fromkeys(items) if key.format(t) not in self.cache]
            if missing:
                for text, vector in zip(missing, self._embed(missing, is_query), strict=True):
                    self.cache[key.format(text)] = vector
            return np.stack([self.cache[key.format(t)] for t in items]) if items else np.zeros(
                (0, self.embedding_dimension), dtype=np.float32
            )
        return self._embed(items, is_query)

    async def embed_async(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        return await asyncio.to_thread(self.embed, texts, is_query=is_query)

    def _embed(self, items: list[str], is_query: bool) -> np.ndarray:
        t0 = time.perf_counter()
        vectors = np.asarray(self.inner.embed(items, is_query=is_query), dtype=np.float32)
        self.seconds += time.perf_counter() - t0
        return vectors
