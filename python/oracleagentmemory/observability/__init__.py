"""Observability: typed events for every public operation, and listeners that receive them.

Register listeners with :func:`register_event_listeners`; see ``docs/observability.md``.

The names below are imported from their modules when first used: the event classes are
pydantic models, whose building cost a third of the client's import, and a process that
registers no listener never builds an event.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from oracleagentmemory.observability.event import (
        AgentMemoryCompletedEvent,
        AgentMemoryStartedEvent,
        ApiOperationCompletedEvent,
        ApiOperationStartedEvent,
        EmbedderCompletedEvent,
        EmbedderStartedEvent,
        Event,
        LlmGenerationCompletedEvent,
        LlmGenerationStartedEvent,
        MemoryStoreCompletedEvent,
        MemoryStoreStartedEvent,
        OperationKind,
        ThreadCompletedEvent,
        ThreadStartedEvent,
    )
    from oracleagentmemory.observability.eventlistener import (
        EventListener,
        GenericEventListener,
        emit_event,
        register_event_listeners,
    )

__all__ = [
    "AgentMemoryStartedEvent",
    "AgentMemoryCompletedEvent",
    "ApiOperationStartedEvent",
    "ApiOperationCompletedEvent",
    "EmbedderStartedEvent",
    "EmbedderCompletedEvent",
    "Event",
    "EventListener",
    "GenericEventListener",
    "LlmGenerationStartedEvent",
    "LlmGenerationCompletedEvent",
    "MemoryStoreStartedEvent",
    "MemoryStoreCompletedEvent",
    "OperationKind",
    "ThreadStartedEvent",
    "ThreadCompletedEvent",
    "emit_event",
    "register_event_listeners",
]

_LISTENER_NAMES = frozenset(
    {"EventListener", "GenericEventListener", "emit_event", "register_event_listeners"})

_SUBMODULES = frozenset({"event", "eventlistener"})
"""The submodules importing the package used to import (so ``observability.event.X``
worked after ``import oracleagentmemory.observability``): imported when first named."""


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = ("eventlistener" if name in _LISTENER_NAMES
              else "operation_kind" if name == "OperationKind" else "event")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """What the package offers (not this module's own imports and helpers)."""
    loaded = {name for name in globals() if name.startswith("__") or name in _SUBMODULES}
    return sorted(loaded | set(__all__) | _SUBMODULES)
