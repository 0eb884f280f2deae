"""Events: their fixed fields, immutability and what a dump masks."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pydantic import ValidationError

from oracleagentmemory.observability import (
    EmbedderCompletedEvent,
    EmbedderStartedEvent,
    Event,
    LlmGenerationCompletedEvent,
    LlmGenerationStartedEvent,
    OperationKind,
    ThreadStartedEvent,
)

MASK = "[MASKED]"


def llm_started(**extra) -> LlmGenerationStartedEvent:
    return LlmGenerationStartedEvent(
        event_id="e1", concrete_class="FakeLlm", model="m", api_type="chat_completions",
        prompt="my diary says I love Rome", **extra)


def test_component_events_fix_their_names_and_kind():
    started = EmbedderStartedEvent(event_id="e1", concrete_class="E", model="m",
                                   input_count=1, is_query=False)
    assert (started.component, started.event_name, started.api_class, started.method,
            started.operation_kind) == ("embedder", "embedder.started", "IEmbedder", "embed",
                                        OperationKind.CREATE)
    assert llm_started().event_name == "llm.generation.started"
    with pytest.raises(ValidationError):
        EmbedderStartedEvent(event_id="e1", concrete_class="E", model="m", input_count=1,
                             is_query=False, method="embed_async")


def test_events_are_frozen_and_reject_unknown_fields():
    event = Event(event_id="e1", component="c", event_name="n")
    with pytest.raises(ValidationError):
        event.event_name = "other"
    with pytest.raises(ValidationError):
        Event(event_id="e1", component="c", event_name="n", colour="red")


def test_operation_kind_must_be_the_enum_not_its_string():
    fields = dict(event_id="e1", event_name="thread.search.started", concrete_class="T",
                  method="search", thread_id="t")
    assert ThreadStartedEvent(**fields, operation_kind=OperationKind.READ).operation_kind == "read"
    with pytest.raises(ValidationError):
        ThreadStartedEvent(**fields, operation_kind="read")


def test_timestamp_defaults_to_utc_iso_8601():
    event = Event(event_id="e1", component="c", event_name="n")
    assert event.timestamp.endswith("+00:00") and "T" in event.timestamp


def test_dumps_mask_prompt_text_and_vectors_by_default():
    started = llm_started(arguments={"prompt": "my diary says I love Rome"})
    completed = EmbedderCompletedEvent(
        event_id="e2", started_event_id="e1", concrete_class="E", model="m", input_count=1,
        is_query=True, success=True, vector_count=1, embedding_dimension=2,
        embedding_vector=[[0.25, 0.5]])
    for dumped in (started.model_dump(), json.loads(started.model_dump_json()),
                   started.to_observability_dict()):
        assert dumped["prompt"] == MASK and dumped["arguments"] == MASK
        assert dumped["model"] == "m"
    dumped = completed.model_dump()
    assert dumped["embedding_vector"] == MASK
    assert (dumped["vector_count"], dumped["embedding_dimension"]) == (1, 2)
    assert "Rome" not in started.model_dump_json()


def test_unmasked_dumps_keep_every_value():
    event = llm_started()
    assert event.model_dump(mask_sensitive_information=False)["prompt"] == (
        "my diary says I love Rome")
    assert json.loads(event.model_dump_json(mask_sensitive_information=False))["prompt"] == (
        "my diary says I love Rome")
    completed = LlmGenerationCompletedEvent(
        event_id="e2", started_event_id="e1", concrete_class="L", model="m",
        api_type="chat_completions", success=True, content="Rome it is", output_tokens=3)
    assert completed.to_observability_dict(False)["content"] == "Rome it is"
    assert completed.to_observability_dict()["content"] == MASK
    assert completed.to_observability_dict()["output_tokens"] == 3


def test_secret_looking_keys_are_masked_anywhere_unless_unmasked():
    event = llm_started(llm_config={"temperature": 0.1, "api_key": "sk-123",
                                    "headers": {"Authorization": "Bearer x"}})
    masked = event.model_dump()["llm_config"]
    assert masked == {"temperature": 0.1, "api_key": MASK, "headers": {"Authorization": MASK}}
    assert event.model_dump(mask_sensitive_information=False)["llm_config"]["api_key"] == (
        "sk-123")


def test_json_dump_of_raw_values_never_fails():
    event = llm_started(arguments={"image": b"\xff\xd8\xff", "vector": np.array([1.5, 2.0]),
                                   "kind": OperationKind.READ})
    raw = json.loads(event.model_dump_json(mask_sensitive_information=False))
    assert raw["arguments"] == {"image": "<3 bytes>", "vector": [1.5, 2.0], "kind": "read"}


def test_observability_dict_has_every_field_as_the_reference_has():
    data = llm_started().to_observability_dict()
    assert "event_type" not in data
    assert data["tools"] is None and data["metadata"] is None
    assert set(data) == set(type(llm_started()).model_fields)
