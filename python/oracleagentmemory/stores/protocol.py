"""The store contract as a Python protocol.

Mirrors docs/store-contract.md and the Oracle facade package ``AGENT_MEMORY`` one to one:
every method is one logical database operation taking and returning JSON-shaped values
(dicts, lists, str, numbers, None; plus ``bytes`` for image payloads and float sequences
or one-dimensional numpy arrays for vectors). Batch methods are atomic: all rows are
written or none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, TypeAlias, TypedDict, runtime_checkable

import numpy as np

Vector: TypeAlias = Sequence[float] | np.ndarray
"""An embedding: a float sequence or a one-dimensional numpy array."""
TtlAnchor = Literal["CREATED_AT", "TIMESTAMP"]
Status = Literal["VALID", "INVALID"]
Strategy = Literal["VECTOR", "KEYWORD", "HYBRID"]
OwnerType = Literal["thread", "user", "agent"]


class RecordScope(TypedDict, total=False):
    """The scope columns of a record (in ``RecordIn``, ``RecordOut`` and ``RecordQuery``)."""

    user_id: str | None
    agent_id: str | None
    thread_id: str | None


ScopeKey = Literal["user_id", "agent_id", "thread_id"]
SCOPE_KEYS: tuple[ScopeKey, ...] = ("user_id", "agent_id", "thread_id")
"""The keys of a ``RecordScope`` (and of a search request's ``scope``)."""


def scope_of(record: Mapping[str, Any]) -> RecordScope:
    """The scope of ``record``, every key present (None where it has none)."""
    return {"user_id": record.get("user_id"), "agent_id": record.get("agent_id"),
            "thread_id": record.get("thread_id")}


class RecordIn(TypedDict, total=False):
    """A record to write. Only ``record_type`` is required."""

    id: str
    record_type: str
    user_id: str | None
    agent_id: str | None
    thread_id: str | None
    role: str | None
    content: str
    metadata: dict[str, Any] | None
    timestamp: str | None
    status: Status
    ttl_days: float | None
    ttl_anchor: TtlAnchor
    embedding: Vector | None
    parts: list[dict[str, Any]] | None
    mime_type: str | None
    image_bytes: bytes | None
    message_id: str | None
    config: dict[str, Any] | None
    created_at: str | None
    """Import only: keep this creation time instead of the store's clock (None: the clock)."""
    updated_at: str | None
    """Import only: keep this update time (None: the creation time)."""
    expires_at: str | None
    """Import only: keep this expiry verbatim (``ttl_days`` is then ignored)."""
    scope_from: str
    """The id of a visible memory-like record whose scope fills each scope key
    (``user_id``, ``agent_id``, ``thread_id``) absent from this record, read in the write's
    transaction (a memory linked to a stored one takes its scope); when there is no such
    record, a LinkEndNotFoundError and nothing is written."""


class RecordOut(TypedDict, total=False):
    """A stored record as every read returns it."""

    id: str
    record_type: str
    user_id: str | None
    agent_id: str | None
    thread_id: str | None
    role: str | None
    content: str
    metadata: dict[str, Any] | None
    timestamp: str | None
    created_at: str | None
    """None only from a store of the caller's, which keeps no bookkeeping times."""
    updated_at: str | None
    expires_at: str | None
    status: str
    parts: list[dict[str, Any]] | None
    mime_type: str | None
    image_bytes: bytes | None
    message_id: str | None
    config: dict[str, Any] | None
    seq_no: int
    """Messages only: the store's insertion sequence (increasing within a thread)."""


class LinkIn(TypedDict, total=False):
    """A directed relation between two memory-like records.

    With ``thread_id`` both ends must belong to that thread; without it (a client-level
    link) the ends may be anywhere, and the link is owned by their thread when they share
    one."""

    id: str
    thread_id: str | None
    source_id: str
    source_type: str
    """Absent: the end's stored memory-like type (the same for ``target_type``)."""
    target_id: str
    target_type: str
    relation_type: str
    opposite_relation_type: str | None
    """None (or absent): a built-in type's fixed opposite, else the same label."""
    timestamp: str | None
    metadata: dict[str, Any] | None
    created_at: str
    """Import only: keep this creation time."""


class LinkOut(TypedDict, total=False):
    """A stored relation reads back with the fields it was written with, its opposite label
    resolved and ``created_at`` set."""

    id: str
    thread_id: str | None
    source_id: str
    source_type: str
    target_id: str
    target_type: str
    relation_type: str
    opposite_relation_type: str
    timestamp: str | None
    metadata: dict[str, Any] | None
    created_at: str


class LinkQuery(TypedDict, total=False):
    """Selector of ``list_links``; a key that is present matches exactly (None too); an
    empty ``ids`` matches nothing."""

    ids: list[str]
    thread_id: str | None
    source_id: str
    source_type: str
    target_id: str
    target_type: str
    relation_type: str
    metadata_filter: dict[str, Any] | None
    limit: int | None


class ScopeDimension(TypedDict):
    value: str | None
    exact: bool


class SearchRequest(TypedDict, total=False):
    """Defaults (docs/store-contract.md): strategy VECTOR, max_results 10, num_hops 0,
    max_linked_results 100, include_invalid True, record_types every searchable type.
    VECTOR and HYBRID need query_vector, except that the Oracle backend embeds query_text
    with its in-database model when one is configured."""

    query_text: str
    query_vector: Vector | None
    strategy: Strategy
    scope: dict[str, ScopeDimension]
    record_types: list[str]
    metadata_filter: dict[str, Any] | None
    include_invalid: bool
    max_results: int
    num_hops: int
    max_linked_results: int


class LinkedHit(TypedDict):
    record: RecordOut
    relation: LinkOut
    relation_id: str
    relation_type: str
    via_record_id: str
    hops: int


class SearchHit(TypedDict):
    record: RecordOut
    distance: float
    linked: list[LinkedHit]


class RecordQuery(TypedDict, total=False):
    """Selector of ``get_records``. A scope key that is present matches exactly (None too);
    an empty ``ids`` matches nothing. ``limit`` keeps the first matching records, or with
    ``newest`` the last ones (the most recently written); either way they come oldest
    first."""

    ids: list[str]
    record_types: list[str]
    user_id: str | None
    agent_id: str | None
    thread_id: str | None
    message_id: str | None
    metadata_filter: dict[str, Any] | None
    include_bytes: bool
    limit: int | None
    newest: bool


def within_limit(records: list[RecordOut], query: RecordQuery) -> list[RecordOut]:
    """Matching ``records`` (oldest first) cut to the query's ``limit``: its first ones, or
    with ``newest`` its last ones, still oldest first."""
    limit = query.get("limit")
    if not limit or len(records) <= limit:
        return records
    return records[-limit:] if query.get("newest") else records[:limit]


class RecordChanges(TypedDict, total=False):
    """Fields ``update_record`` replaces; absent keys keep their stored value."""

    content: str
    embedding: Vector | None
    metadata: dict[str, Any] | None
    timestamp: str | None
    status: Status
    ttl_days: float | None
    ttl_anchor: TtlAnchor
    parts: list[dict[str, Any]] | None
    config: dict[str, Any] | None
    settings: dict[str, Any]
    """Threads: layered over the stored ``config["settings"]`` in the update's transaction
    (``stores.record_changes``: each key replaces the stored one, except
    ``memory_extraction_config``, whose fields replace the stored fields); the rest of the
    config stays as stored (the extraction counters ``append_messages`` keeps). Not with
    ``config``."""
    keep_bookkeeping: bool
    """With ``metadata``: keep the LangGraph store's bookkeeping of the stored metadata when
    the new metadata is an object without it (``stores.record_changes``). Default: False."""
    after_message_id: str | None
    """Messages only: the id of the message the caller expects right before this one in
    its thread (None: none), the one the new content's vector was made against. When another
    message (or none) is there, nothing changes: a MessageContextChangedError."""
    mime_type: str | None
    image_bytes: bytes | None
    replace_images: list[RecordIn]
    """Messages only: the attached images after the update (listed ids without bytes are
    kept as stored; unlisted attached images are deleted; a listed image with bytes may
    replace only an image attached to this message, any other holder of its id is a
    DuplicateRecordError)."""


class LinkChanges(TypedDict, total=False):
    relation_type: str
    opposite_relation_type: str
    timestamp: str | None
    metadata: dict[str, Any] | None


class LinkSelector(TypedDict, total=False):
    """Either ``id`` alone, or the whole stored-direction endpoint tuple."""

    id: str
    source_id: str
    source_type: str
    target_id: str
    target_type: str
    relation_type: str


EndpointKey = Literal["source_id", "source_type", "target_id", "target_type", "relation_type"]
ENDPOINT_KEYS: tuple[EndpointKey, ...] = (
    "source_id", "source_type", "target_id", "target_type", "relation_type")
"""The stored-direction endpoint tuple of a relation (a ``LinkSelector`` without ``id``),
keys that ``LinkQuery`` shares."""


class CascadeResult(TypedDict):
    owner: int
    records: int
    links: int


class ExtractionSchedule(TypedDict, total=False):
    """When a thread's extraction and summary refresh are due (its resolved settings): the
    store counts a batch's messages toward them in the thread record, by the rule of
    ``stores.extraction_schedule``."""

    extraction_frequency: int | None
    """None: extraction is off; <= 0: due at every batch; N: due once N messages arrived."""
    extraction_window: int
    """N > 0: extraction reads the N newest messages; <= 0: every message since the last."""
    summary_frequency: int | None
    """None: the summary refresh is off; <= 0: due at every check; N: due after N messages."""
    unsummarised: int
    """Messages given back to the summary counter (a refresh that failed). Default: 0."""


class MessageBatch(TypedDict, total=False):
    """A batch of one thread's messages for ``append_messages``; ``thread_id`` is required."""

    thread_id: str
    records: list[RecordIn]
    """The messages and the images attached to them, all of ``thread_id`` and without
    ``scope_from`` (they carry their thread's scope). Default: none."""
    thread_required: bool
    """The thread record must exist (default True); False for a thread without a record,
    which then keeps no counters."""
    after_message_id: str | None
    """When present: the id of the message the caller expects to be the thread's last (None:
    no message), the one the batch's first message was embedded against. When another one
    is the last, nothing is written and the result names it."""
    schedule: ExtractionSchedule | None
    """When given: count the batch toward extraction and the summary refresh (the thread
    record keeps the counters) and say what is due. Default: None (counters untouched)."""


class MessageBatchResult(TypedDict):
    """What ``append_messages`` did, and what the derived work it made due reads."""

    ids: list[str]
    """The records' ids in order (none when nothing was written)."""
    written: bool
    last_message: RecordOut | None
    """When not written: the thread's last message now (None: it has none)."""
    extraction_window: int
    """The newest messages extraction is due for (0: none)."""
    summary_window: int
    """The newest messages the summary refresh is due for (0: none)."""
    messages: list[RecordOut]
    """When anything is due: the thread's last ``max(extraction_window, summary_window)``
    messages after the write, oldest first; else empty."""
    thread_summary: str | None
    """When anything is due: the content of the thread's stored rolling summary (None:
    none yet)."""


@runtime_checkable
class StoreBackend(Protocol):
    """Every operation the Python layer needs from a backend.

    Implement it to plug in a store of your own (docs/custom-store.md); the contract tests
    check an implementation. Each method is one transaction. The Raises of each method are
    what a backend must raise (store errors, ``oracleagentmemory.stores.errors``); any
    backend may also raise ``StorageError`` (an ``OSError``) when its storage fails; the
    Oracle backend raises a database failure outside the contract as a ``StoreError`` whose
    message keeps the ORA code, and so the driver's ``oracledb.InterfaceError`` (no
    ``DatabaseError``: DPY-1001 for a connection, DPY-1002 for a pool the application
    closed) with its DPY code.

    Raises:
        TypeError: The protocol itself is instantiated (implement it in a class of your
            own; ``isinstance(backend, StoreBackend)`` checks one at run time).
    """

    def describe(self) -> dict[str, Any]:
        """``backend``, ``schema_version``, ``embedding_dimension`` and ``search_strategy``,
        plus what the backend adds (the Oracle facade: ``store_id``, index and purge job;
        the embedded store: its ``location``).

        Returns:
            The description, JSON-shaped.
        """

    def write_records(
        self,
        records: Sequence[RecordIn],
        links: Sequence[LinkIn] = (),
        replace: bool = False,
        thread_id: str | None = None,
    ) -> list[str]:
        """Insert records (and relations) atomically; returns the record ids in order.

        With ``replace``, a record holding an id is replaced only when it has the same
        record type, scope and ``message_id``; any other holder is a DuplicateRecordError,
        as without ``replace``. Every id is checked before the replaced records are deleted
        and the batch inserted, so each id returned is stored (an image of the batch
        attached to a message the batch replaces too). A value over one of the contract's
        input limits (``stores.limits``) is an InvalidArgumentError naming the field, and
        nothing is written: a backend that checks them itself says so with
        ``checks_input_limits = True``; the client puts ``stores.limits_guard.LimitsGuard``
        in front of any other.

        Args:
            records: The records to write; only ``record_type`` is required (an id is
                made for a record without one: a dashed version 7 UUID, time-ordered, as
                docs/store-contract.md says).
            links: Relations to write after the records; they may point at records of the
                same call. Default: none.
            replace: Replace a record holding a given id when it has the same type, scope
                and ``message_id``. Default: False.
            thread_id: The thread the batch is written into: its thread record must exist
                (and not be expired), checked in the write's own transaction, so a thread
                deleted by any other caller is never written to. Default: None (no check).

        Returns:
            The ids of ``records``, in order.

        Raises:
            InvalidArgumentError: A record or link is malformed, or a value is over an
                input limit.
            RecordNotFoundError: ``thread_id`` names no existing thread; nothing is written.
            DuplicateRecordError: An id is taken in its id space, or a second relation
                joins the same two records.
            LinkEndNotFoundError: A link's end is missing, expired or outside its thread
                (an ``InvalidLinkError`` and a ``RecordNotFoundError``), or a record's
                ``scope_from`` names no visible memory-like record.
            InvalidLinkError: A link's end is not memory-like, or a label is not allowed.
            DimensionMismatchError: A vector has another dimension than the store.
            AccessDeniedError: Inside an end-user security context, a record or link end
                the end user may not change.
        """

    def append_messages(self, batch: MessageBatch) -> MessageBatchResult:
        """Write a batch of one thread's messages, in one transaction with what one
        ``add_messages`` needs: the thread's existence, the message the batch follows, the
        extraction counters, and what the extraction or summary it makes due reads.

        In that transaction: the thread record must exist unless ``thread_required`` is
        False; with ``after_message_id`` the thread's last visible message must be that one
        (else nothing is written: ``written`` False and ``last_message``); the records are
        inserted as by ``write_records``; with a ``schedule`` the batch's messages are
        counted in the thread record (when it exists) and what is due is returned with the
        messages and the summary it reads. Inside an end-user security context, a thread
        the end user may not change is refused as by ``write_records``.

        Args:
            batch: The thread, its new records, and the checks and counting to do.

        Returns:
            The ids, whether they were written, and what is due (``MessageBatchResult``).

        Raises:
            InvalidArgumentError: The batch is malformed, a record is not a message or
                image of the thread or names a ``scope_from``, or a value is over an input
                limit.
            RecordNotFoundError: The thread does not exist (and ``thread_required``).
            DuplicateRecordError: An id is taken in its id space.
            DimensionMismatchError: A vector has another dimension than the store.
            AccessDeniedError: Inside an end-user security context, a record or thread the
                end user may not change.
        """

    def get_records(self, query: RecordQuery) -> list[RecordOut]:
        """Visible (non-expired) records matching the selector, oldest first; with a
        ``limit``, the first ones, or the last ones with ``newest``.

        Args:
            query: The selector; every key is optional, a present scope key matches
                exactly (None too) and an empty ``ids`` matches nothing.

        Returns:
            The records (images without bytes unless ``include_bytes``).

        Raises:
            InvalidArgumentError: The selector is malformed.
            InvalidFilterError: Its ``metadata_filter`` is malformed.
        """

    def list_messages(
        self,
        thread_id: str,
        start: int | None,
        end: int | None,
        include_bytes: bool = False,
    ) -> list[RecordOut]:
        """Messages of a thread in order, sliced with Python slice semantics.

        Args:
            thread_id: The thread.
            start: First position (negative: from the end); None: the first message.
            end: Position to stop before (negative: from the end); None: after the last.
            include_bytes: Return attached images' bytes. Default: False.

        Returns:
            The messages in insertion order (none for a thread that does not exist).

        Raises:
            InvalidArgumentError: An argument is malformed.
        """

    def update_record(
        self,
        record_id: str,
        record_types: Sequence[str],
        changes: RecordChanges,
        thread_id: str | None = None,
    ) -> RecordOut | None:
        """Replace fields of one visible record; the scope never changes.

        Args:
            record_id: The record's id.
            record_types: The types it may have.
            changes: The fields to replace; absent keys keep their value, ``metadata`` is
                replaced whole.
            thread_id: Only a record of this thread matches. None (the default): any.

        Returns:
            The updated record, or None when no visible record matched (missing, expired,
            of another type or thread, or not changeable by the end user).

        Raises:
            InvalidArgumentError: ``changes`` is malformed or over an input limit (a
                malformed ``after_message_id`` or ``keep_bookkeeping`` even when no
                record matches: they are checked before the record is looked for).
            DimensionMismatchError: The new vector has another dimension than the store.
            DuplicateRecordError: A replacing image's id is held by another record.
            AttachedImageError: An expiry change of an image attached to a message (its
                message's expiry is its own).
            MessageContextChangedError: ``after_message_id`` is not the message before it
                any more.
        """

    def delete_records(
        self,
        record_ids: Sequence[str],
        record_types: Sequence[str],
        thread_id: str | None = None,
    ) -> int:
        """Delete records, their relations and the images attached to deleted messages.

        Args:
            record_ids: The ids to delete.
            record_types: The types they may have.
            thread_id: Only records of this thread match. None (the default): any.

        Returns:
            How many of the given records were deleted (expired ones included).

        Raises:
            AttachedImageError: One is an image attached to a message.
        """

    def delete_cascade(self, owner_type: OwnerType, owner_id: str) -> CascadeResult:
        """Delete a thread, user or agent with everything it owns, in one transaction.

        Args:
            owner_type: ``"thread"``, ``"user"`` or ``"agent"``.
            owner_id: The owner's id.

        Returns:
            Counts: ``owner`` (1 when the thread or profile record existed), ``records``
            and ``links`` deleted.

        Raises:
            InvalidArgumentError: ``owner_type`` is not one of the three.
            AccessDeniedError: Inside an end-user security context, another user, an agent
                or a thread the end user may not change.
        """

    def search(self, request: SearchRequest) -> list[SearchHit]:
        """Scoped, filtered vector / keyword / hybrid search with link expansion.

        KEYWORD reads the first ``limits.MAX_KEYWORD_QUERY_CHARS`` characters of the query,
        cut as records are indexed (``stores.keyword_text``: Han and Hangul as character
        bigrams); HYBRID ranks by the cosine distance (at most the vector window's edge for a
        record the keyword window holds) less a keyword pull, each side weighted by how far
        its top score stands out (``stores.ranking``; docs/store-contract.md).

        Args:
            request: The search; every key is optional (strategy ``VECTOR``, 10 results,
                no hops, 100 linked results, invalid records included, every searchable
                type, no scope, no filter).

        Returns:
            The hits, best first, each with its distance and linked records: VECTOR the
            cosine distance, HYBRID that distance (at most the vector window's edge for a
            keyword-window record) less the keyword pull (never below 0),
            KEYWORD ``1 / (1 + |bm25|)``; comparable across searches of one strategy.

        Raises:
            InvalidArgumentError: The request is malformed, or ``VECTOR`` / ``HYBRID``
                come without ``query_vector`` (and no in-database model to embed with).
            InvalidFilterError: Its ``metadata_filter`` is malformed.
            DimensionMismatchError: ``query_vector`` has another dimension than the store.
        """

    def update_link(self, relation_id: str, thread_id: str | None,
                    changes: LinkChanges) -> int:
        """Update one relation (of the thread, when given).

        Args:
            relation_id: The relation's id.
            thread_id: Only a relation of this thread matches; None: any.
            changes: The fields to replace (a built-in ``relation_type`` fixes its
                opposite label).

        Returns:
            1 when a relation was updated, else 0.

        Raises:
            InvalidLinkError: A label is empty or too long.
            InvalidArgumentError: ``changes`` is malformed.
        """

    def delete_links(self, selector: LinkSelector, thread_id: str | None) -> int:
        """Delete one relation (of the thread, when given) by id or endpoint tuple.

        Args:
            selector: ``{"id"}`` alone, or the whole stored-direction endpoint tuple.
            thread_id: Only a relation of this thread matches; None: any.

        Returns:
            1 when a relation was deleted, else 0.

        Raises:
            InvalidArgumentError: The selector is neither form.
        """

    def list_links(self, query: LinkQuery) -> list[LinkOut]:
        """Relations matching the selector, oldest first.

        Args:
            query: The selector; every key is optional and a present key matches exactly
                (a None ``thread_id`` selects links without a thread).

        Returns:
            The relations, their opposite labels resolved.

        Raises:
            InvalidArgumentError: The selector is malformed.
            InvalidFilterError: Its ``metadata_filter`` is malformed.
        """

    def purge_expired(self) -> int:
        """Physically remove expired records (with their relations).

        Returns:
            How many records were removed.

        Raises:
            AccessDeniedError: Called inside an end-user security context.
        """

    def close(self) -> None:
        """Release the backend's resources. Idempotent.
        """


@runtime_checkable
class RecordsEmbeddingModel(Protocol):
    """The contract's optional pair of operations naming the model a store's vectors were
    made with (docs/store-contract.md, "The model of the vectors"), so a client opening the
    store again embeds with the same model. Both built-in backends implement it; a store of
    your own may leave it out (its default embedder is then all-MiniLM-L6-v2, the model of
    stores made before models were recorded)."""

    def recorded_embedding_model(self) -> str | None:
        """The name recorded by :meth:`record_embedding_model`; else the model of a store
        made before names were recorded that holds vectors (all-MiniLM-L6-v2) or, on Oracle,
        the model whose in-database form the store embeds with; else None.

        Returns:
            The model's name, or None when the store neither records one nor holds vectors.
        """

    def record_embedding_model(self, name: str) -> None:
        """Record ``name`` as the model of the store's vectors unless one is recorded (the
        first name stays). Best effort: a store that cannot record it is left as it is.

        Args:
            name: The model's name (``IEmbedder.model_name``), 1 to 200 characters.
        """
