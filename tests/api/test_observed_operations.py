"""Observability events and search configs, through the public client and thread."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.apis.llms.llm import ILlm, LlmResponse
from oracleagentmemory.apis.reranker import IReranker, RerankResponse, RerankResponseResult
from oracleagentmemory.core import (
    OracleAgentMemory,
    PruningMemorySearchConfig,
    TopKMemorySearchConfig,
)
from oracleagentmemory.core.embedders import Embedder
from oracleagentmemory.observability import (
    AgentMemoryCompletedEvent,
    AgentMemoryStartedEvent,
    EmbedderCompletedEvent,
    EmbedderStartedEvent,
    Event,
    EventListener,
    GenericEventListener,
    MemoryStoreStartedEvent,
    OperationKind,
    ThreadCompletedEvent,
    ThreadStartedEvent,
    register_event_listeners,
)
from tests.support.llm_server import embeddings


class Collect(EventListener):
    def __init__(self) -> None:
        self.events: list[Event] = []

    def on_event(self, event: Event) -> None:
        self.events.append(event)


class Broken(EventListener):
    def on_event(self, event: Event) -> None:
        raise RuntimeError("listener bug")


class ReversedReranker(IReranker):
    """Scores documents by reverse order: the last candidate becomes the best."""

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    async def rerank_async(self, query, documents, **kwargs) -> RerankResponse:
        self.seen.append(list(documents))
        count = len(documents)
        return RerankResponse(results=[RerankResponseResult(index=i, relevance_score=i / count)
                                       for i in range(count)])


class KeepNumbered(ILlm):
    """A pruner that keeps the numbered memories whose text mentions 'keep'."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def generate(self, prompt, *, response_json_schema=None, **kwargs) -> LlmResponse:
        text = prompt if isinstance(prompt, str) else json.dumps(prompt)
        self.prompts.append(text)
        keep = [int(number) for number, body in
                re.findall(r'<memory number="(\d+)">(.*?)</memory>', text) if "keep" in body]
        return LlmResponse(text=json.dumps({"relevant": keep}))

    async def generate_async(self, prompt, *, response_json_schema=None, **kwargs):
        return self.generate(prompt, response_json_schema=response_json_schema)


@pytest.fixture
def client(embedder):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    yield client
    client.close()


def test_every_layer_reports_a_started_and_a_paired_completed_event(client):
    collect = Collect()
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    with register_event_listeners([collect]):
        thread.add_memory("User likes tea", memory_id="m1")
        client.search("tea", user_id="u")
    kinds = [type(event) for event in collect.events]
    assert ThreadStartedEvent in kinds and ThreadCompletedEvent in kinds
    assert AgentMemoryStartedEvent in kinds and AgentMemoryCompletedEvent in kinds
    assert MemoryStoreStartedEvent in kinds
    # the test's own embedder emits no events (as in the reference); ours do, below
    assert EmbedderStartedEvent not in kinds and EmbedderCompletedEvent not in kinds
    started = {event.event_id: event for event in collect.events
               if "started" in event.event_name}
    completed = [event for event in collect.events if "completed" in event.event_name]
    assert len(started) == len(completed)
    assert {event.started_event_id for event in completed} == set(started)
    [thread_done] = [e for e in completed if isinstance(e, ThreadCompletedEvent)]
    assert (thread_done.method, thread_done.thread_id, thread_done.user_id,
            thread_done.operation_kind, thread_done.success) == (
        "add_memory", "t", "u", OperationKind.CREATE, True)
    [search_done] = [e for e in completed if isinstance(e, AgentMemoryCompletedEvent)]
    assert (search_done.method, search_done.operation_kind) == ("search", OperationKind.READ)


def test_a_failing_listener_never_breaks_the_operation_and_errors_are_reported(client):
    collect = Collect()
    with register_event_listeners([Broken(), collect]):
        assert client.add_memory("kept anyway", user_id="u", memory_id="m") == "m"
        with pytest.raises(KeyError):
            client.get_thread("missing")
    [failed] = [e for e in collect.events if isinstance(e, AgentMemoryCompletedEvent)
                and e.method == "get_thread"]
    assert failed.success is False and failed.error_type == "NotFoundError"


def test_nothing_is_reported_outside_the_listener_context(client):
    collect = Collect()
    with register_event_listeners([GenericEventListener(Event, collect.on_event)]):
        pass
    client.add_memory("quiet", user_id="u")
    assert collect.events == []


def test_a_users_own_embedder_is_not_observed_ours_is(embedder, llm_server):
    class Wrapped(IEmbedder):
        def embed(self, texts, *, is_query=False):
            return np.asarray(embedder.embed(texts, is_query=is_query))

        async def embed_async(self, texts, *, is_query=False):
            return self.embed(texts, is_query=is_query)

    collect = Collect()
    with OracleAgentMemory(connection=":memory:", embedder=Wrapped()) as client, \
            register_event_listeners([collect]):
        client.search("anything", user_id="u")
    assert not [e for e in collect.events if isinstance(e, EmbedderCompletedEvent)]

    ours = Embedder("embed-model", api_base=llm_server.base_url, embedding_dimension=3,
                    max_retries=0, trust_env=False)  # no proxy between us and the loopback
    llm_server.enqueue(embeddings([[1.0, 0.0, 0.0]]))
    with OracleAgentMemory(connection=":memory:", embedder=ours) as client, \
            register_event_listeners([collect]):
        client.search("anything", user_id="u")
    [done] = [e for e in collect.events if isinstance(e, EmbedderCompletedEvent)]
    assert (done.concrete_class, done.is_query, done.input_count) == ("Embedder", True, 1)


def test_a_thread_search_is_also_an_agent_memory_search(client):
    collect = Collect()
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    with register_event_listeners([collect]):
        thread.search("tea")
    names = [(type(event).__name__, event.method) for event in collect.events
             if isinstance(event, (ThreadStartedEvent, ThreadCompletedEvent,
                                   AgentMemoryStartedEvent, AgentMemoryCompletedEvent))]
    assert names == [("ThreadStartedEvent", "search"), ("AgentMemoryStartedEvent", "search"),
                     ("AgentMemoryCompletedEvent", "search"),
                     ("ThreadCompletedEvent", "search")]


def test_a_reranker_reorders_the_candidates_a_search_fetches(embedder):
    reranker = ReversedReranker()
    client = OracleAgentMemory(connection=":memory:", embedder=embedder,
                               search_config=TopKMemorySearchConfig(
                                   reranker=reranker, reranker_max_candidates=4,
                                   max_results=2))
    for i in range(6):
        client.add_memory(f"tea note {i}", user_id="u", memory_id=f"m{i}")
    results = [r.id for r in client.search("tea note", user_id="u")]
    [window] = reranker.seen
    assert len(window) == 4                  # the reranker read its whole window
    assert len(results) == 2                 # then max_results applied
    best_first = [f"m{text.rsplit(' ', 1)[1]}" for text in reversed(window)]
    assert results == best_first[:2]         # in the reranker's order
    client.close()


def test_pruning_drops_what_the_llm_calls_irrelevant(embedder):
    pruner = KeepNumbered()
    client = OracleAgentMemory(connection=":memory:", embedder=embedder,
                               search_config=PruningMemorySearchConfig(
                                   pruner=pruner, protected_fraction=0.0))
    client.add_memory("tea keep", user_id="u", memory_id="keep")
    client.add_memory("tea drop", user_id="u", memory_id="drop")
    assert [r.id for r in client.search("tea", user_id="u")] == ["keep"]
    assert pruner.prompts
    client.close()


def test_pruner_llm_makes_the_clients_searches_prune(embedder):
    pruner = KeepNumbered()
    client = OracleAgentMemory(connection=":memory:", embedder=embedder, pruner_llm=pruner)
    client.add_memory("tea keep", user_id="u", memory_id="keep")
    client.add_memory("tea drop", user_id="u", memory_id="drop")
    client.add_memory("tea maybe", user_id="u", memory_id="maybe")
    found = [r.id for r in client.search("tea", user_id="u")]
    assert "drop" not in found and "keep" in found
    client.close()


def test_work_on_library_threads_reports_to_the_callers_listeners(client):
    """A context card searches on a pool of threads; those searches report too."""
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "I like tea"}])
    thread.add_memory("User likes green tea", memory_type="preference")
    collect = Collect()
    with register_event_listeners([collect]):
        thread.get_context_card(min_relevant_results_by_type={"preference": 1})
    searches = [e for e in collect.events
                if isinstance(e, MemoryStoreStartedEvent) and e.method == "search"]
    assert len(searches) >= 3  # the per-type minimum, then memories and messages
