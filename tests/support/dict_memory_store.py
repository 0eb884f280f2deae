"""A memory store written only against the public store interface, kept in dicts.

It knows nothing of this project's backends: it is what an application would write to
plug its own storage into the client (``OracleAgentMemory(store=...)``). Search is exact
cosine similarity over the vectors it is given; metadata filters support exact values.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

import numpy as np

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.apis.memorystore import IMemoryStore, PendingRecordBatch
from oracleagentmemory.apis.records import (
    MessageRecord,
    Record,
    RecordStatus,
    ScopedRecord,
    build_record,
)
from oracleagentmemory.apis.relations import RecordRelation

MEMORY_TYPES = {"memory", "fact", "guideline", "preference"}
OPPOSITES = {"supersedes": "is_superseded_by", "refines": "is_refined_by",
             "supports": "is_supported_by", "contradicts": "contradicts",
             "duplicates": "duplicates"}


def _given(value: Any, default: Any = None) -> Any:
    return default if value is NOT_SET_MARKER else value


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class DictMemoryStore(IMemoryStore):
    """Records by (type, id), relations by id, vectors by (type, id)."""

    def __init__(self) -> None:
        self.records: dict[tuple[str, str], Record] = {}
        self.vectors: dict[tuple[str, str], np.ndarray] = {}
        self.relations: dict[str, RecordRelation] = {}
        self._ids = itertools.count(1)
        self._seq = itertools.count(1)

    def _new_id(self) -> str:
        return f"id-{next(self._ids)}"

    # -- writes -----------------------------------------------------------------------

    def _add_prepared_batches(self, batches: list[PendingRecordBatch],
                              **store_kwargs: Any) -> list[str]:
        ids = []
        for batch in batches:
            for i, content in enumerate(batch.contents):  # type: ignore[arg-type]
                ids.append(self._add_one(batch, i, content))
        return ids

    async def _add_prepared_batches_async(self, batches: list[PendingRecordBatch],
                                          **store_kwargs: Any) -> list[str]:
        return await asyncio.to_thread(self._add_prepared_batches, batches)

    def _add_one(self, batch: PendingRecordBatch, i: int, content: Any) -> str:
        record_type = str(batch.record_type)
        record_id = _given(batch.values("record_ids", i)) or self._new_id()
        if (record_type, record_id) in self.records:
            raise ValueError(f"{record_type} {record_id!r} already exists")
        extra: dict[str, Any] = {}
        if record_type == "message":
            extra["seq_no"] = next(self._seq)
        if record_type == "image":
            extra.update(bytes=content, mime_type="image/png")
            content = _given(batch.values("index_texts", i)) or ""
        if record_type == "thread":  # content: {"settings": ..., "state": ...}
            extra.update(runtime_config=(content or {}).get("settings"),
                         runtime_state=(content or {}).get("state"))
            content = None
        self.records[record_type, record_id] = build_record(
            record_type, record_id, content=content,
            thread_id=_given(batch.values("thread_ids", i)),
            user_id=_given(batch.values("user_ids", i)),
            agent_id=_given(batch.values("agent_ids", i)),
            role=_given(batch.values("roles", i)),
            timestamp=_given(batch.values("timestamps", i)) or _now(),
            metadata=_given(batch.values("metadata", i)),
            status=_given(batch.values("statuses", i), RecordStatus.VALID), **extra)
        vector = _given(batch.values("embeddings", i))
        if vector is not None:
            self.vectors[record_type, record_id] = np.asarray(vector, dtype=np.float32)
        return record_id

    def add_user(self, user_id: Any = NOT_SET_MARKER, information: Any = NOT_SET_MARKER,
                 metadata: Any = NOT_SET_MARKER) -> str:
        return self.add([information], "user_profile", record_ids=[user_id],
                        metadata=[_given(metadata)])[0]

    def add_agent(self, agent_id: str, information: str, metadata: Any = NOT_SET_MARKER) -> str:
        return self.add([information], "agent_profile", record_ids=[agent_id],
                        metadata=[_given(metadata)])[0]

    def update(self, record_type: str, record_id: str, *, content: Any = NOT_SET_MARKER,
               index_text: Any = NOT_SET_MARKER, embedding: Any = NOT_SET_MARKER,
               metadata: Any = NOT_SET_MARKER, timestamp: Any = NOT_SET_MARKER,
               ttl_days: Any = NOT_SET_MARKER, ttl_anchor: Any = NOT_SET_MARKER,
               status: Any = NOT_SET_MARKER, text: Any = NOT_SET_MARKER) -> int:
        key = (record_type, record_id)
        if key not in self.records:
            return 0
        changes = {name: value for name, value in (
            ("content", _given(text, content) if text is not NOT_SET_MARKER else content),
            ("metadata", metadata), ("timestamp", timestamp), ("status", status))
            if value is not NOT_SET_MARKER}
        if record_type == "thread" and "content" in changes:
            config = changes.pop("content") or {}
            changes.update(runtime_config=config.get("settings"),
                           runtime_state=config.get("state"))
        self.records[key] = replace(self.records[key], **changes)
        if embedding is not NOT_SET_MARKER and embedding is not None:
            self.vectors[key] = np.asarray(embedding, dtype=np.float32)
        return 1

    def delete(self, record_type: str, record_id: str, cascade: bool = False) -> int:
        if (record_type, record_id) not in self.records:
            return 0
        del self.records[record_type, record_id]
        self.vectors.pop((record_type, record_id), None)
        if cascade and record_type in ("user_profile", "agent_profile", "thread"):
            column = {"user_profile": "user_id", "agent_profile": "agent_id",
                      "thread": "thread_id"}[record_type]
            for key, record in list(self.records.items()):
                if isinstance(record, ScopedRecord) and getattr(record, column) == record_id:
                    self.delete(*key)
        self.relations = {rid: r for rid, r in self.relations.items()
                          if record_id not in (r.source_record_id, r.target_record_id)}
        return 1

    def delete_thread(self, thread_id: str) -> int:
        return self.delete("thread", thread_id, cascade=True)

    # -- reads ------------------------------------------------------------------------

    def get(self, record_type: str, record_id: str, include_bytes: Any = NOT_SET_MARKER
            ) -> Record | None:
        return self.records.get((record_type, record_id))

    def list(self, record_type: str, *, limit: Any = NOT_SET_MARKER,
             thread_id: Any = NOT_SET_MARKER, user_id: Any = NOT_SET_MARKER,
             agent_id: Any = NOT_SET_MARKER, metadata_filter: Any = NOT_SET_MARKER,
             include_bytes: Any = NOT_SET_MARKER, record_id: Any = NOT_SET_MARKER
             ) -> list[Record]:
        wanted = {name: value for name, value in (("thread_id", thread_id),
                                                  ("user_id", user_id), ("agent_id", agent_id))
                  if value is not NOT_SET_MARKER}
        found = [r for (kind, rid), r in self.records.items()
                 if kind == record_type and _given(record_id, rid) == rid
                 and all(getattr(r, k, None) == v for k, v in wanted.items())
                 and _matches(r.metadata, _given(metadata_filter))]
        return found[:_given(limit) or None]

    def list_thread_messages(self, thread_id: str, *, last_n: int | None = None,
                             range_start_seq_no: int | None = None,
                             range_end_seq_no: int | None = None,
                             include_bytes: Any = NOT_SET_MARKER) -> list[MessageRecord]:
        messages = [r for r in self.list("message", thread_id=thread_id)
                    if isinstance(r, MessageRecord)]
        messages.sort(key=lambda r: r.seq_no)
        return messages[-last_n:] if last_n else messages

    def search(self, query: str | None, k: int, *, query_vector: Any = None,
               thread_id: str | None = None, user_id: str | None = None,
               agent_id: str | None = None, exact_user_match: bool = False,
               exact_agent_match: bool = False, exact_thread_match: bool = False,
               record_types: set[str] | None = None, metadata_filter: Any = None,
               num_hops: int = 0, max_linked_results: int = 100,
               include_invalid_results: bool = True) -> list[tuple[Record, float]]:
        if query_vector is None:
            raise ValueError("this store searches by vector only")
        q = np.asarray(query_vector, dtype=np.float32)
        exact = {"user_id": (user_id, exact_user_match), "agent_id": (agent_id,
                 exact_agent_match), "thread_id": (thread_id, exact_thread_match)}
        hits = []
        for key, vector in self.vectors.items():
            record = self.records[key]
            if record_types and record.record_type not in record_types:
                continue
            if any(flag and getattr(record, name, None) != value
                   for name, (value, flag) in exact.items()):
                continue
            if not include_invalid_results and record.status is RecordStatus.INVALID:
                continue
            if not _matches(record.metadata, metadata_filter):
                continue
            cosine = float(q @ vector / (np.linalg.norm(q) * np.linalg.norm(vector) or 1.0))
            hits.append((record, 1.0 - cosine))
        hits.sort(key=lambda hit: hit[1])
        return hits[:k]

    # -- relations --------------------------------------------------------------------

    def add_relations(self, source_record_ids: Any, source_record_types: Any,
                      target_record_ids: Any, target_record_types: Any, relation_types: Any,
                      opposite_relation_types: Any = NOT_SET_MARKER,
                      relation_ids: Any = NOT_SET_MARKER, timestamps: Any = NOT_SET_MARKER,
                      metadata: Any = NOT_SET_MARKER) -> list[str]:
        def column(value: Any, i: int) -> Any:
            value = _given(value)
            return value[i] if isinstance(value, list) else value

        count = len(source_record_ids) if isinstance(source_record_ids, list) else 1
        ids = []
        for i in range(count):
            label = column(relation_types, i)
            relation = RecordRelation(
                id=column(relation_ids, i) or self._new_id(),
                source_record_id=column(source_record_ids, i),
                source_record_type=column(source_record_types, i),
                target_record_id=column(target_record_ids, i),
                target_record_type=column(target_record_types, i), relation_type=label,
                opposite_relation_type=column(opposite_relation_types, i)
                or OPPOSITES.get(label, label),
                timestamp=column(timestamps, i), metadata=column(metadata, i),
                created_at=_now())
            self.relations[relation.id] = relation
            ids.append(relation.id)
        return ids

    def get_relation(self, source_record_id: Any = NOT_SET_MARKER,
                     source_record_type: Any = NOT_SET_MARKER,
                     target_record_id: Any = NOT_SET_MARKER,
                     target_record_type: Any = NOT_SET_MARKER,
                     relation_type: Any = NOT_SET_MARKER,
                     relation_id: Any = NOT_SET_MARKER) -> RecordRelation | None:
        found = self.list_relations(relation_type, source_record_id, source_record_type,
                                    target_record_id, target_record_type,
                                    relation_id=relation_id)
        return found[0] if found else None

    def list_relations(self, relation_type: Any = NOT_SET_MARKER,
                       source_record_id: Any = NOT_SET_MARKER,
                       source_record_type: Any = NOT_SET_MARKER,
                       target_record_id: Any = NOT_SET_MARKER,
                       target_record_type: Any = NOT_SET_MARKER,
                       limit: Any = NOT_SET_MARKER, metadata_filter: Any = NOT_SET_MARKER,
                       relation_id: Any = NOT_SET_MARKER) -> list[RecordRelation]:
        wanted = {name: value for name, value in (
            ("relation_type", relation_type), ("source_record_id", source_record_id),
            ("source_record_type", source_record_type), ("target_record_id", target_record_id),
            ("target_record_type", target_record_type), ("id", relation_id))
            if value is not NOT_SET_MARKER}
        return [r for r in self.relations.values()
                if all(getattr(r, k) == v for k, v in wanted.items())][:_given(limit) or None]

    def update_relations(self, relation_ids: Any, relation_types: Any = NOT_SET_MARKER,
                         opposite_relation_types: Any = NOT_SET_MARKER,
                         timestamps: Any = NOT_SET_MARKER,
                         metadata: Any = NOT_SET_MARKER) -> list[str]:
        ids = [relation_ids] if isinstance(relation_ids, str) else relation_ids
        updated = []
        for rid in ids:
            if rid not in self.relations:
                continue
            changes = {name: value for name, value in (
                ("relation_type", relation_types),
                ("opposite_relation_type", opposite_relation_types),
                ("timestamp", timestamps), ("metadata", metadata))
                if value is not NOT_SET_MARKER}
            self.relations[rid] = replace(self.relations[rid], **changes)
            updated.append(rid)
        return updated

    def delete_relations(self, relation_ids: Any) -> int:
        ids = [relation_ids] if isinstance(relation_ids, str) else relation_ids
        return sum(self.relations.pop(rid, None) is not None for rid in ids)


def _matches(metadata: Any, wanted: Any) -> bool:
    return not wanted or all((metadata or {}).get(k) == v for k, v in wanted.items())
