"""The OpenTelemetry bridge, checked with the SDK's in-memory exporter."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import StatusCode  # noqa: E402

from oracleagentmemory.observability import (  # noqa: E402
    Event,
    OperationKind,
    emit_event,
    register_event_listeners,
)
from oracleagentmemory.observability.instrumentation import observed  # noqa: E402
from oracleagentmemory.observability.otel import (  # noqa: E402
    OpenTelemetryEventListener,
    span_attributes,
)


class Embedder:
    model = "mini"

    @observed("embedder", operation_kind=OperationKind.CREATE)
    def embed(self, texts, *, is_query=False):
        emit_event(Event(event_id="note", component="embedder", event_name="cache.miss"))
        return np.array([[0.0, 1.0] for _ in texts])


class Thread:
    thread_id, user_id, agent_id = "t1", "u1", None

    def __init__(self) -> None:
        self.embedder = Embedder()

    @observed("thread", operation_kind=OperationKind.READ)
    def search(self, query):
        if query == "fail":
            raise KeyError(query)
        self.embedder.embed([query], is_query=True)
        return []


@pytest.fixture
def exporter():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with register_event_listeners([OpenTelemetryEventListener(provider)]):
        yield exporter


def test_operations_become_nested_spans(exporter):
    Thread().search("where did I park?")
    embed, search = exporter.get_finished_spans()
    assert (search.name, embed.name) == ("IThread.search", "IEmbedder.embed")
    assert embed.parent is not None and embed.parent.span_id == search.context.span_id
    assert search.attributes["oracleagentmemory.thread_id"] == "t1"
    assert search.attributes["oracleagentmemory.success"] is True
    assert search.attributes["oracleagentmemory.argument_summary.query.length"] == 17
    assert embed.attributes["oracleagentmemory.embedding_dimension"] == 2
    assert search.status.status_code is not StatusCode.ERROR


def test_attributes_are_masked(exporter):
    Thread().search("where did I park?")
    for span in exporter.get_finished_spans():
        assert all("park" not in str(value) for value in span.attributes.values())
    embed = exporter.get_finished_spans()[0]
    assert embed.attributes["oracleagentmemory.input"] == "[MASKED]"


def test_a_failed_operation_ends_its_span_with_an_error_status(exporter):
    with pytest.raises(KeyError):
        Thread().search("fail")
    [span] = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description == "KeyError"
    assert span.attributes["oracleagentmemory.error_type"] == "KeyError"


def test_other_events_become_span_events(exporter):
    Thread().search("q")
    embed = exporter.get_finished_spans()[0]
    assert [event.name for event in embed.events] == ["cache.miss"]


def test_span_attributes_flatten_and_stringify():
    assert span_attributes({"a": {"b": 1, "c": None}, "d": [1, 2], "e": [1, "x"]}, "p") == {
        "p.a.b": 1, "p.d": [1, 2], "p.e": '[1, "x"]'}
