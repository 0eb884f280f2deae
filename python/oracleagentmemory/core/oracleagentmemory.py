"""OracleAgentMemory: the client every application starts from."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np

from oracleagentmemory._notset import NOT_SET_MARKER, value_or
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.records import MEMORY_TYPES
from oracleagentmemory.core import scope_resolution
from oracleagentmemory.core.arguments import (
    check_memory_type,
    check_status,
    check_text,
    reject_store_kwargs,
)
from oracleagentmemory.core.async_twins import AsyncTwins
from oracleagentmemory.core.dbschemapolicy import SchemaPolicy
from oracleagentmemory.core.dbsearch import SearchIndexSyncMode, SearchStrategy
from oracleagentmemory.core.extractors.background import BackgroundExtractionQueue
from oracleagentmemory.core.extractors.memoryextractionconfig import MemoryExtractionConfig
from oracleagentmemory.core.imageinputlimitconfig import ImageInputLimitConfig
from oracleagentmemory.core.records import to_record
from oracleagentmemory.core.retention import MemoryRetentionConfig, ttl_changes, ttl_fields
from oracleagentmemory.core.searchconfig import MemorySearchConfig
from oracleagentmemory.core.searchresult import LinkedResult, OracleSearchResult
from oracleagentmemory.core.thread import OracleThread
from oracleagentmemory.core.thread_settings import explicit_settings
from oracleagentmemory.core.tokens import apply_token_budgets
from oracleagentmemory.stores.protocol import StoreBackend

SEARCH_OPTION_NAMES = ("max_results", "token_budget", "soft_token_budget", "num_hops",
                       "max_linked_results", "include_invalid_results")


def open_store(
    connection: Any,
    embedding_dimension: int,
    schema_policy: SchemaPolicy,
    search_strategy: SearchStrategy,
    search_index_sync: SearchIndexSyncMode = SearchIndexSyncMode.ON_COMMIT,
) -> StoreBackend:
    """The backend for a connection argument: a store, an embedded location, or Oracle."""
    if isinstance(connection, StoreBackend):
        return connection
    if isinstance(connection, (str, os.PathLike)):
        from oracleagentmemory.stores.embedded import EmbeddedBackend

        return EmbeddedBackend(
            connection,
            embedding_dimension=embedding_dimension,
            schema_policy=schema_policy.value,
            search_strategy=search_strategy.value,
        )
    if hasattr(connection, "acquire") or hasattr(connection, "cursor"):
        from oracleagentmemory.stores.oracle import OracleBackend

        return OracleBackend(
            connection,
            embedding_dimension=embedding_dimension,
            schema_policy=schema_policy.value,
            search_strategy=search_strategy.value,
            sync_mode=search_index_sync.value,
        )
    raise TypeError(
        "connection must be an oracledb connection or pool, a path to an embedded store file, "
        f"':memory:', or a StoreBackend; got {type(connection).__name__}"
    )


class OracleAgentMemory(AsyncTwins):
    """Agent memory client backed by Oracle AI Database or an embedded store.

    ``connection`` is an ``oracledb`` connection or pool, an embedded store location (a file
    path or ``":memory:"``) or a ready :class:`StoreBackend`. Without ``embedder`` the local
    all-MiniLM-L6-v2 model is used, offline and on the CPU.
    """

    def __init__(
        self,
        connection: Any,
        embedder: IEmbedder | None = None,
        llm: ILlm | None = None,
        *,
        memory_extraction_config: MemoryExtractionConfig | None = None,
        schema_policy: SchemaPolicy = SchemaPolicy.CREATE_IF_NECESSARY,
        search_strategy: SearchStrategy = SearchStrategy.VECTOR,
        search_index_sync: SearchIndexSyncMode = SearchIndexSyncMode.ON_COMMIT,
        retention_config: MemoryRetentionConfig | None = None,
        search_config: MemorySearchConfig | None = None,
        image_input_limit_config: ImageInputLimitConfig | None = None,
        close_timeout: float = 30.0,
    ) -> None:
        if embedder is None:
            from oracleagentmemory.core.embedders import default_embedder

            embedder = default_embedder()
        if not isinstance(embedder, IEmbedder):
            raise TypeError(f"embedder must be an IEmbedder, got {type(embedder).__name__}")
        if llm is not None and not isinstance(llm, ILlm):
            raise TypeError(f"llm must be an ILlm or None, got {type(llm).__name__}")
        self.embedder = embedder
        self.llm = llm
        self.schema_policy = SchemaPolicy(schema_policy)
        self.search_strategy = SearchStrategy(search_strategy)
        self.search_index_sync = SearchIndexSyncMode(search_index_sync)
        self.retention_config = retention_config or MemoryRetentionConfig()
        self.search_config = search_config or MemorySearchConfig()
        self.close_timeout = close_timeout
        self._client_settings = explicit_settings({
            "memory_extraction_config": memory_extraction_config,
            "image_input_limit_config": image_input_limit_config,
            "search_config": search_config,
        })
        self.store = open_store(
            connection, embedder.embedding_dimension, self.schema_policy, self.search_strategy,
            self.search_index_sync,
        )
        self._closed = False
        self._background: BackgroundExtractionQueue | None = None
        self._background_lock = threading.Lock()

    # -- background extraction --------------------------------------------------------

    def _background_queue(self) -> BackgroundExtractionQueue:
        """The client's extraction queue, started on first use."""
        with self._background_lock:
            if self._background is None:
                size = MemoryExtractionConfig(**self._client_settings.get(
                    "memory_extraction_config", {})).resolved().background_extraction_queue_size
                self._background = BackgroundExtractionQueue(queue_size=size)
            return self._background

    def _wait_for_threads(self, thread_ids: list[str] | None,
                          timeout: float | None = 300) -> None:
        """Wait for extraction this client accepted earlier for these threads (all: None)."""
        if timeout is not None and timeout < 0:
            raise ValueError("timeout must be None or at least 0")
        if self._background is not None:
            self._background.wait(thread_ids, timeout)

    def _owned_threads(self, column: str, owner_id: str) -> list[str]:
        return [record["id"] for record in self.store.get_records(
            {"record_types": ["thread"], column: owner_id})]

    # -- embeddings -------------------------------------------------------------------

    def _embed(self, texts: Sequence[str], is_query: bool = False) -> list[np.ndarray]:
        if not texts:
            return []
        vectors = np.asarray(self.embedder.embed(list(texts), is_query=is_query),
                             dtype=np.float32)
        if vectors.shape != (len(texts), self.embedder.embedding_dimension):
            raise ValueError(
                f"the embedder returned shape {vectors.shape}, expected "
                f"({len(texts)}, {self.embedder.embedding_dimension})"
            )
        return list(vectors)

    # -- profiles ---------------------------------------------------------------------

    def add_user(self, user_id: str, content: str = "", metadata: dict[str, Any] | None = None,
                 **store_kwargs: Any) -> str:
        """Store a user profile; its id is the ``user_id`` the application uses."""
        return self._add_profile("user_profile", "user_id", user_id, content, metadata,
                                 "add_user", store_kwargs)

    def add_agent(self, agent_id: str, content: str = "", metadata: dict[str, Any] | None = None,
                  **store_kwargs: Any) -> str:
        """Store an agent profile; its id is the ``agent_id`` the application uses."""
        return self._add_profile("agent_profile", "agent_id", agent_id, content, metadata,
                                 "add_agent", store_kwargs)

    def _add_profile(self, record_type: str, scope_key: str, profile_id: str, content: str,
                     metadata: dict[str, Any] | None, method: str,
                     store_kwargs: dict[str, Any]) -> str:
        reject_store_kwargs(method, store_kwargs)
        check_text(profile_id, scope_key)
        check_text(content, "content")
        record = {
            "record_type": record_type, "id": profile_id, scope_key: profile_id,
            "content": content, "metadata": metadata, "embedding": self._embed([content])[0],
        }
        return self.store.write_records([record])[0]

    def delete_user(self, user_id: str) -> int:
        """Delete a user profile and everything scoped to the user, in one transaction.

        Waits first for background extraction this client accepted for the user's threads.
        """
        check_text(user_id, "user_id")
        self._wait_for_threads(self._owned_threads("user_id", user_id))
        return self.store.delete_cascade("user", user_id)["owner"]

    def delete_agent(self, agent_id: str) -> int:
        """Delete an agent profile and everything scoped to the agent, in one transaction.

        Waits first for background extraction this client accepted for the agent's threads.
        """
        check_text(agent_id, "agent_id")
        self._wait_for_threads(self._owned_threads("agent_id", agent_id))
        return self.store.delete_cascade("agent", agent_id)["owner"]

    # -- threads ----------------------------------------------------------------------

    def create_thread(
        self,
        thread_id: str | None = None,
        user_id: Any = NOT_SET_MARKER,
        agent_id: Any = NOT_SET_MARKER,
        metadata: dict[str, Any] | None = None,
        llm: Any = NOT_SET_MARKER,
        **settings: Any,
    ) -> OracleThread:
        """Create and persist a thread; omitted ids are generated."""
        thread_id = thread_id if thread_id is not None else uuid.uuid4().hex
        check_text(thread_id, "thread_id")
        stored = self._settings_from_arguments("create_thread", settings)
        record = {
            "record_type": "thread", "id": thread_id, "thread_id": thread_id,
            "user_id": user_id if user_id is not NOT_SET_MARKER else uuid.uuid4().hex,
            "agent_id": agent_id if agent_id is not NOT_SET_MARKER else uuid.uuid4().hex,
            "metadata": metadata, "config": {"settings": stored, "state": {}},
        }
        self.store.write_records([record])
        return self._thread_from_record(self._load_thread(thread_id), llm, {})

    def get_thread(self, thread_id: str, llm: Any = NOT_SET_MARKER, **overrides: Any
                   ) -> OracleThread:
        """Reopen a thread; explicit overrides win over its stored runtime configuration."""
        call = self._settings_from_arguments("get_thread", overrides)
        return self._thread_from_record(self._load_thread(thread_id), llm, call)

    def update_thread(self, thread_id: str, metadata: Any = NOT_SET_MARKER,
                      **settings: Any) -> OracleThread:
        """Persist new metadata (replaced whole) and durable runtime settings."""
        call = self._settings_from_arguments("update_thread", settings)
        record = self._load_thread(thread_id)
        config = record.get("config") or {}
        changes: dict[str, Any] = {"config": {
            **config, "settings": {**config.get("settings", {}), **call},
        }}
        if metadata is not NOT_SET_MARKER:
            changes["metadata"] = metadata
        updated = self.store.update_record(thread_id, ["thread"], changes)
        if updated is None:
            raise KeyError(f"thread {thread_id!r} does not exist")
        return self._thread_from_record(updated, NOT_SET_MARKER, {})

    def delete_thread(self, thread_id: str) -> int:
        """Delete a thread with its messages, memories, summaries, images and links.

        Waits first for background extraction this client accepted for the thread.
        """
        check_text(thread_id, "thread_id")
        self._wait_for_threads([thread_id])
        return self.store.delete_cascade("thread", thread_id)["owner"]

    def _settings_from_arguments(self, method: str, arguments: dict[str, Any]) -> dict[str, Any]:
        from oracleagentmemory.core.thread_settings import (
            DEPRECATED_EXTRACTION_ARGUMENTS,
            SETTING_NAMES,
        )

        unknown = set(arguments) - set(SETTING_NAMES) - set(DEPRECATED_EXTRACTION_ARGUMENTS)
        if unknown:
            raise TypeError(
                f"{method}() got unexpected keyword argument(s): {', '.join(sorted(unknown))}"
            )
        return explicit_settings(arguments)

    def _load_thread(self, thread_id: str) -> dict[str, Any]:
        check_text(thread_id, "thread_id")
        found = self.store.get_records({"ids": [thread_id], "record_types": ["thread"]})
        if not found:
            raise KeyError(f"thread {thread_id!r} does not exist")
        return found[0]

    def _thread_from_record(self, record: dict[str, Any], llm: Any,
                            call: dict[str, Any]) -> OracleThread:
        return OracleThread._from_store(
            client=self,
            record=record,
            llm=value_or(llm, self.llm),
            call_settings=call,
        )

    # -- memories ---------------------------------------------------------------------

    def add_memory(
        self,
        content: str,
        user_id: str | None = None,
        agent_id: str | None = None,
        thread_id: str | None = None,
        memory_id: str | None = None,
        memory_type: Any = NOT_SET_MARKER,
        metadata: dict[str, Any] | None = None,
        timestamp: str | None = None,
        ttl_days: Any = NOT_SET_MARKER,
        ttl_anchor: Any = NOT_SET_MARKER,
        status: Any = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> str:
        """Add a memory attributed to the given user, agent and thread."""
        reject_store_kwargs("add_memory", store_kwargs)
        return self._write_memory(
            content, {"user_id": user_id, "agent_id": agent_id, "thread_id": thread_id},
            memory_id, memory_type, metadata, timestamp, ttl_days, ttl_anchor, status,
        )

    def _write_memory(self, content: Any, scope: dict[str, Any], memory_id: Any,
                      memory_type: Any, metadata: Any, timestamp: Any, ttl_days: Any,
                      ttl_anchor: Any, status: Any, links: Sequence[dict] = ()) -> str:
        check_text(content, "content")
        if memory_id is not None and memory_id is not NOT_SET_MARKER:
            check_text(memory_id, "memory_id")
        record = {
            "record_type": check_memory_type(memory_type),
            "id": value_or(memory_id, None) or uuid.uuid4().hex,
            **scope,
            "content": content,
            "metadata": metadata,
            "timestamp": timestamp,
            "status": check_status(status),
            **ttl_fields(ttl_days, ttl_anchor, self.retention_config),
            "embedding": self._embed([content])[0],
        }
        links = [{**link, "source_id": record["id"], "source_type": record["record_type"]}
                 for link in links]
        return self.store.write_records([record], links=links)[0]

    def update_memory(
        self,
        memory_id: str,
        content: Any = NOT_SET_MARKER,
        metadata: Any = NOT_SET_MARKER,
        timestamp: Any = NOT_SET_MARKER,
        ttl_days: Any = NOT_SET_MARKER,
        ttl_anchor: Any = NOT_SET_MARKER,
        status: Any = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> str:
        """Update a memory-like record; omitted fields and the scope stay as stored."""
        reject_store_kwargs("update_memory", kwargs)
        return self._update_memory(memory_id, None, content, metadata, timestamp, ttl_days,
                                   ttl_anchor, status)

    def _update_memory(self, memory_id: Any, thread_id: str | None, content: Any,
                       metadata: Any, timestamp: Any, ttl_days: Any, ttl_anchor: Any,
                       status: Any) -> str:
        check_text(memory_id, "memory_id")
        changes: dict[str, Any] = ttl_changes(ttl_days, ttl_anchor, self.retention_config)
        if content is not NOT_SET_MARKER:
            changes["content"] = check_text(content, "content")
            changes["embedding"] = self._embed([content])[0]
        if metadata is not NOT_SET_MARKER:
            changes["metadata"] = metadata
        if timestamp is not NOT_SET_MARKER:
            changes["timestamp"] = timestamp
        if status is not NOT_SET_MARKER:
            changes["status"] = check_status(status)
        updated = self.store.update_record(memory_id, list(MEMORY_TYPES), changes, thread_id)
        if updated is None:
            where = f" in thread {thread_id!r}" if thread_id else ""
            raise KeyError(f"no memory with id {memory_id!r}{where}")
        return updated["id"]

    def delete_memory(self, memory_id: str) -> int:
        """Delete a memory-like record (memory, fact, preference or guideline) by id."""
        check_text(memory_id, "memory_id")
        found = self.store.get_records({"ids": [memory_id], "record_types": list(MEMORY_TYPES)})
        if found and found[0]["thread_id"] is not None:
            self._wait_for_threads([found[0]["thread_id"]])
        return self.store.delete_records([memory_id], list(MEMORY_TYPES))

    # -- search -----------------------------------------------------------------------

    def search(
        self,
        query: str,
        user_id: Any = NOT_SET_MARKER,
        agent_id: Any = NOT_SET_MARKER,
        thread_id: Any = NOT_SET_MARKER,
        exact_user_match: Any = NOT_SET_MARKER,
        exact_agent_match: Any = NOT_SET_MARKER,
        exact_thread_match: Any = NOT_SET_MARKER,
        max_results: Any = NOT_SET_MARKER,
        token_budget: Any = NOT_SET_MARKER,
        soft_token_budget: Any = NOT_SET_MARKER,
        record_types: Any = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None = None,
        include_invalid_results: Any = NOT_SET_MARKER,
        num_hops: Any = NOT_SET_MARKER,
        max_linked_results: Any = NOT_SET_MARKER,
        scope: Any = NOT_SET_MARKER,
    ) -> list[OracleSearchResult]:
        """Search records relevant to ``query``; ``user_id`` (or a scope with it) is required."""
        values = scope_resolution.scope_arguments(scope, {
            "user_id": user_id, "agent_id": agent_id, "thread_id": thread_id,
            "exact_user_match": exact_user_match, "exact_agent_match": exact_agent_match,
            "exact_thread_match": exact_thread_match,
        })
        return self._search(
            query, scope_resolution.client_scope(values), self.search_config,
            dict(max_results=max_results, token_budget=token_budget,
                 soft_token_budget=soft_token_budget, num_hops=num_hops,
                 max_linked_results=max_linked_results,
                 include_invalid_results=include_invalid_results),
            record_types, metadata_filter,
        )

    def _search(self, query: Any, dims: dict[str, Any], config: MemorySearchConfig,
                options: dict[str, Any], record_types: Any, metadata_filter: Any,
                exclude_ids: Sequence[str] = ()) -> list[OracleSearchResult]:
        check_text(query, "query")
        resolved = {name: value_or(options.get(name, NOT_SET_MARKER), getattr(config, name))
                    for name in SEARCH_OPTION_NAMES}
        max_results = resolved["max_results"]
        if isinstance(max_results, bool) or not isinstance(max_results, int) or max_results < 1:
            raise ValueError(f"max_results must be an integer of at least 1, got {max_results!r}")
        if record_types is not NOT_SET_MARKER and record_types is not None and (
            isinstance(record_types, str) or not isinstance(record_types, (list, tuple))
        ):
            raise ValueError("record_types must be a list of record type names")
        strategy = self.search_strategy.value
        request = {
            "query_text": query,
            "query_vector": (None if strategy == "KEYWORD"
                             else self._embed([query], is_query=True)[0]),
            "strategy": strategy,
            "scope": dims,
            "record_types": list(value_or(record_types, None) or []),
            "metadata_filter": metadata_filter,
            "include_invalid": resolved["include_invalid_results"],
            "max_results": max_results + len(exclude_ids),
            "num_hops": resolved["num_hops"],
            "max_linked_results": resolved["max_linked_results"],
        }
        hits = [hit for hit in self.store.search(request)
                if hit["record"]["id"] not in exclude_ids][:max_results]
        results = [
            OracleSearchResult(
                distance=hit["distance"],
                record=to_record(hit["record"]),
                linked_results=[
                    LinkedResult(record=to_record(link["record"]),
                                 relation_type=link["relation_type"],
                                 relation_id=link["relation_id"],
                                 via_record_id=link["via_record_id"], hops=link["hops"])
                    for link in hit["linked"]
                ],
            )
            for hit in hits
        ]
        return apply_token_budgets(results, lambda r: r.formatted_content,
                                   resolved["token_budget"], resolved["soft_token_budget"])

    # -- lifecycle --------------------------------------------------------------------

    def wait_for_memory_extraction(self, timeout: float | None = 300) -> None:
        """Wait for background extraction this client accepted before the call, all threads.

        Failed extraction counts as finished; TimeoutError when the timeout expires first.
        """
        self._wait_for_threads(None, timeout)

    def purge_expired(self) -> int:
        """Physically remove expired records now (reads never show them anyway)."""
        return self.store.purge_expired()

    def close(self) -> None:
        """Stop accepting background work, wait for it up to ``close_timeout``, release the
        store. Returns even when the wait times out. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._background is not None:
            self._background.close(self.close_timeout)
        self.store.close()

    def __enter__(self) -> OracleAgentMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    _async_twins = (
        "add_user", "add_agent", "delete_user", "delete_agent", "create_thread", "get_thread",
        "update_thread", "delete_thread", "add_memory", "update_memory", "delete_memory",
        "search", "wait_for_memory_extraction", "close",
    )
