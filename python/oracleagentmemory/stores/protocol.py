"""The store contract as a Python protocol.

Mirrors docs/store-contract.md and the Oracle facade package ``AGENT_MEMORY`` one to one:
every method is one logical database operation taking and returning JSON-shaped values
(dicts, lists, str, numbers, None; plus ``bytes`` for image payloads and float sequences
or one-dimensional numpy arrays for vectors). Batch methods are atomic: all rows are
written or none.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    an empty ``ids`` matches nothing."""

    ids: list[str]
    record_types: list[str]
    user_id: str | None
    agent_id: str | None
    thread_id: str | None
    message_id: str | None
    metadata_filter: dict[str, Any] | None
    include_bytes: bool
    limit: int | None


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


@runtime_checkable
class StoreBackend(Protocol):
    """Every operation the Python layer needs from a backend."""

    def describe(self) -> dict[str, Any]:
        """``backend``, ``schema_version``, ``embedding_dimension`` and ``search_strategy``,
        plus what the backend adds (the Oracle facade: ``store_id``, index and purge job;
        the embedded store: its ``location``)."""

    def write_records(
        self,
        records: Sequence[RecordIn],
        links: Sequence[LinkIn] = (),
        replace: bool = False,
    ) -> list[str]:
        """Insert records (and relations) atomically; returns the record ids in order.

        With ``replace``, a record holding an id is replaced only when it has the same
        record type, scope and ``message_id``; any other holder is a DuplicateRecordError,
        as without ``replace``. A value over one of the contract's input limits
        (``stores.limits``) is an InvalidArgumentError naming the field, and nothing is
        written: a backend that checks them itself says so with ``checks_input_limits =
        True``; the client puts ``stores.limits_guard.LimitsGuard`` in front of any
        other."""

    def get_records(self, query: RecordQuery) -> list[RecordOut]:
        """Visible (non-expired) records matching the selector, oldest first."""

    def list_messages(
        self,
        thread_id: str,
        start: int | None,
        end: int | None,
        include_bytes: bool = False,
    ) -> list[RecordOut]:
        """Messages of a thread in order, sliced with Python slice semantics."""

    def update_record(
        self,
        record_id: str,
        record_types: Sequence[str],
        changes: RecordChanges,
        thread_id: str | None = None,
    ) -> RecordOut | None:
        """Replace fields of one visible record; None when there is no such record."""

    def delete_records(
        self,
        record_ids: Sequence[str],
        record_types: Sequence[str],
        thread_id: str | None = None,
    ) -> int:
        """Delete records (their relations and attached images too); returns the count."""

    def delete_cascade(self, owner_type: OwnerType, owner_id: str) -> CascadeResult:
        """Delete a thread, user or agent with everything it owns, in one transaction."""

    def search(self, request: SearchRequest) -> list[SearchHit]:
        """Scoped, filtered vector / keyword / hybrid search with link expansion."""

    def update_link(self, relation_id: str, thread_id: str | None,
                    changes: LinkChanges) -> int:
        """Update one relation (of the thread, when given); returns 0 or 1."""

    def delete_links(self, selector: LinkSelector, thread_id: str | None) -> int:
        """Delete one relation (of the thread, when given) by id or endpoint tuple; 0 or 1."""

    def list_links(self, query: LinkQuery) -> list[LinkOut]:
        """Relations matching the selector, oldest first."""

    def purge_expired(self) -> int:
        """Physically remove expired records; returns how many were removed."""

    def close(self) -> None:
        """Release the backend's resources. Idempotent."""
