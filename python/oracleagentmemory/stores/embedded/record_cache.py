"""In-memory columns of the searchable records: scope, status, expiry, unit vectors and
keyword terms.

Why: a search used to select every candidate row from SQLite and decode its vector on each
call, so a scoped search cost as much as reading the user's whole history. The cache keeps
what candidate selection and scoring need as numpy arrays (one slot per record, sorted by
``seq``), so scope, type, status and expiry become boolean masks and scoring one matrix
product over the survivors. Each record's keyword terms are kept too (``record_terms``: a
run of term numbers per slot), so a scoped keyword search scores its scope in memory
(``scope_keywords``) without reading a row.

Coherence, correctness first: before every search the cache compares the change log's
latest version and the store epoch (``changelog.state``) inside the search's own read
transaction; if anything changed, through this store object or any other connection or
process, it reloads the changed rows (or everything, when it fell behind the pruned log or
the schema was recreated). It therefore always reflects exactly the snapshot the search
reads. Callers serialise access (the store's cache lock).

Vectors live in ``vectors`` at row ``row[slot]``: rows follow slots after a reload from
SQLite, and follow scopes in a vector file (grouped by user and thread), so a scoped search
reads one contiguous run of a mapped file; so do the records' terms.

Cold start: for a store file, the first sync maps the vector file beside it
(``vector_file``: these columns as of one change-log version) instead of reading every row,
once the change log holds the file's mark at the file's version (one lookup: the file holds
a state this database went through), and catches up through the change log; a full reload
writes a new vector file, and so does ``retire`` (on close) when the file lags far behind
or lacks metadata-filter columns built since.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from oracleagentmemory._vocabulary import SEARCHABLE_TYPES
from oracleagentmemory.stores.embedded import changelog, vector_file
from oracleagentmemory.stores.embedded.bound_lists import marks, runs
from oracleagentmemory.stores.embedded.metadata_columns import KeyColumn, MetadataColumns
from oracleagentmemory.stores.embedded.record_terms import (
    DamagedFile,
    RecordTerms,
    TermTable,
)
from oracleagentmemory.stores.embedded.schema import BUSY_TIMEOUT_SECONDS
from oracleagentmemory.stores.embedded.user_slots import ReadAhead, UserSlots

_TYPE_CODES = {name: code for code, name in enumerate(SEARCHABLE_TYPES)}
_TYPE_LIST = ", ".join(f"'{name}'" for name in SEARCHABLE_TYPES)
_COLUMNS = ("seq, record_type, user_id, agent_id, thread_id, status, expires_at, embedding,"
            " keyword_body")
_METADATA = 9
"""Where ``_apply`` finds the metadata column it asks for after _COLUMNS."""
NEVER = b"\xff"
"""Expiry of a record that never expires: sorts after every ISO-8601 text."""
_CHUNK = 20_000
_SEARCHED_COLUMNS = ("user", "type_code", "valid", "has_vector", "row", "seq")
"""The per-slot columns a user-scoped search reads at the user's slots (``user``: the user
codes, which the slots are checked against; ``vector_file.Prefetch``'s names)."""
_FILE_TAG = f"types={','.join(SEARCHABLE_TYPES)};never={NEVER.hex()};scope=user,agent,thread"
"""What the codes of a vector file mean: a file made under other meanings is not used."""
_MAX_COSINE = 1.001
"""The largest cosine two stored unit vectors can give in float32, with room for rounding
(a vector of zeros, stored for a zero embedding, gives 0)."""
_SAFE_SQUARES = (1e-30, 1e30)
"""Squared norms float32 computes to within 1e-5 (no square of a component that matters
underflows, no partial sum overflows)."""
SINGLE_THREAD_ROWS = 65_536
"""Up to this many rows, score with a single-threaded loop rather than threaded BLAS: on a
small product, waking BLAS threads costs more than it saves, and on a busy 2-core machine it
can stall for a whole scheduler slice (measured: 8 ms for 2,000 rows)."""


def _prefetched(cursor: Any, size: int) -> Iterator[list[tuple]]:
    """The cursor's rows in chunks, the next chunk read by a helper thread while the caller
    decodes the current one: sqlite3 releases the GIL while it steps, so a full reload
    overlaps reading the file with filling the arrays. Only the helper touches the cursor
    meanwhile, and the caller holds the store's cache lock throughout."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="record-cache") as pool:
        pending = pool.submit(cursor.fetchmany, size)
        while True:
            chunk = pending.result()
            if not chunk:
                return
            pending = pool.submit(cursor.fetchmany, size)
            yield chunk


_VECDOT = getattr(np, "vecdot", None)


def _row_dots(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Single-threaded ``matrix @ vector``: numpy 2's vecdot (a BLAS dot per row, about 1.6x
    faster than einsum on 10K x 384), einsum on numpy 1."""
    if _VECDOT is not None:
        return _VECDOT(matrix, vector)
    return np.einsum("ij,j->i", matrix, vector)


class RecordCache:
    """Columns of every searchable record of one store file, synchronised on demand."""

    def __init__(self, dimension: int | None, location: str | None = None) -> None:
        self.dimension = dimension
        self.metadata = MetadataColumns()
        self._version = -1
        self._epoch: str | None = None
        self._ids: dict[str | None, int] = {None: 0}
        self._vector_path = None if location is None else vector_file.path_for(location)
        self._location = None if self._vector_path is None else os.path.abspath(str(location))
        self._prefetch: vector_file.Prefetch | None = None
        self._mark: bytes | None = None
        """Change-log mark at ``_version`` (what a vector file written now names)."""
        self._file_version: int | None = None
        """Change-log version of the vector file this cache last read or wrote (same epoch)."""
        self._file_keys: set[str] = set()
        """Metadata keys whose columns that file holds."""
        self._distrusted = False
        """A search found this cache disagreeing with SQLite: no vector file is adopted again."""
        self._retired = False
        """The store closed (``retire``): a search still running on this cache writes no
        file after that."""
        self._reset(0)

    # -- storage ------------------------------------------------------------------------

    def _reset(self, capacity: int) -> None:
        self.size = 0
        self.dead = 0
        self.seq = np.zeros(capacity, dtype=np.int64)
        self.live = np.zeros(capacity, dtype=bool)
        self.type_code = np.zeros(capacity, dtype=np.int8)
        self.scope = np.zeros((3, capacity), dtype=np.int32)
        self.valid = np.zeros(capacity, dtype=bool)
        self.expires = np.full(capacity, NEVER, dtype="S32")
        self.expiring = 0
        self.has_vector = np.zeros(capacity, dtype=bool)
        self.row = np.arange(capacity, dtype=np.int32)
        self.vectors = np.zeros((capacity, self.dimension or 0), dtype=np.float32)
        self.users: UserSlots | None = None
        """Each user's slots, from a vector file (None: compare every slot's user code)."""
        self.term_start = np.zeros(capacity, dtype=np.int64)
        self.term_count = np.zeros(capacity, dtype=np.int32)
        """Each slot's terms: a run of ``terms`` (``RecordTerms``)."""
        self.terms = RecordTerms()
        self.metadata.clear(capacity)
        self._prefetch = None  # the last holder of a mapped file's map: it goes with it
        self._file_vectors = False
        """The vectors came from a vector file (mapped, or copied from the map as the cache
        grew): only those can be damaged, so only those are checked in ``distances``."""

    def _grow(self, needed: int) -> None:
        capacity = self.seq.shape[0]
        if needed <= capacity:
            return
        new = max(needed, int(capacity * 1.5) + 1024)

        def grown(array: np.ndarray, fill: Any = 0) -> np.ndarray:
            shape = (new, *array.shape[1:]) if array.ndim == 1 or array is self.vectors else (
                array.shape[0], new)
            out = np.full(shape, fill, dtype=array.dtype)
            if array is self.scope:
                out[:, :capacity] = array
            else:
                out[:capacity] = array
            return out

        self.seq = grown(self.seq)
        self.live = grown(self.live, False)
        self.type_code = grown(self.type_code)
        self.scope = grown(self.scope)
        self.valid = grown(self.valid, False)
        self.expires = grown(self.expires, NEVER)
        self.has_vector = grown(self.has_vector, False)
        self.row = grown(self.row)
        self.vectors = grown(self.vectors)
        self.term_start = grown(self.term_start)
        self.term_count = grown(self.term_count)
        self.metadata.grow(new)

    def code(self, value: str | None) -> int | None:
        """Interned code of a scope value; None when no cached record ever had it."""
        return self._ids.get(value)

    def _intern(self, value: str | None) -> int:
        code = self._ids.get(value)
        if code is None:
            code = len(self._ids)
            self._ids[value] = code
        return code

    # -- synchronisation ----------------------------------------------------------------

    def open_file(self, conn: Any) -> None:
        """When the store opens: map the vector file if there is a usable one (cheap: no row
        is read), so the first search only catches up. Nothing else: a store without a
        usable file reads SQLite at its first search, not here."""
        if self._version >= 0 or self._vector_path is None:
            return
        if not os.path.exists(self._vector_path):
            return
        try:
            self._adopt_file(conn, changelog.state(conn)[1])
        except Exception:  # no schema yet (NO_CHECK), an unreadable file: never fails an open
            self._version, self._epoch = -1, None

    def sync(self, conn: Any) -> None:
        """Bring the cache to the snapshot of ``conn``'s open read transaction.

        The change log must still hold, at the cache's version, the mark the cache saw there:
        a database whose history changed under it (a backup restored into the live file)
        is read again from SQLite, not caught up through another history's log."""
        version, epoch = changelog.state(conn)
        if version == self._version and epoch == self._epoch:
            return
        try:
            if self._version < 0:
                self._adopt_file(conn, epoch)
            reload = epoch != self._epoch or version < self._version or self._version < 0
            if not reload and changelog.mark_at(conn, self._version) != self._mark:
                reload = True
            if not reload and self._version < version:
                oldest = changelog.oldest_version(conn)
                behind = oldest is None or oldest > self._version + 1
                reload = behind or version - self._version > max(50_000, self.size // 4)
                if not reload:
                    self._apply(conn, changelog.changed_since(conn, self._version))
            if reload:
                self._full_reload(conn)
        except BaseException:
            # Half caught up or half reloaded: the next sync starts over (and ``retire``
            # writes nothing meanwhile).
            self._version, self._epoch = -1, None
            raise
        self._version, self._epoch = version, epoch
        self._mark = changelog.mark_at(conn, version)
        if reload and self.size >= vector_file.MIN_RECORDS:
            self._save()

    # -- the vector file ----------------------------------------------------------------

    def distrust(self) -> None:
        """A search found a row that does not match what this cache said of it (a vector
        file from another state of the database, such as one left beside a restored
        backup): the next sync reloads from SQLite alone and writes a new file."""
        self._version, self._epoch = -1, None
        self._distrusted = True

    def erase_file(self) -> None:
        """Rows were erased (a user, agent or thread deleted): the vector file, which still
        holds their vectors and ids, is removed at once, and the next sync reloads from
        SQLite (dropping the erased ids from the scope table) and writes a new one. So are
        the temporary files of writers killed before their rename, which hold them too."""
        if self._location is not None:
            vector_file.remove(self._location)
        self._file_version = None
        self.distrust()

    def _adopt_file(self, conn: Any, epoch: str | None) -> bool:
        """Take the columns of the vector file of ``epoch``, if there is a usable one that
        holds a state of this database: the change log holds the file's mark at the file's
        version (a file from a restored backup's other future, or ahead of it, does not)."""
        if self._vector_path is None or self._distrusted:
            return False
        try:
            snapshot = vector_file.load(self._vector_path, epoch, _FILE_TAG)
            key_columns = [] if snapshot is None else [
                KeyColumn.restored(column.key, column.codes, column.values, column.complex,
                                   snapshot.size)
                for column in snapshot.metadata]
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError,
                MemoryError):
            snapshot = None  # a cache file that cannot be read never fails a search
        if snapshot is None or (self.dimension is not None
                                and snapshot.dimension not in (None, self.dimension)):
            return False
        if changelog.mark_at(conn, snapshot.version) != snapshot.mark:
            return False
        if snapshot.version < changelog.erased_at(conn):
            return False  # written from a cache older than an erasure: holds erased rows
        if snapshot.dimension is None and self.dimension is not None and snapshot.size:
            return False  # its records have no vectors, this store's have
        columns = snapshot.columns
        self.size, self.dead, self.expiring = snapshot.size, 0, snapshot.expiring
        self.seq, self.type_code = columns["seq"], columns["type_code"]
        self.valid, self.has_vector = columns["valid"], columns["has_vector"]
        self.expires, self.scope = columns["expires"], columns["scope"]
        self.row = columns["row"]
        self.live = np.zeros(snapshot.capacity, dtype=bool)
        self.live[: snapshot.size] = True
        if snapshot.dimension is not None:
            self.dimension = snapshot.dimension
            self.vectors = columns["vectors"]
            self._prefetch = snapshot.prefetch
            self._file_vectors = True
        else:
            self.vectors = np.zeros((snapshot.capacity, self.dimension or 0), dtype=np.float32)
            self._file_vectors = False
        self.term_start, self.term_count = columns["term_start"], columns["term_count"]
        self.terms = RecordTerms(TermTable(snapshot.vocabulary), snapshot.terms,
                                 snapshot.prefetch.terms)
        self.users = snapshot.users
        self.metadata.clear(snapshot.capacity)
        self.metadata.restore(key_columns)
        self._file_keys = {column.key for column in snapshot.metadata}
        self._ids = {value: code for code, value in enumerate(snapshot.scope_values)}
        self._version, self._epoch = snapshot.version, epoch
        self._mark = snapshot.mark
        self._file_version = snapshot.version
        return True

    def _save(self) -> None:
        """Write the vector file of the cache as it is (version ``self._version``)."""
        if (self._vector_path is None or self._epoch is None or self._version < 0
                or self._mark is None or self._retired):
            return  # no mark at this version (no change yet), or the store closed
        if self._erased_since():
            return  # the file would hold erased rows, and be removed once in place
        keep = np.flatnonzero(self.live[: self.size]) if self.dead else None
        scope_values = list(self._ids)  # codes are given in insertion order (_intern)
        columns: dict[str, np.ndarray] = {
            "seq": self.seq, "type_code": self.type_code, "valid": self.valid,
            "has_vector": self.has_vector, "expires": self.expires, "scope": self.scope,
            "row": self.row, "vectors": self.vectors, "term_start": self.term_start,
            "term_count": self.term_count}
        metadata = [vector_file.KeyCodes(column.key, column.codes, column.values,
                                         column.complex) for column in self.metadata.columns]
        assert self._location is not None
        try:
            saved = vector_file.save(self._vector_path, self._location, _FILE_TAG, self._epoch,
                                     self._version, self._mark, self.dimension, columns,
                                     self.size, keep, self.expiring, scope_values, metadata,
                                     self.terms)
        except DamagedFile:  # mapped from a damaged file: never kept, never copied on
            self.erase_file()
            return
        except (OSError, ValueError, TypeError, IndexError, MemoryError):
            return  # a cache file that cannot be written never fails a search or a close
        except BaseException:
            # Interrupted (Ctrl-C), maybe after the rename: the same check, then go on.
            self._drop_if_erased()
            raise
        if saved and self._drop_if_erased():
            saved = False
        if saved:
            self._file_version = self._version
            self._file_keys = {column.key for column in metadata}

    def _drop_if_erased(self) -> bool:
        """After renaming a file into place: if another store object erased rows after this
        cache's version, the file holds them, and is removed. Its eraser removes the file
        after its commit, so either that removal comes after this rename, or this check sees
        the commit."""
        assert self._vector_path is not None
        if not self._erased_since():
            return False
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._vector_path)
        return True

    def _erased_since(self) -> bool:
        """Whether the latest committed state records an erasure after this cache's version,
        or another schema (recreated: every record dropped) than this cache's (read on a
        connection of its own: the caller's transaction may be older)."""
        assert self._location is not None
        try:  # (mode=rw: a store file removed meanwhile is not created again, empty)
            conn = sqlite3.connect(f"{Path(self._location).as_uri()}?mode=rw",
                                   timeout=BUSY_TIMEOUT_SECONDS, uri=True)
            try:
                return (changelog.erased_at(conn) > self._version
                        or changelog.state(conn)[1] != self._epoch)
            finally:
                conn.close()
        except sqlite3.Error:
            return True  # cannot tell: keep no file that may hold erased rows

    def retire(self) -> None:
        """When the store closes: write the vector file again if it lags far behind; none is
        written after this (a search that took the cache before the close may still sync
        it)."""
        if (self._vector_path is not None and self._version >= 0
                and self.size - self.dead >= vector_file.MIN_RECORDS
                and (self._file_version is None
                     or self._version - self._file_version >= vector_file.REFRESH_CHANGES
                     or {column.key for column in self.metadata.columns} - self._file_keys)):
            self._save()
        self._retired = True

    def _full_reload(self, conn: Any) -> None:
        count = conn.execute("SELECT count(*) FROM records").fetchone()[0]
        self._reset(count)
        self._ids = {None: 0}  # ids of deleted rows are not kept (nor written to a file)
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM records WHERE +record_type IN ({_TYPE_LIST}) ORDER BY seq"
        )
        for chunk in _prefetched(rows, _CHUNK):
            self._append(chunk)
            vector_file.fault_point("cache-reload")
        self._version = -1

    def _append(self, rows: Sequence[tuple]) -> None:
        """Append rows whose seq is greater than every cached seq."""
        start = self.size
        self._grow(start + len(rows))
        self.size = start + len(rows)
        self._write(slice(start, self.size), rows)

    def _fill(self, slot: int, row: tuple) -> None:
        self._write(np.array([slot]), [row])

    def _write(self, slots: np.ndarray | slice, rows: Sequence[tuple]) -> None:
        """Store rows (RecordCache column order) into ``slots``, column by column.

        ``slots`` is a slice when appending (new slots take the vector rows of the same
        numbers): plain slice assignments, and unit vectors divided straight into the cache,
        no temporary copies. Otherwise the slots exist and keep their vector rows."""
        count = len(rows)
        if isinstance(slots, slice):
            self.row[slots] = np.arange(slots.start, slots.stop, dtype=np.int32)
            targets: np.ndarray | slice = slots
        else:
            targets = self._vector_rows(slots)
        users = [self._intern(row[2]) for row in rows]
        if self.users is not None and not isinstance(slots, slice):
            covered = slots < self.users.covered
            if bool((self.scope[0, slots[covered]] != np.array(users)[covered]).any()):
                self.users = None  # a slot it covers changed user
        self.live[slots] = True
        self.seq[slots] = np.fromiter((row[0] for row in rows), dtype=np.int64, count=count)
        self.type_code[slots] = [_TYPE_CODES[row[1]] for row in rows]
        self.scope[0, slots] = users
        for dimension in (1, 2):
            self.scope[dimension, slots] = [self._intern(row[2 + dimension]) for row in rows]
        self.valid[slots] = [row[5] == "VALID" for row in rows]
        expires = [NEVER if row[6] is None else row[6].encode() for row in rows]
        self.expiring += sum(1 for value in expires if value != NEVER)
        self.expires[slots] = expires
        self.term_start[slots], self.term_count[slots] = self.terms.add(
            [row[8] or "" for row in rows])
        blobs = [row[7] for row in rows]
        if self.dimension is None:
            first = next((blob for blob in blobs if blob is not None), None)
            if first is None:
                self.has_vector[slots] = False
                return
            self.dimension = len(first) // 4
            self.vectors = np.zeros((self.seq.shape[0], self.dimension), dtype=np.float32)
        width = self.dimension * 4
        ok = np.fromiter((blob is not None and len(blob) == width for blob in blobs),
                         dtype=bool, count=count)
        self.has_vector[slots] = ok
        if ok.all():
            matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(count, self.dimension)
            target = targets
        else:
            index = (np.arange(targets.start, targets.stop) if isinstance(targets, slice)
                     else targets)
            self.vectors[index[~ok]] = 0.0
            matrix = np.frombuffer(
                b"".join(blob for blob, good in zip(blobs, ok, strict=True) if good), dtype="<f4"
            ).reshape(-1, self.dimension)
            target = index[ok]
        norms = np.sqrt(_squared_norms(matrix))
        norms[norms == 0] = np.inf
        if isinstance(target, slice):  # in place, no temporary copy of the chunk
            np.divide(matrix, norms[:, None], out=self.vectors[target])
        else:
            self.vectors[target] = matrix / norms[:, None]

    def _apply(self, conn: Any, seqs: list[int]) -> None:
        """Reload the rows of the changed ``seqs``: update, insert or forget each."""
        if not seqs:
            return
        want_metadata = self.metadata.active
        columns = _COLUMNS + (", metadata" if want_metadata else "")
        found: dict[int, tuple] = {}
        for part in runs(conn, seqs):
            for row in conn.execute(
                f"SELECT {columns} FROM records WHERE seq IN ({marks(part)})"
                f" AND record_type IN ({_TYPE_LIST})",
                part,
            ):
                found[row[0]] = row
        known = self.seq[: self.size]
        appended: list[tuple] = []
        for seq in sorted(seqs):
            slot = int(np.searchsorted(known, seq))
            exists = slot < self.size and known[slot] == seq
            row = found.get(seq)
            if exists:
                if self.live[slot]:
                    self.live[slot] = False
                    self.dead += 1
                    if self.expires[slot] != NEVER:
                        self.expiring -= 1
                        self.expires[slot] = NEVER
                    self.metadata.forget(slot)
                    self.terms.release(self.term_start[slot:slot + 1],
                                       self.term_count[slot:slot + 1])
                if row is not None:
                    self.dead -= 1
                    self._fill(slot, row)
                    if want_metadata:
                        self.metadata.update(slot, row[_METADATA])
            elif row is not None:
                appended.append(row)
        if appended:
            in_order = self.size == 0 or appended[0][0] > int(self.seq[self.size - 1])
            first = self.size
            self._append(appended)
            if want_metadata:
                for offset, row in enumerate(appended):
                    self.metadata.update(first + offset, row[_METADATA])
            if not in_order:
                self._reorder()
        if self.dead > 1024 and self.dead > self.size // 2:
            self._reorder()
        if self.terms.needs_packing():
            live = np.flatnonzero(self.live[: self.size])
            starts = self.term_start[live]
            self.terms.pack(starts, self.term_count[live])
            self.term_start[live] = starts

    def _reorder(self) -> None:
        """Drop dead slots and sort by seq again (rare: a reused seq, many deletes)."""
        keep = np.flatnonzero(self.live[: self.size])
        order = keep[np.argsort(self.seq[keep], kind="stable")]
        rows = self._vector_rows(order)
        n = order.shape[0]
        self.seq[:n] = self.seq[order]
        self.live[:n] = True
        self.live[n:] = False
        self.type_code[:n] = self.type_code[order]
        self.scope[:, :n] = self.scope[:, order]
        self.valid[:n] = self.valid[order]
        self.expires[:n] = self.expires[order]
        self.expires[n:] = NEVER
        self.has_vector[:n] = self.has_vector[order]
        self.has_vector[n:] = False
        self.term_start[:n] = self.term_start[order]
        self.term_count[:n] = self.term_count[order]
        self.vectors[:n] = self.vectors[rows]  # rows follow slots again
        self.row[:] = np.arange(self.row.shape[0], dtype=np.int32)
        self.size, self.dead = n, 0
        self.users = None  # slots renumbered
        self.metadata.clear(self.seq.shape[0])

    def _vector_rows(self, slots: np.ndarray) -> np.ndarray:
        """The vector rows of ``slots``, checked (``_row_span``)."""
        rows = self.row[slots]
        if rows.shape[0]:
            self._row_span(rows)
        return rows

    def _row_span(self, rows: np.ndarray) -> tuple[int, int]:
        """The first and last of (non-empty) ``rows``; one outside the vectors (a damaged
        vector file: no CRC covers the rows) is ``DamagedFile``, not an IndexError in every
        search."""
        first, last = int(rows.min()), int(rows.max())
        if first < 0 or last >= self.vectors.shape[0]:
            raise DamagedFile("a record's vector row lies outside the vectors")
        return first, last

    def _mapped_prefetch(self) -> vector_file.Prefetch | None:
        """The vector file's prefetch while the columns are still its map's (growing copies
        them all out, the vectors with them)."""
        if self._prefetch is not None and self._prefetch.vectors is not self.vectors:
            self._prefetch = None
        return self._prefetch

    # -- queries ------------------------------------------------------------------------

    def scope_slots(self, exact_scope: dict[int, str | None], terms: bool = False
                    ) -> np.ndarray | None:
        """Live slots matching every exact scope dimension (seq order), whatever their type,
        status or expiry; None when the search has no exact dimension. A user's slots in a
        mapped vector file: the per-slot columns a search reads there (their terms' runs
        too with ``terms``) are asked for at once first."""
        if not exact_scope:
            return None
        n = self.size
        codes: dict[int, int] = {}
        for dimension, value in exact_scope.items():
            code = self.code(value)
            if code is None:
                return np.zeros(0, dtype=np.int64)
            codes[dimension] = code
        if self.users is not None and 0 in codes:
            reading = self._reading(codes, terms)
            slots = self.users.of(codes.pop(0), self.scope[0], n, reading)
            for dimension, code in codes.items():
                slots = slots[self.scope[dimension, slots] == code]
        else:
            mask: np.ndarray | None = None
            for dimension, code in codes.items():
                hit = self.scope[dimension, :n] == code
                mask = hit if mask is None else mask & hit
            assert mask is not None
            slots = np.flatnonzero(mask)
        return slots[self.live[slots]] if self.dead else slots

    def _reading(self, codes: dict[int, int], terms: bool) -> ReadAhead | None:
        """What asks the mapped file for the columns a search of these exact scope
        dimensions reads at a user's slots (None: the columns are not the map's)."""
        prefetch = self._mapped_prefetch()
        if prefetch is None:
            return None
        names = (_SEARCHED_COLUMNS + (("expires",) if self.expiring else ())
                 + (("term_start", "term_count") if terms else ())
                 + tuple(vector_file.SCOPE_RUNS[dimension] for dimension in codes if dimension))
        return functools.partial(prefetch.slots, names=names)

    def candidates(
        self,
        scope: np.ndarray | None,
        record_types: Sequence[str],
        include_invalid: bool,
        now: str,
    ) -> np.ndarray:
        """Slots of ``scope`` (``scope_slots``; None: every slot) passing type, status and
        expiry (seq order)."""
        if scope is not None:
            slots = scope
        else:
            slots = np.flatnonzero(self.live[: self.size]) if self.dead else np.arange(self.size)
        if len(set(record_types)) < len(SEARCHABLE_TYPES):
            wanted = np.array([_TYPE_CODES[t] for t in set(record_types)], dtype=np.int8)
            slots = slots[np.isin(self.type_code[slots], wanted)]
        if not include_invalid:
            slots = slots[self.valid[slots]]
        if self.expiring:
            slots = slots[self.expires[slots] > now.encode()]
        return slots

    def metadata_rows(self, conn: Any) -> Iterable[tuple[int, str | None]]:
        """(slot, metadata text) of every live slot, read in the current transaction."""
        known = self.seq[: self.size]
        rows = conn.execute(
            f"SELECT seq, metadata FROM records WHERE +record_type IN ({_TYPE_LIST})"
        )
        while True:
            chunk = rows.fetchmany(_CHUNK)
            if not chunk:
                break
            seqs = np.fromiter((row[0] for row in chunk), dtype=np.int64, count=len(chunk))
            slots = np.minimum(np.searchsorted(known, seqs), max(self.size - 1, 0))
            good = (known[slots] == seqs) & self.live[slots] if self.size else seqs < 0
            for (_, text), slot, ok in zip(chunk, slots.tolist(), good.tolist(), strict=True):
                if ok:
                    yield slot, text

    def distances(self, slots: np.ndarray, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(slots with a vector, cosine distances to ``query``) for the given slots.

        The slots' vector rows are scored where they lie when they fill most of their span
        (a scope of a vector file: one run, read as a view, no copy; every record), else
        gathered first."""
        if not (slots.shape[0] == self.size and self.has_vector[: self.size].all()):
            slots = slots[self.has_vector[slots]]
        if not slots.shape[0]:
            return slots, np.zeros(0, dtype=np.float32)
        wide = query.astype(np.float64)  # float32 loses norms below 1e-38 or above 3.4e38
        norm = float(np.linalg.norm(wide))
        unit = (wide / norm if norm > 0 else np.zeros_like(wide)).astype(np.float32)
        rows = self.row[slots]
        first, last = self._row_span(rows)
        prefetch = self._mapped_prefetch()
        if last - first + 1 <= 2 * rows.shape[0]:
            if prefetch is not None:
                prefetch.rows(first, last + 1)
            similarity = _dots(self.vectors[first:last + 1], unit)[rows - first]
        else:
            similarity = _dots(np.take(self.vectors, rows, axis=0), unit)
        # Unit vectors: a cosine past 1 (or NaN) is a vector damaged in a vector file. (Not
        # checked on vectors this cache made: the reload a failed check leads to must pass.)
        if self._file_vectors and not bool((np.abs(similarity) <= _MAX_COSINE).all()):
            raise DamagedFile("a stored vector is not a unit vector")
        return slots, 1.0 - similarity


def _squared_norms(matrix: np.ndarray) -> np.ndarray:
    """Each row's squared norm, in float64 where float32 under- or overflows (squares of
    values below about 1e-19 or above 1e19): a norm so computed would leave no unit vector,
    and ``distances`` takes a cosine past 1 for a damaged file. float64 everywhere costs 4x."""
    squares = np.einsum("ij,ij->i", matrix, matrix)
    unsafe = ~((squares >= _SAFE_SQUARES[0]) & (squares <= _SAFE_SQUARES[1]))  # NaN too
    if unsafe.any():
        squares = squares.astype(np.float64)
        squares[unsafe] = np.einsum("ij,ij->i", matrix[unsafe], matrix[unsafe],
                                    dtype=np.float64)
    return squares


def _dots(matrix: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """``matrix @ unit``: single-threaded for small matrices (SINGLE_THREAD_ROWS)."""
    if matrix.shape[0] <= SINGLE_THREAD_ROWS:
        return _row_dots(matrix, unit)
    return matrix @ unit
