"""The seam between the public objects (client, threads) and what they share.

One ``MemoryService`` per client (a standalone thread makes its own). It owns the backend,
the embedder, the retention rules, the search strategy and the background extraction
queue; the client and every thread call it and nothing private of each other.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from oracleagentmemory._ids import new_id
from oracleagentmemory._notset import NOT_SET_MARKER, value_or
from oracleagentmemory._vocabulary import MEMORY_TYPES, SEARCHABLE_TYPES
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.records import Record
from oracleagentmemory.apis.relations import RecordRelation
from oracleagentmemory.apis.searchresult import SearchResult
from oracleagentmemory.core.arguments import (
    check_flag,
    check_id_argument,
    check_memory_type,
    check_optional_int,
    check_status,
    check_stored_text,
    check_text,
)
from oracleagentmemory.core.dbsearch import SearchStrategy
from oracleagentmemory.core.embedders.embedder import Embedder
from oracleagentmemory.core.extractors import background
from oracleagentmemory.core.extractors.background import BackgroundExtractionQueue
from oracleagentmemory.core.llms.llm import Llm
from oracleagentmemory.core.observation import (
    ObservedEmbedder,
    observed_embedder,
    observed_llm,
    unobserved,
)
from oracleagentmemory.core.records import (
    DEFAULT_SEARCH_STRATEGY,
    contract_record_type,
    contract_strategy,
    relation_of,
    to_record,
)
from oracleagentmemory.core.retention import MemoryRetentionConfig, ttl_changes, ttl_fields
from oracleagentmemory.core.search_refinement import candidate_count, refine_results
from oracleagentmemory.core.searchconfig import SDK_DEFAULTS as SEARCH_CONFIG_DEFAULTS
from oracleagentmemory.core.searchconfig import MemorySearchConfig, TopKMemorySearchConfig
from oracleagentmemory.core.searchresult import OracleSearchResult
from oracleagentmemory.core.thread_settings import SettingsLayer
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError, NotFoundError
from oracleagentmemory.stores.guarded import guarded
from oracleagentmemory.stores.metadata_filter import validate_filter
from oracleagentmemory.stores.protocol import (
    LinkIn,
    RecordIn,
    RecordOut,
    RecordQuery,
    RecordScope,
    ScopeDimension,
    SearchHit,
    SearchRequest,
    StoreBackend,
    Vector,
)

DEFAULT_MAX_RESULTS: int = SEARCH_CONFIG_DEFAULTS["max_results"]
DEFAULT_NUM_HOPS = 0
DEFAULT_MAX_LINKED_RESULTS = 100
MAX_NUM_HOPS = 5

PLAIN_TOP_K = TopKMemorySearchConfig()
"""The search config of a search that names none: the best results, no reranking."""



@dataclass(frozen=True)
class SearchOptions:
    """Everything a search call can set besides the query and the scope, resolved."""

    max_results: int = DEFAULT_MAX_RESULTS
    token_budget: int | None = None
    soft_token_budget: int | None = None
    record_types: tuple[str, ...] = ()
    """Contract record types; empty: every searchable type."""
    metadata_filter: dict[str, Any] | None = None
    num_hops: int = DEFAULT_NUM_HOPS
    max_linked_results: int = DEFAULT_MAX_LINKED_RESULTS
    include_invalid_results: bool = True
    config: MemorySearchConfig | None = None
    """How candidates become results (rerank, prune); None: plain top-k."""


def search_options(arguments: Mapping[str, Any],
                   config: MemorySearchConfig | None) -> SearchOptions:
    """Options of one search call: explicit arguments win over the search config's values,
    which win over the SDK defaults. Each value is checked and named when wrong."""
    def given(name: str, fallback: Any) -> Any:
        return value_or(arguments.get(name, NOT_SET_MARKER), fallback)

    config_max = value_or(getattr(config, "max_results", NOT_SET_MARKER), DEFAULT_MAX_RESULTS)
    max_results = given("max_results", config_max)
    if max_results is not None:
        check_optional_int(max_results, "max_results")  # a str or float: a TypeError
    if max_results is None or max_results < 1:
        raise InvalidArgumentError(
            f"max_results must be an integer of at least 1, got {max_results!r}")
    num_hops = check_optional_int(given("num_hops", DEFAULT_NUM_HOPS), "num_hops")
    if num_hops is None or not 0 <= num_hops <= MAX_NUM_HOPS:
        raise InvalidArgumentError(f"num_hops must be between 0 and {MAX_NUM_HOPS}, "
                                   f"got {num_hops!r}")
    max_linked = check_optional_int(given("max_linked_results", DEFAULT_MAX_LINKED_RESULTS),
                                    "max_linked_results")
    if max_linked is None or max_linked < 0:
        raise InvalidArgumentError(f"max_linked_results must be at least 0, got {max_linked!r}")
    include_invalid = check_flag(given("include_invalid_results", True),
                                 "include_invalid_results")
    metadata_filter = given("metadata_filter", None)
    if metadata_filter is not None and not isinstance(metadata_filter, dict):
        raise InvalidArgumentError("metadata_filter must be a dict or None, got "
                                   f"{type(metadata_filter).__name__}")
    validate_filter(metadata_filter)  # the grammar and its bounds, before any work
    return SearchOptions(
        max_results=max_results,
        token_budget=check_optional_int(
            given("token_budget", value_or(getattr(config, "token_budget", None), None)),
            "token_budget"),
        soft_token_budget=check_optional_int(
            given("soft_token_budget",
                  value_or(getattr(config, "soft_token_budget", None), None)),
            "soft_token_budget"),
        record_types=_record_types(given("record_types", None)),
        metadata_filter=metadata_filter,
        num_hops=num_hops,
        max_linked_results=max_linked,
        include_invalid_results=include_invalid,
        config=config,
    )


def _record_types(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, (list, tuple, set, frozenset)):
        raise InvalidArgumentError(
            f"record_types must be a list of record type names, got {value!r}")
    for name in value:
        if not isinstance(name, str):
            raise ArgumentTypeError(
                f"record_types must hold record type names (str), got {name!r}")
    types = tuple(contract_record_type(name) for name in value)
    unknown = sorted(set(types) - set(SEARCHABLE_TYPES))
    if unknown:
        raise InvalidArgumentError(
            f"record_types has unsupported type(s) {', '.join(unknown)}; searchable types: "
            f"{', '.join(SEARCHABLE_TYPES)}")
    return types


@dataclass
class MemoryService:
    """What the client and its threads share."""

    backend: StoreBackend
    embedder: IEmbedder | None
    retention: MemoryRetentionConfig = field(default_factory=MemoryRetentionConfig)
    strategy: SearchStrategy = DEFAULT_SEARCH_STRATEGY
    strategy_given: bool = True
    """False when the caller left the strategy unset (adapters with a scoring contract of
    their own, such as the LangGraph store's cosine scores, then use VECTOR)."""
    llm: ILlm | None = None
    """The client's LLM: the default of threads that name none."""
    defaults: SettingsLayer = field(default_factory=SettingsLayer)
    """Thread settings the client sets for all its threads."""
    pruner_llm: ILlm | None = None
    _background: BackgroundExtractionQueue | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self) -> None:
        """Everything the service calls emits observability events (when anyone listens),
        and the backend is behind the chain every path to a store passes (``stores.guarded``:
        already put on where the store was opened, put on here for a backend given as it
        is)."""
        self.backend = guarded(self.backend)
        self.embedder = observed_embedder(self.embedder)
        self.llm = observed_llm(self.llm)
        self.pruner_llm = observed_llm(self.pruner_llm)

    # -- embeddings -------------------------------------------------------------------

    def embed(self, texts: Sequence[str], *, is_query: bool = False) -> list[np.ndarray | None]:
        """One vector per text; None each when the store embeds itself (no embedder)."""
        if not texts:
            return []
        if self.embedder is None:
            return [None] * len(texts)
        vectors = np.asarray(self.embedder.embed(list(texts), is_query=is_query),
                             dtype=np.float32)
        dimension = self.embedder.embedding_dimension
        if vectors.shape != (len(texts), dimension):
            raise InvalidArgumentError(
                f"the embedder returned shape {vectors.shape}, expected "
                f"({len(texts)}, {dimension})")
        return list(vectors)

    # -- search -----------------------------------------------------------------------

    def search(self, query: Any, scope: dict[str, ScopeDimension], options: SearchOptions, *,
               query_vector: Vector | None = None,
               exclude_ids: Sequence[str] = ()) -> list[OracleSearchResult]:
        """Ranked results for ``query`` (best first), linked context and token budgets
        applied. ``query_vector`` saves embedding a text whose vector is known."""
        check_text(query, "query")
        if not query.strip():
            raise InvalidArgumentError("query must not be empty")
        strategy = contract_strategy(self.strategy)
        if query_vector is None and strategy != "KEYWORD":
            query_vector = self.embed([query], is_query=True)[0]
        config = options.config or PLAIN_TOP_K
        fetch = candidate_count(config, options.max_results)
        request: SearchRequest = {
            "query_text": query,
            "query_vector": query_vector,
            "strategy": strategy,
            "scope": scope,
            "record_types": list(options.record_types),
            "metadata_filter": options.metadata_filter,
            "include_invalid": options.include_invalid_results,
            "max_results": fetch + len(exclude_ids),
            "num_hops": options.num_hops,
            "max_linked_results": options.max_linked_results,
        }
        hits = [hit for hit in self.backend.search(request)
                if hit["record"]["id"] not in exclude_ids][:fetch]
        return refine_results(query, [search_result(hit) for hit in hits], config,
                              max_results=options.max_results,
                              token_budget=options.token_budget,
                              soft_token_budget=options.soft_token_budget,
                              measure=lambda result: result.formatted_content)

    def nearest(self, vector: Vector, scope: dict[str, ScopeDimension],
                record_types: Sequence[str], count: int) -> list[tuple[str, float]]:
        """The ``count`` stored records closest to ``vector`` as (content, cosine similarity):
        a plain vector search (the contract's distance is ``1 - cos``), no search config, so
        a known vector is compared with stored ones without embedding them again."""
        request: SearchRequest = {
            "query_text": "", "query_vector": vector, "strategy": "VECTOR", "scope": scope,
            "record_types": list(record_types), "include_invalid": True,
            "max_results": count, "num_hops": 0, "max_linked_results": 0,
        }
        return [(str(hit["record"].get("content") or ""), 1.0 - hit["distance"])
                for hit in self.backend.search(request)]

    # -- memories ---------------------------------------------------------------------

    def memory_record(self, content: Any, scope: RecordScope, *,
                      memory_id: Any = NOT_SET_MARKER, memory_type: Any = NOT_SET_MARKER,
                      metadata: Any = None, timestamp: Any = None,
                      ttl_days: Any = NOT_SET_MARKER, ttl_anchor: Any = NOT_SET_MARKER,
                      status: Any = NOT_SET_MARKER,
                      embedding: np.ndarray | None = None) -> RecordIn:
        """A checked memory-like record ready to write (embedded unless given a vector).

        Empty or blank content is stored as given, as the reference stores it."""
        check_stored_text(content, "content")
        if memory_id is not NOT_SET_MARKER and memory_id is not None:
            check_id_argument(memory_id, "memory_id")
        return {
            "record_type": check_memory_type(memory_type),
            "id": value_or(memory_id, None) or new_id(),
            "user_id": scope.get("user_id"),
            "agent_id": scope.get("agent_id"),
            "thread_id": scope.get("thread_id"),
            "content": content,
            "metadata": metadata,
            "timestamp": timestamp,
            "status": check_status(status),
            **ttl_fields(ttl_days, ttl_anchor, self.retention),
            "embedding": embedding if embedding is not None else self.embed([content])[0],
        }

    def write_memory(self, record: RecordIn, links: Sequence[LinkIn] = (),
                     thread_id: str | None = None) -> str:
        """Write one memory record and the links that start from it, atomically (into the
        existing thread ``thread_id`` when given)."""
        starting: list[LinkIn] = [
            {**link, "source_id": record["id"], "source_type": record["record_type"]}
            for link in links]
        return self.backend.write_records([record], links=starting, thread_id=thread_id)[0]

    def update_memory(self, memory_id: Any, thread_id: str | None, *, content: Any,
                      metadata: Any, timestamp: Any, ttl_days: Any, ttl_anchor: Any,
                      status: Any) -> str:
        """Replace the given fields of a memory-like record (of ``thread_id`` when given)."""
        check_id_argument(memory_id, "memory_id")
        changes = ttl_changes(ttl_days, ttl_anchor, self.retention)
        if content is not NOT_SET_MARKER:
            changes["content"] = check_stored_text(content, "content")
            changes["embedding"] = self.embed([content])[0]
        if metadata is not NOT_SET_MARKER:
            # the store keeps the LangGraph bookkeeping of what it holds, in the update
            changes["metadata"] = metadata
            changes["keep_bookkeeping"] = True
        if timestamp is not NOT_SET_MARKER:
            changes["timestamp"] = timestamp
        if status is not NOT_SET_MARKER:
            changes["status"] = check_status(status)
        updated = self.backend.update_record(memory_id, list(MEMORY_TYPES), changes, thread_id)
        if updated is None:
            where = f" in thread {thread_id!r}" if thread_id else ""
            raise NotFoundError(f"no memory with id {memory_id!r}{where}")
        return updated["id"]

    # -- records ----------------------------------------------------------------------

    def find(self, record_id: str, record_types: Sequence[str],
             thread_id: str | None = None) -> RecordOut | None:
        """One visible record by id among types (of ``thread_id`` when given)."""
        query: RecordQuery = {"ids": [record_id], "record_types": list(record_types)}
        if thread_id is not None:
            query["thread_id"] = thread_id
        found = self.backend.get_records(query)
        return found[0] if found else None

    def owned_threads(self, column: Literal["user_id", "agent_id"], owner_id: str) -> list[str]:
        """Ids of the threads whose ``column`` (user_id or agent_id) is ``owner_id``."""
        query: RecordQuery = {"record_types": ["thread"]}
        query[column] = owner_id
        return [record["id"] for record in self.backend.get_records(query)]

    # -- background work --------------------------------------------------------------

    def background_queue(self) -> BackgroundExtractionQueue:
        """The extraction queue, started on first use."""
        with self._lock:
            if self._background is None:
                self._background = BackgroundExtractionQueue(background.DEFAULT_QUEUE_SIZE)
            return self._background

    def wait_for_threads(self, thread_ids: list[str] | None,
                         timeout: float | None = 300.0) -> None:
        """Wait for extraction accepted earlier for these threads (None: all threads)."""
        if timeout is not None and (isinstance(timeout, bool)
                                    or not isinstance(timeout, (int, float)) or timeout < 0):
            raise InvalidArgumentError(f"timeout must be None or at least 0, got {timeout!r}")
        if self._background is not None:
            self._background.wait(thread_ids, timeout)

    def has_pending_work(self) -> bool:
        """Is background extraction accepted and not finished yet?"""
        return self._background is not None and self._background.pending() > 0

    def wait_for_owner(self, column: Literal["user_id", "agent_id"], owner_id: str,
                       timeout: float | None = 300.0) -> None:
        """Wait for extraction accepted earlier for the threads of a user or agent; their
        ids are read only when there is work to wait for (a delete stays one store call)."""
        if self.has_pending_work():
            self.wait_for_threads(self.owned_threads(column, owner_id), timeout)

    def close(self, timeout: float | None) -> None:
        """Stop background work (waiting up to ``timeout``, then cancelling what is left),
        release the backend, and close the HTTP connections of the LLMs and the embedder
        (our ``Llm`` and ``Embedder`` reopen them if they are used again)."""
        if self._background is not None:
            self._background.close(timeout)
        try:
            self.backend.close()
        finally:
            for model in (unobserved(self.llm), unobserved(self.pruner_llm),
                          self.embedder.inner if isinstance(self.embedder, ObservedEmbedder)
                          else self.embedder):
                if isinstance(model, (Llm, Embedder)):
                    model.close()


class ServiceHolder(Protocol):
    """What owns a service (the client): a thread built with ``client=`` uses its service."""

    memory_service: MemoryService


def search_result(hit: SearchHit) -> OracleSearchResult:
    """A contract search hit as a public result, with its linked records."""
    linked: list[tuple[RecordRelation, Record]] = []
    linked_results: list[tuple[RecordRelation, SearchResult]] = []
    for item in hit["linked"]:
        relation = relation_of(item["relation"])
        record = to_record(item["record"])
        linked.append((relation, record))
        linked_results.append((relation, OracleSearchResult(hit["distance"], record)))
    return OracleSearchResult(hit["distance"], to_record(hit["record"], linked),
                              linked_results=linked_results)
