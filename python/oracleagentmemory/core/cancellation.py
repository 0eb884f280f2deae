"""Giving up on background work: a flag the work checks, and the blocking calls it stops.

Why: ``close(timeout=0)`` gives up on background extraction at once, but a job blocked in an
LLM call's socket read would otherwise stay blocked until the read timeout (120 s), keeping
its worker thread alive after ``close`` returned. A job runs inside a :class:`CancelScope`;
a blocking call made inside it (the HTTP client's request) registers how to interrupt
itself, and cancelling the scope runs those interrupts. Only the calls of the cancelled
job are interrupted: a model shared with another client keeps serving it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

Interrupt = Callable[[], None]
"""Makes one blocking call return (with an error) now; must not raise."""


class CancelScope:
    """One piece of work that may be given up on, and the interrupts of its blocking calls."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._given_up = threading.Event()
        self._interrupts: dict[int, Interrupt] = {}
        self._next = 0

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def on_cancel(self, interrupt: Interrupt) -> Callable[[], None]:
        """Run ``interrupt`` when the scope is cancelled (now, if it already is); returns
        the function that unregisters it once the call ended."""
        with self._lock:
            if not self._cancelled:
                key = self._next
                self._next += 1
                self._interrupts[key] = interrupt

                def unregister() -> None:
                    with self._lock:
                        self._interrupts.pop(key, None)

                return unregister
        interrupt()
        return _nothing

    def cancel(self) -> None:
        """Mark the work given up on and interrupt its blocking calls. Idempotent."""
        with self._lock:
            self._cancelled = True
            interrupts, self._interrupts = list(self._interrupts.values()), {}
        self._given_up.set()
        for interrupt in interrupts:
            interrupt()

    def wait(self, seconds: float) -> bool:
        """Pause up to ``seconds`` (a retry's backoff), ending early when cancelled; True
        when the scope was cancelled."""
        return self._given_up.wait(seconds)


def _nothing() -> None:
    return None


_LOCAL = threading.local()


def current_scope() -> CancelScope | None:
    """The scope of the work running on this thread (None outside background work)."""
    return getattr(_LOCAL, "scope", None)


@contextlib.contextmanager
def running_in(scope: CancelScope) -> Iterator[None]:
    """Run the body of a job on this thread inside ``scope``."""
    outer = current_scope()
    _LOCAL.scope = scope
    try:
        yield
    finally:
        _LOCAL.scope = outer
