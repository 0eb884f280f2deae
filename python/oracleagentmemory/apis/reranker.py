"""The reranker interface: scores documents by relevance to a query.

Why an interface: reranking is a second, more careful look at the first candidates of a
search. A remote cross-encoder (:class:`~oracleagentmemory.core.reranker.Reranker`), a
local rank fusion or an application's own model all plug into a search config the same way.
"""

from __future__ import annotations

import asyncio
import contextvars
from abc import ABC, abstractmethod
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["IReranker", "RerankResponse", "RerankResponseResult"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RerankResponseResult:
    """One scored document: its position in the request's ``documents``, its score (higher
    is more relevant) and, when the reranker returns it, its text."""

    index: int
    relevance_score: float
    document: str | None = None


@dataclass(frozen=True, slots=True)
class RerankResponse:
    """Scored documents, most relevant first. A reranker may return fewer than it was given
    (for example with ``top_n``); documents it left out rank after every returned one."""

    results: list[RerankResponseResult]


class IReranker(ABC):
    """Scores ``documents`` by relevance to ``query``; implement :meth:`rerank_async`."""

    def rerank(self, query: str, documents: list[str], **kwargs: Any) -> RerankResponse:
        """Blocking twin of :meth:`rerank_async` (safe to call inside a running event loop:
        the coroutine then runs on a helper thread)."""
        return run_blocking(self.rerank_async(query, documents, **kwargs))

    @abstractmethod
    async def rerank_async(self, query: str, documents: list[str], **kwargs: Any
                           ) -> RerankResponse:
        """Score ``documents`` for ``query``; ``kwargs`` are reranker-specific options."""


def run_blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to completion from synchronous code.

    With no event loop running in this thread, ``asyncio.run`` does it. Inside a running
    loop that would fail, so a helper thread runs it with a copy of the caller's context
    (observability listeners included).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rerank") as pool:
        return pool.submit(context.run, asyncio.run, coroutine).result()
