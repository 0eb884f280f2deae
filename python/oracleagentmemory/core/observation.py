"""Which operations emit observability events, and the observed stand-ins for models.

Every public operation of the client, the thread and the store emits a started and a
completed event (``observability``); so does every embedder and LLM call, whoever wrote the
embedder or LLM, and every store-contract call (its layer is part of the chain every
backend gets where it is opened, ``stores.guarded``; its kind is the operation's own,
``stores.operations``). The tables below say which public operation is which kind; nothing
is built when nobody listens.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec, TypeVar

import numpy as np

from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.apis.llms.llm import ILlm, LlmResponse
from oracleagentmemory.observability.instrumentation import observe_operation, observed
from oracleagentmemory.observability.operation_kind import OperationKind

CREATE, READ, UPDATE, DELETE = (OperationKind.CREATE, OperationKind.READ,
                                OperationKind.UPDATE, OperationKind.DELETE)

AGENT_MEMORY_OPERATIONS: dict[str, OperationKind] = {
    "add_user": CREATE, "add_agent": CREATE, "delete_user": DELETE, "delete_agent": DELETE,
    "create_thread": CREATE, "get_thread": READ, "update_thread": UPDATE,
    "delete_thread": DELETE, "add_memory": CREATE, "update_memory": UPDATE,
    "delete_memory": DELETE, "add_image": CREATE, "update_image": UPDATE,
    "delete_image": DELETE, "list_images": READ, "list_threads": READ, "list_users": READ,
    "list_agents": READ, "list_memories": READ, "list_messages": READ,
    "link_records": CREATE, "update_record_link": UPDATE, "delete_record_link": DELETE,
    "search": READ, "wait_for_memory_extraction": READ, "purge_expired": DELETE,
    "close": DELETE,
}
THREAD_OPERATIONS: dict[str, OperationKind] = {
    "add_messages": CREATE, "get_messages": READ, "get_message": READ,
    "update_message": UPDATE, "delete_message": DELETE, "add_image": CREATE,
    "update_image": UPDATE, "delete_image": DELETE, "list_images": READ,
    "add_memory": CREATE, "update_memory": UPDATE, "delete_memory": DELETE, "search": READ,
    "link_records": CREATE, "update_record_link": UPDATE, "delete_record_link": DELETE,
    "get_summary": READ, "get_context_card": READ, "wait_for_memory_extraction": READ,
}
MEMORY_STORE_OPERATIONS: dict[str, OperationKind] = {
    "add": CREATE, "add_batches": CREATE, "add_user": CREATE, "add_agent": CREATE,
    "get": READ, "list": READ, "list_thread_messages": READ, "search": READ,
    "update": UPDATE, "delete": DELETE, "delete_thread": DELETE, "add_relations": CREATE,
    "get_relation": READ, "list_relations": READ, "update_relations": UPDATE,
    "delete_relations": DELETE,
}
"""The public store interface's operations (on our OracleDBMemoryStore)."""
C = TypeVar("C", bound=type)
P = ParamSpec("P")
R = TypeVar("R")


def observe_methods(component: str, operations: Mapping[str, OperationKind],
                    result_names: Mapping[str, str] | None = None) -> Callable[[C], C]:
    """Class decorator: each listed method emits its started and completed events."""
    def decorate(cls: C) -> C:
        for name, kind in operations.items():
            setattr(cls, name, observed(component, operation_kind=kind,
                                        result_name=(result_names or {}).get(name, ""))(
                getattr(cls, name)))
        return cls
    return decorate


class ObservedEmbedder(IEmbedder):
    """One of our embedders, whose calls emit embedder events."""

    def __init__(self, inner: IEmbedder) -> None:
        self.inner = inner

    @property
    def embedding_dimension(self) -> int:
        return self.inner.embedding_dimension

    @property
    def max_input_tokens(self) -> int:
        return self.inner.max_input_tokens

    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        with observe_operation("embedder", "embed", operation_kind=CREATE,
                               concrete_class=type(self.inner).__name__, instance=self.inner,
                               arguments={"texts": texts, "is_query": is_query}) as operation:
            vectors = self.inner.embed(texts, is_query=is_query)
            operation.set_result(vectors)
            return vectors

    async def embed_async(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        with observe_operation("embedder", "embed", operation_kind=CREATE,
                               concrete_class=type(self.inner).__name__, instance=self.inner,
                               arguments={"texts": texts, "is_query": is_query}) as operation:
            vectors = await self.inner.embed_async(texts, is_query=is_query)
            operation.set_result(vectors)
            return vectors


class ObservedLlm(ILlm):
    """One of our LLMs, whose calls emit LLM generation events."""

    def __init__(self, inner: ILlm) -> None:
        self.inner = inner

    @property
    def supports_vision(self) -> bool:
        return bool(getattr(self.inner, "supports_vision", True))

    def generate(self, prompt: Any, *, response_json_schema: dict[str, Any] | None = None,
                 **kwargs: Any) -> LlmResponse:
        with observe_operation("llm", "generate", operation_kind=CREATE,
                               concrete_class=type(self.inner).__name__, instance=self.inner,
                               arguments={"prompt": prompt,
                                          "response_json_schema": response_json_schema,
                                          "kwargs": kwargs}) as operation:
            answer = self.inner.generate(prompt, response_json_schema=response_json_schema,
                                         **kwargs)
            operation.set_result(answer)
            return answer

    async def generate_async(self, prompt: Any, *,
                             response_json_schema: dict[str, Any] | None = None,
                             **kwargs: Any) -> LlmResponse:
        with observe_operation("llm", "generate", operation_kind=CREATE,
                               concrete_class=type(self.inner).__name__, instance=self.inner,
                               arguments={"prompt": prompt,
                                          "response_json_schema": response_json_schema,
                                          "kwargs": kwargs}) as operation:
            answer = await self.inner.generate_async(
                prompt, response_json_schema=response_json_schema, **kwargs)
            operation.set_result(answer)
            return answer


_OBSERVED_LLMS: weakref.WeakKeyDictionary[ILlm, ObservedLlm] = weakref.WeakKeyDictionary()


_OUR_MODEL_ADAPTERS = ("oracleagentmemory.core.llms", "oracleagentmemory.core.embedders")


def ours(model: object) -> bool:
    """One of this library's model adapters (``Llm``, ``Embedder``, the local and in-database
    embedders) or a subclass of one. Only these emit LLM and embedder events: around a
    caller's own ``ILlm`` or ``IEmbedder`` the reference emits none, and neither do we."""
    return any(cls.__module__.startswith(_OUR_MODEL_ADAPTERS) for cls in type(model).__mro__)


def observed_llm(llm: ILlm | None) -> ILlm | None:
    """The observed stand-in of one of our LLMs, one per LLM (per-LLM caches keep working);
    a caller's own LLM as it is."""
    if llm is None or isinstance(llm, ObservedLlm) or not ours(llm):
        return llm
    wrapper = _OBSERVED_LLMS.get(llm)
    if wrapper is None:
        wrapper = _OBSERVED_LLMS[llm] = ObservedLlm(llm)
    return wrapper


def unobserved(llm: ILlm | None) -> ILlm | None:
    """The caller's own LLM behind an observed stand-in."""
    return llm.inner if isinstance(llm, ObservedLlm) else llm


def observed_embedder(embedder: IEmbedder | None) -> IEmbedder | None:
    """The observed stand-in of one of our embedders; a caller's own embedder as it is."""
    if embedder is None or isinstance(embedder, ObservedEmbedder) or not ours(embedder):
        return embedder
    return ObservedEmbedder(embedder)
