"""From the client's (or a standalone thread's) arguments to the service they share.

A caller gives a ``store`` (our :class:`OracleDBMemoryStore`, or any implementation of the
public store interface) or a ``connection`` (an ``oracledb`` pool or connection, an
embedded file path, ``":memory:"``). Our own store is used through its backend directly;
any other store goes through :class:`InterfaceBackend`, one adapter for all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER, value_or
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.apis.memorystore import IMemoryStore
from oracleagentmemory.core.dbschemapolicy import SchemaPolicy
from oracleagentmemory.core.dbsearch import SearchIndexSyncMode, SearchStrategy
from oracleagentmemory.core.embedders import settle_default_embedder
from oracleagentmemory.core.memory_service import MemoryService
from oracleagentmemory.core.oracledbmemorystore import OracleDBMemoryStore
from oracleagentmemory.core.retention import MemoryRetentionConfig
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError
from oracleagentmemory.stores.interface_backend import InterfaceBackend
from oracleagentmemory.stores.protocol import StoreBackend


def resolve_embedder(embedder: Any, default: bool) -> IEmbedder | None:
    """An IEmbedder from the ``embedder`` argument: an instance, a model name, or (omitted)
    the default local model when ``default`` (the store may swap it for the model of its
    vectors: ``settle_default_embedder``), else None."""
    if embedder is NOT_SET_MARKER or embedder is None:
        if not default:
            return None
        from oracleagentmemory.core.embedders import default_embedder

        return default_embedder()
    if isinstance(embedder, str):
        from oracleagentmemory.core.embedders.embedder import Embedder

        return Embedder(embedder)
    if not isinstance(embedder, IEmbedder):
        raise ArgumentTypeError(
            f"embedder must be an IEmbedder or a model name, got {type(embedder).__name__}")
    return embedder


@dataclass(frozen=True)
class OpenedStore:
    """The public store, the contract backend behind it, and how to use it."""

    store: IMemoryStore
    backend: StoreBackend
    embedder: IEmbedder | None
    strategy: SearchStrategy
    memory_store_id: str
    strategy_given: bool = True
    """False when the caller left ``search_strategy`` unset (``strategy`` is the default)."""


def open_store(*, store: Any, connection: Any, embedder: Any, schema_policy: Any,
               memory_store_id: Any, table_name_prefix: Any, schema_owner: Any,
               search_strategy: Any, search_index_sync: Any,
               retention: MemoryRetentionConfig) -> OpenedStore:
    """The store for the client's arguments: the caller's, or one opened on a connection.

    A store given as ``connection`` counts as ``store`` (so code written for a pool runs
    unchanged on a caller's store)."""
    if store is NOT_SET_MARKER and isinstance(connection, IMemoryStore):
        store, connection = connection, NOT_SET_MARKER
    if (store is NOT_SET_MARKER) == (connection is NOT_SET_MARKER):
        raise InvalidArgumentError("pass exactly one of store or connection")
    if store is not NOT_SET_MARKER:
        if not isinstance(store, IMemoryStore):
            raise ArgumentTypeError(
                f"store must be an IMemoryStore (for example OracleDBMemoryStore), got "
                f"{type(store).__name__}")
        if isinstance(store, OracleDBMemoryStore):
            return OpenedStore(store, store.backend,
                               resolve_embedder(embedder, default=False) or store.embedder,
                               store.search_strategy, store.memory_store_id,
                               store._strategy_given)
        strategy = SearchStrategy(value_or(search_strategy, SearchStrategy.VECTOR))
        return OpenedStore(store, InterfaceBackend(store),
                           resolve_embedder(embedder, default=False), strategy,
                           str(value_or(memory_store_id, type(store).__name__)),
                           search_strategy is not NOT_SET_MARKER)
    model = resolve_embedder(embedder, default=True)
    opened = OracleDBMemoryStore(
        model, connection,
        schema_policy=SchemaPolicy(value_or(schema_policy, SchemaPolicy.CREATE_IF_NECESSARY)),
        table_name_prefix=table_name_prefix,
        search_strategy=search_strategy,
        search_index_sync=SearchIndexSyncMode(
            value_or(search_index_sync, SearchIndexSyncMode.ON_COMMIT)),
        memory_retention_config=retention, memory_store_id=memory_store_id,
        schema_owner=schema_owner)
    return OpenedStore(opened, opened.backend, opened.embedder, opened.search_strategy,
                       opened.memory_store_id, opened._strategy_given)


def service_for_store(store: Any) -> MemoryService:
    """The service of a standalone thread: its store (or backend, or connection) alone."""
    if isinstance(store, OracleDBMemoryStore):
        return MemoryService(store.backend, store.embedder, retention=store.retention,
                             strategy=store.search_strategy,
                             strategy_given=store._strategy_given)
    if isinstance(store, IMemoryStore):
        return MemoryService(InterfaceBackend(store), None, strategy=SearchStrategy.VECTOR)
    if isinstance(store, StoreBackend):
        return MemoryService(store, settle_default_embedder(
            store, resolve_embedder(NOT_SET_MARKER, default=True)), strategy_given=False)
    opened = OracleDBMemoryStore(resolve_embedder(NOT_SET_MARKER, default=True), store,
                                 schema_policy=SchemaPolicy.CREATE_IF_NECESSARY)
    return MemoryService(opened.backend, opened.embedder, strategy=opened.search_strategy,
                         strategy_given=False)
