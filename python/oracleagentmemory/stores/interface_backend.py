"""The store contract over any implementation of the public store interface.

A caller may give the client a store of their own (``IMemoryStore``). The client's code
speaks the contract, so this one adapter translates every contract operation into calls of
that interface. What the caller's store does not promise, this adapter cannot add: writes
that span several interface calls (records and then links, several deletes, a thread's
messages and its counters) are not one transaction, and expiry is the store's business
(``purge_expired`` removes nothing).

Thread records travel with a mapping as their content: ``{"settings": ..., "state": ...}``
(a thread's durable settings and its extraction state); the store keeps them as the
record's ``runtime_config`` and ``runtime_state``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

import numpy as np

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory._vocabulary import (
    CONTRACT_RECORD_TYPES,
    MEMORY_TYPES,
    PUBLIC_RECORD_TYPES,
    SEARCHABLE_TYPES,
)
from oracleagentmemory.apis.memorystore import (
    IMemoryStore,
    PendingRecordBatch,
    PerRecordEmbeddingsInput,
    RecordContentInput,
)
from oracleagentmemory.apis.message import (
    ImageContent,
    ImageMimeType,
    MetadataValue,
    TextContent,
    part_to_dict,
)
from oracleagentmemory.apis.records import (
    ImageRecord,
    MessageRecord,
    Record,
    RecordStatus,
    ScopedRecord,
    ThreadRecord,
)
from oracleagentmemory.apis.relations import RecordRelation, RelationType
from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.stores.errors import (
    InvalidArgumentError,
    LinkEndNotFoundError,
    RecordNotFoundError,
)
from oracleagentmemory.stores.extraction_schedule import (
    Due,
    batch_thread,
    check_batch_records,
    check_schedule,
    count_batch,
    counted,
    not_written,
    stored_counters,
)
from oracleagentmemory.stores.protocol import (
    CascadeResult,
    LinkChanges,
    LinkIn,
    LinkOut,
    LinkQuery,
    LinkSelector,
    MessageBatch,
    MessageBatchResult,
    OwnerType,
    RecordChanges,
    RecordIn,
    RecordOut,
    RecordQuery,
    RecordScope,
    SearchHit,
    SearchRequest,
    Vector,
    within_limit,
)
from oracleagentmemory.stores.record_changes import (
    check_context,
    keep_bookkeeping,
    layered_settings,
)
from oracleagentmemory.stores.relations import BUILTIN_OPPOSITES

_OWNER_TYPES = {"user": "user_profile", "agent": "agent_profile"}


class _UpdateArguments(TypedDict, total=False):
    """The keyword arguments of ``IMemoryStore.update`` a contract change sets."""

    content: RecordContentInput
    embedding: PerRecordEmbeddingsInput | None
    metadata: MetadataValue
    timestamp: str | None
    status: RecordStatus
    ttl_days: int | None
    ttl_anchor: TimeToLiveAnchor


class _RelationArguments(TypedDict, total=False):
    """The optional keyword arguments of ``IMemoryStore.add_relations`` links set."""

    opposite_relation_types: list[RelationType]


def _embedding(vector: Vector | None) -> PerRecordEmbeddingsInput | None:
    """A contract vector as the interface takes it (a list of floats or a numpy array)."""
    if vector is None or isinstance(vector, (list, np.ndarray)):
        return vector
    return [float(x) for x in vector]


def _public(record_type: str) -> str:
    return PUBLIC_RECORD_TYPES.get(record_type, record_type)


def _whole_days(days: float | None) -> int | None:
    """The contract's TTL (a number of days) as the interface's whole days. The client only
    ever writes whole days; a fraction cannot be handed to a store of the caller's."""
    if days is None or isinstance(days, int):
        return days
    if float(days).is_integer():
        return int(days)
    raise InvalidArgumentError(f"ttl_days must be a whole number of days, got {days!r}")


def record_out(record: Record) -> RecordOut:
    """A public record as the contract's RecordOut."""
    out: RecordOut = {
        "id": record.id,
        "record_type": CONTRACT_RECORD_TYPES.get(record.record_type, record.record_type),
        "content": record.content if isinstance(record.content, str) else "",
        "metadata": record.metadata,
        "timestamp": record.timestamp,
        "created_at": record.timestamp,
        "updated_at": record.timestamp,
        "expires_at": None,
        "status": RecordStatus(record.status).name,
    }
    if isinstance(record, ScopedRecord):
        out["user_id"] = record.user_id
        out["agent_id"] = record.agent_id
        out["thread_id"] = record.thread_id
    if isinstance(record, MessageRecord):
        out["role"] = record.role
        out["seq_no"] = record.seq_no
        if not isinstance(record.content, str):
            out["parts"] = [part_to_dict(part) for part in record.content]
            out["content"] = "\n".join(part.text for part in record.content
                                       if isinstance(part, TextContent))
    if isinstance(record, ImageRecord):
        out["mime_type"] = record.mime_type.value if record.mime_type else None
        out["message_id"] = record.message_id
        if record.bytes is not None:
            out["image_bytes"] = record.bytes
    if isinstance(record, ThreadRecord):
        out["config"] = {"settings": record.runtime_config or {},
                         "state": record.runtime_state or {}}
    if isinstance(record.content, dict):
        out["content"] = str(record.content.get("summary", ""))
    return out


def link_out(relation: RecordRelation) -> LinkOut:
    return {
        "id": relation.id, "thread_id": None, "source_id": relation.source_record_id,
        "source_type": relation.source_record_type, "target_id": relation.target_record_id,
        "target_type": relation.target_record_type, "relation_type": relation.relation_type,
        "opposite_relation_type": relation.opposite_relation_type,
        "timestamp": relation.timestamp, "metadata": relation.metadata,
        "created_at": relation.created_at,
    }


class InterfaceBackend:
    """A contract backend that forwards to a caller's ``IMemoryStore``."""

    backend = "interface"

    def __init__(self, store: IMemoryStore) -> None:
        self.store = store

    def describe(self) -> dict[str, Any]:
        return {"backend": self.backend, "store_class": type(self.store).__name__,
                "schema_version": None, "embedding_dimension": None}

    # -- writes -----------------------------------------------------------------------

    def write_records(self, records: Sequence[RecordIn], links: Sequence[LinkIn] = (),
                      replace: bool = False, thread_id: str | None = None) -> list[str]:
        # A store of your own has no transaction to check the thread in: checked before.
        if thread_id is not None and self._find(thread_id, ["thread"], None) is None:
            raise RecordNotFoundError(f"thread {thread_id!r} does not exist")
        records = [self._scoped(record) for record in records]
        links = [self._typed(link) for link in links]
        if replace:
            for record in records:
                if record.get("id"):
                    self.store.delete(_public(record["record_type"]), record["id"])
        ids: list[str] = []
        for record in records:
            ids.extend(self.store.add_batches([_batch(record)]))
        if links:
            extra: _RelationArguments = {}
            if any(link.get("opposite_relation_type") for link in links):
                # One label per link: a link without one gets the label its store would give.
                extra["opposite_relation_types"] = [
                    link.get("opposite_relation_type")
                    or BUILTIN_OPPOSITES.get(link["relation_type"], link["relation_type"])
                    for link in links]
            self.store.add_relations(
                [link["source_id"] for link in links], [link["source_type"] for link in links],
                [link["target_id"] for link in links], [link["target_type"] for link in links],
                [link["relation_type"] for link in links],
                relation_ids=[link.get("id") for link in links],
                timestamps=[link.get("timestamp") for link in links],
                metadata=[link.get("metadata") for link in links],
                **extra,
            )
        return ids

    def _scoped(self, record: RecordIn) -> RecordIn:
        """The record with the scope keys it leaves out taken from its ``scope_from``."""
        if "scope_from" not in record:
            return record
        source = self._find(record["scope_from"], MEMORY_TYPES, None)
        if source is None:
            raise LinkEndNotFoundError(f"scope_from {record['scope_from']!r} is not a stored "
                                       "memory")
        scoped: RecordIn = {**record}
        if "user_id" not in record:
            scoped["user_id"] = source.get("user_id")
        if "agent_id" not in record:
            scoped["agent_id"] = source.get("agent_id")
        if "thread_id" not in record:
            scoped["thread_id"] = source.get("thread_id")
        return scoped

    def _typed(self, link: LinkIn) -> LinkIn:
        """The link with an end given without a type typed as stored."""
        typed: LinkIn = {**link}
        if "source_type" not in link:
            typed["source_type"] = self._stored_type(link.get("source_id"), "source")
        if "target_type" not in link:
            typed["target_type"] = self._stored_type(link.get("target_id"), "target")
        return typed

    def _stored_type(self, record_id: str | None, side: str) -> str:
        found = self._find(record_id, MEMORY_TYPES, None) if record_id else None
        if found is None:
            raise LinkEndNotFoundError(f"{side} record {record_id!r} does not exist")
        return found["record_type"]

    def append_messages(self, batch: MessageBatch) -> MessageBatchResult:
        # The contract's steps one after the other: a store of your own has no transaction
        # to hold them in, so the counters are read, then written back.
        thread_id, required = batch_thread(batch)
        records = check_batch_records(batch, thread_id)
        schedule = check_schedule(batch.get("schedule"))
        thread = self._find(thread_id, ["thread"], None)
        if thread is None and required:
            raise RecordNotFoundError(f"thread {thread_id!r} does not exist")
        if "after_message_id" in batch:
            last = self.list_messages(thread_id, -1, None)
            if (last[0]["id"] if last else None) != batch["after_message_id"]:
                return not_written(last[0] if last else None)
        ids = self.write_records(records)
        config = thread.get("config") if thread is not None else None
        added = sum(record["record_type"] == "message" for record in records)
        due = Due(0, 0, stored_counters(config))
        if schedule is not None:
            due = count_batch(due.counters, added, schedule)
            if thread is not None:
                self.update_record(thread_id, ["thread"], {"config": counted(config, due)})
        window = max(due.extraction_window, due.summary_window)
        summary = self._find(thread_id, ["summary"], None) if window else None
        return {"ids": ids, "written": True, "last_message": None,
                "extraction_window": due.extraction_window,
                "summary_window": due.summary_window,
                "messages": self.list_messages(thread_id, -window, None) if window else [],
                "thread_summary": summary["content"] if summary is not None else None}

    def update_record(self, record_id: str, record_types: Sequence[str],
                      changes: RecordChanges, thread_id: str | None = None) -> RecordOut | None:
        found = self._find(record_id, record_types, thread_id)
        if found is None:
            return None
        # read above: your store has no transaction
        check_context(found, changes, lambda: self._message_before(found))
        record_type = _public(found["record_type"])
        given: _UpdateArguments = {}
        if "metadata" in changes:
            given["metadata"] = keep_bookkeeping(found.get("metadata"), changes["metadata"]) \
                if changes.get("keep_bookkeeping") else changes["metadata"]
        if "timestamp" in changes:
            given["timestamp"] = changes["timestamp"]
        if "content" in changes:
            given["content"] = changes["content"]
            given["embedding"] = _embedding(changes.get("embedding"))
        if "config" in changes:
            given["content"] = changes["config"]
        if "settings" in changes:  # read above, written back: your store has no transaction
            config = found.get("config") or {}
            given["content"] = {**config, "settings": layered_settings(
                config.get("settings"), changes["settings"])}
        if "status" in changes:
            given["status"] = RecordStatus(changes["status"])
        if "ttl_days" in changes:
            given["ttl_days"] = _whole_days(changes["ttl_days"])
        if "ttl_anchor" in changes:
            given["ttl_anchor"] = TimeToLiveAnchor[changes["ttl_anchor"]]
        if not self.store.update(record_type, record_id, **given):
            return None
        return self._find(record_id, record_types, thread_id)

    def _message_before(self, message: RecordOut) -> str | None:
        ids = [m["id"] for m in self.list_messages(message.get("thread_id") or "", None, None)]
        position = ids.index(message["id"]) if message["id"] in ids else 0
        return ids[position - 1] if position else None

    def delete_records(self, record_ids: Sequence[str], record_types: Sequence[str],
                       thread_id: str | None = None) -> int:
        deleted = 0
        for record_id in record_ids:
            found = self._find(record_id, record_types, thread_id)
            if found is not None:
                deleted += self.store.delete(_public(found["record_type"]), record_id)
        return deleted

    def delete_cascade(self, owner_type: OwnerType, owner_id: str) -> CascadeResult:
        if owner_type == "thread":
            owner = self.store.delete_thread(owner_id)
        else:
            owner = self.store.delete(_OWNER_TYPES[owner_type], owner_id, cascade=True)
        return {"owner": owner, "records": owner, "links": 0}

    def purge_expired(self) -> int:
        return 0

    def close(self) -> None:
        close = getattr(self.store, "close", None)
        if callable(close):
            close()

    # -- reads ------------------------------------------------------------------------

    def _find(self, record_id: str, record_types: Sequence[str],
              thread_id: str | None) -> RecordOut | None:
        for record_type in record_types:
            record = self.store.get(_public(record_type), record_id)
            if record is None:
                continue
            out = record_out(record)
            if thread_id is None or out.get("thread_id") == thread_id:
                return out
        return None

    def get_records(self, query: RecordQuery) -> list[RecordOut]:
        types = query.get("record_types") or list(SEARCHABLE_TYPES)
        include_bytes = bool(query.get("include_bytes"))
        scope: RecordScope = {}
        if "user_id" in query:
            scope["user_id"] = query["user_id"]
        if "agent_id" in query:
            scope["agent_id"] = query["agent_id"]
        if "thread_id" in query:
            scope["thread_id"] = query["thread_id"]
        found: list[RecordOut] = []
        for record_type in types:
            if "ids" in query:
                records = [self.store.get(_public(record_type), rid, include_bytes)
                           for rid in query["ids"]]
                outs = [record_out(r) for r in records if r is not None]
                outs = [o for o in outs if all(o.get(k) == v for k, v in scope.items())]
            else:
                # The store's own limit keeps its first records: the newest are cut here.
                outs = [record_out(r) for r in self.store.list(
                    _public(record_type),
                    limit=None if query.get("newest") else query.get("limit"), **scope,
                    metadata_filter=query.get("metadata_filter"),
                    include_bytes=include_bytes)]
            if "message_id" in query:
                outs = [o for o in outs if o.get("message_id") == query["message_id"]]
            found.extend(outs)
        return within_limit(found, query)

    def list_messages(self, thread_id: str, start: int | None, end: int | None,
                      include_bytes: bool = False) -> list[RecordOut]:
        records = self.store.list_thread_messages(thread_id, include_bytes=include_bytes)
        return [record_out(record) for record in records][start:end]

    def search(self, request: SearchRequest) -> list[SearchHit]:
        scope = request.get("scope") or {}

        def dimension(name: str) -> tuple[str | None, bool]:
            given = scope.get(name)
            return (None, False) if given is None else (given["value"], given["exact"])

        user, exact_user = dimension("user_id")
        agent, exact_agent = dimension("agent_id")
        thread, exact_thread = dimension("thread_id")
        vector = request.get("query_vector")
        results = self.store.search(
            request.get("query_text") or None, request.get("max_results", 10),
            query_vector=None if vector is None else [float(x) for x in vector],
            user_id=user, agent_id=agent, thread_id=thread, exact_user_match=exact_user,
            exact_agent_match=exact_agent, exact_thread_match=exact_thread,
            record_types={_public(t) for t in request.get("record_types") or []} or None,
            metadata_filter=request.get("metadata_filter"),
            num_hops=request.get("num_hops", 0),
            max_linked_results=request.get("max_linked_results", 100),
            include_invalid_results=request.get("include_invalid", True))
        return [{"record": record_out(record), "distance": float(distance),
                 "linked": [{"record": record_out(linked), "relation": link_out(relation),
                             "relation_id": relation.id,
                             "relation_type": relation.relation_type,
                             "via_record_id": record.id, "hops": 1}
                            for relation, linked in record.linked_results]}
                for record, distance in results]

    # -- links ------------------------------------------------------------------------

    def update_link(self, relation_id: str, thread_id: str | None,
                    changes: LinkChanges) -> int:
        updated = self.store.update_relations(
            relation_id,
            relation_types=changes.get("relation_type", NOT_SET_MARKER),
            opposite_relation_types=changes.get("opposite_relation_type", NOT_SET_MARKER),
            timestamps=changes.get("timestamp", NOT_SET_MARKER),
            metadata=changes.get("metadata", NOT_SET_MARKER))
        return len(updated)

    def delete_links(self, selector: LinkSelector, thread_id: str | None) -> int:
        if "id" in selector:
            return self.store.delete_relations(selector["id"])
        relation = self.store.get_relation(
            source_record_id=selector.get("source_id", NOT_SET_MARKER),
            source_record_type=selector.get("source_type", NOT_SET_MARKER),
            target_record_id=selector.get("target_id", NOT_SET_MARKER),
            target_record_type=selector.get("target_type", NOT_SET_MARKER),
            relation_type=selector.get("relation_type", NOT_SET_MARKER))
        return 0 if relation is None else self.store.delete_relations(relation.id)

    def list_links(self, query: LinkQuery) -> list[LinkOut]:
        relations = self.store.list_relations(
            relation_type=query.get("relation_type", NOT_SET_MARKER),
            source_record_id=query.get("source_id", NOT_SET_MARKER),
            source_record_type=query.get("source_type", NOT_SET_MARKER),
            target_record_id=query.get("target_id", NOT_SET_MARKER),
            target_record_type=query.get("target_type", NOT_SET_MARKER),
            limit=query.get("limit", NOT_SET_MARKER),
            metadata_filter=query.get("metadata_filter", NOT_SET_MARKER))
        if "ids" in query:
            wanted = set(query["ids"])
            relations = [r for r in relations if r.id in wanted]
        return [link_out(relation) for relation in relations]


def _batch(record: RecordIn) -> PendingRecordBatch:
    """A one-record batch for the interface's ``add_batches``."""
    record_type = _public(record["record_type"])
    content: Any = record.get("content")
    if record["record_type"] == "image":
        content = record.get("image_bytes")
    elif record.get("parts"):
        content = [ImageContent(bytes=None,
                                mime_type=part.get("mime_type") or ImageMimeType.PNG,
                                description=part.get("description"), id=part["id"])
                   if part.get("type") == "image"
                   else TextContent(text=part.get("text", ""), id=part["id"])
                   for part in record["parts"] or []]
    elif record["record_type"] == "thread":
        content = record.get("config") or {"settings": {}, "state": {}}
    elif record["record_type"] == "summary":
        content = {"summary": record.get("content") or ""}
    embedding = record.get("embedding")
    anchor = record.get("ttl_anchor")
    if record.get("image_bytes") and record["record_type"] != "image":
        raise InvalidArgumentError("only image records carry image bytes")
    return PendingRecordBatch(
        contents=[content], record_type=record_type, record_ids=[record.get("id")],
        index_texts=[record.get("content")] if record["record_type"] == "image" else NOT_SET_MARKER,
        embeddings=[[float(x) for x in embedding]] if embedding is not None else NOT_SET_MARKER,
        thread_ids=[record.get("thread_id")], user_ids=[record.get("user_id")],
        agent_ids=[record.get("agent_id")], roles=[record.get("role")],
        timestamps=[record.get("timestamp")], metadata=[record.get("metadata")],
        ttl_days=[_whole_days(record.get("ttl_days"))] if "ttl_days" in record else NOT_SET_MARKER,
        ttl_anchor=[TimeToLiveAnchor[anchor]] if anchor else NOT_SET_MARKER,
        statuses=[RecordStatus(record.get("status") or "VALID")],
    )
