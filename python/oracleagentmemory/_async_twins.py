"""Async twins of blocking methods.

Every ``name_async`` runs its sync twin in the event loop's default executor (a bounded
thread pool), so the loop never blocks on SQLite, the embedder or the network, and both
twins share one implementation, semantics and errors.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any


def async_twin(method: Callable[..., Any]) -> Callable[..., Any]:
    name = method.__name__

    @functools.wraps(method)
    async def twin(self: Any, *args: Any, **kwargs: Any) -> Any:
        # Looked up per call, so a method wrapped after the class was made (observed
        # operations) runs wrapped from its twin too.
        return await asyncio.to_thread(getattr(self, name), *args, **kwargs)

    twin.__name__ = f"{method.__name__}_async"
    twin.__qualname__ = f"{method.__qualname__}_async"
    twin.__doc__ = f"Asynchronous twin of :meth:`{method.__name__}` (same arguments and errors)."
    return twin


class AsyncTwins:
    """Mixin: a subclass lists method names in ``_async_twins`` and gets ``name_async``."""

    _async_twins: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in cls.__dict__.get("_async_twins", ()):
            setattr(cls, f"{name}_async", async_twin(getattr(cls, name)))
