"""The instrumentation helper: paired events, summaries, errors and the silent fast path."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import numpy as np
import pytest

from oracleagentmemory.observability import (
    AgentMemoryCompletedEvent,
    AgentMemoryStartedEvent,
    ApiOperationCompletedEvent,
    ApiOperationStartedEvent,
    EmbedderCompletedEvent,
    EmbedderStartedEvent,
    Event,
    EventListener,
    LlmGenerationCompletedEvent,
    LlmGenerationStartedEvent,
    MemoryStoreCompletedEvent,
    MemoryStoreStartedEvent,
    OperationKind,
    ThreadCompletedEvent,
    ThreadStartedEvent,
    register_event_listeners,
)
from oracleagentmemory.observability.instrumentation import observe_operation, observed

SECRET_TEXT = "my bank PIN is 4321"


class Collect(EventListener):
    def __init__(self) -> None:
        self.events: list[Event] = []

    def on_event(self, event: Event) -> None:
        self.events.append(event)


@dataclass
class Hit:
    id: str
    content: str


class Client:
    @observed("agent_memory", operation_kind=OperationKind.READ)
    def search(self, query: str, user_id: str | None = None, max_results: int = 10) -> list:
        if query == "fail":
            raise LookupError("no index")
        return [Hit("m1", SECRET_TEXT), Hit("m2", "other")]

    @observed("agent_memory", operation_kind=OperationKind.CREATE, result_name="memory_id")
    async def add_memory_async(self, content: str, *, memory_id: str) -> str:
        await asyncio.sleep(0)
        return memory_id


class Thread:
    thread_id = "t1"
    user_id = "u1"
    agent_id = None

    @observed("thread", operation_kind=OperationKind.CREATE)
    def add_messages(self, messages: list[dict]) -> list[str]:
        return [f"msg{i}" for i, _ in enumerate(messages)]


class Embedder:
    model = "mini"

    @observed("embedder", operation_kind=OperationKind.CREATE)
    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        return np.full((len(texts), 3), 0.5, dtype=np.float32)


@dataclass(frozen=True)
class Reply:
    text: str
    output_tokens: int


class Llm:
    model = "tiny-llm"
    api_type = "chat_completions"

    @observed("llm", operation_kind=OperationKind.CREATE)
    def generate(self, prompt, *, response_json_schema=None, **kwargs) -> Reply:
        return Reply(text="the answer", output_tokens=2)


def run_observed(call):
    collect = Collect()
    with register_event_listeners([collect]):
        outcome = call()
    return collect.events, outcome


def test_a_call_emits_a_started_then_a_paired_completed_event():
    events, hits = run_observed(lambda: Client().search(SECRET_TEXT, user_id="u1"))
    started, completed = events
    assert isinstance(started, AgentMemoryStartedEvent)
    assert isinstance(completed, AgentMemoryCompletedEvent)
    assert completed.started_event_id == started.event_id != completed.event_id
    assert (started.method, started.concrete_class, started.operation_kind) == (
        "search", "Client", OperationKind.READ)
    assert started.event_name == "agent_memory.search.started"
    assert completed.event_name == "agent_memory.search.completed"
    assert completed.success is True and completed.error_type is None
    assert len(hits) == 2


def test_summaries_keep_sizes_and_ids_but_not_texts():
    events, _ = run_observed(lambda: Client().search(SECRET_TEXT, user_id="u1"))
    started, completed = events
    assert started.argument_summary == {"query": {"type": "str", "length": len(SECRET_TEXT)},
                                        "user_id": "u1"}
    assert completed.result_summary == {"type": "list", "count": 2, "ids": ["m1", "m2"]}
    assert Client.search.__name__ == "search"
    assert started.arguments == {"query": SECRET_TEXT, "user_id": "u1"}
    for event in events:
        assert SECRET_TEXT not in event.model_dump_json()
        assert SECRET_TEXT not in json.dumps(event.to_observability_dict())
    assert SECRET_TEXT in completed.model_dump_json(mask_sensitive_information=False)


def test_a_failure_is_reported_then_raised():
    collect = Collect()
    with register_event_listeners([collect]), pytest.raises(LookupError, match="no index"):
        Client().search("fail")
    started, completed = collect.events
    assert (completed.success, completed.error_type) == (False, "LookupError")
    assert completed.started_event_id == started.event_id
    assert completed.result is None and completed.result_summary is None


def test_async_methods_are_observed_too():
    events, memory_id = run_observed(
        lambda: asyncio.run(Client().add_memory_async("likes tea", memory_id="m9")))
    assert memory_id == "m9"
    assert [type(event) for event in events] == [AgentMemoryStartedEvent,
                                                 AgentMemoryCompletedEvent]
    assert events[0].method == "add_memory_async"
    assert events[1].result_summary == {"value": "m9"}


def test_thread_events_carry_the_thread_scope():
    events, ids = run_observed(lambda: Thread().add_messages([{"role": "user",
                                                              "content": SECRET_TEXT}]))
    started, completed = events
    assert isinstance(started, ThreadStartedEvent) and isinstance(completed,
                                                                  ThreadCompletedEvent)
    assert (started.thread_id, started.user_id, started.agent_id) == ("t1", "u1", None)
    assert (completed.thread_id, completed.user_id) == ("t1", "u1")
    assert started.argument_summary == {"messages": {"type": "list", "count": 1}}
    assert ids == ["msg0"]


def test_embedder_events_describe_the_batch():
    events, vectors = run_observed(lambda: Embedder().embed(["ab", "cde"], is_query=True))
    started, completed = events
    assert isinstance(started, EmbedderStartedEvent)
    assert (started.model, started.input_count, started.text_lengths, started.is_query) == (
        "mini", 2, [2, 3], True)
    assert started.input == ["ab", "cde"]
    assert isinstance(completed, EmbedderCompletedEvent)
    assert (completed.vector_count, completed.embedding_dimension) == (2, 3)
    assert completed.embedding_vector == [[0.5] * 3, [0.5] * 3]
    assert completed.model_dump()["embedding_vector"] == "[MASKED]"
    assert vectors.shape == (2, 3)


def test_llm_events_describe_the_generation():
    schema = {"type": "object"}
    events, reply = run_observed(
        lambda: Llm().generate(SECRET_TEXT, response_json_schema=schema, temperature=0.2))
    started, completed = events
    assert isinstance(started, LlmGenerationStartedEvent)
    assert (started.model, started.api_type, started.prompt) == (
        "tiny-llm", "chat_completions", SECRET_TEXT)
    assert started.response_json_schema == schema
    assert started.llm_generation_config == {"temperature": 0.2}
    assert isinstance(completed, LlmGenerationCompletedEvent)
    assert (completed.content, completed.output_tokens) == ("the answer", 2)
    assert completed.model_dump()["content"] == "[MASKED]"
    assert reply.text == "the answer"


def test_embedder_and_llm_inputs_are_found_under_other_parameter_names():
    class OldEmbedder(Embedder):
        @observed("embedder", operation_kind=OperationKind.CREATE)
        def embed(self, inputs):
            return np.zeros((len(inputs), 2))

    class OldLlm(Llm):
        @observed("llm", operation_kind=OperationKind.CREATE)
        def generate(self, messages, **options):
            return "plain text"

    events, _ = run_observed(lambda: OldEmbedder().embed(["abc"]))
    assert (events[0].input_count, events[0].text_lengths) == (1, [3])
    chat = [{"role": "user", "content": "hi"}]
    events, _ = run_observed(lambda: OldLlm().generate(chat, temperature=0))
    assert events[0].prompt == chat and events[1].content == "plain text"


def test_context_manager_form_with_explicit_ids():
    collect = Collect()
    with register_event_listeners([collect]), observe_operation(
            "memory_store", "search", operation_kind=OperationKind.READ,
            concrete_class="EmbeddedBackend", arguments={"request": {"max_results": 3}},
            ids={"thread_id": "t7"}) as operation:
        operation.set_result([{"id": "r1"}])
    started, completed = collect.events
    assert isinstance(started, MemoryStoreStartedEvent)
    assert isinstance(completed, MemoryStoreCompletedEvent)
    assert started.metadata == {"ids": {"thread_id": "t7"}}
    assert completed.result_summary == {"type": "list", "count": 1, "ids": ["r1"]}


def test_other_components_use_the_generic_events_and_need_an_api_class():
    collect = Collect()
    with register_event_listeners([collect]), observe_operation(
            "reranker", "rerank", operation_kind=OperationKind.READ,
            concrete_class="Reranker", api_class="IReranker"):
        pass
    assert [type(event) for event in collect.events] == [ApiOperationStartedEvent,
                                                         ApiOperationCompletedEvent]
    assert collect.events[0].event_name == "reranker.rerank.started"
    with pytest.raises(ValueError, match="api_class"):
        observed("reranker", operation_kind=OperationKind.READ)
    with pytest.raises(TypeError, match="operation_kind"):
        observed("thread", operation_kind="read")


def test_without_listeners_nothing_is_built():
    class Watched(Thread):
        @property
        def thread_id(self):  # reading the scope would mean an event is being built
            raise AssertionError("scope read without a listener")

    assert Watched().add_messages([{"role": "user", "content": "hi"}]) == ["msg0"]
    assert Client().search("q") and asyncio.run(
        Client().add_memory_async("x", memory_id="m1")) == "m1"
    with observe_operation("thread", "x", operation_kind=OperationKind.READ,
                           concrete_class="T") as operation:
        operation.set_result(1)


def test_an_event_that_cannot_be_built_never_breaks_the_operation(caplog):
    class Orphan(Thread):
        thread_id = None  # ThreadStartedEvent requires a thread id

    events, ids = run_observed(lambda: Orphan().add_messages([{"role": "user"}]))
    assert ids == ["msg0"] and events == []
    assert "could not build the started event" in caplog.text


def test_an_observed_call_after_the_first_event_imports_nothing(monkeypatch) -> None:
    """The event classes are imported when the first event is built, once: later events
    are built and delivered without going through the import machinery (a ``from ...
    import`` in a function costs about a microsecond, several times per operation)."""
    import builtins

    thread, collect = Thread(), Collect()
    with register_event_listeners([collect]):
        thread.add_messages([{"role": "user", "content": "hi"}])
        imports: list[str] = []
        real_import = builtins.__import__

        def counting_import(name: str, *args: object, **kwargs: object) -> object:
            imports.append(name)
            return real_import(name, *args, **kwargs)

        monkeypatch.setattr(builtins, "__import__", counting_import)
        thread.add_messages([{"role": "user", "content": "hi again"}])
        monkeypatch.undo()
    assert [type(event).__name__ for event in collect.events[2:]] == [
        "ThreadStartedEvent", "ThreadCompletedEvent"]
    assert imports == []
