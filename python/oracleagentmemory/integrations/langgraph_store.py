"""A LangGraph ``BaseStore`` kept in OracleAgentMemory: graph memories become agent memories.

Each item is a memory record whose metadata holds the item's identity and its value
(``{"langgraph": {...namespace, key, prefixes...}, "value": {...}}``), so values round-trip
exactly and the rest of the memory system sees them under the scope the namespace maps to
(see :mod:`oracleagentmemory.integrations.langgraph_namespaces`). Semantic search uses the
client's embedder on the texts the index ``fields`` select, one vector per text (extra
texts are stored as extra records of the item; the best one ranks it, as LangGraph's
in-memory store does). Needs ``pip install "langgraph>=1.0"``.

Differences from LangGraph's ``InMemoryStore``: semantic search is always on (vectors come
from the client's embedder; ``index`` may only select ``fields`` and check ``dims``);
without a query, items come oldest-write first; TTLs are not supported (the client's
retention policy applies instead).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.core.records import contract_strategy
from oracleagentmemory.core.retention import ttl_fields
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
        get_text_at_path,
        tokenize_path,
    )
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError("the LangGraph store needs LangGraph: pip install 'langgraph>=1.0'") \
        from error

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

_MAX_FETCH = 10_000
"""Upper bound on records one search reads while refilling after Python-side filtering."""


class OracleAgentMemoryStore(BaseStore):
    """LangGraph store backed by an :class:`OracleAgentMemory` client (embedded or Oracle).

    ``namespace_mapper`` turns a namespace into the scope its items get (default: the
    label after "users" is the user id, after "agents" the agent id, after "threads" the
    thread id). ``memory_type`` is the record type items are stored as.
    """

    supports_ttl = False

    def __init__(self, client: OracleAgentMemory, *, index: IndexConfig | None = None,
                 namespace_mapper: NamespaceMapper = default_namespace_mapper,
                 memory_type: str = "memory") -> None:
        if memory_type not in MEMORY_TYPES:
            raise InvalidArgumentError(f"memory_type must be one of {', '.join(MEMORY_TYPES)}")
        config: dict[str, Any] = dict(index or {})
        if config.get("embed") is not None:
            raise InvalidArgumentError("index['embed'] is not used: vectors come from the client's "
                             "embedder; pass only 'fields' (and optionally 'dims')")
        dims = config.get("dims")
        if dims is not None:
            if client.embedder is None:
                raise InvalidArgumentError(f"index['dims'] is {dims} but the client has no "
                                           "embedder to check it against; leave it out")
            if dims != client.embedder.embedding_dimension:
                raise InvalidArgumentError(
                    f"index['dims'] is {dims} but the client's embedder has "
                    f"{client.embedder.embedding_dimension} dimensions")
        self.client = client
        self.index_config = config
        self.fields = [(path, tokenize_path(path) if path != "$" else path)
                       for path in config.get("fields") or ["$"]]
        self.namespace_mapper = namespace_mapper
        self.memory_type = memory_type

    # -- batches ----------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run reads against the state before the batch, then its writes (last put wins)."""
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        results: list[Result] = [None] * len(ops)
        gets = [(i, op) for i, op in enumerate(ops) if isinstance(op, GetOp)]
        if gets:
            found = self._get_items([(op.namespace, op.key) for _, op in gets])
            for i, op in gets:
                results[i] = found.get(item_id(op.namespace, op.key))
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for i, op in enumerate(ops):
            if isinstance(op, SearchOp):
                results[i] = self._search(op)
            elif isinstance(op, ListNamespacesOp):
                results[i] = self._list_namespaces(op)
            elif isinstance(op, PutOp):
                if op.ttl is not None:
                    raise NotImplementedError("TTL is not supported by OracleAgentMemoryStore")
                puts[(tuple(op.namespace), op.key)] = op
            elif not isinstance(op, GetOp):
                raise InvalidArgumentError(f"Unknown operation type: {type(op)}")
        if puts:
            self._apply_puts(list(puts.values()))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """The same batch in a worker thread, so the event loop stays free."""
        ops = list(ops)
        return await asyncio.get_running_loop().run_in_executor(None, self.batch, ops)

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

    def _get_items(self, addresses: list[tuple[tuple[str, ...], str]]) -> dict[str, Item]:
        wanted = {item_id(namespace, key): (tuple(namespace), key)
                  for namespace, key in addresses}
        items = {}
        for record in self._records(ids=list(wanted)):
            item = _to_item(record)
            if item is not None and (item.namespace, item.key) == wanted.get(record["id"]):
                items[record["id"]] = item
        return items

    def _search(self, op: SearchOp) -> list[SearchItem]:
        check_filter(op.filter)
        if op.limit < 0 or op.offset < 0:
            raise InvalidArgumentError("limit and offset must not be negative")
        pushed, partial = store_filter(op.filter)
        base = {**prefix_filter(tuple(op.namespace_prefix)), **pushed}
        if op.query:
            return self._ranked(op, op.query, base)
        primary = {ENVELOPE: {**base[ENVELOPE], "part": 0}, **pushed}
        wanted = op.offset + op.limit
        records = self._records(metadata_filter=primary,
                                limit=None if partial or not wanted else wanted)
        kept = [item for item in map(_to_item, records)
                if item is not None and matches(item.value, op.filter)]
        return [_search_item(item, None) for item in kept[op.offset:op.offset + op.limit]]

    def _ranked(self, op: SearchOp, query: str,
                metadata_filter: dict[str, Any]) -> list[SearchItem]:
        """Vector (or the client's strategy) ranking; an item scores as its best text."""
        strategy = contract_strategy(self.client.memory_service.strategy)
        vector = None if strategy == "KEYWORD" else self.client.memory_service.embed(
            [query], is_query=True)[0]
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
            seen: set[tuple[tuple[str, ...], str]] = set()
            for hit in hits:
                item = _to_item(hit["record"])
                if item is None or (item.namespace, item.key) in seen:
                    continue
                seen.add((item.namespace, item.key))
                if matches(item.value, op.filter):
                    ranked.append((1.0 - hit["distance"], item))
            if len(ranked) >= wanted or len(hits) < fetch or fetch >= _MAX_FETCH:
                break
            fetch *= 4
        results = [_search_item(item, score) for score, item in ranked[op.offset:wanted]]
        if len(results) < op.limit:  # like InMemoryStore: unindexed items fill the page
            unindexed = {ENVELOPE: {**metadata_filter[ENVELOPE], "part": 0, "indexed": False},
                         **{k: v for k, v in metadata_filter.items() if k != ENVELOPE}}
            for item in map(_to_item, self._records(metadata_filter=unindexed)):
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
                      for record in self._records(metadata_filter=selector)}
        kept = [ns for ns in namespaces if all(_does_match(c, ns) for c in conditions)]
        if op.max_depth is not None:
            kept = list({ns[:op.max_depth] for ns in kept})
        return sorted(kept)[op.offset:op.offset + op.limit]

    # -- writes -----------------------------------------------------------------------

    def _texts(self, op: PutOp) -> list[str]:
        """The texts to embed, as LangGraph's stores select them (index paths or fields)."""
        if op.index is False:
            return []
        paths = self.fields if op.index is None else [
            (path, tokenize_path(path) if path != "$" else path) for path in op.index
        ]
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
        vectors = iter(self.client.memory_service.embed(flat))
        now = to_text(utc_now())
        ttl = ttl_fields(NOT_SET_MARKER, NOT_SET_MARKER, self.client.memory_service.retention)
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
            for part in range(new_parts):
                text = op_texts[part] if op_texts else json.dumps(value, sort_keys=True)
                records.append({
                    "record_type": self.memory_type, "id": part_id(primary, part),
                    "user_id": scope.user_id, "agent_id": scope.agent_id,
                    "thread_id": scope.thread_id, "content": text,
                    "metadata": {ENVELOPE: envelope(namespace, op.key, part, new_parts,
                                                    bool(op_texts)), VALUE: value},
                    "embedding": next(vectors) if op_texts else None,
                    "created_at": old["created_at"] if old else now,
                    "updated_at": now, **ttl,
                })
        backend = self.client.memory_service.backend
        if moved:
            backend.delete_records(moved, [self.memory_type])
        if records or retired:
            backend.write_records([*records, *retired], replace=True)
        if retired:
            backend.delete_records([record["id"] for record in retired], [self.memory_type])


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


def _to_item(record: RecordOut) -> Item | None:
    metadata = record.get("metadata") or {}
    identity = metadata.get(ENVELOPE)
    if not isinstance(identity, dict) or VALUE not in metadata:
        return None
    return Item(value=metadata[VALUE], key=identity["key"],
                namespace=tuple(identity["namespace"]),
                created_at=_time(record["created_at"]), updated_at=_time(record["updated_at"]))


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
