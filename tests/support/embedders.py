"""A deterministic, dependency-free embedder for tests: hashed bag of words.

Texts sharing words get close vectors, so ranking is predictable without a model.
"""

from __future__ import annotations

import asyncio
import hashlib
import re

import numpy as np

from oracleagentmemory.apis.embedders.embedder import IEmbedder

_WORD = re.compile(r"\w+")


class HashingEmbedder(IEmbedder):
    def __init__(self, dimension: int = 64) -> None:
        self._dimension = dimension
        self.calls: list[list[str]] = []

    @property
    def embedding_dimension(self) -> int:
        return self._dimension

    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
                out[row, int.from_bytes(digest, "little") % self._dimension] += 1.0
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
            else:
                out[row, 0] = 1.0
        return out

    async def embed_async(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        return await asyncio.to_thread(self.embed, texts, is_query=is_query)
