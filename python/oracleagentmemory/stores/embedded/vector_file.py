"""The vector file: a memory-mapped snapshot of the record cache beside the SQLite file.

Why: the first search of a process used to read every searchable row from SQLite and
normalise its vector before it could score anything (seconds per million records). The
vector file ``<store file>.vectors`` holds the record cache's columns (seq, type, scope
codes, status, expiry, the row of each slot's vector, unit vectors, each slot's run of
keyword terms), the scope strings, the metadata-filter key columns built so far
(``MetadataColumns``), the records' keyword terms with their vocabulary
(``record_terms``) and each user's slots (``user_slots``) as they were at one
change-log ``version`` of one schema ``epoch``; a new process maps it copy-on-write instead,
catches up through the change log like any cache does, and is searching in milliseconds.

Vectors are laid out by scope: grouped by user, then thread, then seq (``row`` gives each
slot's vector row), and so are the records' terms. Pages of the map are read from the file
as a search touches them, so a user-scoped search reads its user's vectors and terms, one
contiguous run each, and resident memory grows with the scopes searched, never beyond the
file.

SQLite stays the source of truth; the file is a cache that is used only when it provably
holds a state of this SQLite file:

- it names the change-log ``version`` it holds and the ``mark`` logged at that version
  (``changelog``: random bytes written in the transaction that made the change). A reader
  uses it only when the change log holds the same mark at that version: one lookup by key,
  whatever the store's size. A file from another state of the database (beside a restored
  backup, older or newer, that went on to other writes; after a crash that lost commits the
  file had seen) names a version whose mark differs or is absent, and is not used;
- it is never modified in place: a writer writes a new file under a temporary name, fsyncs
  it, renames it over the old one (atomic) and fsyncs the directory, so a reader sees the
  old complete file or the new complete file, never a mix; a temporary file a killed writer
  left behind is never read, and is removed by the next writer;
- before writing, the SQLite file's write-ahead log is fsynced (the database file is
  written only by checkpoints, which SQLite syncs, and is never opened here: see
  ``make_durable``), so the version the file names is durable;
- the reader checks the magic, format, byte order, a CRC of the header, of the scope and
  metadata tables, of the term vocabulary and of where each user's slots begin, the exact
  file length, the epoch, the dimension and what its codes mean. Anything else: the file
  is ignored, the cache is rebuilt from SQLite and a new file written. Parts no CRC
  covers are checked where a search first reads them (a term run or number, a user's
  slots, a metadata-filter code that stands for no value, a vector row outside the
  vectors, a vector whose cosine with the query comes out past 1: ``DamagedFile``, the same
  rebuild). Every search hit is still checked against its SQLite row (``search``);
- it holds only what its records hold: the vocabulary, the scope strings and each
  metadata column's values are cut to those of the records written (an erased user's id,
  still in the tables of another process's cache, is not written back).

The map is private (copy-on-write): a process applying changes to its cache never touches
the file others read, but pages it has not read yet come from the file as it is, so the
file must never be truncated or written over in place (a page past a shortened file is a
SIGBUS: the store's own writers only rename a new file over it).

Used on POSIX systems with a little-endian CPU for file stores of at least MIN_RECORDS
records; elsewhere (Windows, ``:memory:``) the cache loads from SQLite as before, and a file
that cannot be written (read-only directory) is simply not written.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import signal
import struct
import sys
import weakref
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from oracleagentmemory.stores.embedded.metadata_columns import FIRST_SCALAR
from oracleagentmemory.stores.embedded.record_terms import DamagedFile, RecordTerms, Vocabulary
from oracleagentmemory.stores.embedded.user_slots import UserSlots, index_arrays

SUFFIX = ".vectors"
MAGIC = b"OAMVEC01"
FORMAT = 4
"""2: the change-log mark of the version held, and vectors grouped by scope (``row``);
3: the records' keyword terms and their vocabulary; 4: each user's slots (``user_slots``).
A file of another format is ignored (the cache reads SQLite once and writes a file of this
one)."""
HEADER_BYTES = 4096
_HEAD = struct.Struct("<8sII")
"""magic, length of the JSON header, CRC-32 of the JSON header."""
_ALIGN = 64
_VECTOR_ALIGN = 4096
"""Vectors start on a 4 KiB boundary (whatever this machine's page size, so a file moves
between machines)."""
_CHUNK_ROWS = 65_536
MIN_RECORDS = 10_000
"""Smaller caches load from SQLite in well under 0.1 s: no file is written for them."""
REFRESH_CHANGES = 10_000
"""On close, a file this many change-log versions behind the cache is written again (fewer
are caught up cheaply from the change log at the next open)."""
FAULT_VARIABLE = "ORACLEAGENTMEMORY_FAULT_STEP"
"""Test hook: a process whose environment names a step below kills itself with SIGKILL when
it reaches that step, so crash consistency is tested at each step without timing."""
FAULT_STEPS = ("vector-file-begin", "vector-file-half", "vector-file-written",
               "vector-file-synced", "vector-file-renamed", "vector-file-done")

COLUMNS: tuple[tuple[str, str], ...] = (
    ("seq", "<i8"), ("type_code", "i1"), ("valid", "?"), ("has_vector", "?"),
    ("expires", "S32"), ("scope", "<i4"), ("row", "<i4"), ("term_start", "<i8"),
    ("term_count", "<i4"), ("vectors", "<f4"),
)
"""Columns in file order; ``scope`` holds three runs of ``capacity`` codes (user, agent,
thread), ``row`` the vector row of each slot, ``term_start`` and ``term_count`` each slot's
run of the terms part, ``vectors`` ``capacity`` rows of ``dimension`` floats."""
TERM_PARTS: tuple[tuple[str, str], ...] = (
    ("terms", "<i4"), ("offsets", "<i8"), ("hashes", "<u4"), ("ids", "<i4"), ("data", "u1"))
"""After the metadata table: every record's term numbers (in vector row order), then the
vocabulary (``record_terms.Vocabulary``): ``terms`` numbers, ``vocabulary + 1`` offsets,
``vocabulary`` hashes and ids, ``data`` bytes of UTF-8."""
USER_PARTS: tuple[tuple[str, str], ...] = (("user_offsets", "<i8"), ("user_slots", "<i4"))
"""After the terms part: where each user code's slots begin (one more than the scope
values; a CRC in the header, as small as the scope table), then the slots of each user,
ascending (``user_slots.index_arrays``; checked where read)."""
GROUP_DIMENSIONS = (0, 2)
"""Vector rows are ordered by these scope dimensions (user, then thread), then by slot."""


def fault_point(step: str) -> None:
    """Kill this process (SIGKILL) if the test hook names ``step``."""
    if os.environ.get(FAULT_VARIABLE) == step:
        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))


def path_for(location: str) -> str | None:
    """The vector file of a store location, or None where none is used."""
    if location == ":memory:" or location.startswith("file:") or not location:
        return None
    if os.name != "posix" or sys.byteorder != "little":
        return None
    return os.path.abspath(location) + SUFFIX


@dataclass
class Snapshot:
    """A vector file mapped copy-on-write: the cache's columns with ``capacity`` slots, the
    first ``size`` of them live and in seq order, their vectors in rows ``[0, size)``."""

    epoch: str
    version: int
    mark: bytes
    dimension: int | None
    size: int
    capacity: int
    expiring: int
    columns: dict[str, np.ndarray]
    scope_values: list[str | None]
    metadata: list[KeyCodes]
    prefetch: Prefetch
    terms: np.ndarray
    """Every record's term numbers (each slot's run is ``term_start`` and ``term_count``)."""
    vocabulary: Vocabulary
    users: UserSlots


@dataclass
class KeyCodes:
    """One metadata key column of the cache (``MetadataColumns``): a code per slot, the
    scalar values the codes stand for, and the list or object values by slot."""

    key: str
    codes: np.ndarray
    values: list[Any]
    complex: dict[int, Any]


_NO_WAIT: int | None = getattr(os, "RWF_NOWAIT", None)
WILL_NEED_BYTES = 128 * 1024
"""Linux reads at most the larger of the device's read-ahead window and its largest
request of one ``MADV_WILLNEED`` (``force_page_cache_ra``) and drops the rest of the range,
so a run is asked for in pieces of that size (``will_need_bytes``); this one, Linux's
default read-ahead window, where the device's cannot be read."""


class Prefetch:
    """Asks the kernel to read runs of the map at once, each part once.

    A search touching pages of the map nobody touched yet faults them in one after another;
    when they must come from the disk (a file not in the page cache), ``MADV_WILLNEED`` on
    the run puts many reads in flight instead. The rows of one scope are one run, and so
    are its terms and its list of slots; its per-slot columns (type, status, vector row,
    seq...) are read at slots spread over the whole span of the user's records, which
    without advice the kernel reads one fault at a time, each fault reading around it as
    much as the device's read-ahead says (8 MiB on some virtual disks). Each page of the map
    is advised at most once, so searches of a scope already read make no system call.
    (Mapping the run at once as well, with Linux's ``MADV_POPULATE_READ``, or the per-slot
    columns when the file is opened, made a fresh process's first search no faster:
    measured, see benchmarks/README.md.)"""

    def __init__(self, mapped: mmap.mmap, offset: int, row_bytes: int, terms_offset: int,
                 columns: Mapping[str, tuple[int, int]], user_slots_offset: int,
                 descriptor: int | None) -> None:
        self._mapped, self._offset, self._row_bytes = mapped, offset, row_bytes
        self._piece = 0
        """Bytes one ``MADV_WILLNEED`` reads of this file (``will_need_bytes``), found when
        a run first needs advice (a process whose file is cached never looks)."""
        self._descriptor = descriptor
        """The mapped file open for reading (``_reader``: closed with the map), to tell a
        page in the page cache without reading it (``_cached``); None: every run is
        advised."""
        self._terms_offset = terms_offset
        self._columns = dict(columns)
        """Per-slot column -> (offset of slot 0, bytes per slot) (``_slot_columns``)."""
        self._user_slots_offset = user_slots_offset
        self.vectors: np.ndarray | None = None
        """The mapped matrix this applies to (the cache drops it once it copied them)."""
        self._advised = bytearray(len(mapped) // mmap.PAGESIZE + 1)
        """A byte a page of the map, 1 once advised (0.5 MB for a million records; a
        ``bytearray`` because finding the first page not advised costs it a microsecond,
        numpy ten)."""

    def rows(self, first: int, stop: int) -> None:
        """Vector rows ``[first, stop)``."""
        self._advise([(self._offset + first * self._row_bytes,
                       self._offset + stop * self._row_bytes)])

    def terms(self, first: int, stop: int) -> None:
        """Term numbers ``[first, stop)`` of the terms part."""
        self._advise([(self._terms_offset + first * 4, self._terms_offset + stop * 4)])

    def user_slots(self, low: int, high: int) -> None:
        """Entries ``[low, high)`` of the users' slot lists (``user_slots``)."""
        self._advise([(self._user_slots_offset + low * 4, self._user_slots_offset + high * 4)])

    def slots(self, first: int, stop: int, names: Iterable[str]) -> None:
        """Slots ``[first, stop)`` of each named per-slot column."""
        self._advise([(at + first * width, at + stop * width)
                      for at, width in (self._columns[name] for name in names)])

    def _advise(self, runs: Sequence[tuple[int, int]]) -> None:
        """Advise the byte runs ``[start, end)``, each from its first page not advised
        before (pages advised before, such as another user's span over the same column,
        are cached by that advice and would pass the probe for the rest of the run, which
        may be on the disk only); none when the first of those pages is cached."""
        if not hasattr(mmap, "MADV_WILLNEED"):
            return
        todo = []
        for start, end in runs:
            # Only the map's pages: a damaged file's rows (a column no CRC covers) may lie
            # outside it, and a slice past the marks' end would grow them, a negative one
            # count from it (or shrink them), shifting every later page's mark.
            low = max(start // mmap.PAGESIZE, 0)
            stop = min((end - 1) // mmap.PAGESIZE + 1, len(self._advised))
            if end <= start or stop <= low:
                continue
            page = self._advised.find(0, low, stop)
            if page >= 0:
                self._advised[page:stop] = b"\x01" * (stop - page)
                todo.append((max(start, page * mmap.PAGESIZE), end))
        if todo and not self._cached(todo[0][0]):
            for start, end in todo:
                _will_need(self._mapped, start, end, self._piece_bytes())

    def _piece_bytes(self) -> int:
        if not self._piece:
            self._piece = (WILL_NEED_BYTES if self._descriptor is None
                           else will_need_bytes(self._descriptor))
        return self._piece

    def _cached(self, offset: int) -> bool:
        """The page at ``offset`` is in the page cache, told by a read that may not wait
        (Linux's ``RWF_NOWAIT``; False where there is none: every run is advised). Runs
        whose first page is cached are taken to be cached whole (a file read back or dropped
        as a whole): advising cached runs costs the kernel a look at each of their pages
        (about 12 µs a MiB), which a fresh process's first search would pay for nothing."""
        if self._descriptor is None or _NO_WAIT is None:
            return False
        try:
            return os.preadv(self._descriptor, [bytearray(1)], offset, _NO_WAIT) == 1
        except OSError:  # BlockingIOError: not cached (a read of it may have begun)
            return False


SCOPE_RUNS = ("user", "agent", "thread")
"""The ``scope`` column's three runs of codes, in file order (``Prefetch`` names)."""


def _slot_columns(offsets: Mapping[str, tuple[int, int]], capacity: int
                  ) -> dict[str, tuple[int, int]]:
    """Per-slot column -> (offset of slot 0, bytes per slot), the scope's three runs as
    ``user``, ``agent`` and ``thread``."""
    columns = {name: (offsets[name][0], np.dtype(dtype).itemsize)
               for name, dtype in COLUMNS if name not in ("scope", "vectors")}
    for index, name in enumerate(SCOPE_RUNS):
        columns[name] = (offsets["scope"][0] + index * capacity * 4, 4)
    return columns


def _layout(capacity: int, dimension: int) -> tuple[dict[str, tuple[int, int]], int]:
    """(column -> (offset, bytes), offset of the scope table) for a file of ``capacity``."""
    offsets: dict[str, tuple[int, int]] = {}
    at = HEADER_BYTES
    for name, dtype in COLUMNS:
        width = np.dtype(dtype).itemsize * (3 if name == "scope" else 1)
        width *= dimension if name == "vectors" else 1
        align = _VECTOR_ALIGN if name == "vectors" else _ALIGN
        at = -(-at // align) * align
        offsets[name] = (at, width * capacity)
        at += width * capacity
    return offsets, at


def _metadata_layout(scope_end: int, capacity: int, count: int) -> tuple[list[int], int]:
    """(offset of each key column's codes, offset of the metadata table) after the scope
    table ending at ``scope_end``."""
    at = -(-scope_end // _ALIGN) * _ALIGN
    return [at + index * capacity * 4 for index in range(count)], at + count * capacity * 4


def _terms_layout(metadata_end: int, counts: Mapping[str, int]
                  ) -> tuple[dict[str, tuple[int, int]], int]:
    """(part -> (offset, bytes), end of the file) for the terms part after the metadata
    table ending at ``metadata_end``, then the user index; ``counts`` gives each part's
    length in items."""
    offsets: dict[str, tuple[int, int]] = {}
    at = metadata_end
    for name, dtype in TERM_PARTS + USER_PARTS:
        at = -(-at // _ALIGN) * _ALIGN
        offsets[name] = (at, np.dtype(dtype).itemsize * counts[name])
        at += offsets[name][1]
    return offsets, at


def _term_counts(terms: int, vocabulary: int, data: int) -> dict[str, int]:
    return {"terms": terms, "offsets": vocabulary + 1, "hashes": vocabulary,
            "ids": vocabulary, "data": data}


def _user_counts(codes: int, size: int) -> dict[str, int]:
    return {"user_offsets": codes + 1, "user_slots": size}


def _shape(name: str, capacity: int, dimension: int) -> tuple[int, ...]:
    if name == "scope":
        return (3, capacity)
    if name == "vectors":
        return (capacity, dimension)
    return (capacity,)


def load(path: str, epoch: str | None, tag: str) -> Snapshot | None:
    """The vector file at ``path`` mapped copy-on-write, or None when it is missing, of
    another epoch or ``tag`` (what its codes mean), or not a complete, well-formed file of
    this format. Whether it holds a state of this database is the caller's check (its
    ``version`` and ``mark`` against the change log)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEADER_BYTES)
            if len(head) < _HEAD.size:
                return None
            magic, length, crc = _HEAD.unpack_from(head)
            text = head[_HEAD.size:_HEAD.size + length]
            if magic != MAGIC or len(text) != length or zlib.crc32(text) != crc:
                return None
            header = json.loads(text)
            if (header.get("format") != FORMAT or header.get("byteorder") != "little"
                    or header.get("epoch") != epoch or epoch is None
                    or header.get("tag") != tag):
                return None
            capacity, size = int(header["capacity"]), int(header["size"])
            dimension = header["dimension"]
            mark = bytes.fromhex(header["mark"])
            offsets, scope_at = _layout(capacity, dimension or 0)
            scope_bytes, scope_crc = int(header["scope_bytes"]), int(header["scope_crc"])
            code_offsets, table_at = _metadata_layout(
                scope_at + scope_bytes, capacity, int(header["metadata_columns"]))
            metadata_bytes = int(header["metadata_bytes"])
            vocabulary = int(header["vocabulary"])
            vocabulary_crc, offsets_crc = (int(header["vocabulary_crc"]),
                                           int(header["user_offsets_crc"]))
            scope_codes = int(header["scope_codes"])
            parts, end = _terms_layout(table_at + metadata_bytes, _term_counts(
                int(header["terms"]), vocabulary, int(header["vocabulary_bytes"]))
                | _user_counts(scope_codes, size))
            if (header["scope_at"] != scope_at or header["offsets"] != {
                    name: list(value) for name, value in offsets.items()}
                    or not 0 <= size <= capacity or len(mark) != 8 or vocabulary < 0
                    or os.fstat(handle.fileno()).st_size != end):
                return None
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY)
            reader = _reader(mapped, handle.fileno())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    _read_ahead(mapped, [(scope_at, scope_bytes), (table_at, metadata_bytes)]
                + [parts[name] for name in ("offsets", "hashes", "ids", "data", "user_offsets")])
    table = mapped[scope_at:scope_at + scope_bytes]
    if zlib.crc32(table) != scope_crc:
        return None
    scope_values = json.loads(table)
    if (not isinstance(scope_values, list) or scope_values[:1] != [None]
            or len(scope_values) != scope_codes):
        return None  # code 0 is always "no value"
    table = mapped[table_at:table_at + metadata_bytes]
    if zlib.crc32(table) != int(header["metadata_crc"]):
        return None
    view = memoryview(mapped)
    crc = 0
    for name in ("offsets", "hashes", "ids", "data"):
        crc = zlib.crc32(view[parts[name][0]:parts[name][0] + parts[name][1]], crc)
    at, length = parts["user_offsets"]
    if crc != vocabulary_crc or zlib.crc32(view[at:at + length]) != offsets_crc:
        return None
    term_arrays = {name: np.ndarray((parts[name][1] // np.dtype(dtype).itemsize,),
                                    dtype=dtype, buffer=mapped, offset=parts[name][0])
                   for name, dtype in TERM_PARTS + USER_PARTS if name != "data"}
    data_end = parts["data"][0] + parts["data"][1]
    words = Vocabulary(offsets=term_arrays["offsets"], data=view[parts["data"][0]:data_end],
                       hashes=term_arrays["hashes"], ids=term_arrays["ids"])
    metadata = [
        KeyCodes(key=entry["key"], values=entry["values"],
                 complex={int(slot): value for slot, value in entry["complex"]},
                 codes=np.ndarray((capacity,), dtype="<i4", buffer=mapped, offset=at))
        for entry, at in zip(json.loads(table), code_offsets, strict=True)
    ]
    columns = {
        name: np.ndarray(_shape(name, capacity, dimension or 0), dtype=dtype, buffer=mapped,
                         offset=offsets[name][0])
        for name, dtype in COLUMNS
    }
    prefetch = Prefetch(mapped, offsets["vectors"][0], (dimension or 0) * 4,
                        parts["terms"][0],
                        _slot_columns(offsets, capacity), parts["user_slots"][0], reader)
    prefetch.vectors = columns["vectors"]
    return Snapshot(epoch=epoch, version=int(header["version"]), mark=mark,
                    dimension=dimension, size=size, capacity=capacity,
                    expiring=int(header["expiring"]), columns=columns,
                    scope_values=scope_values, metadata=metadata, prefetch=prefetch,
                    terms=term_arrays["terms"], vocabulary=words,
                    users=UserSlots(term_arrays["user_offsets"], term_arrays["user_slots"],
                                    size, prefetch.user_slots))


def _reader(mapped: mmap.mmap, descriptor: int) -> int | None:
    """A descriptor of the mapped file (not of whatever its path names later), closed when
    the map is, for ``Prefetch._cached``; None where it cannot tell."""
    if _NO_WAIT is None:
        return None
    try:
        reader = os.dup(descriptor)
    except OSError:
        return None
    # Not at interpreter exit (finalize's default): a thread still searching then would
    # probe a closed descriptor, or one a later open reused.
    weakref.finalize(mapped, os.close, reader).atexit = False
    return reader


def _read_ahead(mapped: mmap.mmap, regions: Sequence[tuple[int, int]]) -> None:
    """Ask the kernel to read the (offset, bytes) regions that opening checks, all at once:
    from a file out of the page cache, one read after another cost 10-25 ms."""
    if not hasattr(mmap, "MADV_WILLNEED"):
        return
    for offset, length in regions:
        if length > 0:
            _will_need(mapped, offset, offset + length)


SYS_DEV_BLOCK = "/sys/dev/block"
"""Linux's links from a block device's numbers to its entry (``<major>:<minor>``)."""
_PIECES: dict[int, int] = {}
"""``will_need_bytes`` by device, once per process (reading sysfs costs 0.1-0.3 ms)."""


def will_need_bytes(descriptor: int) -> int:
    """The most one ``MADV_WILLNEED`` reads of the file open as ``descriptor``: the larger
    of ``read_ahead_kb`` and ``max_sectors_kb`` of the block device holding it (its queue,
    or its disk's for a partition), at least a page; WILL_NEED_BYTES when there is no such
    device to read (another system, a file system on no single block device). On a disk
    that takes 4-8 MiB that is one call where pieces of 128 KiB made 32-64 (three first
    searches at a million records: 42.5-42.8 ms against 36-92, steadier, not faster)."""
    try:
        device = os.fstat(descriptor).st_dev
        entry = f"{SYS_DEV_BLOCK}/{os.major(device)}:{os.minor(device)}"
    except (OSError, ValueError, AttributeError, OverflowError):  # (no os.major; st_dev < 0)
        return WILL_NEED_BYTES
    if device not in _PIECES:
        _PIECES[device] = WILL_NEED_BYTES
        for queue in (f"{entry}/queue", f"{entry}/../queue"):  # a partition: its disk's
            try:
                kib = max(int(Path(queue, name).read_text())
                          for name in ("read_ahead_kb", "max_sectors_kb"))
            except (OSError, ValueError):
                continue
            _PIECES[device] = max(kib * 1024, mmap.PAGESIZE)
            break
    return _PIECES[device]


def _will_need(mapped: mmap.mmap, start: int, end: int, piece: int = WILL_NEED_BYTES
               ) -> None:
    """``MADV_WILLNEED`` on bytes ``[start, end)`` of the map (from the page holding
    ``start``), in pieces of ``piece`` bytes (``will_need_bytes``); a kernel that refuses
    it leaves the pages to be faulted in as read."""
    begin = start // mmap.PAGESIZE * mmap.PAGESIZE
    with contextlib.suppress(OSError, ValueError):
        for at in range(begin, end, piece):
            mapped.madvise(mmap.MADV_WILLNEED, at, min(piece, end - at))


def grouped_order(scope: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """``slots`` ordered as their vectors are laid out: by user, thread, then slot."""
    keys = [slots] + [scope[dimension, slots] for dimension in GROUP_DIMENSIONS[::-1]]
    return slots[np.lexsort(keys)]


def make_durable(location: str) -> None:
    """fsync the SQLite file's write-ahead log: every version a reader saw is then on disk
    (with ``synchronous = NORMAL`` a commit in WAL mode is not synced by itself; the
    database file itself is written only by checkpoints, which SQLite syncs). SQLite
    resolves symbolic links and keeps the log beside the real file, so that is the log
    synced here.

    The database file itself is never opened here: POSIX record locks belong to the
    (process, file) pair and closing any descriptor of the file drops them all (close(2)),
    the SHARED lock of this process's WAL connections included. Another process closing
    its last connection would then take the file for unused, checkpoint and delete the log
    this process still writes to: its later commits would be lost. SQLite holds no record
    lock on the log itself (its WAL locks are on the database and ``-shm`` files)."""
    location = os.path.realpath(location)
    for name in (location + "-wal",):
        try:
            descriptor = os.open(name, os.O_RDONLY)
        except FileNotFoundError:
            continue
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def save(
    path: str,
    location: str,
    tag: str,
    epoch: str,
    version: int,
    mark: bytes,
    dimension: int | None,
    columns: Mapping[str, np.ndarray],
    size: int,
    keep: np.ndarray | None,
    expiring: int,
    scope_values: list[str | None],
    metadata: Sequence[KeyCodes],
    terms: RecordTerms,
) -> bool:
    """Write a vector file of the cache ``columns`` (RecordCache arrays, ``vectors`` read
    through ``row``, each slot's terms through ``term_start`` and ``term_count`` from
    ``terms``) and its metadata key columns at ``version`` (whose change-log mark is
    ``mark``): their first ``size`` slots, or only the slots ``keep`` (live ones, in seq
    order), the vectors and terms grouped by scope, the vocabulary, the scope values and
    each metadata column's values cut to those the records hold. Returns False (nothing
    replaced) when the file cannot be written."""
    fault_point("vector-file-begin")
    kept = np.arange(size) if keep is None else keep
    live = int(kept.shape[0])
    capacity = live + max(4096, live // 4)
    """Room to append new records in place (a sparse, unwritten tail of the file)."""
    offsets, scope_at = _layout(capacity, dimension or 0)
    scope, scope_values = _held(np.ascontiguousarray(columns["scope"][:, kept]),
                                scope_values, reserved=1)  # code 0: no id (None)
    table = json.dumps(scope_values).encode()
    code_offsets, table_at = _metadata_layout(scope_at + len(table), capacity, len(metadata))
    metadata_codes = []
    metadata_values = []
    for column in metadata:
        codes, values = _held(np.asarray(column.codes)[kept],
                              [None] * FIRST_SCALAR + list(column.values), FIRST_SCALAR)
        metadata_codes.append(codes)
        metadata_values.append(values[FIRST_SCALAR:])
    metadata_table = json.dumps([
        {"key": column.key, "values": values, "complex": _moved(column.complex, keep)}
        for column, values in zip(metadata, metadata_values, strict=True)
    ]).encode()
    # File row r holds the vector of new slot ``order[r]``; that slot's ``row`` is r.
    order = grouped_order(scope, np.arange(live))
    rows = np.empty(live, dtype="<i4")
    rows[order] = np.arange(live, dtype="<i4")
    sources = np.asarray(columns["row"])[kept[order]]
    words = _TermsOut(terms, np.asarray(columns["term_start"])[kept[order]],
                      np.asarray(columns["term_count"])[kept[order]])
    user_offsets, user_slots = index_arrays(scope[0], len(scope_values))
    parts, end = _terms_layout(table_at + len(metadata_table),
                               words.counts | _user_counts(len(scope_values), live))
    header = json.dumps({
        "format": FORMAT, "byteorder": "little", "tag": tag, "epoch": epoch,
        "version": version, "mark": mark.hex(),
        "dimension": dimension, "size": live, "capacity": capacity, "expiring": expiring,
        "offsets": {name: list(value) for name, value in offsets.items()},
        "scope_at": scope_at, "scope_bytes": len(table), "scope_crc": zlib.crc32(table),
        "metadata_columns": len(metadata), "metadata_bytes": len(metadata_table),
        "metadata_crc": zlib.crc32(metadata_table), "terms": words.counts["terms"],
        "vocabulary": words.counts["ids"], "vocabulary_bytes": words.counts["data"],
        "vocabulary_crc": words.vocabulary_crc, "scope_codes": len(scope_values),
        "user_offsets_crc": zlib.crc32(user_offsets.data),
    }).encode()
    if _HEAD.size + len(header) > HEADER_BYTES:
        return False
    directory = os.path.dirname(os.path.abspath(path))
    remove_leftovers(path)
    temporary = f"{path}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
    try:
        make_durable(location)
        mode = os.stat(location).st_mode & 0o666  # readable by whoever can read the store
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with open(descriptor, "wb") as handle:
            handle.write(_HEAD.pack(MAGIC, len(header), zlib.crc32(header)) + header)
            for name, _ in COLUMNS:
                handle.seek(offsets[name][0])
                if name == "row":
                    handle.write(rows.data)
                elif name in ("term_start", "term_count"):
                    handle.write(np.ascontiguousarray(words.slot_runs[name][rows]).data)
                elif name == "vectors":
                    _write_rows(handle, columns[name], sources, halfway=True)
                elif name == "scope":
                    for index, run in enumerate(scope):
                        handle.seek(offsets[name][0] + index * capacity * run.dtype.itemsize)
                        handle.write(run.data)
                else:
                    _write_rows(handle, columns[name], kept, halfway=False)
            handle.seek(scope_at)
            handle.write(table)
            for codes, at in zip(metadata_codes, code_offsets, strict=True):
                handle.seek(at)
                handle.write(codes.data)
            handle.seek(table_at)
            handle.write(metadata_table)
            words.write(handle, parts)
            for name, array in (("user_offsets", user_offsets), ("user_slots", user_slots)):
                handle.seek(parts[name][0])
                handle.write(array.data)
            handle.truncate(end)  # (the last part may be empty)
            handle.flush()
            fault_point("vector-file-written")
            os.fsync(handle.fileno())
        fault_point("vector-file-synced")
        os.replace(temporary, path)
        fault_point("vector-file-renamed")
        _sync_directory(directory)
        fault_point("vector-file-done")
        return True
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return False
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)  # ours: no later writer of this process would remove it
        raise


class _TermsOut:
    """The terms part of a file being written: the records' terms in file row order,
    renumbered so the vocabulary holds the terms some record holds and no other (a
    deleted record's words do not outlive it in the file)."""

    def __init__(self, terms: RecordTerms, starts: np.ndarray, counts: np.ndarray) -> None:
        self._terms, self._starts, self._counts = terms, starts, counts
        used = np.zeros(len(terms.table), dtype=bool)
        for begin in range(0, starts.shape[0], _CHUNK_ROWS):
            used[self._read(begin)] = True
        self._renumber = (np.cumsum(used, dtype=np.int64) - 1).astype("<i4")
        offsets, data, hashes, ids = Vocabulary.arrays(terms.table.terms(np.flatnonzero(used)))
        self._vocabulary = {"offsets": offsets.astype("<i8"), "hashes": hashes.astype("<u4"),
                            "ids": ids.astype("<i4")}
        self._data = data
        ends = np.cumsum(counts, dtype=np.int64)
        self.slot_runs = {"term_start": (ends - counts).astype("<i8"),
                          "term_count": counts.astype("<i4")}
        """Each file row's run (indexed by row)."""
        self.counts = _term_counts(int(ends[-1]) if ends.shape[0] else 0, ids.shape[0],
                                   len(data))
        crc = 0
        for name in ("offsets", "hashes", "ids"):
            crc = zlib.crc32(self._vocabulary[name].data, crc)
        self.vocabulary_crc = zlib.crc32(data, crc)

    def _read(self, begin: int) -> np.ndarray:
        stop = begin + _CHUNK_ROWS
        return self._terms.read(self._starts[begin:stop], self._counts[begin:stop])[0]

    def write(self, handle: Any, parts: Mapping[str, tuple[int, int]]) -> None:
        handle.seek(parts["terms"][0])
        for begin in range(0, self._starts.shape[0], _CHUNK_ROWS):
            handle.write(self._renumber[self._read(begin)].data)
        for name in ("offsets", "hashes", "ids"):
            handle.seek(parts[name][0])
            handle.write(self._vocabulary[name].data)
        handle.seek(parts["data"][0])
        handle.write(self._data)


def _held(codes: np.ndarray, values: Sequence[Any], reserved: int
          ) -> tuple[np.ndarray, list[Any]]:
    """``codes`` renumbered and the ``values`` they stand for (code ``c`` for ``values[c]``),
    cut to the values some code stands for; the first ``reserved`` codes stand for no value
    and are kept as they are. A value no written record holds (an erased user's id that
    another store object had cached, a metadata value since overwritten) does not outlive it
    in the file. A code that stands for no value (a damaged file) is ``DamagedFile``."""
    if codes.size and (int(codes.min()) < 0 or int(codes.max()) >= len(values)):
        raise DamagedFile("a code stands for no value")
    used = np.zeros(len(values), dtype=bool)
    used[:reserved] = True
    used[codes] = True
    renumber = (np.cumsum(used) - 1).astype(codes.dtype)
    return (np.ascontiguousarray(renumber[codes]),
            [value for value, held in zip(values, used.tolist(), strict=True) if held])


def _moved(values: dict[int, Any], keep: np.ndarray | None) -> list[list[Any]]:
    """``[slot, value]`` pairs with each slot renumbered as in a file of the ``keep`` slots
    (slots not kept are left out)."""
    if keep is None:
        return [[slot, value] for slot, value in values.items()]
    pairs = []
    for slot, value in values.items():
        at = int(np.searchsorted(keep, slot))
        if at < keep.shape[0] and int(keep[at]) == slot:
            pairs.append([at, value])
    return pairs


def _write_rows(handle: Any, array: np.ndarray, rows: np.ndarray, halfway: bool) -> None:
    """Write ``array[rows]`` at the handle's position, a chunk at a time."""
    for start in range(0, rows.shape[0], _CHUNK_ROWS):
        part = np.take(array, rows[start:start + _CHUNK_ROWS], axis=0)
        handle.write(np.ascontiguousarray(part).data)
        if halfway and start == 0:
            fault_point("vector-file-half")


def _sync_directory(directory: str) -> None:
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def remove(location: str) -> None:
    """Remove the vector file of a store location and what killed writers left of theirs:
    each holds a state of the store, rows since erased or dropped included."""
    path = path_for(location)
    if path is not None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        remove_leftovers(path)


def remove_leftovers(path: str, alive: Callable[[int], bool] | None = None) -> None:
    """Remove temporary files that writers killed before their rename left behind (each
    holds a state of the store, erased records included)."""
    alive = alive or _process_alive
    target = Path(path)
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        if not (name.startswith(target.name + ".") and name.endswith(".tmp")):
            continue
        pid = name[len(target.name) + 1:].split("-", 1)[0]
        if pid.isdigit() and not alive(int(pid)):
            with contextlib.suppress(OSError):
                (target.parent / name).unlink()


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # another store object of this process may be writing it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
