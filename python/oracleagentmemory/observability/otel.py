"""OpenTelemetry bridge: one span per operation (the ``otel`` extra).

A started event opens a span named ``<api_class>.<method>`` (``IThread.search``) and makes
it current, so the embedder, LLM and store operations it triggers become child spans; the
paired completed event ends it, with an error status when the operation failed. Other
events become span events on the current span. Attributes come from
:meth:`Event.to_observability_dict`, so they are masked unless you ask otherwise.

Usage::

    from oracleagentmemory.observability import register_event_listeners
    from oracleagentmemory.observability.otel import OpenTelemetryEventListener

    with register_event_listeners([OpenTelemetryEventListener()]):
        thread.search("...")
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from contextvars import Token
from typing import Any

from oracleagentmemory._distribution import install_hint

try:
    from opentelemetry import context as otel_context
    from opentelemetry import trace
    from opentelemetry.context import Context
    from opentelemetry.trace import Span, Status, StatusCode, TracerProvider
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError("the OpenTelemetry bridge needs the 'otel' extra: "
                      + install_hint("otel")) from error

from oracleagentmemory.observability.event import (
    ApiOperationCompletedEvent,
    ApiOperationStartedEvent,
    Event,
)
from oracleagentmemory.observability.eventlistener import EventListener

__all__ = ["OpenTelemetryEventListener"]

ATTRIBUTE_PREFIX = "oracleagentmemory"
_PRIMITIVES = (str, bool, int, float)


class OpenTelemetryEventListener(EventListener):
    """Turns started/completed event pairs into OpenTelemetry spans."""

    def __init__(self, tracer_provider: TracerProvider | None = None, *,
                 mask_sensitive_information: bool = True) -> None:
        self._tracer = trace.get_tracer("oracleagentmemory", tracer_provider=tracer_provider)
        self._mask = mask_sensitive_information
        self._open: dict[str, tuple[Span, Token[Context]]] = {}
        self._lock = threading.Lock()

    def on_event(self, event: Event) -> None:
        attributes = span_attributes(event.to_observability_dict(self._mask))
        if isinstance(event, ApiOperationStartedEvent):
            span = self._tracer.start_span(f"{event.api_class}.{event.method}",
                                           attributes=attributes)
            token = otel_context.attach(trace.set_span_in_context(span))
            with self._lock:
                self._open[event.event_id] = (span, token)
        elif isinstance(event, ApiOperationCompletedEvent):
            with self._lock:
                opened = self._open.pop(event.started_event_id, None)
            if opened is None:
                return
            span, token = opened
            span.set_attributes(attributes)
            if not event.success:
                span.set_status(Status(StatusCode.ERROR, event.error_type))
            otel_context.detach(token)
            span.end()
        else:
            trace.get_current_span().add_event(event.event_name, attributes)


def span_attributes(data: Mapping[str, Any], prefix: str = ATTRIBUTE_PREFIX
                    ) -> dict[str, Any]:
    """Flatten a JSON-ready dict into OpenTelemetry attribute values (dotted keys).

    Primitives and lists of one primitive type stay as they are; other values become JSON.
    """
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}.{key}"
        if value is None:
            continue
        if isinstance(value, Mapping):
            flat.update(span_attributes(value, name))
        elif isinstance(value, _PRIMITIVES) or _is_primitive_list(value):
            flat[name] = value
        else:
            flat[name] = json.dumps(value, default=str)
    return flat


def _is_primitive_list(value: Any) -> bool:
    """A non-empty list of one primitive type: what an attribute value may be."""
    return (isinstance(value, list) and bool(value) and isinstance(value[0], _PRIMITIVES)
            and all(type(item) is type(value[0]) for item in value))
