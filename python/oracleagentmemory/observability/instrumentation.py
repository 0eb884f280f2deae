"""Instrumentation of public operations: a started event, the work, a paired completed event.

Two entry points, one behaviour:

* :func:`observed` decorates a method (sync or async)::

      @observed("thread", operation_kind=OperationKind.CREATE)
      def add_messages(self, messages, ...): ...

* :func:`observe_operation` wraps a block when a decorator does not fit::

      with observe_operation("memory_store", "search", operation_kind=OperationKind.READ,
                             concrete_class=type(self).__name__,
                             arguments={"request": request}) as operation:
          hits = ...
          operation.set_result(hits)

When no listener is registered in the current context both cost one context-variable
read: no event object, no argument binding, no summary is built. Building or delivering an
event never raises into the operation (failures are logged); the operation's own exception
is reported in the completed event (``success=False``, ``error_type``) and re-raised.
"""

from __future__ import annotations

import functools
import inspect
import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.observability._summaries import summarize_arguments, summarize_result
from oracleagentmemory.observability.eventlistener import current_listeners, emit_event
from oracleagentmemory.observability.operation_kind import OperationKind

if TYPE_CHECKING:
    from oracleagentmemory.observability.event import (
        ApiOperationCompletedEvent,
        ApiOperationStartedEvent,
    )

__all__ = ["COMPONENTS", "Observation", "observe_operation", "observed"]

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])
Details = dict[str, Any]

SCOPE_IDS = ("thread_id", "user_id", "agent_id")


def _no_details(instance: Any, arguments: Mapping[str, Any]) -> Details:
    return {}


def _no_result_details(instance: Any, arguments: Mapping[str, Any], result: Any) -> Details:
    return {}


def _thread_ids(instance: Any, arguments: Mapping[str, Any]) -> Details:
    return {name: getattr(instance, name, None) for name in SCOPE_IDS}


def _thread_result_ids(instance: Any, arguments: Mapping[str, Any], result: Any) -> Details:
    return _thread_ids(instance, arguments)


def _model_name(instance: Any) -> str:
    name = getattr(instance, "model", None) or getattr(instance, "model_name", None)
    return str(name) if name else type(instance).__name__


def _first(arguments: Mapping[str, Any], *names: str) -> Any:
    """The first of ``names`` that was passed, else the first argument (any name)."""
    for name in names:
        if name in arguments:
            return arguments[name]
    return next(iter(arguments.values()), None)


def _embedder_texts(arguments: Mapping[str, Any]) -> list[Any]:
    texts = _first(arguments, "texts")
    return [texts] if isinstance(texts, str) else list(texts or ())


def _embedder_input(instance: Any, arguments: Mapping[str, Any]) -> Details:
    items = _embedder_texts(arguments)
    return {
        "model": _model_name(instance),
        "input": [str(item) for item in items],
        "input_count": len(items),
        "text_lengths": [len(item) if isinstance(item, str) else 0 for item in items],
        "is_query": bool(arguments.get("is_query", False)),
    }


def _embedder_output(instance: Any, arguments: Mapping[str, Any], result: Any) -> Details:
    """The completed event's fields: the count of the texts, not the texts (the started
    event carries those)."""
    details: Details = {"model": _model_name(instance),
                        "input_count": len(_embedder_texts(arguments)),
                        "is_query": bool(arguments.get("is_query", False))}
    shape = getattr(result, "shape", None)
    if isinstance(shape, tuple) and len(shape) in (1, 2):
        details["vector_count"] = 1 if len(shape) == 1 else int(shape[0])
        details["embedding_dimension"] = int(shape[-1])
        details["embedding_vector"] = result.tolist()
    return details


def _api_type(instance: Any) -> str:
    api_type = getattr(instance, "api_type", None)
    return str(getattr(api_type, "value", api_type) or "unknown")


def _llm_input(instance: Any, arguments: Mapping[str, Any]) -> Details:
    options = arguments.get("kwargs") or arguments.get("options") or {}
    tools = options.get("tools") if isinstance(options, Mapping) else None
    return {
        "model": _model_name(instance),
        "api_type": _api_type(instance),
        "prompt": _first(arguments, "prompt", "messages"),
        "response_json_schema": arguments.get("response_json_schema"),
        "llm_generation_config": dict(options) if options else None,
        "tools": list(tools) if isinstance(tools, (list, tuple)) else None,
    }


_TOKEN_COUNTS = ("input_tokens", "output_tokens", "thinking_tokens", "total_tokens")


def _llm_output(instance: Any, arguments: Mapping[str, Any], result: Any) -> Details:
    text = result if isinstance(result, str) else getattr(result, "text", None)
    details: Details = {
        "model": _model_name(instance),
        "api_type": _api_type(instance),
        "content": text if isinstance(text, str) else None,
    }
    completion_id = getattr(result, "completion_id", None)
    if isinstance(completion_id, str):
        details["completion_id"] = completion_id
    for name in _TOKEN_COUNTS:
        count = getattr(result, name, None)
        if isinstance(count, int) and not isinstance(count, bool):
            details[name] = count
    return details


@dataclass(frozen=True)
class Component:
    """How one component's operations become events (the event classes by name: they are
    imported when the first event is built, so a process nobody listens to never builds
    them)."""

    started_name: str
    completed_name: str
    api_class: str | None
    """The interface name, or None when the caller must name it (generic events)."""
    method_fixed: bool = False
    """The event class fixes ``method``/``event_name`` (embedder and LLM events)."""
    started_details: Callable[[Any, Mapping[str, Any]], Details] = _no_details
    completed_details: Callable[[Any, Mapping[str, Any], Any], Details] = _no_result_details

    @property
    def started(self) -> type[ApiOperationStartedEvent]:
        return _event_class(self.started_name)

    @property
    def completed(self) -> type[ApiOperationCompletedEvent]:
        return _event_class(self.completed_name)


@functools.cache
def _event_class(name: str) -> Any:
    """The event class ``name``, imported with the first event and kept (see Component)."""
    from oracleagentmemory.observability import event

    return getattr(event, name)


COMPONENTS: dict[str, Component] = {
    "agent_memory": Component("AgentMemoryStartedEvent", "AgentMemoryCompletedEvent",
                              "IAgentMemory"),
    "thread": Component("ThreadStartedEvent", "ThreadCompletedEvent", "IThread",
                        started_details=_thread_ids, completed_details=_thread_result_ids),
    "memory_store": Component("MemoryStoreStartedEvent", "MemoryStoreCompletedEvent",
                              "IMemoryStore"),
    "embedder": Component("EmbedderStartedEvent", "EmbedderCompletedEvent", "IEmbedder",
                          method_fixed=True, started_details=_embedder_input,
                          completed_details=_embedder_output),
    "llm": Component("LlmGenerationStartedEvent", "LlmGenerationCompletedEvent", "ILlm",
                     method_fixed=True, started_details=_llm_input,
                     completed_details=_llm_output),
}
"""Known components; any other name emits the generic ApiOperation events."""

_GENERIC = Component("ApiOperationStartedEvent", "ApiOperationCompletedEvent", None)


def _component(component: str, api_class: str | None) -> Component:
    if not isinstance(component, str) or not component:
        raise ValueError(f"component must be a non-empty string, got {component!r}")
    known = COMPONENTS.get(component)
    if known is not None:
        return known
    if not api_class:
        raise ValueError(f"api_class is required for the component {component!r} "
                         f"(known components: {', '.join(COMPONENTS)})")
    return _GENERIC


def _check_kind(operation_kind: OperationKind) -> None:
    if not isinstance(operation_kind, OperationKind):
        raise TypeError(f"operation_kind must be an OperationKind, got {operation_kind!r}")


class Observation:
    """One observed operation: emits its started event, then its completed event.

    Use it as a context manager; call :meth:`set_result` with the operation's return value
    before the block ends so the completed event can summarise it.
    """

    def __init__(self, component: str, spec: Component, *, method: str,
                 operation_kind: OperationKind, concrete_class: str, api_class: str | None,
                 arguments: Mapping[str, Any] | None, ids: Mapping[str, Any] | None,
                 instance: Any, result_name: str = "") -> None:
        self._component = component
        self._spec = spec
        self._method = method
        self._kind = operation_kind
        self._concrete_class = concrete_class
        self._api_class = api_class or spec.api_class
        self._arguments = {name: value for name, value in (arguments or {}).items()
                           if value is not NOT_SET_MARKER}
        self._ids = dict(ids or {})
        self._instance = instance
        self._result_name = result_name
        self._result: Any = None
        self._started_event_id: str | None = None

    def set_result(self, result: Any) -> None:
        """The operation's return value, summarised in the completed event."""
        self._result = result

    def __enter__(self) -> Observation:
        try:
            event = self._spec.started(**self._common("started"), **self._placed_ids(
                self._spec.started_details(self._instance, self._arguments)),
                arguments=self._arguments,
                argument_summary=summarize_arguments(self._arguments))
        except Exception:
            logger.exception("could not build the started event of %s.%s; not observed",
                             self._component, self._method)
            return self
        self._started_event_id = event.event_id
        emit_event(event)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._started_event_id is None:
            return
        success = exc_type is None
        try:
            details = (self._spec.completed_details(self._instance, self._arguments,
                                                    self._result)
                       if success else
                       self._spec.completed_details(self._instance, self._arguments, None))
            event = self._spec.completed(
                **self._common("completed"), **self._placed_ids(details),
                started_event_id=self._started_event_id, success=success,
                result={"value": self._result} if success else None,
                result_summary=(summarize_result(self._result, self._result_name)
                                if success else None),
                error_type=None if exc_type is None else exc_type.__name__)
        except Exception:
            logger.exception("could not build the completed event of %s.%s",
                             self._component, self._method)
            return
        emit_event(event)

    def _common(self, phase: str) -> dict[str, Any]:
        common: dict[str, Any] = {"event_id": str(uuid.uuid4()),
                                  "concrete_class": self._concrete_class}
        if not self._spec.method_fixed:
            common.update(method=self._method, operation_kind=self._kind,
                          component=self._component, api_class=self._api_class,
                          event_name=f"{self._component}.{self._method}.{phase}")
        return common

    def _placed_ids(self, details: Details) -> Details:
        """Explicit ids win over the instance's; ids without a field go to ``metadata``."""
        placed = dict(details)
        extra: dict[str, Any] = {}
        for name, value in self._ids.items():
            if name in self._spec.started.model_fields:
                placed[name] = value
            else:
                extra[name] = value
        if extra:
            placed["metadata"] = {"ids": extra}
        return placed


class _NotObserved:
    """What observe_operation returns when nobody listens: does nothing, costs nothing."""

    def set_result(self, result: Any) -> None:
        return None

    def __enter__(self) -> _NotObserved:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None


_NOT_OBSERVED = _NotObserved()


def observe_operation(component: str, method: str, *, operation_kind: OperationKind,
                      concrete_class: str, api_class: str | None = None,
                      arguments: Mapping[str, Any] | None = None,
                      ids: Mapping[str, Any] | None = None,
                      instance: Any = None, result_name: str = "") -> Observation | _NotObserved:
    """A context manager observing one operation (see the module docstring).

    ``ids``: scope ids known to the caller (``thread_id``, ``user_id``, ``agent_id``);
    ``instance``: the object whose model name or thread ids the events report;
    ``result_name``: what the result is, so a ``*_id`` result is summarised by value.
    """
    if not current_listeners():
        return _NOT_OBSERVED
    spec = _component(component, api_class)
    _check_kind(operation_kind)
    return Observation(component, spec, method=method, operation_kind=operation_kind,
                       concrete_class=concrete_class, api_class=api_class,
                       arguments=arguments, ids=ids, instance=instance,
                       result_name=result_name)


def observed(component: str, *, operation_kind: OperationKind, method: str | None = None,
             api_class: str | None = None,
             ids: Callable[[Any], Mapping[str, Any]] | None = None,
             result_name: str = "") -> Callable[[F], F]:
    """Decorate a method so each call is observed (sync and ``async def`` alike).

    ``method`` defaults to the function's name; ``ids(self)`` may add scope ids;
    ``result_name="memory_id"`` keeps a returned id in the summary. Arguments are bound to
    the signature only when someone listens.
    """
    spec = _component(component, api_class)
    _check_kind(operation_kind)

    def decorate(function: F) -> F:
        name = method or function.__name__
        signature = inspect.signature(function)

        def start(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Observation:
            instance = args[0] if args else None
            return Observation(
                component, spec, method=name, operation_kind=operation_kind,
                concrete_class=type(instance).__name__ if args else function.__qualname__,
                api_class=api_class, arguments=_bind(signature, args, kwargs),
                ids=ids(instance) if ids is not None and args else None, instance=instance,
                result_name=result_name)

        if inspect.iscoroutinefunction(function):
            @functools.wraps(function)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                if not current_listeners():
                    return await function(*args, **kwargs)
                with start(args, kwargs) as operation:
                    result = await function(*args, **kwargs)
                    operation.set_result(result)
                    return result

            return async_wrapper  # type: ignore[return-value]  # wraps(function): same call

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not current_listeners():
                return function(*args, **kwargs)
            with start(args, kwargs) as operation:
                result = function(*args, **kwargs)
                operation.set_result(result)
                return result

        return wrapper  # type: ignore[return-value]  # wraps(function): same call

    return decorate


def _bind(signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
          ) -> dict[str, Any] | None:
    """The call's arguments by name, without ``self``; None when they do not bind."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return None  # the call itself raises the real error
    arguments = dict(bound.arguments)
    first = next(iter(signature.parameters), None)
    if first in ("self", "cls"):
        arguments.pop(first, None)
    return arguments
