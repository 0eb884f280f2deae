"""OracleDBMemoryStore: the public store interface over either backend of the contract.

One adapter serves both backends: ``pool`` is an ``oracledb`` pool or connection (the
PL/SQL packages), an embedded location (a file path or ``":memory:"``), or an already
open contract backend. Everything the interface asks for maps to contract operations.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, TypedDict

import numpy as np

from oracleagentmemory._ids import new_id
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker, value_or
from oracleagentmemory._vocabulary import MEMORY_TYPES, SEARCHABLE_TYPES
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.apis.memorystore import (
    MAX_LIST_LIMIT,
    MetadataFilter,
    PendingRecordBatch,
    PerRecordEmbeddingsInput,
    PerRecordIndexTextInput,
    RecordContentInput,
)
from oracleagentmemory.apis.message import (
    ImageContent,
    MessageContent,
    MetadataValue,
    part_to_dict,
)
from oracleagentmemory.apis.records import MessageRecord, Record, RecordStatus, ThreadRecord
from oracleagentmemory.apis.relations import RecordRelation, RelationType
from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.core.arguments import check_content, check_id_argument, check_status
from oracleagentmemory.core.dbschemapolicy import SchemaPolicy
from oracleagentmemory.core.dbsearch import SearchIndexSyncMode, SearchStrategy
from oracleagentmemory.core.embedders import settle_default_embedder
from oracleagentmemory.core.image_validation import validate_image
from oracleagentmemory.core.links import endpoint_query, link_changes, link_selector, new_link
from oracleagentmemory.core.memory_service import search_result
from oracleagentmemory.core.observation import MEMORY_STORE_OPERATIONS, observe_methods
from oracleagentmemory.core.oraclememorystore import OracleMemoryStore
from oracleagentmemory.core.records import (
    DEFAULT_SEARCH_STRATEGY,
    contract_record_type,
    contract_strategy,
    relation_of,
    to_record,
)
from oracleagentmemory.core.retention import MemoryRetentionConfig, ttl_changes, ttl_fields
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError
from oracleagentmemory.stores.backend_for_connection import open_backend
from oracleagentmemory.stores.guarded import guarded
from oracleagentmemory.stores.protocol import (
    LinkIn,
    OwnerType,
    RecordChanges,
    RecordIn,
    RecordQuery,
    ScopeDimension,
    StoreBackend,
    Vector,
)
from oracleagentmemory.stores.timestamps import parse_iso

__all__ = ["DEFAULT_BATCH_SIZE", "OracleDBMemoryStore"]

DEFAULT_BATCH_SIZE = 256
"""Texts embedded per embedder call when a batch arrives without vectors."""

_CASCADE_OWNERS: dict[str, OwnerType] = {"thread": "thread", "user_profile": "user",
                                          "agent_profile": "agent"}


class _ContentFields(TypedDict, total=False):
    """The contract fields a content argument sets (the same in RecordIn and RecordChanges)."""

    content: str
    parts: list[dict[str, Any]] | None
    config: dict[str, Any] | None
    mime_type: str | None
    image_bytes: bytes | None


def _one_vector(value: Any, argument: str) -> np.ndarray | None:
    """A single vector from an embedding argument (one vector per record is supported)."""
    if value is None or value is NOT_SET_MARKER:
        return None
    array = np.asarray(value, dtype=np.float32)
    if array.ndim == 2 and array.shape[0] == 1:
        array = array[0]
    if array.ndim != 1:
        raise InvalidArgumentError(f"{argument}: a record holds exactly one vector")
    return array


def _index_text(value: Any) -> str | None:
    if value is None or value is NOT_SET_MARKER:
        return None
    if isinstance(value, list):
        return "\n".join(str(item) for item in value)
    return str(value)


@observe_methods("memory_store", MEMORY_STORE_OPERATIONS)
class OracleDBMemoryStore(OracleMemoryStore):
    """The memory store over an Oracle database, or over an embedded file.

    Its methods are documented on ``IMemoryStore``. ``OracleAgentMemory(connection=...)``
    opens one; make one yourself to share it between clients or to open it with other
    options.

    Args:
        embedder: What embeds records and queries (None: records are stored without
            vectors unless given).
        pool: An ``oracledb`` connection or pool, a path to an SQLite file, or
            ``":memory:"``.
        schema_policy: What to do with the store's tables on opening. Default:
            ``SchemaPolicy.REQUIRE_EXISTING``.
        vector_dim: The vectors' dimension. Default (or None): the embedder's.
        table_name_prefix: The reference's name for ``memory_store_id``. Default:
            ``memory_store_id``.
        search_strategy: ``VECTOR``, ``KEYWORD`` or ``HYBRID``. Default: ``HYBRID``.
        search_index_sync: Oracle keyword and hybrid index maintenance. Default:
            ``ON_COMMIT``.
        memory_retention_config: Default and maximum TTL of new records. Default:
            ``MemoryRetentionConfig()`` (no expiry).
        memory_store_id: The store's name. Default: ``table_name_prefix``, else the
            existing store's, else ``"AGENT_MEMORY"``.
        schema_owner: Oracle only: the schema that owns the store. Default: the
            connected user.

    Raises:
        InvalidArgumentError: An ``embedder`` that is not an ``IEmbedder``, or a
            ``memory_store_id`` that differs from ``table_name_prefix`` (a
            ``ValueError``).
        ValueError: An enum argument that names no member of its enum.
        SchemaError: The store's tables are missing (``REQUIRE_EXISTING``), of another
            version or of another dimension (a ``RuntimeError``).
        StorageError: The embedded file cannot be opened or created (an ``OSError``).
    """

    def __init__(
        self,
        embedder: IEmbedder | None,
        pool: Any,
        schema_policy: SchemaPolicy | str = SchemaPolicy.REQUIRE_EXISTING,
        vector_dim: int | None = None,
        table_name_prefix: str | _NotSetMarker = NOT_SET_MARKER,
        search_strategy: SearchStrategy | _NotSetMarker = NOT_SET_MARKER,
        search_index_sync: SearchIndexSyncMode | _NotSetMarker = NOT_SET_MARKER,
        memory_retention_config: MemoryRetentionConfig | _NotSetMarker = NOT_SET_MARKER,
        memory_store_id: str | _NotSetMarker = NOT_SET_MARKER,
        schema_owner: str | _NotSetMarker = NOT_SET_MARKER,
    ) -> None:
        if embedder is not None and not isinstance(embedder, IEmbedder):
            raise InvalidArgumentError(
                f"embedder must be an IEmbedder or None, got {type(embedder).__name__}")
        prefix = value_or(table_name_prefix, None)
        store_id = value_or(memory_store_id, None)
        if prefix is not None and store_id is not None and prefix != store_id:
            raise InvalidArgumentError(
                "memory_store_id and table_name_prefix name the same store; give one, or "
                f"the same value (got {store_id!r} and {prefix!r})")
        dimension = vector_dim if vector_dim is not None else (
            embedder.embedding_dimension if embedder is not None else None)
        self.embedder = embedder
        # Unset: HYBRID here, while the Oracle backend is told nothing (it keeps the choice
        # recorded at install, so an existing store is never refused over a default).
        chosen = search_strategy is not NOT_SET_MARKER
        self._strategy_given = chosen
        self.search_strategy = (SearchStrategy(search_strategy) if chosen
                                else DEFAULT_SEARCH_STRATEGY)
        self.retention = value_or(memory_retention_config, MemoryRetentionConfig())
        opened = open_backend(
            pool, embedding_dimension=dimension,
            schema_policy=SchemaPolicy(schema_policy).name,
            search_strategy=self.search_strategy.name if chosen else None,
            search_index_sync=SearchIndexSyncMode(
                value_or(search_index_sync, SearchIndexSyncMode.ON_COMMIT)).name,
            store_id=store_id or prefix, schema_owner=value_or(schema_owner, None))
        self.memory_store_id: str = str(
            store_id or prefix or opened.describe().get("store_id") or "AGENT_MEMORY")
        self.embedder = settle_default_embedder(opened, embedder)
        # Every use of the store, this object's and a client's, passes the same guards.
        self.backend: StoreBackend = guarded(opened)

    # -- embeddings -------------------------------------------------------------------

    def _embed(self, texts: Sequence[str], is_query: bool = False) -> list[np.ndarray | None]:
        if self.embedder is None or not texts:
            return [None] * len(texts)
        vectors: list[np.ndarray | None] = []
        for start in range(0, len(texts), DEFAULT_BATCH_SIZE):
            chunk = list(texts[start:start + DEFAULT_BATCH_SIZE])
            vectors.extend(np.asarray(self.embedder.embed(chunk, is_query=is_query),
                                      dtype=np.float32))
        return vectors

    # -- adding -----------------------------------------------------------------------

    def _add_prepared_batches(self, batches: list[PendingRecordBatch],
                              **store_kwargs: Any) -> list[str]:
        if store_kwargs:
            raise InvalidArgumentError(
                f"unexpected store option(s): {', '.join(sorted(store_kwargs))}")
        records: list[RecordIn] = []
        index_texts: list[str | None] = []
        for batch in batches:
            for record, index_text in self._batch_records(batch):
                records.append(record)
                index_texts.append(index_text)
        missing = [i for i, record in enumerate(records)
                   if record.get("embedding") is None and record.get("content")
                   and record["record_type"] in SEARCHABLE_TYPES]
        texts = [index_texts[i] or records[i]["content"] for i in missing]
        for index, vector in zip(missing, self._embed(texts), strict=True):
            records[index]["embedding"] = vector
        return self.backend.write_records(records)

    async def _add_prepared_batches_async(self, batches: list[PendingRecordBatch],
                                          **store_kwargs: Any) -> list[str]:
        return await asyncio.to_thread(self._add_prepared_batches, batches, **store_kwargs)

    def _batch_records(self, batch: PendingRecordBatch) -> list[tuple[RecordIn, str | None]]:
        """The batch's records, each with its index text (what is embedded instead of the
        content, when given)."""
        record_type = contract_record_type(str(batch.record_type))
        records: list[tuple[RecordIn, str | None]] = []
        for i in range(len(batch)):
            index_text = _index_text(batch.values("index_texts", i))
            record: RecordIn = {
                "record_type": record_type,
                "id": value_or(batch.values("record_ids", i), None) or new_id(),
                "metadata": value_or(batch.values("metadata", i), None),
                "timestamp": value_or(batch.values("timestamps", i), None),
                "status": check_status(batch.values("statuses", i)),
                **ttl_fields(batch.values("ttl_days", i), batch.values("ttl_anchor", i),
                             self.retention),
                "embedding": _one_vector(batch.values("embeddings", i), "embeddings"),
                "thread_id": value_or(batch.values("thread_ids", i), None),
                "user_id": value_or(batch.values("user_ids", i), None),
                "agent_id": value_or(batch.values("agent_ids", i), None),
                "role": value_or(batch.values("roles", i), None),
                **_content_fields(record_type, batch.values("contents", i), index_text),
            }
            records.append((record, index_text))
        return records

    def add_user(self, user_id: str | _NotSetMarker = NOT_SET_MARKER,
                 information: str | _NotSetMarker = NOT_SET_MARKER,
                 metadata: MetadataValue | _NotSetMarker = NOT_SET_MARKER) -> str:
        return self._add_profile("user_profile", "user_id", user_id, information, metadata)

    def add_agent(self, agent_id: str, information: str,
                  metadata: MetadataValue | _NotSetMarker = NOT_SET_MARKER) -> str:
        return self._add_profile("agent_profile", "agent_id", agent_id, information, metadata)

    def _add_profile(self, record_type: str, scope_key: Literal["user_id", "agent_id"],
                     profile_id: object, information: object,
                     metadata: MetadataValue | _NotSetMarker) -> str:
        record = profile_record(record_type, scope_key, profile_id, information, metadata,
                                self._embed)
        return self.backend.write_records([record])[0]

    # -- reading ----------------------------------------------------------------------

    def get(self, record_type: str, record_id: str,
            include_bytes: bool | _NotSetMarker = NOT_SET_MARKER) -> Record | None:
        found = self.backend.get_records({
            "ids": [check_id_argument(record_id, "record_id")],
            "record_types": [contract_record_type(record_type)],
            "include_bytes": bool(value_or(include_bytes, False))})
        return to_record(found[0]) if found else None

    def list(self, record_type: str, limit: int | None | _NotSetMarker = NOT_SET_MARKER,
             thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
             user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
             agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
             metadata_filter: MetadataFilter | _NotSetMarker = NOT_SET_MARKER,
             include_bytes: bool | _NotSetMarker = NOT_SET_MARKER,
             record_id: str | _NotSetMarker = NOT_SET_MARKER) -> builtins.list[Record]:
        query: RecordQuery = {
            "record_types": [contract_record_type(record_type)],
            "metadata_filter": value_or(metadata_filter, None),
            "include_bytes": bool(value_or(include_bytes, False)),
            "limit": list_limit(limit),
        }
        if not isinstance(thread_id, _NotSetMarker):
            query["thread_id"] = thread_id
        if not isinstance(user_id, _NotSetMarker):
            query["user_id"] = user_id
        if not isinstance(agent_id, _NotSetMarker):
            query["agent_id"] = agent_id
        if record_id is not NOT_SET_MARKER:
            query["ids"] = [check_id_argument(record_id, "record_id")]
        return [to_record(record) for record in self.backend.get_records(query)]

    def list_thread_messages(self, thread_id: str, last_n: int | None = None,
                             range_start_seq_no: int | None = None,
                             range_end_seq_no: int | None = None,
                             include_bytes: bool | _NotSetMarker = NOT_SET_MARKER
                             ) -> builtins.list[MessageRecord]:
        if last_n is not None and (range_start_seq_no is not None
                                   or range_end_seq_no is not None):
            raise InvalidArgumentError("pass last_n or a seq_no range, not both")
        start = -last_n if last_n else None
        records = self.backend.list_messages(check_id_argument(thread_id, "thread_id"), start, None,
                                             bool(value_or(include_bytes, False)))
        chosen = [record for record in records
                  if (range_start_seq_no is None or record["seq_no"] >= range_start_seq_no)
                  and (range_end_seq_no is None or record["seq_no"] <= range_end_seq_no)]
        return [message for message in map(to_record, chosen)
                if isinstance(message, MessageRecord)]

    def search(self, query: str | None, k: int,
               query_vector: builtins.list[float] | None = None,
               thread_id: str | None = None, user_id: str | None = None,
               agent_id: str | None = None, exact_user_match: bool = False,
               exact_agent_match: bool = False, exact_thread_match: bool = False,
               record_types: set[str] | None = None,
               metadata_filter: MetadataFilter = None, num_hops: int = 0,
               max_linked_results: int = 100,
               include_invalid_results: bool = True) -> builtins.list[tuple[Record, float]]:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidArgumentError(f"k must be an integer of at least 1, got {k!r}")
        if query is None and query_vector is None:
            raise InvalidArgumentError("give a query text, a query_vector, or both")
        strategy = contract_strategy(self.search_strategy)
        vector: Vector | None = query_vector
        if vector is None and strategy != "KEYWORD" and query is not None:
            vector = self._embed([query], is_query=True)[0]
        scope: dict[str, ScopeDimension] = {}
        for key, value, exact in (("user_id", user_id, exact_user_match),
                                  ("agent_id", agent_id, exact_agent_match),
                                  ("thread_id", thread_id, exact_thread_match)):
            if value is not None or exact:
                scope[key] = {"value": value, "exact": bool(exact)}
        hits = self.backend.search({
            "query_text": query or "", "query_vector": vector, "strategy": strategy,
            "scope": scope,
            "record_types": [contract_record_type(t) for t in sorted(record_types or ())],
            "metadata_filter": metadata_filter, "include_invalid": include_invalid_results,
            "max_results": k, "num_hops": num_hops, "max_linked_results": max_linked_results,
        })
        return [(search_result(hit).record, hit["distance"]) for hit in hits]

    # -- changing ---------------------------------------------------------------------

    def update(self, record_type: str, record_id: str,
               content: RecordContentInput | _NotSetMarker = NOT_SET_MARKER,
               index_text: PerRecordIndexTextInput | None | _NotSetMarker = NOT_SET_MARKER,
               embedding: PerRecordEmbeddingsInput | None | _NotSetMarker = NOT_SET_MARKER,
               metadata: MetadataValue | _NotSetMarker = NOT_SET_MARKER,
               timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
               ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
               ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
               status: RecordStatus | _NotSetMarker = NOT_SET_MARKER,
               text: str | None | _NotSetMarker = NOT_SET_MARKER) -> int:
        if text is not NOT_SET_MARKER:
            if content is not NOT_SET_MARKER:
                raise InvalidArgumentError("pass content or text (its older name), not both")
            content = text
        contract_type = contract_record_type(record_type)
        changes = ttl_changes(ttl_days, ttl_anchor, self.retention)
        if content is not NOT_SET_MARKER:
            changes = {**changes, **_content_fields(contract_type, content,
                                                     _index_text(index_text))}
            given = _one_vector(embedding, "embedding")
            if given is None and contract_type in SEARCHABLE_TYPES:
                source = _index_text(index_text) or changes.get("content") or ""
                given = self._embed([source])[0] if source else None
            changes["embedding"] = given
        elif embedding is not NOT_SET_MARKER:
            changes["embedding"] = _one_vector(embedding, "embedding")
        if not isinstance(metadata, _NotSetMarker):
            changes["metadata"] = metadata
        if not isinstance(timestamp, _NotSetMarker):
            changes["timestamp"] = timestamp
        if status is not NOT_SET_MARKER:
            changes["status"] = check_status(status)
        updated = self.backend.update_record(check_id_argument(record_id, "record_id"),
                                             [contract_type], changes)
        return 0 if updated is None else 1

    def delete(self, record_type: str, record_id: str, cascade: bool = False) -> int:
        contract_type = contract_record_type(record_type)
        check_id_argument(record_id, "record_id")
        if cascade and contract_type in _CASCADE_OWNERS:
            return self.backend.delete_cascade(_CASCADE_OWNERS[contract_type],
                                               record_id)["owner"]
        return self.backend.delete_records([record_id], [contract_type])

    def delete_thread(self, thread_id: str) -> int:
        thread = check_id_argument(thread_id, "thread_id")
        return self.backend.delete_cascade("thread", thread)["owner"]

    # -- relations --------------------------------------------------------------------

    def add_relations(
        self,
        source_record_ids: str | builtins.list[str],
        source_record_types: str | builtins.list[str],
        target_record_ids: str | builtins.list[str],
        target_record_types: str | builtins.list[str],
        relation_types: RelationType | builtins.list[RelationType],
        opposite_relation_types: RelationType | builtins.list[RelationType] | _NotSetMarker = (
            NOT_SET_MARKER),
        relation_ids: str | None | builtins.list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        timestamps: str | None | builtins.list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        metadata: MetadataValue | builtins.list[MetadataValue] | _NotSetMarker = NOT_SET_MARKER,
    ) -> builtins.list[str]:
        columns = _broadcast(
            source_record_ids=source_record_ids, source_record_types=source_record_types,
            target_record_ids=target_record_ids, target_record_types=target_record_types,
            relation_types=relation_types, opposite_relation_types=opposite_relation_types,
            relation_ids=relation_ids, timestamps=timestamps, metadata=metadata)
        links: list[LinkIn] = [
            new_link(None, source=(row["source_record_ids"], row["source_record_types"]),
                     target=(row["target_record_ids"], row["target_record_types"]),
                     relation_type=row["relation_types"], relation_id=row["relation_ids"],
                     opposite_relation_type=row["opposite_relation_types"],
                     timestamp=value_or(row["timestamps"], None),
                     metadata=value_or(row["metadata"], None))
            for row in columns]
        self.backend.write_records([], links=links)
        return [link["id"] for link in links]

    def get_relation(self, source_record_id: str | _NotSetMarker = NOT_SET_MARKER,
                     source_record_type: str | _NotSetMarker = NOT_SET_MARKER,
                     target_record_id: str | _NotSetMarker = NOT_SET_MARKER,
                     target_record_type: str | _NotSetMarker = NOT_SET_MARKER,
                     relation_type: RelationType | _NotSetMarker = NOT_SET_MARKER,
                     relation_id: str | _NotSetMarker = NOT_SET_MARKER) -> RecordRelation | None:
        selector = link_selector(source_record_id, source_record_type, target_record_id,
                                 target_record_type, relation_type, relation_id)
        if not selector:
            raise InvalidArgumentError("give relation_id, or the endpoint tuple")
        query = endpoint_query(selector)
        if "id" in selector:
            query["ids"] = [selector["id"]]
        found = self.backend.list_links(query)
        return relation_of(found[0]) if found else None

    def list_relations(self, relation_type: str | _NotSetMarker = NOT_SET_MARKER,
                       source_record_id: str | _NotSetMarker = NOT_SET_MARKER,
                       source_record_type: str | _NotSetMarker = NOT_SET_MARKER,
                       target_record_id: str | _NotSetMarker = NOT_SET_MARKER,
                       target_record_type: str | _NotSetMarker = NOT_SET_MARKER,
                       limit: int | None | _NotSetMarker = NOT_SET_MARKER,
                       metadata_filter: MetadataFilter | _NotSetMarker = NOT_SET_MARKER,
                       relation_id: str | _NotSetMarker = NOT_SET_MARKER
                       ) -> builtins.list[RecordRelation]:
        query = endpoint_query(link_selector(
            source_record_id, source_record_type, target_record_id, target_record_type,
            relation_type, NOT_SET_MARKER))
        if not isinstance(relation_id, _NotSetMarker):
            query["ids"] = [relation_id]
        query["metadata_filter"] = value_or(metadata_filter, None)
        query["limit"] = list_limit(limit)
        return [relation_of(link) for link in self.backend.list_links(query)]

    def update_relations(
        self,
        relation_ids: str | builtins.list[str],
        relation_types: RelationType | builtins.list[RelationType] | _NotSetMarker = NOT_SET_MARKER,
        opposite_relation_types: RelationType | builtins.list[RelationType] | _NotSetMarker = (
            NOT_SET_MARKER),
        timestamps: str | None | builtins.list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        metadata: MetadataValue | builtins.list[MetadataValue] | _NotSetMarker = NOT_SET_MARKER,
    ) -> builtins.list[str]:
        rows = _broadcast(relation_ids=relation_ids, relation_types=relation_types,
                          opposite_relation_types=opposite_relation_types,
                          timestamps=timestamps, metadata=metadata)
        updated: builtins.list[str] = []
        for row in rows:
            changes = link_changes(row["relation_types"], row["opposite_relation_types"],
                                   row["timestamps"], row["metadata"])
            if self.backend.update_link(check_id_argument(row["relation_ids"], "relation_ids"),
                                        None, changes):
                updated.append(row["relation_ids"])
        return updated

    def delete_relations(self, relation_ids: str | builtins.list[str]) -> int:
        ids = [relation_ids] if isinstance(relation_ids, str) else list(relation_ids)
        return sum(self.backend.delete_links({"id": check_id_argument(i, "relation_ids")}, None)
                   for i in ids)

    # -- thread records ---------------------------------------------------------------

    def _create_thread_record(self, thread_id: str, user_id: str | None,
                              agent_id: str | None, metadata: dict[str, Any] | None,
                              runtime_config: dict[str, Any] | None) -> str:
        return self.backend.write_records([{
            "record_type": "thread", "id": thread_id, "thread_id": thread_id,
            "user_id": user_id, "agent_id": agent_id, "metadata": metadata,
            "config": {"settings": runtime_config or {}, "state": {}}}])[0]

    def _get_thread_record(self, thread_id: str) -> ThreadRecord | None:
        record = self.get("thread", thread_id)
        return record if isinstance(record, ThreadRecord) else None

    def _update_thread_record(
            self, thread_id: str, *, metadata: MetadataValue | _NotSetMarker = NOT_SET_MARKER,
            runtime_config: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
            runtime_state: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER) -> int:
        current = self._get_thread_record(thread_id)
        if current is None:
            return 0
        changes: RecordChanges = {}
        if not isinstance(metadata, _NotSetMarker):
            changes["metadata"] = metadata
        if runtime_config is not NOT_SET_MARKER or runtime_state is not NOT_SET_MARKER:
            changes["config"] = {
                "settings": value_or(runtime_config, current.runtime_config) or {},
                "state": value_or(runtime_state, current.runtime_state) or {}}
        updated = self.backend.update_record(thread_id, ["thread"], changes)
        return 0 if updated is None else 1

    def _get_record_expiration(self, record_type: str, record_id: str) -> datetime | None:
        found = self.backend.get_records({"ids": [record_id],
                                          "record_types": [contract_record_type(record_type)]})
        expires = found[0].get("expires_at") if found else None
        return parse_iso(expires, "expires_at") if expires else None

    def close(self) -> None:
        """Release the backend: its connections or its file (idempotent)."""
        self.backend.close()


def profile_record(record_type: str, scope_key: Literal["user_id", "agent_id"],
                   profile_id: object, information: object, metadata: Any,
                   embed: Callable[[list[str]], Sequence[np.ndarray | None]]) -> RecordIn:
    """A checked user or agent profile record: its id is also its ``scope_key`` value, its
    ``information`` the embedded content."""
    profile = check_id_argument(profile_id, scope_key)
    text = check_content(information, "information")
    record: RecordIn = {
        "record_type": record_type, "id": profile,
        "content": text, "metadata": value_or(metadata, None),
        "embedding": embed([text])[0]}
    record[scope_key] = profile
    return record


def list_limit(limit: Any) -> int:
    """The limit of a list call: omitted or None mean MAX_LIST_LIMIT, which caps it."""
    value = value_or(limit, None)
    if value is None:
        return MAX_LIST_LIMIT
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(
            f"limit must be an integer from 1 to {MAX_LIST_LIMIT}, or None; got {value!r}")
    if not 1 <= value <= MAX_LIST_LIMIT:
        raise InvalidArgumentError(
            f"limit must be an integer from 1 to {MAX_LIST_LIMIT}, or None; got {value!r}")
    return value


def _broadcast(**columns: Any) -> list[dict[str, Any]]:
    """Rows from column arguments: lists give one value per row, scalars repeat."""
    lengths = {len(value) for value in columns.values() if isinstance(value, list)}
    if len(lengths) > 1:
        raise InvalidArgumentError("list arguments must all have the same length")
    count = lengths.pop() if lengths else 1
    return [{name: value[i] if isinstance(value, list) else value
             for name, value in columns.items()} for i in range(count)]


def _content_fields(record_type: str, content: object, index_text: str | None) -> _ContentFields:
    """The contract fields a content argument sets for a record type."""
    if record_type == "image":
        if not isinstance(content, (bytes, bytearray)):
            raise InvalidArgumentError("an image record's content must be its bytes")
        mime = validate_image(content)
        return {"image_bytes": bytes(content), "mime_type": mime.value,
                "content": index_text or ""}
    if record_type == "message" and not isinstance(content, str) and isinstance(
            content, Sequence):
        parts = list(content)
        if not all(isinstance(part, MessageContent) for part in parts):
            raise InvalidArgumentError("message content parts must be MessageContent")
        if any(isinstance(part, ImageContent) and part.bytes is not None for part in parts):
            raise InvalidArgumentError(
                "image bytes in message parts are stored by OracleThread.add_messages; add "
                "the message there, or the image as its own record")
        text = "\n".join(getattr(part, "text", "") for part in parts if hasattr(part, "text"))
        return {"content": text, "parts": [part_to_dict(part) for part in parts]}
    if record_type == "thread":
        config = dict(content) if isinstance(content, Mapping) else {}
        return {"config": {"settings": config, "state": {}}, "content": ""}
    if record_type == "summary":
        summary = content.get("summary", "") if isinstance(content, Mapping) else content
        return {"content": "" if summary is None else str(summary)}
    if content is None:
        return {"content": ""}
    if not isinstance(content, str):
        raise InvalidArgumentError(
            f"a {record_type} record's content must be a str, got {type(content).__name__}")
    if record_type in MEMORY_TYPES:
        check_content(content, "content")
    return {"content": content}
