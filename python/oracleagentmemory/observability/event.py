"""Typed events that public operations emit to registered listeners.

Why typed events: a listener can subscribe to exactly the operations it cares about (by
class) and read fields with their real types, while exporters get one stable dictionary
shape. Every operation emits a *started* event and a *completed* event; the completed one
names its partner in ``started_event_id``.

Events carry the raw values (arguments, prompts, texts, vectors) so an in-process listener
can inspect them. Dumping an event masks the sensitive ones by default; see
:meth:`Event.model_dump` and ``docs/observability.md``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, FieldSerializationInfo, field_serializer
from pydantic.types import Strict

from oracleagentmemory.observability._masking import MASK_CONTEXT_KEY, serialize_value
from oracleagentmemory.observability.operation_kind import OperationKind

__all__ = [
    "AgentMemoryStartedEvent",
    "AgentMemoryCompletedEvent",
    "ApiOperationStartedEvent",
    "ApiOperationCompletedEvent",
    "EmbedderStartedEvent",
    "EmbedderCompletedEvent",
    "Event",
    "LlmGenerationStartedEvent",
    "LlmGenerationCompletedEvent",
    "MemoryStoreStartedEvent",
    "MemoryStoreCompletedEvent",
    "OperationKind",
    "ThreadStartedEvent",
    "ThreadCompletedEvent",
]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


_EVENT_CONFIG = ConfigDict(arbitrary_types_allowed=True, extra="forbid", frozen=True)

_FREE_FORM_FIELDS = (
    "metadata", "arguments", "argument_summary", "result", "result_summary", "input",
    "embedding_vector", "llm_config", "llm_generation_config", "prompt",
    "response_json_schema", "tools", "content", "tool_calls",
)
"""Fields whose values are not plain scalars: serialised through one JSON-safe path."""


class Event(BaseModel):
    """Base of every event: an id, a UTC ISO-8601 time, where it came from and its name."""

    model_config = _EVENT_CONFIG

    _sensitive_fields: ClassVar[frozenset[str]] = frozenset()
    """Fields that dumps replace with a mask unless ``mask_sensitive_information=False``."""

    event_id: str
    timestamp: str = Field(default_factory=_now)
    component: str
    event_name: str
    metadata: dict[str, Any] | None = None

    @field_serializer(*_FREE_FORM_FIELDS, mode="plain", check_fields=False)
    def _serialize_free_form(self, value: Any, info: FieldSerializationInfo) -> Any:
        context = info.context or {}
        mask = bool(context.get(MASK_CONTEXT_KEY, False))
        if mask and value is not None and info.field_name in type(self)._sensitive_fields:
            return serialize_value(value, mask=True, json_mode=info.mode_is_json(),
                                   whole=True)
        return serialize_value(value, mask=mask, json_mode=info.mode_is_json())

    def model_dump(
        self, *, mask_sensitive_information: bool = True, **kwargs: Any
    ) -> dict[str, Any]:
        """The event as a dict; sensitive fields and secret-looking keys masked by default."""
        context = {**(kwargs.pop("context", None) or {}),
                   MASK_CONTEXT_KEY: mask_sensitive_information}
        return super().model_dump(context=context, **kwargs)

    def model_dump_json(
        self, *, mask_sensitive_information: bool = True, **kwargs: Any
    ) -> str:
        """The event as JSON text, masked like :meth:`model_dump`."""
        context = {**(kwargs.pop("context", None) or {}),
                   MASK_CONTEXT_KEY: mask_sensitive_information}
        return super().model_dump_json(context=context, **kwargs)

    def to_observability_dict(self, mask_sensitive_information: bool = True) -> dict[str, Any]:
        """A JSON-ready dict for exporters: every field, unset ones as None (as the
        reference's: ``error_type`` and ``metadata`` are there on success too)."""
        return self.model_dump(mask_sensitive_information=mask_sensitive_information,
                               mode="json")


class ApiOperationStartedEvent(Event):
    """A public operation began. ``arguments`` holds the raw values (sensitive);
    ``argument_summary`` holds what is safe to export: sizes, counts and ids."""

    model_config = _EVENT_CONFIG
    _sensitive_fields: ClassVar[frozenset[str]] = frozenset({"arguments"})

    api_class: str
    concrete_class: str
    method: str
    operation_kind: Annotated[OperationKind, Strict()]
    arguments: dict[str, Any] | None = None
    argument_summary: dict[str, Any] | None = None


class ApiOperationCompletedEvent(Event):
    """A public operation ended, well (``success``) or with an exception (``error_type``)."""

    model_config = _EVENT_CONFIG
    _sensitive_fields: ClassVar[frozenset[str]] = frozenset({"result"})

    started_event_id: str
    api_class: str
    concrete_class: str
    method: str
    operation_kind: Annotated[OperationKind, Strict()]
    success: bool
    result: dict[str, Any] | None = None
    result_summary: dict[str, Any] | None = None
    error_type: str | None = None


class AgentMemoryStartedEvent(ApiOperationStartedEvent):
    """A client (``IAgentMemory``) operation began."""

    model_config = _EVENT_CONFIG

    component: Literal["agent_memory"] = "agent_memory"
    api_class: Literal["IAgentMemory"] = "IAgentMemory"


class AgentMemoryCompletedEvent(ApiOperationCompletedEvent):
    """A client (``IAgentMemory``) operation ended."""

    model_config = _EVENT_CONFIG

    component: Literal["agent_memory"] = "agent_memory"
    api_class: Literal["IAgentMemory"] = "IAgentMemory"


class ThreadStartedEvent(ApiOperationStartedEvent):
    """A thread (``IThread``) operation began; the thread's scope ids come along."""

    model_config = _EVENT_CONFIG

    component: Literal["thread"] = "thread"
    api_class: Literal["IThread"] = "IThread"
    thread_id: str
    user_id: str | None = None
    agent_id: str | None = None


class ThreadCompletedEvent(ApiOperationCompletedEvent):
    """A thread (``IThread``) operation ended."""

    model_config = _EVENT_CONFIG

    component: Literal["thread"] = "thread"
    api_class: Literal["IThread"] = "IThread"
    thread_id: str
    user_id: str | None = None
    agent_id: str | None = None


class MemoryStoreStartedEvent(ApiOperationStartedEvent):
    """A memory store (``IMemoryStore``) operation began."""

    model_config = _EVENT_CONFIG

    component: Literal["memory_store"] = "memory_store"
    api_class: Literal["IMemoryStore"] = "IMemoryStore"


class MemoryStoreCompletedEvent(ApiOperationCompletedEvent):
    """A memory store (``IMemoryStore``) operation ended."""

    model_config = _EVENT_CONFIG

    component: Literal["memory_store"] = "memory_store"
    api_class: Literal["IMemoryStore"] = "IMemoryStore"


class EmbedderStartedEvent(ApiOperationStartedEvent):
    """An embedding call began; ``input`` (the texts) is sensitive, the lengths are not."""

    model_config = _EVENT_CONFIG
    _sensitive_fields: ClassVar[frozenset[str]] = frozenset({"arguments", "input"})

    component: Literal["embedder"] = "embedder"
    event_name: Literal["embedder.started"] = "embedder.started"
    api_class: Literal["IEmbedder"] = "IEmbedder"
    method: Literal["embed"] = "embed"
    operation_kind: Literal[OperationKind.CREATE] = OperationKind.CREATE
    model: str
    input: str | list[str] | None = None
    input_count: int
    text_lengths: list[int] | None = None
    is_query: bool


class EmbedderCompletedEvent(ApiOperationCompletedEvent):
    """An embedding call ended; ``embedding_vector`` is sensitive (texts can be recovered
    from vectors), the count and dimension are not."""

    model_config = _EVENT_CONFIG
    _sensitive_fields: ClassVar[frozenset[str]] = frozenset({"result", "embedding_vector"})

    component: Literal["embedder"] = "embedder"
    event_name: Literal["embedder.completed"] = "embedder.completed"
    api_class: Literal["IEmbedder"] = "IEmbedder"
    method: Literal["embed"] = "embed"
    operation_kind: Literal[OperationKind.CREATE] = OperationKind.CREATE
    model: str
    input_count: int
    is_query: bool
    vector_count: int | None = None
    embedding_dimension: int | None = None
    embedding_vector: list[float] | list[list[float]] | None = None


class LlmGenerationStartedEvent(ApiOperationStartedEvent):
    """An LLM generation began; the ``prompt`` is sensitive."""

    model_config = _EVENT_CONFIG
    _sensitive_fields: ClassVar[frozenset[str]] = frozenset({"arguments", "prompt"})

    component: Literal["llm"] = "llm"
    event_name: Literal["llm.generation.started"] = "llm.generation.started"
    api_class: Literal["ILlm"] = "ILlm"
    method: Literal["generate"] = "generate"
    operation_kind: Literal[OperationKind.CREATE] = OperationKind.CREATE
    llm_config: dict[str, Any] | None = None
    llm_generation_config: dict[str, Any] | None = None
    model: str
    api_type: str
    prompt: Any
    response_json_schema: dict[str, Any] | None = None
    tools: list[Any] | None = None


class LlmGenerationCompletedEvent(ApiOperationCompletedEvent):
    """An LLM generation ended; the generated ``content`` and ``tool_calls`` are sensitive,
    the token counts are not."""

    model_config = _EVENT_CONFIG
    _sensitive_fields: ClassVar[frozenset[str]] = frozenset({"result", "content", "tool_calls"})

    component: Literal["llm"] = "llm"
    event_name: Literal["llm.generation.completed"] = "llm.generation.completed"
    api_class: Literal["ILlm"] = "ILlm"
    method: Literal["generate"] = "generate"
    operation_kind: Literal[OperationKind.CREATE] = OperationKind.CREATE
    llm_config: dict[str, Any] | None = None
    model: str
    api_type: str
    content: str | None = None
    completion_id: str | None = None
    tool_calls: list[Any] | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    thinking_tokens: int | None = None
    total_tokens: int | None = None
