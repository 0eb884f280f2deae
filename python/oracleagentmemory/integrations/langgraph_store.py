"""A LangGraph ``BaseStore`` kept in OracleAgentMemory: graph memories become agent memories.

Each item is a memory record whose metadata holds the item's identity and its value
(``{"langgraph": {...namespace, key, prefixes...}, "value": {...}}``), so values round-trip
exactly and the rest of the memory system sees them under the scope the namespace maps to
(see :mod:`oracleagentmemory.integrations.langgraph_namespaces`). Semantic search uses the
client's embedder on the texts the index ``fields`` select, one vector per text (extra
texts are stored as extra records of the item; the best one ranks it, as LangGraph's
in-memory store does). Needs the ``langgraph`` extra.

The index is configured as for every LangGraph store: ``index={"embed": ..., "dims": ...,
"fields": [...]}``, ``embed`` being a LangChain ``Embeddings``, a function or a
``"provider:model"`` string (``store.embeddings``); without ``embed`` the client's embedder
indexes. :meth:`OracleAgentMemoryStore.from_conn_string` opens a store on an embedded file
the way LangGraph's SQLite store does. Differences from LangGraph's ``InMemoryStore``:
semantic search is always on; scores are cosine similarities (``distance_type`` other
than ``"cosine"`` is refused); without a query, items come oldest-write first; an expired
item is never read, whatever ``omit_expired`` says.

TTL (``supports_ttl``, as LangGraph's Postgres store): ``put(..., ttl=minutes)`` (or the
``ttl`` config's ``default_ttl``) gives an item an expiry; an expired item is invisible to
every read at once, a read with ``refresh_ttl`` (by default ``refresh_on_read``) restarts
its time, and :meth:`OracleAgentMemoryStore.sweep_ttl` (or the sweeper thread
:meth:`~OracleAgentMemoryStore.start_ttl_sweeper` runs every ``sweep_interval_minutes``)
removes expired records physically. Items without a TTL follow the client's retention.

The bookkeeping (namespace, key, prefixes, parts, TTL) stays in the LangGraph view: the
client's searches, lists and context cards, the MCP server and the command line see an
item's metadata as ``{"value": ...}`` (``core.records.public_metadata``).

No checkpointer: a LangGraph checkpointer stores opaque, versioned graph state written at
every step and read back by id, which has no text to embed or search and no scope; it
belongs in a store made for it (``langgraph-checkpoint-sqlite``, or an Oracle one), not in
memory records (docs/langgraph.md).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import json
import logging
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any

import numpy as np

from oracleagentmemory._distribution import install_hint
from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.core.records import contract_strategy
from oracleagentmemory.core.retention import capped_days, ttl_fields
from oracleagentmemory.errors import InvalidArgumentError
from oracleagentmemory.integrations.langgraph_filters import (
    check_filter,
    matches,
    store_filter,
)
from oracleagentmemory.integrations.langgraph_namespaces import (
    ENVELOPE,
    VALUE,
    NamespaceMapper,
    default_namespace_mapper,
    envelope,
    item_id,
    part_id,
    prefix_filter,
)
from oracleagentmemory.stores.limits import check_json
from oracleagentmemory.stores.protocol import RecordIn, RecordOut, RecordQuery
from oracleagentmemory.stores.timestamps import parse_iso, to_text, utc_now

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        IndexConfig,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        get_text_at_path,
        tokenize_path,
    )
    from langgraph.store.base.embed import EmbeddingsLambda, ensure_embeddings
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(f"the LangGraph store needs LangGraph: {install_hint('langgraph')}"
                      ) from error

try:
    from langgraph.store.base import validate_op_namespace
except ImportError:  # pragma: no cover - older langgraph-checkpoint releases

    def validate_op_namespace(op: Op) -> None:
        """Labels are joined with '.', so a label must be a non-empty str without one."""
        if isinstance(op, ListNamespacesOp):
            paths = [condition.path for condition in op.match_conditions or ()]
        else:
            paths = [op.namespace_prefix if isinstance(op, SearchOp) else op.namespace]
        for path in paths:
            for label in path:
                if not isinstance(label, str) or not label or "." in label:
                    from langgraph.store.base import InvalidNamespaceError

                    raise InvalidNamespaceError(f"Invalid namespace label {label!r} in {path}")

__all__ = ["OracleAgentMemoryStore"]

logger = logging.getLogger(__name__)

_TtlSeen = dict[str, tuple[float, int]]
"""Item id -> (TTL in minutes, number of records) of the items a batch read."""
_MINUTES_PER_DAY = 24 * 60
_LANGGRAPH = os.path.dirname(inspect.getfile(BaseStore))
"""The directory of LangGraph's store base, whose ``put``, ``get``... call ``batch`` for
the caller."""
_MAX_TTL_MINUTES = 8_000 * 366 * _MINUTES_PER_DAY
"""Longer ends past the year 9999 from any day of this millennium (a shorter TTL that
still does is refused where its expiry is computed, naming ``ttl_days``)."""

_DISTANCE_TYPES = ("cosine",)
"""The ``index['distance_type']`` values honoured: the store ranks by cosine distance and
scores ``1 - distance`` (LangGraph's Postgres store also offers "l2" and "inner_product")."""

_MAX_FETCH = 10_000
"""Upper bound on records one search reads while refilling after Python-side filtering."""


_CALLER_LOOP: ContextVar[asyncio.AbstractEventLoop | None] = ContextVar(
    "oracleagentmemory_langgraph_caller_loop", default=None)
"""The event loop of the ``abatch`` whose ``batch`` runs in this worker thread: an async
``index["embed"]`` function runs there (LangGraph gives such a function no sync form)."""


class OracleAgentMemoryStore(BaseStore):
    """LangGraph store backed by an ``OracleAgentMemory`` client (embedded or Oracle).

    The item methods ``get``, ``put``, ``search``, ``delete``, ``list_namespaces`` and
    their async twins ``aget``, ``aput``, ``asearch``, ``adelete``, ``alist_namespaces``
    are LangGraph's ``BaseStore`` methods, with LangGraph's arguments and results
    (documented by LangGraph); each runs one ``batch`` (``abatch``), so its errors are
    those listed there. ``put(..., ttl=minutes)`` gives an item an expiry.

    Args:
        client: The memory client whose store keeps the items (and whose embedder indexes
            them when ``index`` has no ``embed``); the caller keeps and closes it.
        index: LangGraph's ``IndexConfig``: ``embed`` (a LangChain ``Embeddings``, a
            function from texts to vectors, or a ``"provider:model"`` string as
            ``init_embeddings`` takes; it needs ``dims``, which must be the dimension of
            the client's store), ``dims``, ``fields`` (the paths to embed, default
            ``["$"]``: the whole value) and ``distance_type`` (only ``"cosine"``). None
            (the default): the client's embedder indexes every item on its whole value.
        namespace_mapper: Turns a namespace into the scope its items get. Default:
            ``default_namespace_mapper`` (the label after ``"users"`` is the user id, after
            ``"agents"`` the agent id, after ``"threads"`` the thread id).
        memory_type: The record type items are stored as. Default: ``"memory"``.
        ttl: LangGraph's ``TTLConfig``: ``default_ttl`` (minutes) for puts that give none,
            ``refresh_on_read`` (default True) and ``sweep_interval_minutes``, which starts
            the sweeper thread now. None (the default): items without a TTL follow the
            client's retention, and no sweeper runs.

    Raises:
        InvalidArgumentError: ``memory_type`` is not a memory type; ``index`` has ``embed``
            without ``dims``, a ``dims`` other than the dimension of the client's store
            (or, without ``embed``, of its embedder), or a ``distance_type`` other than
            ``"cosine"`` (a ``ValueError``).
    """

    supports_ttl = True
    embeddings: Any
    """The LangChain ``Embeddings`` made from ``index["embed"]``, or None when the client's
    embedder indexes the items."""

    def __init__(self, client: OracleAgentMemory, *, index: IndexConfig | None = None,
                 namespace_mapper: NamespaceMapper = default_namespace_mapper,
                 memory_type: str = "memory", ttl: TTLConfig | None = None) -> None:
        if memory_type not in MEMORY_TYPES:
            raise InvalidArgumentError(f"memory_type must be one of {', '.join(MEMORY_TYPES)}")
        config: dict[str, Any] = dict(index or {})
        distance_type = config.get("distance_type", "cosine")
        if distance_type not in _DISTANCE_TYPES:
            raise InvalidArgumentError(
                f"index['distance_type'] {distance_type!r} is not supported: this store ranks "
                "by cosine distance and scores 1 - distance; leave it out or give 'cosine'")
        self._index_model = _checked_index(client, config)
        self.embeddings = None if self._index_model is None else self._index_model.embeddings
        self.client = client
        self.index_config = config
        self.fields = _index_paths(config.get("fields") or ["$"])
        self.namespace_mapper = namespace_mapper
        self.memory_type = memory_type
        self.ttl_config = ttl
        self._sweeper: tuple[threading.Thread, concurrent.futures.Future[None],
                             threading.Event] | None = None
        if ttl and ttl.get("sweep_interval_minutes"):
            self.start_ttl_sweeper()

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str, *, index: IndexConfig | None = None,
                         ttl: TTLConfig | None = None,
                         namespace_mapper: NamespaceMapper = default_namespace_mapper,
                         memory_type: str = "memory") -> Iterator[OracleAgentMemoryStore]:
        """A store on an embedded file (or ``":memory:"``), as LangGraph's SQLite store
        opens one: its own client, closed when the ``with`` block ends. With
        ``index["embed"]``, that model is the client's embedder too, so the client's own
        searches of these items use the same vectors.

        Args:
            conn_string: The embedded store's file, or ``":memory:"``.
            index: As for the constructor. None (the default): the library's default model
                indexes every item on its whole value.
            ttl: As for the constructor.
            namespace_mapper: As for the constructor.
            memory_type: As for the constructor.

        Returns:
            A context manager giving the store; the sweeper thread, if ``ttl`` started one,
            stops when it ends.

        Raises:
            InvalidArgumentError: As for the constructor (a ``ValueError``).
        """
        embed = (index or {}).get("embed")
        embedder: Any = NOT_SET_MARKER
        if embed is not None:
            embedder = LangChainEmbedder(embed, _dims(index or {}))
        with OracleAgentMemory(connection=conn_string, embedder=embedder) as client:
            store = cls(client, index=index, ttl=ttl, namespace_mapper=namespace_mapper,
                        memory_type=memory_type)
            try:
                yield store
            finally:
                store.stop_ttl_sweeper()

    def _embed(self, texts: list[str], *, is_query: bool = False) -> list[np.ndarray | None]:
        """The vectors of ``texts``: from ``index["embed"]`` when given, else from the
        client's embedder."""
        if self._index_model is None:
            return self.client.memory_service.embed(texts, is_query=is_query)
        return list(self._index_model.embed(texts, is_query=is_query)) if texts else []

    # -- batches ----------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run LangGraph operations: reads see the state before the batch, then the writes
        apply in one atomic store write (of two puts to the same item, the last wins).

        Args:
            ops: ``GetOp``, ``SearchOp``, ``ListNamespacesOp`` and ``PutOp`` operations (a
                ``PutOp`` with value None deletes).

        Returns:
            One result per operation, in order: an ``Item`` or None, a list of
            ``SearchItem``, a list of namespaces, None for a put.

        Raises:
            ValueError: A namespace label is empty, not a str, or has a period (LangGraph's
                ``InvalidNamespaceError``).
            InvalidArgumentError: A ``ttl`` is not a positive number of minutes or ends
                after the year 9999, a put's value holds a number or a field name a stored
                record cannot (docs/reliability.md, Limits), a search's
                ``limit`` or ``offset`` is negative, a filter operator or a match type is
                not supported, or an operation is of an unknown type (a ``ValueError``).
            TypeError: A put's value is not JSON-serialisable.
            LlmError: A remote embedder failed while indexing or embedding a query.
            AccessDeniedError: Inside an end-user security context, a write the end user
                may not make (a ``PermissionError``).
        """
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        results: list[Result] = [None] * len(ops)
        seen: _TtlSeen = {}
        gets = [(i, op) for i, op in enumerate(ops) if isinstance(op, GetOp)]
        if gets:
            found = self._get_items([(op.namespace, op.key) for _, op in gets], seen)
            for i, op in gets:
                results[i] = found.get(item_id(op.namespace, op.key))
            self._refresh([item_id(op.namespace, op.key) for _, op in gets
                           if op.refresh_ttl], seen)
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for i, op in enumerate(ops):
            if isinstance(op, SearchOp):
                found_items = self._search(op, seen)
                results[i] = found_items
                if op.refresh_ttl:
                    self._refresh([item_id(item.namespace, item.key) for item in found_items],
                                  seen)
            elif isinstance(op, ListNamespacesOp):
                results[i] = self._list_namespaces(op)
            elif isinstance(op, PutOp):
                if op.ttl is not None and (not isinstance(op.ttl, int | float)
                                           or isinstance(op.ttl, bool) or op.ttl <= 0):
                    raise InvalidArgumentError(
                        f"ttl must be a positive number of minutes, got {op.ttl!r}")
                if op.ttl is not None and not op.ttl < _MAX_TTL_MINUTES:
                    raise InvalidArgumentError(
                        f"ttl of {op.ttl!r} minutes ends after the year 9999")
                if op.value is not None:  # what a stored record holds (stores/limits.py)
                    check_json(dict(op.value), f"the value of item {op.key!r}")
                puts[(tuple(op.namespace), op.key)] = op
            elif not isinstance(op, GetOp):
                raise InvalidArgumentError(f"Unknown operation type: {type(op)}")
        if puts:
            self._apply_puts(list(puts.values()))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Asynchronous form of ``batch``: same argument, result and errors; runs in a worker
        thread, so the event loop stays free.

        Args:
            ops: As for ``batch``.

        Returns:
            As for ``batch``.

        Raises:
            ValueError: As for ``batch``.
            TypeError: As for ``batch``.
            LlmError: As for ``batch``.
            PermissionError: As for ``batch``.
        """
        ops = list(ops)
        # asyncio.to_thread runs it in a copy of the caller's context (an end user's
        # security context included, and this loop for an async embedding function);
        # loop.run_in_executor copies none.
        token = _CALLER_LOOP.set(asyncio.get_running_loop())
        try:
            return await asyncio.to_thread(self.batch, ops)
        finally:
            _CALLER_LOOP.reset(token)

    # -- reads ------------------------------------------------------------------------

    def _records(self, ids: Sequence[str] | None = None,
                 metadata_filter: dict[str, Any] | None = None,
                 limit: int | None = None) -> list[RecordOut]:
        query: RecordQuery = {"record_types": [self.memory_type], "limit": limit}
        if ids is not None:
            query["ids"] = list(ids)
        if metadata_filter:
            query["metadata_filter"] = metadata_filter
        return self.client.memory_service.backend.get_records(query)

    def _genuine(self, record: RecordOut) -> bool:
        """A record this store wrote: its id is the one its namespace and key give, and its
        scope the one its namespace maps to. Anyone may write a memory whose metadata looks
        like an item's (another user through MCP, a message whose metadata extracted
        memories inherit); such a record is never served as an item."""
        identity = (record.get("metadata") or {}).get(ENVELOPE)
        if not isinstance(identity, dict):
            return False
        namespace, key, part = identity.get("namespace"), identity.get("key"), identity.get(
            "part", 0)
        if not isinstance(namespace, list) or not all(isinstance(n, str) for n in namespace) \
                or not isinstance(key, str) or not isinstance(part, int):
            return False
        if not _readable_bookkeeping(identity):
            return False  # rewritten from outside (update_memory replaces it whole)
        if record.get("id") != part_id(item_id(tuple(namespace), key), part):
            return False
        scope = self.namespace_mapper(tuple(namespace))
        return _scope_of(record) == (scope.user_id, scope.agent_id, scope.thread_id)

    def _item(self, record: RecordOut, seen: _TtlSeen | None = None) -> Item | None:
        """The item a genuine record of this store holds, else None (see ``_genuine``)."""
        return _to_item(record, seen) if self._genuine(record) else None

    def _primaries_of_parts(self, records: list[RecordOut]) -> dict[str, RecordOut]:
        """The primary records (part 0) of the extra texts among ``records``, by id."""
        wanted = {record["id"].rsplit("-", 1)[0] for record in records
                  if isinstance(identity := (record.get("metadata") or {}).get(ENVELOPE), dict)
                  and identity.get("part", 0) != 0}
        return {record["id"]: record for record in self._records(ids=sorted(wanted))
                if self._genuine(record)} if wanted else {}

    def _get_items(self, addresses: list[tuple[tuple[str, ...], str]],
                   seen: _TtlSeen) -> dict[str, Item]:
        wanted = {item_id(namespace, key): (tuple(namespace), key)
                  for namespace, key in addresses}
        items = {}
        for record in self._records(ids=list(wanted)):
            item = self._item(record, seen)
            if item is not None and (item.namespace, item.key) == wanted.get(record["id"]):
                items[record["id"]] = item
        return items

    def _search(self, op: SearchOp, seen: _TtlSeen) -> list[SearchItem]:
        check_filter(op.filter)
        if op.limit < 0 or op.offset < 0:
            raise InvalidArgumentError("limit and offset must not be negative")
        pushed, partial = store_filter(op.filter)
        base = {**prefix_filter(tuple(op.namespace_prefix)), **pushed}
        if op.query:
            return self._ranked(op, op.query, base, seen)
        primary = {ENVELOPE: {**base[ENVELOPE], "part": 0}, **pushed}
        wanted = op.offset + op.limit
        fetch = None if partial or not wanted else wanted
        while True:
            records = self._records(metadata_filter=primary, limit=fetch)
            kept = [item for item in (self._item(record, seen) for record in records)
                    if item is not None and matches(item.value, op.filter)]
            # records that are not genuine items (look-alikes anyone may write) are
            # dropped above: fetch more until the page is full or the records run out
            if fetch is None or len(kept) >= wanted or len(records) < fetch:
                break
            fetch = None if fetch >= _MAX_FETCH else fetch * 4
        return [_search_item(item, None) for item in kept[op.offset:op.offset + op.limit]]

    def _ranked(self, op: SearchOp, query: str, metadata_filter: dict[str, Any],
                seen: _TtlSeen) -> list[SearchItem]:
        """Vector ranking (or the strategy the client was given); an item scores as its best
        text."""
        service = self.client.memory_service
        strategy = contract_strategy(service.strategy) if service.strategy_given else "VECTOR"
        vector = None if strategy == "KEYWORD" else self._embed([query], is_query=True)[0]
        wanted = op.offset + op.limit
        fetch = max(wanted, 1) * 2
        while True:
            hits = self.client.memory_service.backend.search({
                "query_text": query, "query_vector": vector, "strategy": strategy,
                "scope": {}, "record_types": [self.memory_type],
                "metadata_filter": metadata_filter, "include_invalid": True,
                "max_results": fetch, "num_hops": 0, "max_linked_results": 0,
            })
            ranked: list[tuple[float, Item]] = []
            ranked_ids: set[tuple[tuple[str, ...], str]] = set()
            primaries = self._primaries_of_parts([hit["record"] for hit in hits])
            for hit in hits:
                item = self._item(hit["record"], seen)
                if item is None or (item.namespace, item.key) in ranked_ids:
                    continue
                if not _part_of(hit["record"], primaries.get(item_id(item.namespace,
                                                                     item.key))):
                    continue  # a text the item no longer has (a put or delete raced)
                ranked_ids.add((item.namespace, item.key))
                if matches(item.value, op.filter):
                    ranked.append((1.0 - hit["distance"], item))
            if len(ranked) >= wanted or len(hits) < fetch or fetch >= _MAX_FETCH:
                break
            fetch *= 4
        results = [_search_item(item, score) for score, item in ranked[op.offset:wanted]]
        if len(results) < op.limit:  # like InMemoryStore: unindexed items fill the page
            unindexed = {ENVELOPE: {**metadata_filter[ENVELOPE], "part": 0, "indexed": False},
                         **{k: v for k, v in metadata_filter.items() if k != ENVELOPE}}
            for item in (self._item(record, seen)
                         for record in self._records(metadata_filter=unindexed)):
                if len(results) >= op.limit:
                    break
                if item is not None and matches(item.value, op.filter):
                    results.append(_search_item(item, None))
        return results

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = op.match_conditions or ()
        fixed_prefix: tuple[str, ...] = ()
        for condition in conditions:
            if condition.match_type == "prefix":
                path = tuple(condition.path)
                fixed_prefix = path[:path.index("*")] if "*" in path else path
                break
        selector = {ENVELOPE: {**prefix_filter(fixed_prefix)[ENVELOPE], "part": 0}}
        namespaces = {tuple(_identity(record)["namespace"])
                      for record in self._records(metadata_filter=selector)
                      if self._genuine(record)}
        kept = [ns for ns in namespaces if all(_does_match(c, ns) for c in conditions)]
        if op.max_depth is not None:
            kept = list({ns[:op.max_depth] for ns in kept})
        return sorted(kept)[op.offset:op.offset + op.limit]

    # -- time to live -----------------------------------------------------------------

    def _refresh(self, ids: Sequence[str], seen: _TtlSeen) -> None:
        """Restart the time of the items read (those with a TTL): every record of an item
        gets the same new expiry, counted from now."""
        now = to_text(utc_now())
        backend = self.client.memory_service.backend
        for primary in dict.fromkeys(ids):
            if primary not in seen:
                continue
            minutes, parts = seen[primary]
            for part in range(parts):
                try:
                    backend.update_record(part_id(primary, part), [self.memory_type], {
                        "timestamp": now, "ttl_days": self._item_days(minutes),
                        "ttl_anchor": "TIMESTAMP"}, None)
                except InvalidArgumentError:
                    # a TTL that no longer fits the calendar (past the year 9999 from now):
                    # the item keeps its expiry; the read is not failed for it
                    logger.warning("TTL of item record %s not restarted: too long", primary)
                    break

    def _item_days(self, minutes: float) -> float:
        """An item's TTL in days, held to the client's ``max_ttl_days`` as any TTL is."""
        return capped_days(minutes / _MINUTES_PER_DAY, self.client.memory_service.retention,
                           f"ttl={minutes} minutes", callers_of=(_LANGGRAPH,))

    def sweep_ttl(self) -> int:
        """Remove expired records physically. Expired items are already invisible: this
        frees their space. It purges the whole store (the client's ``purge_expired``), so
        expired records of other kinds go too.

        Returns:
            How many records were removed.

        Raises:
            AccessDeniedError: Called inside an end-user security context (a
                ``PermissionError``).
        """
        return self.client.purge_expired()

    def start_ttl_sweeper(self, sweep_interval_minutes: int | None = None
                          ) -> concurrent.futures.Future[None]:
        """Sweep now and then every ``sweep_interval_minutes`` in a daemon thread, until
        ``stop_ttl_sweeper``. A sweep that fails is logged and the next one runs; a second
        start while the thread runs returns its future.

        Args:
            sweep_interval_minutes: Minutes between sweeps. None (the default): the ``ttl``
                config's ``sweep_interval_minutes``.

        Returns:
            A future that is done when the sweeper thread ends.

        Raises:
            InvalidArgumentError: No positive interval is given here or in the ``ttl``
                config (a ``ValueError``).
        """
        minutes = sweep_interval_minutes or (self.ttl_config or {}).get(
            "sweep_interval_minutes")
        if not minutes or minutes <= 0:
            raise InvalidArgumentError("give sweep_interval_minutes (a positive number of "
                                       "minutes) here or in the ttl config")
        if self._sweeper is not None and self._sweeper[0].is_alive():
            return self._sweeper[1]
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        stop = threading.Event()

        def sweep_until_stopped() -> None:
            try:
                while True:
                    try:
                        swept = self.sweep_ttl()
                        logger.debug("TTL sweep removed %d expired records", swept)
                    except Exception:
                        logger.exception("TTL sweep failed; the next one runs in %s minutes",
                                         minutes)
                    if stop.wait(minutes * 60):
                        break
            finally:
                done.set_result(None)

        thread = threading.Thread(target=sweep_until_stopped, daemon=True,
                                  name="oracleagentmemory-langgraph-ttl-sweeper")
        self._sweeper = (thread, done, stop)
        thread.start()
        return done

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread.

        Args:
            timeout: Seconds to wait for the thread to end. None (the default): until it
                ends (at most the sweep in progress).

        Returns:
            True when it has stopped (or none was running), False when it still runs after
            ``timeout``.
        """
        if self._sweeper is None:
            return True
        thread, _, stop = self._sweeper
        stop.set()
        thread.join(timeout)
        if thread.is_alive():
            return False
        self._sweeper = None
        return True

    # -- writes -----------------------------------------------------------------------

    def _texts(self, op: PutOp) -> list[str]:
        """The texts to embed, as LangGraph's stores select them (index paths or fields)."""
        if op.index is False:
            return []
        paths = self.fields if op.index is None else _index_paths(op.index)
        value = dict(op.value or {})
        return [text for _, path in paths for text in get_text_at_path(value, path)]

    def _apply_puts(self, puts: list[PutOp]) -> None:
        """Apply the puts of one batch atomically: every new record and the retirement of
        every stale one (parts an item no longer has, deleted items) go in one
        ``write_records(replace=True)``, so a failing put leaves no earlier put half
        applied. A stale record is retired by replacing it with an already expired copy
        (same id, type and scope, no text, no vector): every read skips it at once, and it
        is deleted right after the batch (or purged later, should that delete not run)."""
        existing = {record["id"]: record for record in self._records(
            ids=[item_id(op.namespace, op.key) for op in puts])}
        retired: list[RecordIn] = []
        moved: list[str] = []
        records: list[RecordIn] = []
        texts = {id(op): self._texts(op) for op in puts if op.value is not None}
        flat = [text for op_texts in texts.values() for text in op_texts]
        vectors = iter(self._embed(flat))
        now = to_text(utc_now())
        retention = ttl_fields(NOT_SET_MARKER, NOT_SET_MARKER,
                               self.client.memory_service.retention)
        for op in puts:
            namespace = tuple(op.namespace)
            primary = item_id(namespace, op.key)
            old = existing.get(primary)
            old_parts = _identity(old).get("parts", 1) if old else 0
            op_texts = texts.get(id(op), [])
            new_parts = max(len(op_texts), 1) if op.value is not None else 0
            scope = self.namespace_mapper(namespace)
            if old is not None and op.value is not None and _scope_of(old) != (
                    scope.user_id, scope.agent_id, scope.thread_id):
                # another namespace mapper: a replace may not move a record to another
                # scope, so the old item is deleted first (the one put that is two steps)
                moved.extend(part_id(primary, part) for part in range(old_parts))
                old = None
            elif old is not None:
                retired.extend(_retired(old, part_id(primary, part), self.memory_type, now)
                               for part in range(new_parts, old_parts))
            if op.value is None:
                continue
            value = json.loads(json.dumps(dict(op.value)))  # JSON-only, detached copy
            expiry: dict[str, Any] = dict(retention) if op.ttl is None else {
                # an item TTL counts from now: the time a read with refresh_ttl resets
                "timestamp": now, "ttl_days": self._item_days(op.ttl),
                "ttl_anchor": "TIMESTAMP"}
            for part in range(new_parts):
                text = op_texts[part] if op_texts else json.dumps(value, sort_keys=True)
                records.append({
                    "record_type": self.memory_type, "id": part_id(primary, part),
                    "user_id": scope.user_id, "agent_id": scope.agent_id,
                    "thread_id": scope.thread_id, "content": text,
                    "metadata": {ENVELOPE: {**envelope(namespace, op.key, part, new_parts,
                                                       bool(op_texts)),
                                              "ttl": op.ttl, "updated_at": now},
                                 VALUE: value},
                    "embedding": next(vectors) if op_texts else None,
                    "created_at": old["created_at"] if old else now,
                    "updated_at": now, **expiry,  # type: ignore[typeddict-item]
                })
        backend = self.client.memory_service.backend
        if moved:
            backend.delete_records(moved, [self.memory_type])
        if records or retired:
            backend.write_records([*records, *retired], replace=True)
        if retired:
            backend.delete_records([record["id"] for record in retired], [self.memory_type])


class LangChainEmbedder(IEmbedder):
    """A LangChain ``Embeddings`` as the library's embedder, its vectors checked against
    ``dims`` (a store's vectors are all of one size).

    ``embed`` is ``index["embed"]`` as given: what it names is made once, and a store whose
    client indexes with this embedder reuses it rather than making the model again.
    """

    def __init__(self, embed: Any, dims: int) -> None:
        self.embed_given = embed
        self.embeddings = ensure_embeddings(embed)
        self._dims = dims

    @property
    def embedding_dimension(self) -> int:
        return self._dims

    def _checked(self, vectors: Any, count: int) -> np.ndarray:
        array = np.asarray(vectors, dtype=np.float32)
        if array.shape != (count, self._dims):
            raise InvalidArgumentError(f"index['embed'] returned vectors of shape "
                                       f"{array.shape}, expected ({count}, {self._dims})")
        return array

    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        loop = _CALLER_LOOP.get()
        if loop is not None and self._async_only() and not _running_in(loop):
            # batch of an abatch, in its worker thread: the caller's loop is free meanwhile
            return asyncio.run_coroutine_threadsafe(
                self.embed_async(texts, is_query=is_query), loop).result()
        if is_query:
            return self._checked([self.embeddings.embed_query(t) for t in texts], len(texts))
        return self._checked(self.embeddings.embed_documents(list(texts)), len(texts))

    def _async_only(self) -> bool:
        """``index["embed"]`` is an async function: LangGraph's wrapper of it embeds only
        in its async methods."""
        return (isinstance(self.embeddings, EmbeddingsLambda)
                and getattr(self.embeddings, "func", None) is None)

    async def embed_async(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        if is_query:
            return self._checked([await self.embeddings.aembed_query(t) for t in texts],
                                 len(texts))
        return self._checked(await self.embeddings.aembed_documents(list(texts)), len(texts))


def _running_in(loop: asyncio.AbstractEventLoop) -> bool:
    """This thread runs ``loop`` (waiting on it here would never end)."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def _dims(config: Any) -> int:
    """``index["dims"]``, which ``embed`` needs: a positive int."""
    dims = config.get("dims")
    if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
        raise InvalidArgumentError(f"index['dims'] must be the embedding's dimension (a "
                                   f"positive int) when index['embed'] is given, got {dims!r}")
    return dims


def _checked_index(client: OracleAgentMemory, config: dict[str, Any]
                   ) -> LangChainEmbedder | None:
    """The model of ``config["embed"]`` (None without one), once its
    ``dims`` (or, without ``embed``, the client's embedder) fits the client's store."""
    dims = config.get("dims")
    if config.get("embed") is None:
        if dims is not None and client.embedder is None:
            raise InvalidArgumentError(f"index['dims'] is {dims} but the client has no "
                                       "embedder to check it against; leave it out")
        if dims is not None and client.embedder is not None \
                and dims != client.embedder.embedding_dimension:
            raise InvalidArgumentError(
                f"index['dims'] is {dims} but the client's embedder has "
                f"{client.embedder.embedding_dimension} dimensions; give index['embed'] "
                "for a model of that size")
        return None
    dims = _dims(config)
    stored = client.memory_service.backend.describe().get("embedding_dimension")
    if stored is not None and stored != dims:
        raise InvalidArgumentError(
            f"index['dims'] is {dims} but the client's store keeps {stored}-dimensional "
            "vectors: open the store with OracleAgentMemoryStore.from_conn_string, or the "
            f"client with an embedder of {dims} dimensions")
    if isinstance(client.embedder, LangChainEmbedder) \
            and client.embedder.embed_given is config["embed"] \
            and client.embedder.embedding_dimension == dims:
        return client.embedder  # from_conn_string made it for the client already
    return LangChainEmbedder(config["embed"], dims)


def _index_paths(paths: Iterable[str]) -> list[tuple[str, Any]]:
    """Each index path with its tokens (``"$"``, the whole value, stays as it is)."""
    return [(path, tokenize_path(path) if path != "$" else path) for path in paths]


def _scope_of(record: RecordOut) -> tuple[str | None, str | None, str | None]:
    return record.get("user_id"), record.get("agent_id"), record.get("thread_id")


def _retired(item: RecordOut, record_id: str, record_type: str, now: str) -> RecordIn:
    """An already expired stand-in for a record an item no longer has (its scope is the
    item's, so the replace is allowed): invisible to every read from the moment it is
    written, deleted right after or purged."""
    return {"record_type": record_type, "id": record_id, "user_id": item.get("user_id"),
            "agent_id": item.get("agent_id"), "thread_id": item.get("thread_id"),
            "content": "", "metadata": None, "created_at": now, "updated_at": now,
            "expires_at": _LONG_AGO}


_LONG_AGO = "1970-01-01T00:00:00.000000Z"
"""The expiry of a retired record: in the past on every clock."""


def _identity(record: RecordOut) -> dict[str, Any]:
    """The item identity in the metadata of a record this store wrote."""
    identity: dict[str, Any] = (record.get("metadata") or {})[ENVELOPE]
    return identity


def _readable_bookkeeping(identity: dict[str, Any]) -> bool:
    """Bookkeeping this store can read: a TTL that is None or a positive finite number of
    minutes, a positive int of parts, and an ``updated_at`` that is None or a time."""
    ttl, parts, updated = identity.get("ttl"), identity.get("parts", 1), identity.get(
        "updated_at")
    if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, int | float)
                            or not 0 < ttl < float("inf")):
        return False
    if isinstance(parts, bool) or not isinstance(parts, int) or parts < 1:
        return False
    if updated is None:
        return True
    try:
        _time(updated)
    except (TypeError, ValueError):
        return False
    return True


def _part_of(record: RecordOut, primary: RecordOut | None) -> bool:
    """Whether ``record`` is a text of the item as its primary record holds it now: part 0
    always; an extra text only beside a primary of the same put (two puts, or a put and a
    delete, racing from two store objects can leave texts of another put behind)."""
    identity = _identity(record)
    part = identity.get("part", 0)
    if part == 0:
        return True
    if primary is None:
        return False
    held = _identity(primary)
    return (part < held.get("parts", 1) and held.get("updated_at") == identity.get(
        "updated_at") and (primary.get("metadata") or {}).get(VALUE) == (
        record.get("metadata") or {}).get(VALUE))


def _to_item(record: RecordOut, seen: _TtlSeen | None = None) -> Item | None:
    """The item a record of this store holds (None for any other record); notes its TTL
    in ``seen`` for a refresh. ``updated_at`` is the last put's (a refresh changes the
    record, not the item)."""
    metadata = record.get("metadata") or {}
    identity = metadata.get(ENVELOPE)
    if not isinstance(identity, dict) or VALUE not in metadata:
        return None
    namespace = tuple(identity["namespace"])
    if seen is not None and identity.get("ttl") is not None:
        seen[item_id(namespace, identity["key"])] = (float(identity["ttl"]),
                                                     int(identity.get("parts", 1)))
    return Item(value=metadata[VALUE], key=identity["key"], namespace=namespace,
                created_at=_time(record["created_at"]),
                updated_at=_time(identity.get("updated_at") or record["updated_at"]))


def _search_item(item: Item, score: float | None) -> SearchItem:
    return SearchItem(namespace=item.namespace, key=item.key, value=item.value,
                      created_at=item.created_at, updated_at=item.updated_at, score=score)


def _time(text: str | None) -> datetime:
    return parse_iso(text, "created_at")


def _does_match(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """LangGraph's namespace matching: prefix or suffix, '*' matching any one label."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    labels = namespace if condition.match_type == "prefix" else namespace[len(namespace)
                                                                          - len(path):]
    if condition.match_type not in ("prefix", "suffix"):
        raise InvalidArgumentError(f"Unsupported match type: {condition.match_type}")
    return all(want == "*" or want == have for have, want in zip(labels, path, strict=False))
