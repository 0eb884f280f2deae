"""EmbeddedBackend: the store contract over one SQLite file (or ``:memory:``).

On a file, one write connection under its lock, and read connections (one per reader at
once, at most ``MAX_READERS``): every write is one ``BEGIN IMMEDIATE`` transaction on the
write connection, so a batch is stored whole or not at all; every read runs in one
transaction on a read connection of its own, so readers never see half a batch, and a long
read (a huge query's keyword side, a metadata filter) holds up neither the writers nor the
other readers of the same object (WAL lets one writer and many readers proceed together).
The record cache searches share has its own lock, held only while a search syncs it and
copies out what it needs. ``:memory:`` has one database per connection, so there reads and
writes share the one connection and its lock.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeGuard

from oracleagentmemory._ids import new_id
from oracleagentmemory._vocabulary import ALL_TYPES, MEMORY_TYPES, STATUSES, TTL_ANCHORS
from oracleagentmemory.stores import limits
from oracleagentmemory.stores import metadata_filter as mf
from oracleagentmemory.stores.embedded import changelog, schema
from oracleagentmemory.stores.embedded.bound_lists import marks, runs
from oracleagentmemory.stores.embedded.codec import (
    LINK_COLUMNS,
    RECORD_COLUMNS,
    dump_json,
    encode_vector,
    load_json,
    row_to_link,
    row_to_record,
)
from oracleagentmemory.stores.embedded.record_cache import RecordCache
from oracleagentmemory.stores.embedded.search import run_search
from oracleagentmemory.stores.embedded.storage_errors import translated
from oracleagentmemory.stores.embedded.vector_file import remove as remove_vector_file
from oracleagentmemory.stores.embedding_models import LEGACY_EMBEDDING_MODEL
from oracleagentmemory.stores.end_user_guard import SecuritySettings
from oracleagentmemory.stores.errors import (
    AttachedImageError,
    DimensionMismatchError,
    DuplicateRecordError,
    InvalidArgumentError,
    InvalidLinkError,
    LinkEndNotFoundError,
    RecordNotFoundError,
    SchemaError,
    StorageError,
    StoreClosedError,
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
from oracleagentmemory.stores.keyword_text import stored_keyword_text
from oracleagentmemory.stores.protocol import (
    ENDPOINT_KEYS,
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
    SearchHit,
    SearchRequest,
)
from oracleagentmemory.stores.record_changes import (
    check_change_values,
    check_context,
    keep_bookkeeping,
    layered_settings,
)
from oracleagentmemory.stores.relations import check_label, opposite_label
from oracleagentmemory.stores.search_request import SCOPE_COLUMNS
from oracleagentmemory.stores.timestamps import add_days, normalize, to_text, utc_now

MAX_READERS = 8
"""Read connections of one store object on a file at most (each keeps its own page cache);
a ninth reader at once waits for one of them."""
SCHEMA_POLICIES = ("REQUIRE_EXISTING", "CREATE_IF_NECESSARY", "CREATE_IF_EMPTY", "RECREATE",
                   "NO_CHECK")
OWNER_COLUMNS = {"thread": "thread_id", "user": "user_id", "agent": "agent_id"}
PROFILE_TYPES = {"user": "user_profile", "agent": "agent_profile"}


def id_space(record_type: str) -> str:
    """Memory-like types share one id space, so a memory id is unique across them."""
    return "memory" if record_type in MEMORY_TYPES else record_type


def id_spaces(record_types: Sequence[str] = ALL_TYPES) -> list[str]:
    """The id spaces of ``record_types``: a lookup by id names them, so it searches the
    unique (id_space, id) index instead of every record of the types."""
    return sorted({id_space(record_type) for record_type in record_types})


def check_id(value: Any, argument: str) -> str:
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{argument} must be a string, got {type(value).__name__}")
    if not value or len(value) > limits.MAX_ID_LENGTH:
        raise InvalidArgumentError(
            f"{argument} must have 1 to {limits.MAX_ID_LENGTH} characters")
    return limits.check_text(value, argument)


def check_optional_id(value: Any, argument: str) -> str | None:
    return None if value is None else check_id(value, argument)


def check_record_types(record_types: Sequence[str],
                       allowed: Sequence[str] = ALL_TYPES) -> list[str]:
    if isinstance(record_types, str) or not isinstance(record_types, Sequence):
        raise InvalidArgumentError("record_types must be a list of record type names")
    for record_type in record_types:
        if record_type not in allowed:
            raise InvalidArgumentError(
                f"record_types contains unknown record type {record_type!r}; "
                f"allowed: {', '.join(allowed)}"
            )
    return list(record_types)


def restored_time(record: Mapping[str, Any], key: str, where: str) -> str | None:
    """A bookkeeping time given by an import (kept as is, canonicalised), else None."""
    value = record.get(key)
    return None if value is None else normalize(value, f"{where}.{key}")


def record_id(value: Any, where: str, field: str) -> str:
    """``check_id`` of one field of ``records[i]``, the argument's name made only when the
    value is not a plain ASCII id: ingestion checks five ids a record, and formatting each
    name cost about as much as the check."""
    if type(value) is str and value.isascii() and 0 < len(value) <= limits.MAX_ID_LENGTH:
        return value
    return check_id(value, f"{where}.{field}")


def optional_record_id(value: Any, where: str, field: str) -> str | None:
    return None if value is None else record_id(value, where, field)


_INSERT_HEAD = (
    "INSERT INTO records (id, id_space, record_type, user_id, agent_id, thread_id, role,"
    " content, metadata, extra, event_ts, created_at, updated_at, expires_at, status,"
    " message_id, embedding, keyword_text) VALUES "
)
_RECORD_VALUES = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_INSERT_RECORD = _INSERT_HEAD + _RECORD_VALUES
_PARAMETERS_PER_ROW = _RECORD_VALUES.count("?")
"""Rows go into multi-row INSERTs of as many rows as fit the parameter limit (at most
bound_lists.MAX_RUN). One statement per row would make FTS5 flush its pending terms at
every statement (a tiny index segment per record, about 1.6x the ingestion time)."""


def _record_values(row: dict[str, Any]) -> tuple[Any, ...]:
    return (
        row["id"], row["id_space"], row["record_type"], row["user_id"], row["agent_id"],
        row["thread_id"], row["role"], row["content"], row["metadata"], row["extra"],
        row["event_ts"], row["created_at"], row["updated_at"], row["expires_at"],
        row["status"], row["message_id"], row["embedding"],
        stored_keyword_text(row["content"]),
    )


def _in_thread(sql: str, params: list[Any], thread_id: str | None) -> tuple[str, list[Any]]:
    """Restrict a relation statement to one thread's relations, when a thread is given."""
    if thread_id is None:
        return sql, params
    return f"{sql} AND thread_id = ?", [*params, check_id(thread_id, "thread_id")]


def _written_vector(vector: Any, dimension: int | None) -> bytes:
    """``encode_vector`` of a vector to store: one of no component is refused too (a store
    without a dimension would take 0 from it as its own and refuse every real vector)."""
    blob = encode_vector(vector, dimension)
    if not blob:
        raise DimensionMismatchError("embedding has no component")
    return blob


EXTRA_KEYS = ("parts", "mime_type", "config")
"""The fields a record keeps together in its ``extra`` column, in that order."""


def _extra_text(extra: Mapping[str, Any], where: str) -> str | None:
    """The ``extra`` column: compact JSON of ``extra``'s fields, each checked alone and named
    ``{where}.{field}``, as LimitsGuard checks them for the other backends (checked as one
    object, an error named ``where`` alone, and the column's own level counted as one of
    the caller's: a config at the depth limit was refused)."""
    if not extra:
        return None
    return "{" + ",".join(f'"{key}":{limits.json_text(value, f"{where}.{key}")}'
                          for key, value in extra.items()) + "}"


def _storable(value: Any) -> TypeGuard[str]:
    """A string a lookup may bind: valid Unicode (one that is not is no stored id, and
    sqlite3 refuses to bind it with a bare UnicodeEncodeError; the check that names it
    comes after the lookups, at its link)."""
    return isinstance(value, str) and limits.valid_unicode(value)


def _id_taken(row: Mapping[str, Any]) -> DuplicateRecordError:
    """The one answer to a write naming a taken id, with or without ``replace``."""
    return DuplicateRecordError(f"a {row['id_space']} record with id {row['id']!r} already exists")


def _check_limit(limit: Any) -> int | None:
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise InvalidArgumentError("limit must be a positive integer or None")
    return limit


def _require_thread(conn: Any, thread_id: str, now: str) -> None:
    """Inside a write transaction: the thread record exists and has not expired."""
    found = conn.execute(
        "SELECT 1 FROM records WHERE id_space = 'thread' AND id = ?"
        " AND (expires_at IS NULL OR expires_at > ?)", (thread_id, now)).fetchone()
    if found is None:
        raise RecordNotFoundError(f"thread {thread_id!r} does not exist")


def scope_sources(records: Sequence[Any]) -> list[tuple[int, str, list[str]]]:
    """(position, ``scope_from`` id, the scope keys it fills) of each record that names one:
    the keys absent from the record."""
    sources = []
    for index, record in enumerate(records):
        if isinstance(record, Mapping) and "scope_from" in record:
            source = check_id(record["scope_from"], f"records[{index}].scope_from")
            missing: list[str] = [key for key in SCOPE_COLUMNS if key not in record]
            sources.append((index, source, missing))
    return sources


def _fill_scopes(conn: Any, rows: list[dict[str, Any]],
                 sources: Sequence[tuple[int, str, list[str]]], now: str) -> None:
    """Inside the write: each record naming ``scope_from`` takes the scope keys it left out
    from that visible memory-like record (LinkEndNotFoundError when there is none)."""
    for index, source, keys in sources:
        found = conn.execute(
            "SELECT user_id, agent_id, thread_id FROM records WHERE id_space = 'memory'"
            " AND id = ? AND (expires_at IS NULL OR expires_at > ?)", (source, now)).fetchone()
        if found is None:
            raise LinkEndNotFoundError(
                f"records[{index}].scope_from {source!r} is not a stored memory")
        rows[index].update({key: value for key, value in zip(SCOPE_COLUMNS, found, strict=True)
                            if key in keys})


def _message_before(conn: Any, seq: int, thread_id: str | None, now: str) -> str | None:
    """The id of the thread's visible message right before ``seq`` (None: none)."""
    before = conn.execute(
        "SELECT id FROM records WHERE thread_id = ? AND record_type = 'message' AND seq < ?"
        " AND (expires_at IS NULL OR expires_at > ?) ORDER BY seq DESC LIMIT 1",
        (thread_id, seq, now)).fetchone()
    return before[0] if before else None


def _stored_dimension(conn: Any) -> int | None:
    row = conn.execute(
        "SELECT value FROM store_meta WHERE key = 'embedding_dimension'"
    ).fetchone()
    return int(row[0]) if row else None


def _claim_dimension(conn: Any, dimension: int, source: str) -> None:
    """Inside a write transaction: record ``dimension`` as the store's, or raise a
    SchemaError when the store already holds vectors of another dimension."""
    stored = _stored_dimension(conn)
    if stored is None:
        conn.execute(
            "INSERT INTO store_meta (key, value) VALUES ('embedding_dimension', ?)",
            (str(dimension),),
        )
    elif stored != dimension:
        raise SchemaError(
            f"the store holds {stored}-dimensional vectors; {source} {dimension}")


@contextmanager
def _translating(location: str) -> Iterator[None]:
    """SQLite storage failures (missing directory, read-only file, full disk, a lock held
    too long) as the library's errors naming the store file; other errors as raised."""
    try:
        yield
    except sqlite3.Error as error:
        known = translated(error, location)
        if known is None:
            raise
        raise known from error


def _rows_for_ids(conn: Any, sql: str, params: Sequence[Any],
                  ids: Sequence[str] | None, spaces: Sequence[str] = ()) -> list[Any]:
    """Rows of ``sql`` (its WHERE ends with the conditions of ``params``; the first column
    is ``seq``) in ``seq`` order, further restricted to ``id IN ids`` when ids are given:
    one statement per run of ids that fits the parameter limit. ``spaces``: the id spaces
    the ids may be in (the (id_space, id) index answers; relations have no id_space)."""
    if ids is None:
        return conn.execute(f"{sql} ORDER BY seq", params).fetchall()
    found: dict[int, Any] = {}
    head = f"{sql} AND id_space IN ({marks(spaces)})" if spaces else sql
    for part in runs(conn, sorted(set(ids)), reserved=len(params) + len(spaces)):
        for row in conn.execute(f"{head} AND id IN ({marks(part)})",
                                [*params, *spaces, *part]):
            found[row[0]] = row
    return [found[seq] for seq in sorted(found)]


def _tail_seqs(conn: Any, thread_id: str, now: str, count: int) -> list[int]:
    """The seqs of a thread's last ``count`` visible messages, ascending."""
    return [row[0] for row in conn.execute(
        "SELECT seq FROM records WHERE thread_id = ? AND record_type = 'message'"
        " AND (expires_at IS NULL OR expires_at > ?) ORDER BY seq DESC LIMIT ?",
        (thread_id, now, count))][::-1]


def _rows_by_seq(conn: Any, seqs: Sequence[int]) -> list[Any]:
    """The ``records`` rows (RECORD_COLUMNS) of ``seqs``, in seq order."""
    found: list[Any] = []
    for part in runs(conn, seqs):
        found.extend(conn.execute(
            f"SELECT {RECORD_COLUMNS} FROM records WHERE seq IN ({marks(part)})", part))
    return sorted(found, key=lambda row: row[0])


@contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


class _ReadConnections:
    """The read connections of one store file: one per reader at once, reused, at most
    ``MAX_READERS`` (a reader beyond waits for one to come back)."""

    def __init__(self, location: str) -> None:
        self._location = location
        self._lock = threading.Lock()
        self._free = threading.BoundedSemaphore(MAX_READERS)
        self._idle: list[sqlite3.Connection] = []
        self._closed = False

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        self._free.acquire()
        try:
            with self._lock:
                if self._closed:
                    raise StoreClosedError("the store is closed")
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                conn = schema.connect(self._location)
            try:
                yield conn
            finally:
                with self._lock:
                    if self._closed:
                        conn.close()
                    else:
                        self._idle.append(conn)
        finally:
            self._free.release()

    def close(self) -> None:
        """Close the idle connections; one in use is closed when its reader is done."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


class EmbeddedBackend:
    """The embedded backend. ``location`` is a file path or ``":memory:"``."""

    backend = "embedded"
    checks_input_limits = True
    """Every operation checks the contract's input limits itself (stores.limits), so the
    client puts no LimitsGuard in front of it."""

    def __init__(
        self,
        location: str | os.PathLike[str],
        embedding_dimension: int | None = None,
        schema_policy: str = "CREATE_IF_NECESSARY",
        search_strategy: str = "VECTOR",
        clock: Callable[[], datetime] | None = None,
        vector_file: bool = True,
    ) -> None:
        """``vector_file``: keep the vector cache in a memory-mapped file beside a store
        file (``<file>.vectors``) so a new process starts searching without reading every
        row; False loads it from SQLite on the first search, as without the file."""
        if schema_policy not in SCHEMA_POLICIES:
            raise InvalidArgumentError(f"schema_policy must be one of {SCHEMA_POLICIES}")
        self.location = os.fspath(location)
        self._clock = clock or utc_now
        self._lock = threading.RLock()
        """Guards the write connection: held by every write transaction."""
        self._closed = False
        self.search_strategy = search_strategy
        with _translating(self.location):
            self._conn = schema.connect(self.location)
            self._open_schema(schema_policy)
            if schema_policy == "RECREATE":  # the dropped records leave the vector file too
                remove_vector_file(self.location)
            self.embedding_dimension = self._settle_dimension(embedding_dimension)
            self._cache = RecordCache(self.embedding_dimension,
                                      self.location if vector_file else None)
            self._vector_file = vector_file
            self._cache_lock = threading.RLock()
            """Guards the record cache."""
            self._readers = None if self.location == ":memory:" else _ReadConnections(
                self.location)
            if vector_file:  # map a usable vector file now: the first search only catches up
                with self._read() as conn, self._cache_lock:
                    self._cache.open_file(conn)

    # -- lifecycle -------------------------------------------------------------------

    def _open_schema(self, policy: str) -> None:
        if policy == "RECREATE":
            schema.drop_schema(self._conn)
        exists = schema.schema_exists(self._conn)
        if policy == "REQUIRE_EXISTING" and not exists:
            raise SchemaError(f"no agent-memory schema in {self.location!r} (REQUIRE_EXISTING)")
        if not exists and policy != "NO_CHECK":
            schema.create_schema(self._conn)
        if policy in ("CREATE_IF_NECESSARY", "RECREATE"):
            schema.upgrade(self._conn)
        if policy != "NO_CHECK":  # CREATE_IF_EMPTY and REQUIRE_EXISTING never upgrade
            schema.check_version(self._conn, self.location)
        if policy != "NO_CHECK" or schema.schema_exists(self._conn):
            schema.ensure_change_log(self._conn)

    def _settle_dimension(self, dimension: int | None) -> int | None:
        """The store's vector dimension: the stored one, else ``dimension``, which is then
        stored. Read and written in one write transaction, so two openers of one new file
        with different dimensions cannot both win: the second sees the first's value and
        gets a SchemaError."""
        if dimension is None:
            return _stored_dimension(self._conn)
        if isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1:
            raise InvalidArgumentError("embedding_dimension must be a positive integer")
        if _stored_dimension(self._conn) is None:  # else no write: a read-only file opens
            with self._write() as conn:
                _claim_dimension(conn, dimension, "the embedder gives")
        else:
            _claim_dimension(self._conn, dimension, "the embedder gives")
        return dimension

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "location": self.location,
            "schema_version": schema.SCHEMA_VERSION,
            "embedding_dimension": self.embedding_dimension,
            "search_strategy": self.search_strategy,
        }

    # -- the model of the vectors (the contract's optional RecordsEmbeddingModel) -------

    def recorded_embedding_model(self) -> str | None:
        """The name of the model whose vectors the store holds: the one recorded, else
        all-MiniLM-L6-v2 for a store made before names were recorded that holds vectors
        (that model was then the only default), else None."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT value FROM store_meta WHERE key = 'embedding_model'").fetchone()
            if row:
                return str(row[0])
            holds_vectors = conn.execute(
                "SELECT 1 FROM records WHERE embedding IS NOT NULL LIMIT 1").fetchone()
        return LEGACY_EMBEDDING_MODEL if holds_vectors else None

    def record_embedding_model(self, name: str) -> None:
        """Record ``name`` as the store's model unless one is recorded. Best effort: a file
        that cannot be written (read-only) is left as it is and tried again next time."""
        with self._read() as conn:
            if conn.execute(
                    "SELECT 1 FROM store_meta WHERE key = 'embedding_model'").fetchone():
                return
        try:
            with self._write() as conn:
                conn.execute("INSERT OR IGNORE INTO store_meta (key, value) "
                             "VALUES ('embedding_model', ?)", (name,))
        except StorageError:
            return

    # -- end-user security (not part of the contract: Oracle keeps it in the database) --

    def security_settings(self) -> SecuritySettings:
        """The deep data security policies registered on this file and their grants."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT value FROM store_meta WHERE key = 'deep_data_security'").fetchone()
        data = load_json(row[0]) if row else {}
        return SecuritySettings(
            policies=frozenset(data.get("policies", ())),
            grants=frozenset(tuple(grant) for grant in data.get("grants", ())))

    def save_security_settings(self, settings: SecuritySettings) -> None:
        value = dump_json({"policies": sorted(settings.policies),
                           "grants": [list(grant) for grant in sorted(settings.grants)]},
                          "deep_data_security")
        with self._write() as conn:
            conn.execute("INSERT OR REPLACE INTO store_meta (key, value) "
                         "VALUES ('deep_data_security', ?)", (value,))

    def close(self) -> None:
        with self._lock, self._cache_lock:
            if not self._closed:
                self._closed = True
                self._cache.retire()
                if self._readers is not None:
                    self._readers.close()
                self._conn.close()
                self._cache = RecordCache(self.embedding_dimension)

    # -- transactions and time ------------------------------------------------------

    def _now(self) -> str:
        return to_text(self._clock())

    @contextmanager
    def _write(self) -> Iterator[Any]:
        """One write transaction: committed whole, or rolled back whole on any error (SQLite
        may already have rolled back itself, after a full disk: then there is nothing to
        roll back). A storage failure is a StorageError naming the file."""
        with self._lock:
            self._ensure_open()
            with _translating(self.location):
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self._conn
                    changelog.prune(self._conn)
                    self._conn.execute("COMMIT")
                except BaseException:
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                    raise

    @contextmanager
    def _read(self) -> Iterator[Any]:
        """One read transaction, begun (its snapshot is taken at its first read)."""
        if self._readers is None:
            with self._lock:
                self._ensure_open()
                with _translating(self.location), _transaction(self._conn) as conn:
                    yield conn
            return
        self._ensure_open()
        with _translating(self.location), self._readers.connection() as reader, \
                _transaction(reader) as conn:
            yield conn

    def _ensure_open(self) -> None:
        if self._closed:
            raise StoreClosedError("the store is closed")

    # -- writes -----------------------------------------------------------------------

    def write_records(
        self,
        records: Sequence[RecordIn],
        links: Sequence[LinkIn] = (),
        replace: bool = False,
        thread_id: str | None = None,
    ) -> list[str]:
        if isinstance(records, dict) or not isinstance(records, Sequence):
            raise InvalidArgumentError("records must be a list of record objects")
        if thread_id is not None:
            check_id(thread_id, "thread_id")
        now = self._now()
        rows = self._prepare_records(records, now)
        inherited = scope_sources(records)
        with self._write() as conn:
            if thread_id is not None:  # in the write lock: no deletion can come in between
                _require_thread(conn, thread_id, now)
            _fill_scopes(conn, rows, inherited, now)
            settled = self._settle_widths(conn, [row["embedding"] for row in rows])
            if replace:
                self._replace_rows(conn, rows)
            else:
                self._insert_new_rows(conn, rows)
            self._insert_links(conn, links, now)
        self.embedding_dimension = self.embedding_dimension or settled
        return [row["id"] for row in rows]

    def append_messages(self, batch: MessageBatch) -> MessageBatchResult:
        thread_id, required = batch_thread(batch)
        check_id(thread_id, "thread_id")
        records = check_batch_records(batch, thread_id)
        expects = "after_message_id" in batch
        expected = check_optional_id(batch.get("after_message_id"), "after_message_id")
        schedule = check_schedule(batch.get("schedule"))
        now = self._now()
        rows = self._prepare_records(records, now)
        with self._write() as conn:
            thread = conn.execute(
                "SELECT seq, extra FROM records WHERE id_space = 'thread' AND id = ?"
                " AND (expires_at IS NULL OR expires_at > ?)", (thread_id, now)).fetchone()
            if thread is None and required:
                raise RecordNotFoundError(f"thread {thread_id!r} does not exist")
            if expects:
                last = self._last_messages(conn, thread_id, now, 1)
                if (last[0]["id"] if last else None) != expected:
                    return not_written(last[0] if last else None)
            settled = self._settle_widths(conn, [row["embedding"] for row in rows])
            self._insert_new_rows(conn, rows)
            due = self._count(conn, thread, schedule, now,
                              sum(row["record_type"] == "message" for row in rows))
            window = max(due.extraction_window, due.summary_window)
            messages = self._last_messages(conn, thread_id, now, window) if window else []
            summary = conn.execute(
                "SELECT content FROM records WHERE id_space = 'summary' AND id = ?"
                " AND (expires_at IS NULL OR expires_at > ?)",
                (thread_id, now)).fetchone() if window else None
        self.embedding_dimension = self.embedding_dimension or settled
        return {"ids": [row["id"] for row in rows], "written": True, "last_message": None,
                "extraction_window": due.extraction_window,
                "summary_window": due.summary_window, "messages": messages,
                "thread_summary": summary[0] if summary else None}

    @staticmethod
    def _count(conn: Any, thread: Any, schedule: Any, now: str, added: int) -> Due:
        """Inside the write: count ``added`` messages in the thread record's counters (a
        thread without a record counts from zero and keeps nothing)."""
        if schedule is None:
            return Due(0, 0, stored_counters(None))
        extra = load_json(thread[1]) if thread is not None else None
        config = (extra or {}).get("config") if isinstance(extra, dict) else None
        due = count_batch(stored_counters(config), added, schedule)
        if thread is not None:
            kept = {**(extra or {}), "config": counted(config, due)}
            conn.execute("UPDATE records SET extra = ?, updated_at = ? WHERE seq = ?",
                         (dump_json(kept, "config"), now, thread[0]))
        return due

    def _last_messages(self, conn: Any, thread_id: str, now: str,
                       count: int) -> list[RecordOut]:
        """The thread's last ``count`` visible messages, oldest first."""
        return [row_to_record(row) for row in _rows_by_seq(conn, _tail_seqs(
            conn, thread_id, now, count))]

    def _settle_widths(self, conn: Any, blobs: Sequence[bytes | None]) -> int | None:
        """A store opened without a dimension takes the one of the first vectors written,
        settled inside the write transaction like the opening's; vectors of another width
        than the stored one are a DimensionMismatchError, so one file never mixes sizes.
        Returns the width to keep once the transaction commits (None: nothing settled)."""
        if self.embedding_dimension is not None:
            return None
        widths = {len(blob) // 4 for blob in blobs if blob is not None}
        if not widths:
            return None
        if len(widths) > 1:
            raise DimensionMismatchError(
                f"embeddings of one call have different dimensions: {sorted(widths)}")
        [width] = widths
        try:
            _claim_dimension(conn, width, "this embedding has")
        except SchemaError as error:
            raise DimensionMismatchError(str(error)) from None
        return width

    def _insert_new_rows(self, conn: Any, rows: list[dict[str, Any]]) -> None:
        """Insert rows none of which may exist yet: one lookup per id space, batched inserts.

        Same outcome and error as inserting row by row (the first existing id in input order
        is the one reported), with far fewer statements for large batches.
        """
        by_space: dict[str, list[str]] = {}
        for row in rows:
            by_space.setdefault(row["id_space"], []).append(row["id"])
        taken: set[tuple[str, str]] = set()
        for space, ids in by_space.items():
            for part in runs(conn, ids, reserved=1):
                sql = (
                    "SELECT id FROM records WHERE id_space = ?"
                    f" AND id IN ({marks(part)})"
                )
                taken.update((space, rid) for (rid,) in conn.execute(sql, [space, *part]))
        for row in rows:
            if (row["id_space"], row["id"]) in taken:
                raise _id_taken(row)
        if all(row["image_bytes"] is None for row in rows):
            for batch in runs(conn, rows, per_item=_PARAMETERS_PER_ROW):
                conn.execute(
                    _INSERT_HEAD + ", ".join([_RECORD_VALUES] * len(batch)),
                    [value for row in batch for value in _record_values(row)],
                )
            return
        for row in rows:
            self._insert_checked_row(conn, row)

    def _prepare_records(self, records: Sequence[Any], now: str) -> list[dict[str, Any]]:
        """Every record of a write checked (all before anything is written), none naming
        an id of its id space twice."""
        rows = [self._prepare_record(record, now, index) for index, record in enumerate(records)]
        keys = [(row["id_space"], row["id"]) for row in rows]
        if len(set(keys)) != len(keys):
            raise DuplicateRecordError("records contains the same id twice")
        return rows

    def _prepare_record(self, record: Mapping[str, Any], now: str,
                        index: int) -> dict[str, Any]:
        where = f"records[{index}]"
        if not isinstance(record, dict):
            raise InvalidArgumentError(f"{where} must be a dict")
        record_type = record.get("record_type")
        if record_type not in ALL_TYPES:
            raise InvalidArgumentError(
                f"{where}.record_type must be one of {', '.join(ALL_TYPES)}, got {record_type!r}"
            )
        rid = record_id(record.get("id") or new_id(), where, "id")
        content = record.get("content", "")
        if not isinstance(content, str):
            raise InvalidArgumentError(f"{where}.content must be a string")
        limits.check_content(content, f"{where}.content")
        role = record.get("role")
        if role is not None:
            if not isinstance(role, str):
                raise InvalidArgumentError(f"{where}.role must be a string or None")
            limits.check_text(role, f"{where}.role")
        timestamp = normalize(record.get("timestamp"), f"{where}.timestamp")
        status = record.get("status", "VALID")
        if status not in STATUSES:
            raise InvalidArgumentError(f"{where}.status must be VALID or INVALID")
        embedding = record.get("embedding")
        extra = {key: record[key] for key in EXTRA_KEYS if record.get(key) is not None}
        created_at = restored_time(record, "created_at", where) or now
        image_bytes = record.get("image_bytes")
        if image_bytes is not None and not isinstance(image_bytes, (bytes, bytearray)):
            raise InvalidArgumentError(f"{where}.image_bytes must be bytes")
        return {
            "id": rid,
            "id_space": id_space(record_type),
            "record_type": record_type,
            "user_id": optional_record_id(record.get("user_id"), where, "user_id"),
            "agent_id": optional_record_id(record.get("agent_id"), where, "agent_id"),
            "thread_id": optional_record_id(record.get("thread_id"), where, "thread_id"),
            "role": role,
            "content": content,
            "metadata": dump_json(record.get("metadata"), f"{where}.metadata",
                                  limits.MAX_METADATA_CHARS),
            "extra": _extra_text(extra, where),
            "event_ts": timestamp,
            "created_at": created_at,
            "updated_at": restored_time(record, "updated_at", where) or created_at,
            "expires_at": restored_time(record, "expires_at", where)
            if "expires_at" in record
            else self._expiry(record.get("ttl_days"), record.get("ttl_anchor", "CREATED_AT"),
                              created_at, timestamp, where),
            "status": status,
            "message_id": optional_record_id(record.get("message_id"), where, "message_id"),
            "embedding": None
            if embedding is None
            else _written_vector(embedding, self.embedding_dimension),
            "image_bytes": None if image_bytes is None else bytes(image_bytes),
        }

    @staticmethod
    def _expiry(
        ttl_days: Any, anchor: Any, created_at: str, timestamp: str | None, where: str
    ) -> str | None:
        """Expiry time from a resolved TTL: None never expires."""
        if ttl_days is None:
            return None
        if isinstance(ttl_days, bool) or not isinstance(ttl_days, (int, float)):
            raise InvalidArgumentError(f"{where}.ttl_days must be a number or None")
        if ttl_days != ttl_days:  # NaN: no number of days (timedelta raised a bare error)
            raise InvalidArgumentError(f"{where}.ttl_days must be a number or None, got nan")
        if ttl_days < 0:
            raise InvalidArgumentError(f"{where}.ttl_days must not be negative")
        if anchor not in TTL_ANCHORS:
            raise InvalidArgumentError(f"{where}.ttl_anchor must be CREATED_AT or TIMESTAMP")
        if anchor == "TIMESTAMP":
            if timestamp is None:
                raise InvalidArgumentError(
                    f"{where}: ttl_anchor TIMESTAMP needs a concrete ISO-8601 timestamp"
                )
            return add_days(timestamp, ttl_days)
        return add_days(created_at, ttl_days)

    def _replace_rows(self, conn: Any, rows: list[dict[str, Any]]) -> None:
        """``_insert_row`` with ``replace`` for a whole batch: every id checked against the
        stored rows, then the records replaced deleted, then every row inserted. Row by row,
        a message replaced after an image of the same batch attached to it deleted that image
        with its old ones."""
        replaced = []
        for row in rows:
            seq = self._replaceable(conn, row, True)
            if seq is not None:
                replaced.append(seq)
        self._delete_seqs(conn, replaced)
        for row in rows:
            self._insert_checked_row(conn, row)

    @staticmethod
    def _replaceable(conn: Any, row: dict[str, Any], replace: bool) -> int | None:
        """The seq of the stored record holding ``row``'s id (None: the id is free), when
        ``replace`` may replace it: else the id is taken (DuplicateRecordError)."""
        existing = conn.execute(
            "SELECT seq, record_type, user_id, agent_id, thread_id, message_id FROM records"
            " WHERE id_space = ? AND id = ?", (row["id_space"], row["id"])
        ).fetchone()
        if existing is None:
            return None
        same = tuple(existing[1:]) == (row["record_type"], row["user_id"], row["agent_id"],
                                      row["thread_id"], row["message_id"])
        if not (replace and same):
            raise _id_taken(row)
        return int(existing[0])

    def _insert_row(self, conn: Any, row: dict[str, Any], replace: bool) -> None:
        """Insert one row; with ``replace``, the record holding its id goes first (with its
        links), but only a record of the same type, scope and message: an id held by
        anything else (another user's image, an image attached to another message) is a
        DuplicateRecordError worded as without ``replace``, so naming an id never deletes or
        takes over a record outside the caller's scope."""
        seq = self._replaceable(conn, row, replace)
        if seq is not None:
            self._delete_seqs(conn, [seq])
        self._insert_checked_row(conn, row)

    @staticmethod
    def _insert_checked_row(conn: Any, row: dict[str, Any]) -> None:
        """Insert one row whose id is known to be free, with its image bytes."""
        cursor = conn.execute(_INSERT_RECORD, _record_values(row))
        if row["image_bytes"] is not None:
            conn.execute(
                "INSERT INTO image_data (seq, bytes) VALUES (?, ?)",
                (cursor.lastrowid, row["image_bytes"]),
            )

    def _insert_links(self, conn: Any, links: Sequence[Mapping[str, Any]], now: str) -> None:
        """Check and insert links in input order, the first problem raising as if each were
        inserted alone; the endpoints and possible clashes are read in a few set queries
        up front instead of three queries per link."""
        if not links:
            return
        endpoints = self._linkable_records(conn, links, now)
        taken_ids, taken_pairs = self._existing_relations(conn, links)
        rows = []
        for link in links:
            if not isinstance(link, dict):
                raise InvalidLinkError("each link must be a dict")
            relation_id = check_id(link.get("id") or new_id(), "relation_id")
            thread_id = check_optional_id(link.get("thread_id"), "thread_id")
            source = (check_id(link.get("source_id"), "source_record_id"), link.get("source_type"))
            target = (check_id(link.get("target_id"), "target_record_id"), link.get("target_type"))
            if source[0] == target[0]:
                raise InvalidLinkError("a record cannot be linked to itself")
            threads, types = [], []
            for (rid, rtype), side in ((source, "source"), (target, "target")):
                stated = f"{side}_type" in link  # absent: the end's stored type
                if stated and rtype not in MEMORY_TYPES:
                    raise InvalidLinkError(
                        f"{side}_record_type must be one of {', '.join(MEMORY_TYPES)}, "
                        f"got {rtype!r}"
                    )
                found = endpoints.get(rid)
                if found is None or (thread_id is not None and found[1] != thread_id):
                    where = f" in thread {thread_id!r}" if thread_id is not None else ""
                    raise LinkEndNotFoundError(f"{side} record {rid!r} does not exist{where}")
                if stated and found[0] != rtype:
                    raise InvalidLinkError(f"{side} record {rid!r} is a {found[0]}, not a {rtype}")
                threads.append(found[1])
                types.append(found[0])
            if thread_id is None and threads[0] == threads[1]:
                thread_id = threads[0]  # both ends in one thread: the thread owns the link
            relation_type = check_label("relation_type", link.get("relation_type"))
            opposite = opposite_label(relation_type, link.get("opposite_relation_type"))
            timestamp = normalize(link.get("timestamp"), "timestamp")
            low, high = sorted((source[0], target[0]))
            pair_owner = taken_pairs.get((low, high))
            if pair_owner is not None and pair_owner != relation_id:
                raise DuplicateRecordError(
                    f"relation {pair_owner!r} already links these records (one direction per pair)"
                )
            if relation_id in taken_ids:
                raise DuplicateRecordError(f"a relation with id {relation_id!r} already exists")
            taken_ids.add(relation_id)
            taken_pairs[low, high] = relation_id
            rows.append((
                relation_id, thread_id, source[0], types[0], target[0], types[1],
                relation_type, opposite, timestamp,
                dump_json(link.get("metadata"), "metadata", limits.MAX_METADATA_CHARS),
                restored_time(link, "created_at", "link") or now, low, high,
            ))
        conn.executemany(
            "INSERT INTO relations (id, thread_id, source_id, source_type, target_id, target_type,"
            " relation_type, opposite_relation_type, event_ts, metadata, created_at, pair_low,"
            " pair_high) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    @staticmethod
    def _linkable_records(
        conn: Any, links: Sequence[Mapping[str, Any]], now: str
    ) -> dict[str, tuple[str, str]]:
        """(record_type, thread_id) of the unexpired memory-like records the links name."""
        ids = sorted({
            value for link in links if isinstance(link, dict)
            for key in ("source_id", "target_id") if _storable(value := link.get(key))
        })
        found: dict[str, tuple[str, str]] = {}
        for part in runs(conn, ids, reserved=1):
            for rid, record_type, thread_id in conn.execute(
                "SELECT id, record_type, thread_id FROM records WHERE id_space = 'memory'"
                f" AND id IN ({marks(part)}) AND (expires_at IS NULL OR expires_at > ?)",
                [*part, now],
            ):
                found[rid] = (record_type, thread_id)
        return found

    @staticmethod
    def _existing_relations(
        conn: Any, links: Sequence[Mapping[str, Any]]
    ) -> tuple[set[str], dict[tuple[str, str], str]]:
        """Stored relations that share an id or an endpoint pair with one of the links."""
        ids: set[str] = set()
        pairs: set[tuple[str, str]] = set()
        for link in links:
            if isinstance(link, dict):
                if _storable(link.get("id")):
                    ids.add(link["id"])
                source, target = link.get("source_id"), link.get("target_id")
                if _storable(source) and _storable(target):
                    pairs.add((source, target) if source <= target else (target, source))
        taken_ids: set[str] = set()
        taken_pairs: dict[tuple[str, str], str] = {}
        id_list, pair_list = sorted(ids), sorted(pairs)
        for part in runs(conn, id_list):
            taken_ids.update(rid for (rid,) in conn.execute(
                f"SELECT id FROM relations WHERE id IN ({marks(part)})", part))
        for pairs_part in runs(conn, pair_list, per_item=2):
            # CROSS JOIN keeps the pairs first: one search of the (pair_low, pair_high)
            # index per pair, not a scan of every relation per batch ("IN (VALUES ...)"
            # on a row value scans the table).
            for rid, low, high in conn.execute(
                f"SELECT r.id, r.pair_low, r.pair_high FROM (VALUES"
                f" {', '.join('(?, ?)' for _ in pairs_part)}) AS wanted CROSS JOIN relations"
                " AS r ON r.pair_low = wanted.column1 AND r.pair_high = wanted.column2",
                [end for pair in pairs_part for end in pair],
            ):
                taken_pairs[low, high] = rid
        return taken_ids, taken_pairs

    # -- reads ------------------------------------------------------------------------

    def get_records(self, query: RecordQuery) -> list[RecordOut]:
        clauses = ["(expires_at IS NULL OR expires_at > ?)"]
        params: list[str | None] = [self._now()]
        ids: list[str] | None = None
        if "ids" in query:
            ids = [check_id(i, "ids") for i in query["ids"]]
            if not ids:
                return []
        spaces = id_spaces()
        if "record_types" in query:
            types = check_record_types(query["record_types"])
            clauses.append(f"record_type IN ({marks(types)})")
            params.extend(types)
            spaces = id_spaces(types)
        for column in ("user_id", "agent_id", "thread_id", "message_id"):
            if column in query:
                value = check_optional_id(query.get(column), column)
                clauses.append(f"{column} IS ?")
                params.append(value)
        metadata_filter = mf.validate_filter(query.get("metadata_filter"))
        limit = _check_limit(query.get("limit"))
        newest = query.get("newest", False)
        if not isinstance(newest, bool):
            raise InvalidArgumentError("newest must be a bool")
        sql = f"SELECT {RECORD_COLUMNS} FROM records WHERE {' AND '.join(clauses)}"
        with self._read() as conn:
            rows = _rows_for_ids(conn, sql, params, ids, spaces)
            records = []
            for row in reversed(rows) if newest else rows:
                record = row_to_record(row)
                if not mf.matches(metadata_filter, record["metadata"]):
                    continue
                records.append((row[0], record))
                if limit is not None and len(records) >= limit:
                    break
            if newest:
                records.reverse()
            if query.get("include_bytes"):
                self._attach_bytes(conn, records)
        return [record for _, record in records]

    @staticmethod
    def _attach_bytes(conn: Any, records: list[tuple[int, RecordOut]]) -> None:
        seqs = [seq for seq, record in records if record["record_type"] == "image"]
        found: dict[int, bytes] = {}
        for part in runs(conn, seqs):
            found.update(conn.execute(
                f"SELECT seq, bytes FROM image_data WHERE seq IN ({marks(part)})", part
            ).fetchall())
        for seq, record in records:
            if seq in found:
                record["image_bytes"] = bytes(found[seq])

    def list_messages(
        self,
        thread_id: str,
        start: int | None,
        end: int | None,
        include_bytes: bool = False,
    ) -> list[RecordOut]:
        check_id(thread_id, "thread_id")
        for name, value in (("start", start), ("end", end)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise InvalidArgumentError(f"{name} must be an integer or None")
        with self._read() as conn:
            if start is not None and start < 0 and end is None:
                # the last messages (the newest window, the turn before a new message):
                # read only those, not every seq of a long thread
                wanted = _tail_seqs(conn, thread_id, self._now(), -start)
            else:
                seqs = [
                    row[0]
                    for row in conn.execute(
                        "SELECT seq FROM records WHERE thread_id = ? AND record_type = 'message'"
                        " AND (expires_at IS NULL OR expires_at > ?) ORDER BY seq",
                        (thread_id, self._now()),
                    )
                ]
                wanted = seqs[start:end]
            if not wanted:
                return []
            records = [(row[0], row_to_record(row)) for row in _rows_by_seq(conn, wanted)]
            if include_bytes:
                self._attach_bytes(conn, records)
        return [record for _, record in records]

    def list_links(self, query: LinkQuery) -> list[LinkOut]:
        clauses: list[str] = ["1 = 1"]
        params: list[Any] = []
        ids: list[str] | None = None
        if "ids" in query:
            ids = [check_id(i, "relation_ids") for i in query["ids"]]
            if not ids:
                return []
        for key in ("thread_id", *ENDPOINT_KEYS):
            if key in query:
                clauses.append(f"{key} IS ?")
                params.append(check_optional_id(query.get(key), key))
        metadata_filter = mf.validate_filter(query.get("metadata_filter"))
        limit = _check_limit(query.get("limit"))
        sql = f"SELECT seq, {LINK_COLUMNS} FROM relations WHERE {' AND '.join(clauses)}"
        with self._read() as conn:
            rows = [row[1:] for row in _rows_for_ids(conn, sql, params, ids)]
        links = []
        for row in rows:
            link = row_to_link(row)
            if mf.matches(metadata_filter, link["metadata"]):
                links.append(link)
                if limit is not None and len(links) >= limit:
                    break
        return links

    # -- updates ----------------------------------------------------------------------

    def update_record(
        self,
        record_id: str,
        record_types: Sequence[str],
        changes: RecordChanges,
        thread_id: str | None = None,
    ) -> RecordOut | None:
        check_id(record_id, "record_id")
        types = check_record_types(record_types)
        if "after_message_id" in changes:
            check_optional_id(changes["after_message_id"], "after_message_id")
        check_change_values(changes)
        now = self._now()
        new_vectors = [] if self.embedding_dimension is not None else [
            _written_vector(vector, None)
            for vector in (changes.get("embedding"), *(
                image.get("embedding") for image in changes.get("replace_images") or ()
                if isinstance(image, Mapping)))
            if vector is not None]
        with self._write() as conn:
            row = self._find_visible(conn, record_id, types, thread_id, now)
            if row is None:
                return None
            seq, current = row[0], row_to_record(row)
            check_context(current, changes, lambda: _message_before(
                conn, seq, current["thread_id"], now))
            settled = self._settle_widths(conn, new_vectors)
            sets, params = self._change_set(current, changes, now)
            if sets:
                conn.execute(f"UPDATE records SET {', '.join(sets)} WHERE seq = ?", [*params, seq])
            if "image_bytes" in changes and changes["image_bytes"] is not None:
                conn.execute(
                    "INSERT OR REPLACE INTO image_data (seq, bytes) VALUES (?, ?)",
                    (seq, bytes(changes["image_bytes"])),
                )
            if current["record_type"] == "message":
                self._follow_message(conn, current, changes, now)
            updated = conn.execute(
                f"SELECT {RECORD_COLUMNS} FROM records WHERE seq = ?", (seq,)
            ).fetchone()
        self.embedding_dimension = self.embedding_dimension or settled
        return row_to_record(updated)

    def _follow_message(
        self, conn: Any, message: RecordOut, changes: RecordChanges, now: str
    ) -> None:
        """Attached images share their message's expiry and are replaced with its parts."""
        if "replace_images" in changes:
            wanted = [
                self._prepare_record(
                    {**image, "record_type": "image", "message_id": message["id"],
                     "user_id": message["user_id"], "agent_id": message["agent_id"],
                     "thread_id": message["thread_id"]},
                    now, index,
                )
                for index, image in enumerate(changes["replace_images"] or [])
            ]
            keep = {row["id"] for row in wanted}
            stale = [seq for seq, image_id in conn.execute(
                "SELECT seq, id FROM records WHERE record_type = 'image' AND message_id = ?",
                (message["id"],)) if image_id not in keep]
            self._delete_seqs(conn, stale)
            for row in wanted:
                if row["image_bytes"] is not None:
                    self._insert_row(conn, row, replace=True)
        if "replace_images" in changes or "ttl_days" in changes or "ttl_anchor" in changes:
            conn.execute(
                "UPDATE records SET expires_at = (SELECT expires_at FROM records"
                " WHERE record_type = 'message' AND id = ?), updated_at = ?"
                " WHERE record_type = 'image' AND message_id = ?",
                (message["id"], now, message["id"]),
            )

    def _find_visible(
        self, conn: Any, record_id: str, types: list[str], thread_id: str | None, now: str
    ) -> Any:
        spaces = id_spaces(types)
        sql = (
            f"SELECT {RECORD_COLUMNS} FROM records WHERE id_space IN ({marks(spaces)})"
            f" AND id = ? AND record_type IN ({marks(types)})"
            " AND (expires_at IS NULL OR expires_at > ?)"
        )
        params: list[Any] = [*spaces, record_id, *types, now]
        if thread_id is not None:
            sql += " AND thread_id = ?"
            params.append(thread_id)
        return conn.execute(sql, params).fetchone()

    def _change_set(
        self, current: RecordOut, changes: Mapping[str, Any], now: str
    ) -> tuple[list[str], list[Any]]:
        sets: list[str] = []
        params: list[Any] = []
        unknown = set(changes) - {
            "content", "embedding", "metadata", "timestamp", "status", "ttl_days", "ttl_anchor",
            "parts", "config", "settings", "mime_type", "image_bytes", "replace_images",
            "keep_bookkeeping", "after_message_id",
        }
        if unknown:
            raise InvalidArgumentError(f"unknown change fields: {', '.join(sorted(unknown))}")
        if "content" in changes:
            if not isinstance(changes["content"], str):
                raise InvalidArgumentError("content must be a string")
            limits.check_content(changes["content"], "content")
            # The keyword index reads keyword_text (or content where it is NULL): both change
            # in one statement, so its update trigger indexes the new content's bigrams.
            sets.append("content = ?, keyword_text = ?")
            params.extend((changes["content"], stored_keyword_text(changes["content"])))
        if "embedding" in changes:
            embedding = changes["embedding"]
            sets.append("embedding = ?")
            params.append(None if embedding is None else
                          _written_vector(embedding, self.embedding_dimension))
        if "metadata" in changes:
            metadata = changes["metadata"]
            if changes.get("keep_bookkeeping"):
                metadata = keep_bookkeeping(current["metadata"], metadata)
            sets.append("metadata = ?")
            params.append(dump_json(metadata, "metadata", limits.MAX_METADATA_CHARS))
        timestamp = current["timestamp"]
        if "timestamp" in changes:
            timestamp = normalize(changes["timestamp"], "timestamp")
            sets.append("event_ts = ?")
            params.append(timestamp)
        if "status" in changes:
            if changes["status"] not in STATUSES:
                raise InvalidArgumentError("status must be VALID or INVALID")
            sets.append("status = ?")
            params.append(changes["status"])
        if "ttl_days" in changes or "ttl_anchor" in changes:
            created_at = current["created_at"]
            assert created_at is not None  # a NOT NULL column of this backend's records
            sets.append("expires_at = ?")
            params.append(self._expiry(
                changes.get("ttl_days"), changes.get("ttl_anchor", "CREATED_AT"),
                created_at, timestamp, "changes",
            ))
        extra_keys = [key for key in ("parts", "config", "mime_type") if key in changes]
        if "settings" in changes:
            if "config" in changes:
                raise InvalidArgumentError("give config or settings, not both")
            if not isinstance(changes["settings"], dict):
                raise InvalidArgumentError("settings must be a JSON object")
            # layered over the stored config (read in this write transaction), which keeps
            # everything else
            stored = current.get("config") or {}
            changes = {**changes, "config": {**stored, "settings": layered_settings(
                stored.get("settings"), changes["settings"])}}
            extra_keys.append("config")
        if extra_keys:
            extra = {key: current.get(key) for key in EXTRA_KEYS}
            extra.update({key: changes[key] for key in extra_keys})
            extra = {key: value for key, value in extra.items() if value is not None}
            sets.append("extra = ?")
            params.append(_extra_text(extra, "changes"))
        if sets:
            sets.append("updated_at = ?")
            params.append(now)
        return sets, params

    def update_link(self, relation_id: str, thread_id: str | None,
                    changes: LinkChanges) -> int:
        check_id(relation_id, "relation_id")
        sql, params = _in_thread("SELECT relation_type, opposite_relation_type FROM relations"
                                 " WHERE id = ?", [relation_id], thread_id)
        with self._write() as conn:
            row = conn.execute(sql, params).fetchone()
            if row is None:
                return 0
            sets, params = [], []
            if "relation_type" in changes:
                relation_type = check_label("relation_type", changes["relation_type"])
                opposite = opposite_label(
                    relation_type, changes.get("opposite_relation_type", row[1])
                )
                sets += ["relation_type = ?", "opposite_relation_type = ?"]
                params += [relation_type, opposite]
            elif "opposite_relation_type" in changes:
                sets.append("opposite_relation_type = ?")
                params.append(opposite_label(row[0], changes["opposite_relation_type"]))
            if "timestamp" in changes:
                sets.append("event_ts = ?")
                params.append(normalize(changes["timestamp"], "timestamp"))
            if "metadata" in changes:
                sets.append("metadata = ?")
                params.append(dump_json(changes["metadata"], "metadata",
                                        limits.MAX_METADATA_CHARS))
            if sets:
                conn.execute(
                    f"UPDATE relations SET {', '.join(sets)} WHERE id = ?", [*params, relation_id]
                )
        return 1

    # -- deletes ----------------------------------------------------------------------

    def delete_records(
        self,
        record_ids: Sequence[str],
        record_types: Sequence[str],
        thread_id: str | None = None,
    ) -> int:
        ids = [check_id(i, "record_id") for i in record_ids]
        types = check_record_types(record_types)
        if not ids:
            return 0
        sql = (
            "SELECT seq, record_type, message_id FROM records"
            f" WHERE record_type IN ({marks(types)})"
        )
        params: list[Any] = [*types]
        if thread_id is not None:
            sql += " AND thread_id = ?"
            params.append(check_id(thread_id, "thread_id"))
        with self._write() as conn:
            rows = _rows_for_ids(conn, sql, params, ids, id_spaces(types))
            for _, record_type, message_id in rows:
                if record_type == "image" and message_id is not None:
                    raise AttachedImageError(
                        "the image is attached to a message; delete or update the message instead"
                    )
            seqs = [row[0] for row in rows]
            self._delete_seqs(conn, seqs)
        return len(seqs)

    def delete_links(self, selector: LinkSelector, thread_id: str | None) -> int:
        params: list[Any]
        if "id" in selector:
            if any(key in selector for key in ENDPOINT_KEYS):
                raise InvalidArgumentError(
                    "give relation_id alone, or the endpoint tuple without relation_id"
                )
            sql, params = "id = ?", [check_id(selector["id"], "relation_id")]
        else:
            missing = [key for key in ENDPOINT_KEYS if selector.get(key) is None]
            if missing:
                raise InvalidArgumentError(
                    "deleting a relation by endpoints needs " + ", ".join(missing)
                )
            sql = " AND ".join(f"{key} = ?" for key in ENDPOINT_KEYS)
            params = [selector.get(key) for key in ENDPOINT_KEYS]
        sql, params = _in_thread(f"DELETE FROM relations WHERE {sql}", params, thread_id)
        with self._write() as conn:
            cursor = conn.execute(sql, params)
        return cursor.rowcount

    def delete_cascade(self, owner_type: OwnerType, owner_id: str) -> CascadeResult:
        if owner_type not in OWNER_COLUMNS:
            raise InvalidArgumentError("owner_type must be thread, user or agent")
        check_id(owner_id, "owner_id")
        column = OWNER_COLUMNS[owner_type]
        owner_record_type = PROFILE_TYPES.get(owner_type, "thread")
        with self._write() as conn:
            owner = conn.execute(
                "SELECT count(*) FROM records WHERE id_space = ? AND id = ?",
                (id_space(owner_record_type), owner_id),
            ).fetchone()[0]
            threads = [owner_id] if owner_type == "thread" else [
                row[0]
                for row in conn.execute(
                    f"SELECT id FROM records WHERE record_type = 'thread' AND {column} = ?",
                    (owner_id,),
                )
            ]
            seqs = {
                row[0]
                for row in conn.execute(
                    f"SELECT seq FROM records WHERE {column} = ?"
                    " OR (id_space = ? AND id = ?)",
                    (owner_id, id_space(owner_record_type), owner_id),
                )
            }
            links = 0
            for part in runs(conn, threads):
                seqs.update(row[0] for row in conn.execute(
                    f"SELECT seq FROM records WHERE thread_id IN ({marks(part)})", part))
                links += conn.execute(
                    f"DELETE FROM relations WHERE thread_id IN ({marks(part)})", part
                ).rowcount
            links += self._delete_seqs(conn, sorted(seqs))
            user_or_agent_erased = bool(seqs) and owner_type != "thread"
            if seqs:
                changelog.record_erasure(conn)
            if user_or_agent_erased:
                # A person's (or an agent's) erasure: FTS5 deletes by adding markers and keeps
                # the deleted records' words in its older segments until they are merged;
                # merged into one now, freed pages zeroed (secure_delete). 0.6 s for a
                # 46 MB index at 1M records; a thread's deletion, frequent, leaves them to
                # FTS5's own merges.
                conn.execute("INSERT INTO records_fts (records_fts) VALUES ('optimize')")
            # (taken in the write lock: a close() once it is released replaces the cache
            # with one that names no file, and the file must go all the same)
            cache = self._cache
        if seqs:  # an erasure: the deleted rows leave the vector file too, now
            with self._cache_lock:
                cache.erase_file()
            if not self._vector_file:  # one another store object (or an earlier run) wrote
                remove_vector_file(self.location)
        if user_or_agent_erased:
            self._zero_older_free_space()
            self._empty_the_log()
        return {"owner": owner, "records": len(seqs), "links": links}

    def _zero_older_free_space(self) -> None:
        """After a person's erasure in a file made before ``schema.ZEROED_KEY``: an older
        library may have updated or deleted rows with secure_delete off (a build whose
        default is off), and their bytes are still in the file's free space, which
        secure_delete does not go back over. VACUUM rewrites the file without them (once:
        the key is set after it). Best effort, as the checkpoint after it: a VACUUM that
        cannot run now (another connection writing) is tried again at the next erasure."""
        if self.location == ":memory:":
            return
        with self._lock:
            if self._closed:
                return
            try:
                if self._conn.execute("SELECT 1 FROM store_meta WHERE key = ?",
                                      (schema.ZEROED_KEY,)).fetchone():
                    return
                self._conn.execute("VACUUM")
                self._conn.execute("INSERT OR IGNORE INTO store_meta (key, value)"
                                   " VALUES (?, '1')", (schema.ZEROED_KEY,))
            except sqlite3.Error:
                pass

    def _empty_the_log(self) -> None:
        """After a person's erasure: the write-ahead log still holds the frames that wrote
        their records, until a checkpoint restarts it and later commits overwrite them, or
        the last connection closes. A TRUNCATE checkpoint copies it into the file (whose
        freed pages secure_delete zeroes) and empties it, when no other connection reads an
        older snapshot at that moment: best effort, without waiting for one."""
        if self.location == ":memory:":
            return
        with self._lock:
            if self._closed:
                return
            schema.wait_when_busy(self._conn, 0)
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            except sqlite3.Error:
                pass  # busy or locked: the log empties at a later checkpoint or the close
            finally:
                schema.wait_when_busy(self._conn, schema.BUSY_TIMEOUT_SECONDS)

    def _delete_seqs(self, conn: Any, seqs: Sequence[int]) -> int:
        """Delete rows, the relations touching them and the images attached to messages."""
        rows = []
        for part in runs(conn, seqs):
            rows.extend(conn.execute(
                f"SELECT seq, id, id_space, record_type FROM records"
                f" WHERE seq IN ({marks(part)})", part))
        memory_ids = [rid for _, rid, space, _ in rows if space == "memory"]
        message_ids = [rid for _, rid, _, rtype in rows if rtype == "message"]
        links = 0
        for part in runs(conn, memory_ids, per_item=2):
            links += conn.execute(
                f"DELETE FROM relations WHERE source_id IN ({marks(part)})"
                f" OR target_id IN ({marks(part)})", [*part, *part]).rowcount
        for part in runs(conn, seqs):
            conn.execute(f"DELETE FROM records WHERE seq IN ({marks(part)})", part)
        for part in runs(conn, message_ids):
            conn.execute(
                "DELETE FROM records WHERE record_type = 'image'"
                f" AND message_id IN ({marks(part)})", part)
        return links

    def purge_expired(self) -> int:
        with self._write() as conn:
            seqs = [
                row[0]
                for row in conn.execute(
                    "SELECT seq FROM records WHERE expires_at IS NOT NULL AND expires_at <= ?",
                    (self._now(),),
                )
            ]
            self._delete_seqs(conn, seqs)
        return len(seqs)

    # -- search -----------------------------------------------------------------------

    def search(self, request: SearchRequest) -> list[SearchHit]:
        with self._read() as conn:
            return run_search(conn, request, self._cache, self._cache_lock,
                              self.embedding_dimension, self._now())
