"""The public store interface: what a memory store offers the client and its threads.

A store implements the abstract methods; the base class turns the batch arguments of
``add`` into :class:`PendingRecordBatch` objects (scalars broadcast, lengths checked) and
hands them to ``_add_prepared_batches``, and gives every method an ``_async`` twin that
runs it in a worker thread.
"""

from __future__ import annotations

import asyncio
import builtins
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeAlias

import numpy as np

from oracleagentmemory._async_twins import document_twins
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory.apis.message import MessageContent, MetadataValue
from oracleagentmemory.apis.records import MessageRecord, Record, RecordStatus
from oracleagentmemory.apis.relations import RecordRelation, RelationType
from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.errors import InvalidArgumentError

__all__ = [
    "EmbeddingVectorInput",
    "IMemoryStore",
    "MAX_LIST_LIMIT",
    "PendingRecordBatch",
    "PerBatchEmbeddingsInput",
    "PerBatchIndexTextsInput",
    "PerBatchRecordContentsInput",
    "PerRecordEmbeddingsInput",
    "PerRecordIndexTextInput",
    "RecordContentInput",
]

MAX_LIST_LIMIT = 10_000
"""The most records one ``list`` call returns (also what an omitted or None limit means)."""

EmbeddingVectorInput: TypeAlias = list[float] | np.ndarray
PerRecordEmbeddingsInput: TypeAlias = list[float] | np.ndarray | list[list[float] | np.ndarray]
PerBatchEmbeddingsInput: TypeAlias = list[list[float] | np.ndarray
                                          | list[list[float] | np.ndarray]]
PerRecordIndexTextInput: TypeAlias = str | list[str]
PerBatchIndexTextsInput: TypeAlias = list[str | list[str] | None]
RecordContentInput: TypeAlias = (str | Mapping[str, object] | Sequence[MessageContent] | bytes
                                 | None)
PerBatchRecordContentsInput: TypeAlias = Sequence[RecordContentInput]
MetadataFilter: TypeAlias = dict[str, Any] | None

_PER_RECORD = ("record_ids", "index_texts", "embeddings", "thread_ids", "user_ids",
               "agent_ids", "roles", "timestamps", "metadata", "ttl_days", "ttl_anchor",
               "statuses", "_expires_at")


@dataclass
class PendingRecordBatch:
    """Records of one type to add together.

    Every per-record field is a list with one entry per content, or a single value that
    applies to all of them, or NOT_SET_MARKER (the store's default). ``texts`` is an older
    name of ``contents``. After ``__post_init__`` every per-record field is a list (or
    NOT_SET_MARKER) of the batch's length.
    """

    contents: PerBatchRecordContentsInput | _NotSetMarker = NOT_SET_MARKER
    record_type: str | _NotSetMarker = NOT_SET_MARKER
    record_ids: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER
    index_texts: PerBatchIndexTextsInput | _NotSetMarker = NOT_SET_MARKER
    embeddings: PerBatchEmbeddingsInput | _NotSetMarker = NOT_SET_MARKER
    thread_ids: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER
    user_ids: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER
    agent_ids: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER
    roles: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER
    timestamps: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER
    metadata: MetadataValue | list[MetadataValue] | _NotSetMarker = NOT_SET_MARKER
    ttl_days: int | None | list[int | None] | _NotSetMarker = NOT_SET_MARKER
    ttl_anchor: TimeToLiveAnchor | list[TimeToLiveAnchor] | _NotSetMarker = NOT_SET_MARKER
    statuses: RecordStatus | list[RecordStatus] | _NotSetMarker = NOT_SET_MARKER
    _expires_at: list[datetime | None] | _NotSetMarker = NOT_SET_MARKER
    texts: PerBatchRecordContentsInput | _NotSetMarker = NOT_SET_MARKER
    _initialized: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.texts is not NOT_SET_MARKER:
            if self.contents is not NOT_SET_MARKER:
                raise InvalidArgumentError("pass contents or texts (its older name), not both")
            self.contents, self.texts = self.texts, NOT_SET_MARKER
        if self.contents is NOT_SET_MARKER:
            raise InvalidArgumentError("a record batch needs contents")
        if self.record_type is NOT_SET_MARKER or not isinstance(self.record_type, str):
            raise InvalidArgumentError("a record batch needs a record_type (a str)")
        if isinstance(self.contents, (str, bytes)) or not isinstance(self.contents, Sequence):
            raise InvalidArgumentError("contents must be a list with one entry per record")
        self.contents = list(self.contents)
        count = len(self.contents)
        for name in _PER_RECORD:
            value = getattr(self, name)
            if value is NOT_SET_MARKER:
                continue
            if name in ("index_texts", "embeddings") or isinstance(value, list):
                if not isinstance(value, list) or len(value) != count:
                    raise InvalidArgumentError(
                        f"{name} must have one entry per record ({count}), got "
                        f"{len(value) if isinstance(value, list) else type(value).__name__}")
                continue
            setattr(self, name, [value] * count)
        self._initialized = True

    def __len__(self) -> int:
        return len(self.contents)  # type: ignore[arg-type]  # a list after __post_init__

    def values(self, name: str, index: int) -> Any:
        """The value of a per-record field for record ``index`` (NOT_SET_MARKER if unset)."""
        value = getattr(self, name)
        return NOT_SET_MARKER if value is NOT_SET_MARKER else value[index]


async def _in_thread(function: Any, *args: Any, **kwargs: Any) -> Any:
    return await asyncio.to_thread(function, *args, **kwargs)


@document_twins
class IMemoryStore(ABC):
    """A memory store: records of every type, relations between them, and search."""

    # -- adding records -----------------------------------------------------------------

    def add(
        self,
        contents: PerBatchRecordContentsInput | _NotSetMarker = NOT_SET_MARKER,
        record_type: str | _NotSetMarker = NOT_SET_MARKER,
        index_texts: PerBatchIndexTextsInput | _NotSetMarker = NOT_SET_MARKER,
        embeddings: PerBatchEmbeddingsInput | _NotSetMarker = NOT_SET_MARKER,
        record_ids: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        thread_ids: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        user_ids: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        agent_ids: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        roles: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        timestamps: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        metadata: MetadataValue | list[MetadataValue] | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | list[int | None] | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | list[TimeToLiveAnchor] | _NotSetMarker = NOT_SET_MARKER,
        statuses: RecordStatus | list[RecordStatus] | _NotSetMarker = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> list[str]:
        """Add records of one type; returns their ids in order."""
        batch = PendingRecordBatch(
            contents=contents, record_type=record_type, index_texts=index_texts,
            embeddings=embeddings, record_ids=record_ids, thread_ids=thread_ids,
            user_ids=user_ids, agent_ids=agent_ids, roles=roles, timestamps=timestamps,
            metadata=metadata, ttl_days=ttl_days, ttl_anchor=ttl_anchor, statuses=statuses)
        return self.add_batches([batch], **store_kwargs)

    async def add_async(
        self,
        contents: PerBatchRecordContentsInput | _NotSetMarker = NOT_SET_MARKER,
        record_type: str | _NotSetMarker = NOT_SET_MARKER,
        index_texts: PerBatchIndexTextsInput | _NotSetMarker = NOT_SET_MARKER,
        embeddings: PerBatchEmbeddingsInput | _NotSetMarker = NOT_SET_MARKER,
        record_ids: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        thread_ids: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        user_ids: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        agent_ids: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        roles: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        timestamps: str | None | list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        metadata: MetadataValue | list[MetadataValue] | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | list[int | None] | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | list[TimeToLiveAnchor] | _NotSetMarker = NOT_SET_MARKER,
        statuses: RecordStatus | list[RecordStatus] | _NotSetMarker = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> list[str]:
        batch = PendingRecordBatch(
            contents=contents, record_type=record_type, index_texts=index_texts,
            embeddings=embeddings, record_ids=record_ids, thread_ids=thread_ids,
            user_ids=user_ids, agent_ids=agent_ids, roles=roles, timestamps=timestamps,
            metadata=metadata, ttl_days=ttl_days, ttl_anchor=ttl_anchor, statuses=statuses)
        return await self.add_batches_async([batch], **store_kwargs)

    def add_batches(self, batches: list[PendingRecordBatch], **store_kwargs: Any) -> list[str]:
        """Add several batches (of possibly different types) in one write; ids in order."""
        return self._add_prepared_batches(_checked(batches), **store_kwargs)

    async def add_batches_async(self, batches: list[PendingRecordBatch],
                                **store_kwargs: Any) -> list[str]:
        return await self._add_prepared_batches_async(_checked(batches), **store_kwargs)

    @abstractmethod
    def _add_prepared_batches(self, batches: list[PendingRecordBatch],
                              **store_kwargs: Any) -> list[str]:
        """Write checked batches atomically; returns the record ids in order."""

    @abstractmethod
    async def _add_prepared_batches_async(self, batches: list[PendingRecordBatch],
                                          **store_kwargs: Any) -> list[str]:
        """The async form of ``_add_prepared_batches``."""

    @abstractmethod
    def add_user(self, user_id: str | _NotSetMarker = NOT_SET_MARKER,
                 information: str | _NotSetMarker = NOT_SET_MARKER,
                 metadata: MetadataValue | None | _NotSetMarker = NOT_SET_MARKER) -> str:
        """Store a user profile; returns its id (the user_id)."""

    async def add_user_async(self, user_id: str, information: str,
                             metadata: MetadataValue | None | _NotSetMarker = NOT_SET_MARKER
                             ) -> str:
        return await _in_thread(self.add_user, user_id, information, metadata)

    @abstractmethod
    def add_agent(self, agent_id: str, information: str,
                  metadata: MetadataValue | None | _NotSetMarker = NOT_SET_MARKER) -> str:
        """Store an agent profile; returns its id (the agent_id)."""

    async def add_agent_async(self, agent_id: str, information: str,
                              metadata: MetadataValue | None | _NotSetMarker = NOT_SET_MARKER
                              ) -> str:
        return await _in_thread(self.add_agent, agent_id, information, metadata)

    # -- reading ----------------------------------------------------------------------

    @abstractmethod
    def get(self, record_type: str, record_id: str,
            include_bytes: bool | _NotSetMarker = NOT_SET_MARKER) -> Record | None:
        """One visible record, or None."""

    async def get_async(self, record_type: str, record_id: str,
                        include_bytes: bool | _NotSetMarker = NOT_SET_MARKER) -> Record | None:
        return await _in_thread(self.get, record_type, record_id, include_bytes)

    @abstractmethod
    def list(self, record_type: str, *, limit: int | None | _NotSetMarker = NOT_SET_MARKER,
             thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
             user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
             agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
             metadata_filter: MetadataFilter | _NotSetMarker = NOT_SET_MARKER,
             include_bytes: bool | _NotSetMarker = NOT_SET_MARKER,
             record_id: str | _NotSetMarker = NOT_SET_MARKER) -> builtins.list[Record]:
        """Visible records of a type, oldest first; a given scope value matches exactly."""

    async def list_async(
        self, record_type: str, *, limit: int | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: MetadataFilter | _NotSetMarker = NOT_SET_MARKER,
        include_bytes: bool | _NotSetMarker = NOT_SET_MARKER,
        record_id: str | _NotSetMarker = NOT_SET_MARKER,
    ) -> builtins.list[Record]:
        return await _in_thread(self.list, record_type, limit=limit, thread_id=thread_id,
                                user_id=user_id, agent_id=agent_id,
                                metadata_filter=metadata_filter, include_bytes=include_bytes,
                                record_id=record_id)

    @abstractmethod
    def list_thread_messages(self, thread_id: str, *, last_n: int | None = None,
                             range_start_seq_no: int | None = None,
                             range_end_seq_no: int | None = None,
                             include_bytes: bool | _NotSetMarker = NOT_SET_MARKER
                             ) -> builtins.list[MessageRecord]:
        """Messages of a thread in order: the last ``last_n``, or a seq_no range."""

    async def list_thread_messages_async(
        self, thread_id: str, *, last_n: int | None = None,
        range_start_seq_no: int | None = None, range_end_seq_no: int | None = None,
        include_bytes: bool | _NotSetMarker = NOT_SET_MARKER,
    ) -> builtins.list[MessageRecord]:
        return await _in_thread(self.list_thread_messages, thread_id, last_n=last_n,
                                range_start_seq_no=range_start_seq_no,
                                range_end_seq_no=range_end_seq_no,
                                include_bytes=include_bytes)

    @abstractmethod
    def search(self, query: str | None, k: int, *, query_vector: builtins.list[float] | None = None,
               thread_id: str | None = None, user_id: str | None = None,
               agent_id: str | None = None, exact_user_match: bool = False,
               exact_agent_match: bool = False, exact_thread_match: bool = False,
               record_types: set[str] | None = None, metadata_filter: MetadataFilter = None,
               num_hops: int = 0, max_linked_results: int = 100,
               include_invalid_results: bool = True) -> builtins.list[tuple[Record, float]]:
        """The ``k`` best records with their distances (smaller is closer)."""

    async def search_async(
        self, query: str | None, k: int, *, query_vector: builtins.list[float] | None = None,
        thread_id: str | None = None, user_id: str | None = None,
        agent_id: str | None = None, exact_user_match: bool = False,
        exact_agent_match: bool = False, exact_thread_match: bool = False,
        record_types: set[str] | None = None, metadata_filter: MetadataFilter = None,
        num_hops: int = 0, max_linked_results: int = 100, include_invalid_results: bool = True,
    ) -> builtins.list[tuple[Record, float]]:
        return await _in_thread(
            self.search, query, k, query_vector=query_vector, thread_id=thread_id,
            user_id=user_id, agent_id=agent_id, exact_user_match=exact_user_match,
            exact_agent_match=exact_agent_match, exact_thread_match=exact_thread_match,
            record_types=record_types, metadata_filter=metadata_filter, num_hops=num_hops,
            max_linked_results=max_linked_results,
            include_invalid_results=include_invalid_results)

    # -- changing records -------------------------------------------------------------

    @abstractmethod
    def update(self, record_type: str, record_id: str, *,
               content: RecordContentInput | _NotSetMarker = NOT_SET_MARKER,
               index_text: PerRecordIndexTextInput | None | _NotSetMarker = NOT_SET_MARKER,
               embedding: PerRecordEmbeddingsInput | None | _NotSetMarker = NOT_SET_MARKER,
               metadata: MetadataValue | _NotSetMarker = NOT_SET_MARKER,
               timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
               ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
               ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
               status: RecordStatus | _NotSetMarker = NOT_SET_MARKER,
               text: str | None | _NotSetMarker = NOT_SET_MARKER) -> int:
        """Replace the given fields of one visible record; returns 1, or 0 when missing."""

    async def update_async(
        self, record_type: str, record_id: str, *,
        content: RecordContentInput | _NotSetMarker = NOT_SET_MARKER,
        index_text: PerRecordIndexTextInput | None | _NotSetMarker = NOT_SET_MARKER,
        embedding: PerRecordEmbeddingsInput | None | _NotSetMarker = NOT_SET_MARKER,
        metadata: MetadataValue | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        status: RecordStatus | _NotSetMarker = NOT_SET_MARKER,
        text: str | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> int:
        return await _in_thread(
            self.update, record_type, record_id, content=content, index_text=index_text,
            embedding=embedding, metadata=metadata, timestamp=timestamp, ttl_days=ttl_days,
            ttl_anchor=ttl_anchor, status=status, text=text)

    @abstractmethod
    def delete(self, record_type: str, record_id: str, cascade: bool = False) -> int:
        """Delete one record (with what it owns when ``cascade``); returns the owner count."""

    async def delete_async(self, record_type: str, record_id: str,
                           cascade: bool = False) -> int:
        return await _in_thread(self.delete, record_type, record_id, cascade)

    @abstractmethod
    def delete_thread(self, thread_id: str) -> int:
        """Delete a thread with everything scoped to it; 1 when the thread existed."""

    async def delete_thread_async(self, thread_id: str) -> int:
        return await _in_thread(self.delete_thread, thread_id)

    # -- relations --------------------------------------------------------------------

    @abstractmethod
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
        """Add relations (scalars broadcast); returns their ids in order."""

    async def add_relations_async(
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
        return await _in_thread(self.add_relations, source_record_ids, source_record_types,
                                target_record_ids, target_record_types, relation_types,
                                opposite_relation_types, relation_ids, timestamps, metadata)

    @abstractmethod
    def get_relation(
        self,
        source_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        source_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        relation_type: RelationType | _NotSetMarker = NOT_SET_MARKER,
        relation_id: str | _NotSetMarker = NOT_SET_MARKER,
    ) -> RecordRelation | None:
        """The relation with this id, or with this stored-direction endpoint tuple."""

    async def get_relation_async(
        self,
        source_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        source_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        relation_type: RelationType | _NotSetMarker = NOT_SET_MARKER,
        relation_id: str | _NotSetMarker = NOT_SET_MARKER,
    ) -> RecordRelation | None:
        return await _in_thread(self.get_relation, source_record_id, source_record_type,
                                target_record_id, target_record_type, relation_type,
                                relation_id)

    @abstractmethod
    def list_relations(
        self,
        relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        source_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        source_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: MetadataFilter | _NotSetMarker = NOT_SET_MARKER,
        relation_id: str | _NotSetMarker = NOT_SET_MARKER,
    ) -> builtins.list[RecordRelation]:
        """Relations matching the given fields, oldest first."""

    async def list_relations_async(
        self,
        relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        source_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        source_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: MetadataFilter | _NotSetMarker = NOT_SET_MARKER,
        relation_id: str | _NotSetMarker = NOT_SET_MARKER,
    ) -> builtins.list[RecordRelation]:
        return await _in_thread(self.list_relations, relation_type, source_record_id,
                                source_record_type, target_record_id, target_record_type,
                                limit, metadata_filter, relation_id)

    @abstractmethod
    def update_relations(
        self,
        relation_ids: str | builtins.list[str],
        relation_types: RelationType | builtins.list[RelationType] | _NotSetMarker = NOT_SET_MARKER,
        opposite_relation_types: RelationType | builtins.list[RelationType] | _NotSetMarker = (
            NOT_SET_MARKER),
        timestamps: str | None | builtins.list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        metadata: MetadataValue | builtins.list[MetadataValue] | _NotSetMarker = NOT_SET_MARKER,
    ) -> builtins.list[str]:
        """Replace the given fields of relations; returns the ids that were updated."""

    async def update_relations_async(
        self,
        relation_ids: str | builtins.list[str],
        relation_types: RelationType | builtins.list[RelationType] | _NotSetMarker = NOT_SET_MARKER,
        opposite_relation_types: RelationType | builtins.list[RelationType] | _NotSetMarker = (
            NOT_SET_MARKER),
        timestamps: str | None | builtins.list[str | None] | _NotSetMarker = NOT_SET_MARKER,
        metadata: MetadataValue | builtins.list[MetadataValue] | _NotSetMarker = NOT_SET_MARKER,
    ) -> builtins.list[str]:
        return await _in_thread(self.update_relations, relation_ids, relation_types,
                                opposite_relation_types, timestamps, metadata)

    @abstractmethod
    def delete_relations(self, relation_ids: str | builtins.list[str]) -> int:
        """Delete relations by id; returns how many existed."""

    async def delete_relations_async(self, relation_ids: str | builtins.list[str]) -> int:
        return await _in_thread(self.delete_relations, relation_ids)


def _checked(batches: Any) -> list[PendingRecordBatch]:
    if not isinstance(batches, list) or not all(
            isinstance(batch, PendingRecordBatch) for batch in batches):
        raise InvalidArgumentError("batches must be a list of PendingRecordBatch")
    return batches
