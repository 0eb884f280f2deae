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
    """A memory store: records of every type, relations between them, and search.

    Every method has an ``_async`` twin with the same arguments, result and errors, run
    in a worker thread. The errors below are those of ``OracleDBMemoryStore``; a store of
    your own should raise the same kinds (docs/custom-store.md).
    """

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
        """Add records of one type in one write.

        Every per-record argument is a list with one entry per content, or one value for
        all of them.

        Args:
            contents: One content per record: text, a message's parts, image bytes, a
                summary's JSON object. Required.
            record_type: The records' type (``"memory"``, ``"message"``...). Required.
            index_texts: Per record, the text embedded and indexed instead of the
                content. Default: the content.
            embeddings: Per record, its vector. Default: computed by the store's embedder
                (none without one).
            record_ids: The records' ids. Default: new UUIDs.
            thread_ids: The records' thread. Default: None.
            user_ids: The records' user. Default: None.
            agent_ids: The records' agent. Default: None.
            roles: The messages' roles. Default: None.
            timestamps: The records' event times, ISO-8601. Default: None.
            metadata: The records' metadata. Default: None.
            ttl_days: Days until each record expires (None: ``max_ttl_days``, never if
                unset). Default: the retention config's ``default_ttl_days``.
            ttl_anchor: What each TTL counts from. Default: the creation time.
            statuses: Each record's ``RecordStatus``. Default: valid.

        Returns:
            The records' ids, in order.

        Raises:
            InvalidArgumentError: Missing contents or record type, a list of the wrong
                length, content not allowed for the type, an id already taken
                (``DuplicateRecordError``), a vector of another dimension
                (``DimensionMismatchError``), or an unknown store option; each a
                ``ValueError``.
        """
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
        """Add several batches (of possibly different types) in one write.

        Args:
            batches: The batches, each of one record type.

        Returns:
            The records' ids, batch by batch, in order.

        Raises:
            InvalidArgumentError: ``batches`` is not a list of ``PendingRecordBatch``, a
                record is not allowed (as in ``add``), or an unknown store option was
                given; each a ``ValueError``.
        """
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
        """Store a user profile.

        Args:
            user_id: The user's id. Required.
            information: What is known about the user (embedded). Required.
            metadata: A JSON object stored with it. Default: None.

        Returns:
            The profile's id (``user_id``).

        Raises:
            InvalidArgumentError: An empty id or information, or a profile with this id
                already stored (``DuplicateRecordError``); each a ``ValueError``.
            ArgumentTypeError: An id or information that is not a str (an omitted one
                included).
        """

    async def add_user_async(self, user_id: str, information: str,
                             metadata: MetadataValue | None | _NotSetMarker = NOT_SET_MARKER
                             ) -> str:
        return await _in_thread(self.add_user, user_id, information, metadata)

    @abstractmethod
    def add_agent(self, agent_id: str, information: str,
                  metadata: MetadataValue | None | _NotSetMarker = NOT_SET_MARKER) -> str:
        """Store an agent profile.

        Args:
            agent_id: The agent's id.
            information: What the agent is and does (embedded).
            metadata: A JSON object stored with it. Default: None.

        Returns:
            The profile's id (``agent_id``).

        Raises:
            InvalidArgumentError: An empty id or information, or a profile with this id
                already stored (``DuplicateRecordError``); each a ``ValueError``.
            ArgumentTypeError: An id or information that is not a str.
        """

    async def add_agent_async(self, agent_id: str, information: str,
                              metadata: MetadataValue | None | _NotSetMarker = NOT_SET_MARKER
                              ) -> str:
        return await _in_thread(self.add_agent, agent_id, information, metadata)

    # -- reading ----------------------------------------------------------------------

    @abstractmethod
    def get(self, record_type: str, record_id: str,
            include_bytes: bool | _NotSetMarker = NOT_SET_MARKER) -> Record | None:
        """One visible record (not expired, allowed to the end user).

        Args:
            record_type: The record's type.
            record_id: Its id.
            include_bytes: Load an image's bytes. Default: False.

        Returns:
            The record, or None when there is no such visible record.

        Raises:
            InvalidArgumentError: An empty id or an unknown record type (a
                ``ValueError``).
            ArgumentTypeError: An id that is not a str.
        """

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
        """Visible records of a type, oldest first; a given scope value matches exactly.

        Args:
            record_type: The records' type.
            limit: How many at most, 1 to 10,000. Default (or None): 10,000.
            thread_id: Only records of this thread (None: without one). Default: any.
            user_id: Only records of this user (None: without one). Default: any.
            agent_id: Only records of this agent (None: without one). Default: any.
            metadata_filter: Entries the metadata must match (docs/concepts.md,
                "Metadata filters"). Default: no filter.
            include_bytes: Load images' bytes. Default: False.
            record_id: Only the record with this id. Default: any.

        Returns:
            The records.

        Raises:
            InvalidArgumentError: A ``limit`` out of range, an unknown record type or a
                malformed filter (``InvalidFilterError``); each a ``ValueError``.
        """

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
        """Messages of a thread in order: the last ``last_n``, or a seq_no range.

        Args:
            thread_id: The thread.
            last_n: Only the last this many messages. Default (or None): all.
            range_start_seq_no: Only messages from this ``seq_no`` on (inclusive).
                Default (or None): from the first.
            range_end_seq_no: Only messages up to this ``seq_no`` (inclusive). Default
                (or None): to the last.
            include_bytes: Load the bytes of attached images. Default: False.

        Returns:
            The messages, oldest first.

        Raises:
            InvalidArgumentError: ``last_n`` together with a range, or an empty
                ``thread_id`` (a ``ValueError``).
            ArgumentTypeError: A ``thread_id`` that is not a str.
        """

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
        """The ``k`` best records with their distances (smaller is closer).

        The store's search strategy (vector, keyword or hybrid) decides how records rank
        and what the distance is (``OracleSearchResult`` says which).
        A scope dimension with a value or an exact flag restricts or ranks by it; one
        without either is unconstrained.

        Args:
            query: The query text, or None to search by ``query_vector`` alone.
            k: How many results at most (at least 1).
            query_vector: The query's vector. Default (or None): the store embeds
                ``query``.
            thread_id: The thread to search in or rank first. Default: None.
            user_id: The user to search in or rank first. Default: None.
            agent_id: The agent to search in or rank first. Default: None.
            exact_user_match: True: only records of exactly ``user_id`` (None included).
                Default: False.
            exact_agent_match: As ``exact_user_match``, for the agent. Default: False.
            exact_thread_match: As ``exact_user_match``, for the thread. Default: False.
            record_types: The types to search. Default (or None): every searchable type.
            metadata_filter: Entries the metadata must match. Default: None (no filter).
            num_hops: Relations to follow from each result (0 to 5). Default: 0.
            max_linked_results: Linked records kept per result. Default: 100.
            include_invalid_results: Also return records marked invalid. Default: True.

        Returns:
            Pairs of record and distance, best first; each record's ``linked_results``
            holds what the hops reached.

        Raises:
            InvalidArgumentError: ``k`` below 1, neither ``query`` nor ``query_vector``, a
                malformed filter (``InvalidFilterError``), a vector of another dimension
                (``DimensionMismatchError``), ``num_hops`` out of range; each a
                ``ValueError``.
        """

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
        """Replace the given fields of one visible record.

        Args:
            record_type: The record's type.
            record_id: Its id.
            content: Its new content (embedded again unless ``embedding`` is given).
                Default: kept.
            index_text: Text embedded instead of the new content. Default: the content.
            embedding: Its new vector (None clears it). Default: kept, or recomputed
                with new content.
            metadata: Its new metadata, replaced whole. Default: kept.
            timestamp: Its new event time. Default: kept.
            ttl_days: Days until it expires, from the anchor. Default: kept, unless
                ``ttl_anchor`` is given.
            ttl_anchor: What the TTL counts from. Default: kept, unless ``ttl_days`` is
                given.
            status: Its new ``RecordStatus``. Default: kept.
            text: The older name of ``content`` (give one of them).

        Returns:
            1 when the record was updated, 0 when there is no such visible record.

        Raises:
            InvalidArgumentError: Both ``content`` and ``text``, content not allowed for
                the type, a vector of another dimension, an image attached to a message
                (``AttachedImageError``), an empty id; each a ``ValueError``.
            ArgumentTypeError: An id that is not a str.
        """

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
        """Delete one record, and with ``cascade`` what it owns.

        Args:
            record_type: The record's type.
            record_id: Its id.
            cascade: For a thread or a user or agent profile: also delete every record
                scoped to it. Default: False.

        Returns:
            1 when the record was deleted, else 0.

        Raises:
            InvalidArgumentError: An empty id, an unknown record type, or an image
                attached to a message (``AttachedImageError``); each a ``ValueError``.
            ArgumentTypeError: An id that is not a str.
        """

    async def delete_async(self, record_type: str, record_id: str,
                           cascade: bool = False) -> int:
        return await _in_thread(self.delete, record_type, record_id, cascade)

    @abstractmethod
    def delete_thread(self, thread_id: str) -> int:
        """Delete a thread with everything scoped to it.

        Args:
            thread_id: The thread.

        Returns:
            1 when the thread existed, else 0.

        Raises:
            InvalidArgumentError: An empty ``thread_id`` (a ``ValueError``).
            ArgumentTypeError: A ``thread_id`` that is not a str.
        """

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
        """Add relations in one write; a scalar applies to every relation.

        Args:
            source_record_ids: The records each relation starts from.
            source_record_types: Their types.
            target_record_ids: The records each relation points to.
            target_record_types: Their types.
            relation_types: The labels read from source to target.
            opposite_relation_types: The labels read from target to source (ignored for
                built-in types). Default: the same label as ``relation_types``.
            relation_ids: The relations' ids. Default: new UUIDs.
            timestamps: Their event times. Default: None.
            metadata: Their metadata. Default: None.

        Returns:
            The relations' ids, in order.

        Raises:
            InvalidArgumentError: Lists of different lengths, an id already taken
                (``DuplicateRecordError``), an endpoint missing or of the wrong type, a
                record linked to itself or a label not allowed (``InvalidLinkError``);
                each a ``ValueError``.
        """

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
        """The relation with this id, or with this stored-direction endpoint tuple.

        Args:
            source_record_id: The relation's source record, as stored.
            source_record_type: The source record's type.
            target_record_id: The target record.
            target_record_type: The target record's type.
            relation_type: The relation's label.
            relation_id: The relation's id.

        Returns:
            The relation, or None when none matches.

        Raises:
            InvalidArgumentError: Neither ``relation_id`` nor any endpoint argument (a
                ``ValueError``).
        """

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
        """Relations matching the given fields, oldest first.

        Args:
            relation_type: Only relations with this label. Default: any.
            source_record_id: Only relations from this record. Default: any.
            source_record_type: Only relations from records of this type. Default: any.
            target_record_id: Only relations to this record. Default: any.
            target_record_type: Only relations to records of this type. Default: any.
            limit: How many at most, 1 to 10,000. Default (or None): 10,000.
            metadata_filter: Entries the relation's metadata must match. Default: no
                filter.
            relation_id: Only the relation with this id. Default: any.

        Returns:
            The relations.

        Raises:
            InvalidArgumentError: A ``limit`` out of range or a malformed filter
                (``InvalidFilterError``); each a ``ValueError``.
        """

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
        """Replace the given fields of relations; a scalar applies to every relation.

        Args:
            relation_ids: The relations to update.
            relation_types: Their new labels. Default: kept.
            opposite_relation_types: Their new reverse labels. Default: kept.
            timestamps: Their new event times. Default: kept.
            metadata: Their new metadata, replaced whole. Default: kept.

        Returns:
            The ids of the relations that existed and were updated.

        Raises:
            InvalidArgumentError: Lists of different lengths, an empty id, or a label not
                allowed (``InvalidLinkError``); each a ``ValueError``.
            ArgumentTypeError: An id that is not a str.
        """

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
        """Delete relations by id.

        Args:
            relation_ids: One id or a list of them.

        Returns:
            How many of them existed.

        Raises:
            InvalidArgumentError: An empty id (a ``ValueError``).
            ArgumentTypeError: An id that is not a str.
        """

    async def delete_relations_async(self, relation_ids: str | builtins.list[str]) -> int:
        return await _in_thread(self.delete_relations, relation_ids)


def _checked(batches: Any) -> list[PendingRecordBatch]:
    if not isinstance(batches, list) or not all(
            isinstance(batch, PendingRecordBatch) for batch in batches):
        raise InvalidArgumentError("batches must be a list of PendingRecordBatch")
    return batches
