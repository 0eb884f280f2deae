"""Listeners, their registration and the delivery of events.

Registration is scoped with a :class:`contextvars.ContextVar`: listeners registered in a
``with register_event_listeners([...])`` block receive the events of operations that run
in that block's context, including asyncio tasks created inside it and work handed to
``asyncio.to_thread`` (both copy the context). A thread started with ``threading.Thread``
starts from an empty context; work the library spreads over its own threads for one call
runs in a copy of the caller's context (``contextvars.copy_context().run``).

Calling ``register_event_listeners([...]).__enter__()`` at module level, without a
``with``, registers the listeners for the rest of that context: "globally" for a script's
main thread and everything it starts that inherits the context.

A listener that raises is logged and skipped; it never breaks the operation or the other
listeners. Operations a listener performs while handling an event emit nothing, so a
listener that writes to memory cannot recurse into itself.
"""

from __future__ import annotations

import functools
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from oracleagentmemory.observability.event import Event

__all__ = ["EventListener", "GenericEventListener", "emit_event", "register_event_listeners"]

logger = logging.getLogger(__name__)

_ListenerT = TypeVar("_ListenerT", bound="Event")

_LISTENERS: ContextVar[tuple[EventListener, ...]] = ContextVar(
    "oracleagentmemory_event_listeners", default=()
)
"""Listeners of the current context, outermost registration first."""


class EventListener(ABC):
    """Receives events; subclass it and implement :meth:`on_event`."""

    @abstractmethod
    def on_event(self, event: Event) -> None:
        """Handle one event. Exceptions are logged and ignored."""

    def subscribed_event_types(self) -> Sequence[type[Event]] | None:
        """Event classes to receive (subclasses included); None receives every event."""
        return None


class GenericEventListener(EventListener):
    """Calls ``callback`` with every event of ``event_type`` or of one of its subclasses."""

    def __init__(self, event_type: type[_ListenerT], callback: Callable[[_ListenerT], None]
                 ) -> None:
        if not (isinstance(event_type, type) and issubclass(event_type, _event_class())):
            raise TypeError(f"event_type must be an Event subclass, got {event_type!r}")
        if not callable(callback):
            raise TypeError(f"callback must be callable, got {type(callback).__name__}")
        self.event_type: type[Event] = event_type
        self.callback: Callable[[Any], None] = callback

    def on_event(self, event: Event) -> None:
        if isinstance(event, self.event_type):
            self.callback(event)

    def subscribed_event_types(self) -> Sequence[type[Event]] | None:
        return [self.event_type]

    def __repr__(self) -> str:
        return f"GenericEventListener({self.event_type.__name__}, {self.callback!r})"


@contextmanager
def register_event_listeners(listeners: list[EventListener]) -> Iterator[list[EventListener]]:
    """Deliver events to ``listeners`` (after any already registered) inside the block."""
    if isinstance(listeners, (str, bytes)) or not isinstance(listeners, Sequence):
        raise TypeError(f"listeners must be a list of EventListener, got "
                        f"{type(listeners).__name__}")
    for index, listener in enumerate(listeners):
        if not isinstance(listener, EventListener):
            raise TypeError(f"listeners[{index}] must be an EventListener, got "
                            f"{type(listener).__name__}")
    token = _LISTENERS.set(_LISTENERS.get() + tuple(listeners))
    keep = False
    try:
        yield listeners
    except GeneratorExit as closing:
        # Closed straight after __enter__ with no __exit__ (the one-liner
        # ``register_event_listeners([...]).__enter__()`` whose object is dropped): the
        # caller wants a lasting registration. A ``with`` block inside a generator that is
        # closed also ends here, but with the generator's frame in the traceback.
        keep = closing.__traceback__ is not None and closing.__traceback__.tb_next is None
        raise
    finally:
        if not keep:
            _unregister(token)


def _unregister(token: Token[tuple[EventListener, ...]]) -> None:
    with suppress(ValueError):  # finalised in another context: nothing to undo there
        _LISTENERS.reset(token)


@functools.cache
def _event_class() -> type[Event]:
    """``Event``, imported when first needed: a process that registers no listener does not
    build the event classes (pydantic models) when it imports the client. Kept once found:
    an import statement costs a microsecond, and every event delivered asks for it."""
    from oracleagentmemory.observability.event import Event

    return Event


current_listeners = _LISTENERS.get
"""The listeners of the current context (empty when nobody listens): a C-level call, so the
instrumentation's no-listener fast path costs one call and one truth test."""


def emit_event(event: Event) -> None:
    """Deliver ``event`` to the listeners of the current context, in registration order."""
    if not isinstance(event, _event_class()):
        raise TypeError(f"event must be an Event, got {type(event).__name__}")
    listeners = _LISTENERS.get()
    if not listeners:
        return
    token = _LISTENERS.set(())  # what a listener does while handling emits nothing
    try:
        for listener in listeners:
            _deliver(listener, event)
    finally:
        _LISTENERS.reset(token)


def _deliver(listener: EventListener, event: Event) -> None:
    try:
        wanted = listener.subscribed_event_types()
        if wanted is not None and not isinstance(event, tuple(wanted)):
            return
        listener.on_event(event)
    except Exception:
        logger.exception("event listener %r failed on %s (%s); the operation goes on",
                         listener, event.event_name, event.event_id)
