"""Observability: typed events for every public operation, and listeners that receive them.

Register listeners with :func:`register_event_listeners`; see ``docs/observability.md``.
"""

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
