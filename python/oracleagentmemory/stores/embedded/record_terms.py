"""The keyword terms of the cached records, as numbers: what a scoped keyword search scores.

Why: a scope's first keyword search used to read the scope's rows from SQLite and cut their
text into terms (2,000 rows scattered one per page, about 50 ms), seventy times its later
searches. The record cache (``record_cache``) now keeps each record's terms beside its
vector: cut once when the cache reads the row (``fts_tokens``, FTS5's tokenizer mirrored),
numbered by a ``TermTable``, and written to the vector file in the file's row order
(grouped by user, then thread), so a fresh process maps a user's terms as one contiguous
run and scores its first keyword search as fast as its later ones. They follow the change
log with the rest of the cache: no second copy, no second catch-up.

Term numbers: those of the vector file's vocabulary (a term is found by its CRC-32 in a
sorted table of the file, so the vocabulary is never loaded whole), then the terms this
process met since. Each record's terms are a run of ``RecordTerms``: in the mapped file
(never written to) or in an array of this process (records read since the file, or every
record without a file).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from oracleagentmemory.stores.embedded.fts_tokens import RECORD_END, TOKENS

_EMPTY_TERMS = np.zeros(0, dtype=np.int32)


class DamagedFile(ValueError):
    """What a vector file's unchecked parts give cannot be (a term run or number, a user's
    slots, a metadata-filter code: a damaged file): the cache is read again from SQLite and
    the file written anew."""

MIN_GARBAGE = 65_536
"""Terms of rewritten or deleted records left in the process's array before it is packed
(besides half of the array)."""


@dataclass(frozen=True)
class Vocabulary:
    """A vector file's terms (mapped): term ``i`` is ``data[offsets[i]:offsets[i + 1]]``
    (UTF-8); ``hashes`` is the CRC-32 of every term, ascending, ``ids`` the term of each."""

    offsets: np.ndarray
    data: memoryview
    hashes: np.ndarray
    ids: np.ndarray

    @property
    def size(self) -> int:
        return int(self.ids.shape[0])

    def find(self, term: str) -> int | None:
        key = term.encode()
        digest = zlib.crc32(key)
        at = int(np.searchsorted(self.hashes, digest))
        while at < self.size and int(self.hashes[at]) == digest:
            number = int(self.ids[at])
            if self.data[int(self.offsets[number]):int(self.offsets[number + 1])] == key:
                return number
            at += 1
        return None

    def term(self, number: int) -> bytes:
        return bytes(self.data[int(self.offsets[number]):int(self.offsets[number + 1])])

    @staticmethod
    def arrays(terms: Sequence[bytes]) -> tuple[np.ndarray, bytes, np.ndarray, np.ndarray]:
        """(offsets, data, hashes, ids) of a vocabulary of ``terms`` (numbered in order)."""
        lengths = np.fromiter(map(len, terms), dtype=np.int64, count=len(terms))
        offsets = np.zeros(len(terms) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        digests = np.fromiter(map(zlib.crc32, terms), dtype=np.uint32, count=len(terms))
        ids = np.argsort(digests, kind="stable").astype(np.int32)
        return offsets, b"".join(terms), digests[ids], ids


class TermTable:
    """Term <-> number: a vector file's vocabulary, then the terms met since (numbered
    on). Callers serialise access (the store's cache lock)."""

    def __init__(self, vocabulary: Vocabulary | None = None) -> None:
        self._vocabulary = vocabulary
        self._base = 0 if vocabulary is None else vocabulary.size
        self._ids: dict[str, int] = {}
        """Every term numbered or found so far (a file's term is looked up once)."""
        self._new: list[str] = []

    def __len__(self) -> int:
        return self._base + len(self._new)

    @property
    def vocabulary_size(self) -> int:
        """Terms of the file's vocabulary: numbers below it are the file's."""
        return self._base

    def find(self, term: str) -> int | None:
        """The term's number, or None when no record ever had it."""
        number = self._ids.get(term)
        if number is None and self._vocabulary is not None:
            number = self._vocabulary.find(term)
            if number is not None:
                self._ids[term] = number
        return number

    def number(self, terms: Sequence[str]) -> np.ndarray:
        """Each term's number, new terms numbered on."""
        ids = self._ids
        for term in sorted(set(terms).difference(ids)):
            number = None if self._vocabulary is None else self._vocabulary.find(term)
            if number is None:
                number = len(self)
                self._new.append(term)
            ids[term] = number
        return np.fromiter(map(ids.__getitem__, terms), dtype=np.int32, count=len(terms))

    def keep_new(self, kept: np.ndarray) -> np.ndarray:
        """Keep only the terms met since the file whose numbers are ``kept`` (ascending),
        numbered on from the file's vocabulary again: the terms of rewritten or deleted
        records do not pile up in a long-lived process. Returns each old number's new one
        (a lookup table over every number)."""
        base = self._base
        renumber = np.arange(len(self), dtype=np.int32)
        renumber[base:] = -1
        renumber[kept] = np.arange(base, base + kept.shape[0], dtype=np.int32)
        self._new = [self._new[number - base] for number in kept.tolist()]
        self._ids = {term: number for term, number in self._ids.items() if number < base}
        self._ids.update((term, base + at) for at, term in enumerate(self._new))
        return renumber

    def terms(self, numbers: np.ndarray) -> list[bytes]:
        """The UTF-8 text of each numbered term."""
        vocabulary, base, new = self._vocabulary, self._base, self._new
        return [vocabulary.term(number) if number < base and vocabulary is not None
                else new[number - base].encode() for number in numbers.tolist()]


class RecordTerms:
    """The terms of every cached record: runs of a mapped array (a vector file's, at
    positions below ``len(file_terms)``) and of this process's array (at positions from
    there on). The cache keeps each slot's run as (start, count)."""

    def __init__(self, table: TermTable | None = None,
                 file_terms: np.ndarray = _EMPTY_TERMS,
                 prefetch: Callable[[int, int], None] | None = None) -> None:
        self.table = table or TermTable()
        self.file_terms = file_terms
        self._prefetch = prefetch
        """Asked to read positions ``[first, stop)`` of ``file_terms`` from its file at once,
        before a run of them is read."""
        self._base = int(file_terms.shape[0])
        self._own = np.zeros(0, dtype=np.int32)
        self._used = 0
        self._garbage = 0

    def add(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Cut and number ``texts`` and keep their terms: each one's (start, count)."""
        marked = TOKENS.marked(texts)
        if marked is None:
            tokens = TOKENS.tokens_of(texts)
            counts = np.fromiter(map(len, tokens), dtype=np.int32, count=len(tokens))
            numbers = self.table.number([term for record in tokens for term in record])
        else:  # RECORD_END is numbered as a term: its places give each text's count
            numbers = self.table.number(marked)
            ends = numbers == self.table.find(RECORD_END)
            counts = (np.diff(np.flatnonzero(ends), prepend=-1) - 1).astype(np.int32)
            numbers = numbers[~ends]
        total = numbers.shape[0]
        if self._used + total > self._own.shape[0]:
            grown = np.zeros(max(self._used + total, self._own.shape[0] * 3 // 2 + 4096),
                             dtype=np.int32)
            grown[: self._used] = self._own[: self._used]
            self._own = grown  # (a snapshot holding the old array keeps it unchanged)
        self._own[self._used:self._used + total] = numbers
        starts = np.empty(len(texts), dtype=np.int64)
        starts[:1] = 0
        np.cumsum(counts[:-1], out=starts[1:])
        starts += self._base + self._used
        self._used += total
        return starts, counts

    def release(self, starts: np.ndarray, counts: np.ndarray) -> None:
        """These runs are no record's any more (the record was rewritten or deleted)."""
        self._garbage += int(counts[starts >= self._base].sum())

    def held(self) -> int:
        """Terms in this process's array (the mapped file's aside), garbage included."""
        return self._used

    def needs_packing(self) -> bool:
        return self._garbage > max(MIN_GARBAGE, self._used // 2)

    def pack(self, starts: np.ndarray, counts: np.ndarray) -> None:
        """Keep only the given runs (every live record's) of this process's array,
        rewriting their ``starts`` in place, and only the terms met since the file that
        they hold (the mapped file's runs hold the file's vocabulary only)."""
        own = starts >= self._base
        runs, kept = self.read(starts[own], counts[own])
        renumber = self.table.keep_new(np.unique(runs[runs >= self.table.vocabulary_size]))
        self._own = renumber[runs]
        self._used, self._garbage = int(runs.shape[0]), 0
        starts[own] = self._base + kept - counts[own]

    def read(self, starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the runs one after another, where each run ends in them). A run of the mapped
        array that the given runs tile in order is a view of it, not a copy."""
        ends = np.cumsum(counts, dtype=np.int64)
        if not starts.shape[0]:
            return _EMPTY_TERMS, ends
        stops = starts + counts
        if bool(((counts < 0) | (starts < 0) | (stops > self._base + self._used)
                 | ((starts < self._base) & (stops > self._base))).any()):
            raise DamagedFile("a record's terms lie outside the terms held")
        first, stop = int(starts[0]), int(starts[-1]) + int(counts[-1])
        if stop <= self._base and stop - first == int(ends[-1]) and (
                starts.shape[0] == 1 or bool((starts[1:] == first + ends[:-1]).all())):
            if self._prefetch is not None:
                self._prefetch(first, stop)
            return self._checked(self.file_terms[first:stop]), ends
        positions = np.arange(int(ends[-1]), dtype=np.int64) + np.repeat(
            starts - (ends - counts), counts)
        out = np.empty(positions.shape[0], dtype=np.int32)
        mapped = positions < self._base
        if mapped.all():
            np.take(self.file_terms, positions, out=out)
        else:
            out[mapped] = self.file_terms[positions[mapped]]
            out[~mapped] = self._own[positions[~mapped] - self._base]
        return self._checked(out), ends

    def _checked(self, terms: np.ndarray) -> np.ndarray:
        """``terms``, every one a number of the table (the mapped file's are not trusted)."""
        if terms.shape[0] and (int(terms.min()) < 0 or int(terms.max()) >= len(self.table)):
            raise DamagedFile("a term number outside the vocabulary")
        return terms
