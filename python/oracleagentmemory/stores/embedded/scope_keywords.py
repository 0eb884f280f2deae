"""Keyword scoring inside one scope, in memory: its cost follows the scope, not the store.

Why: FTS5 answers a scoped KEYWORD query by walking each query word's posting list across
the whole store, and its ``bm25`` counts every row of the store holding the word; at 100K
records, for a user holding 2,000 of them, that was 20-25 times the vector half of a HYBRID
search (``benchmarks/hybrid_cost.py``). Here the terms of one scope's records are held in
memory, so a search reads the postings of its scope only.

What is held, per scope key (a scope column and a value: the records of one user, agent or
thread, of the searchable types, whatever their status or expiry): each record's terms as
the FTS5 index holds them (``fts_tokens``, the same tokenizer), all records' terms in one
array, and the positions of each term in it (an inverted list). Records added since the
inverted list was made are scanned; it is made again once they are a quarter of the terms.
A search with several exact dimensions uses the smallest key it has (or builds it, reading
that key's rows from SQLite once), and keeps the records matching every dimension.

Scoring: BM25 as FTS5's ``bm25()`` computes it for the keyword index (k1 1.2, b 0.75; each
quoted query word one phrase; a record's length counting its three scope tokens; idf
``log((N - n + 0.5) / (n + 0.5))``, at least 1e-6), but N, n and the average length are
those of the searched scope (every searchable record matching each exact dimension), not of
the whole store: what is rare in one user's memories ranks them, whatever other users
write, and one user's ranking never depends on another's records.

Coherence: as the record cache, the index follows the change log (``changelog.state``,
``oldest_version``, ``changed_since``) inside the search's own read transaction, so it
reflects exactly the snapshot the search reads, whichever connection or process wrote;
when it fell behind the pruned log, many rows changed, or the schema was recreated, every
key is dropped and built again on its next search.

Bounds: the arrays of all keys and the term table together stay under ``MEMORY_BUDGET``
(least recently searched keys dropped first), whatever the store's size: about 190 bytes
per record of twelve words (a key of 2,000 such records about 0.4 MB), so the budget holds
some 350,000 records' terms. A key of more than ``MAX_SCOPE_RECORDS`` records or whose terms
alone overflow the budget, a search without an exact dimension, and a keyword index made
with another tokenizer are left to FTS5 (which then counts the whole store's rows).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import numpy as np

from oracleagentmemory._vocabulary import SEARCHABLE_TYPES
from oracleagentmemory.stores.embedded import changelog
from oracleagentmemory.stores.embedded.bound_lists import marks, runs
from oracleagentmemory.stores.embedded.fts_tokens import TOKENIZER, TOKENS
from oracleagentmemory.stores.embedded.schema import SCOPE_TOKEN_LETTERS

SCOPE_COLUMNS: tuple[str, ...] = tuple(SCOPE_TOKEN_LETTERS)
SCOPE_TOKENS = len(SCOPE_COLUMNS)
COUNT_ORDER = (SCOPE_COLUMNS.index("thread_id"), SCOPE_COLUMNS.index("user_id"),
               SCOPE_COLUMNS.index("agent_id"))
"""Keys counted thread, user, agent (usually smallest first: later counts stop early)."""
"""Tokens of the scope column that FTS5 counts in every record's length."""
BM25_K1 = 1.2
BM25_B = 0.75
MIN_IDF = 1e-6
MAX_SCOPE_RECORDS = 100_000
"""A key with more records is left to FTS5: building it would read that many rows."""
MEMORY_BUDGET = 64 * 1024 * 1024
"""Bytes for the arrays of every key and the term table (an estimate per term)."""
TERM_BYTES = 100
"""Estimated bytes per entry of the term and scope-value tables (a dict entry, a str)."""
BUILD_ROWS = 5_000
"""Rows read at a time when a key is built (the budget checked after each)."""
MAX_CHANGES = 20_000
"""Rows changed since the last search above which every key is dropped, not updated."""
MIN_TAIL = 4_096
"""Terms appended before the inverted list is made again (besides a quarter of all)."""
_TYPES = ", ".join(f"'{name}'" for name in SEARCHABLE_TYPES)
_EMPTY = np.zeros(0, dtype=np.int64)

ScopeKey = tuple[int, "str | None"]
"""(index into SCOPE_COLUMNS, value)."""


class ScopeTerms:
    """The terms of one key's records: doc-major arrays and an inverted list, numbered by
    tables of its own (so a key is built, without the lock, by one search alone)."""

    def __init__(self, key: ScopeKey, version: int = -1, mark: bytes | None = None) -> None:
        self.key = key
        self.version = version
        """The change-log version these terms reflect (older than the index's when the key
        was built by a search whose snapshot others have since moved past)."""
        self.mark = mark
        """The change-log mark at ``version``."""
        self.term_ids: dict[str, int] = {}
        self.value_codes: dict[str | None, int] = {}
        self.seqs = _EMPTY
        self.codes = np.zeros((SCOPE_TOKENS, 0), dtype=np.int32)
        self.lengths = np.zeros(0, dtype=np.int32)
        """Each record's term count."""
        self.sizes = np.zeros(0, dtype=np.float64)
        """Each record's length as FTS5's bm25 counts it (its terms and scope tokens)."""
        self.alive = np.zeros(0, dtype=bool)
        self.terms = np.zeros(0, dtype=np.int32)
        self.record_of = np.zeros(0, dtype=np.int32)
        """The record (row of these arrays) each term of ``terms`` belongs to."""
        self.dead = 0
        self._inverted_terms = np.zeros(0, dtype=np.int32)
        self._term_starts = np.zeros(1, dtype=np.int64)
        self._postings = np.zeros(0, dtype=np.int32)
        self._indexed = 0
        """Terms (a prefix of ``terms``) the inverted list covers."""

    @property
    def records(self) -> int:
        return int(self.seqs.shape[0] - self.dead)

    @property
    def nbytes(self) -> int:
        return (len(self.term_ids) + len(self.value_codes)) * TERM_BYTES + sum(
            array.nbytes for array in (
                self.seqs, self.codes, self.lengths, self.sizes, self.alive, self.terms,
                self.record_of, self._inverted_terms, self._term_starts, self._postings))

    def add_rows(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Append rows (seq, the scope columns, keyword text)."""
        if not rows:
            return
        tokens = TOKENS.tokens_of([row[-1] or "" for row in rows])
        lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        flat = [term for record in tokens for term in record]
        values = [value for row in rows for value in row[1:1 + SCOPE_TOKENS]]
        codes = np.array(_numbered(self.value_codes, values), dtype=np.int32)
        self.append([row[0] for row in rows], codes.reshape(len(rows), SCOPE_TOKENS), lengths,
                    np.array(_numbered(self.term_ids, flat), dtype=np.int32))

    def append(self, seqs: Sequence[int], codes: np.ndarray, lengths: np.ndarray,
               terms: np.ndarray) -> None:
        """Add records: their scope codes (a row each), term counts, and all term ids."""
        if not seqs:
            return
        first = self.seqs.shape[0]
        self.seqs = np.concatenate([self.seqs, np.asarray(seqs, dtype=np.int64)])
        self.codes = np.concatenate([self.codes, codes.T], axis=1)
        self.lengths = np.concatenate([self.lengths, lengths.astype(np.int32)])
        self.sizes = np.concatenate([self.sizes, lengths + float(SCOPE_TOKENS)])
        self.alive = np.concatenate([self.alive, np.ones(len(seqs), dtype=bool)])
        self.terms = np.concatenate([self.terms, terms])
        self.record_of = np.concatenate([self.record_of, np.repeat(
            np.arange(first, first + len(seqs), dtype=np.int32), lengths)])
        tail = self.terms.shape[0] - self._indexed
        if tail > max(MIN_TAIL, self.terms.shape[0] // 4):
            self._invert()

    def remove(self, seqs: np.ndarray) -> None:
        """Forget the records of these seqs (their terms stay until the next compaction)."""
        if not self.seqs.shape[0] or seqs.min() > self.seqs.max():
            return  # new records only (the usual case): none of them is here
        hit = np.isin(self.seqs, seqs) & self.alive
        count = int(np.count_nonzero(hit))
        if not count:
            return
        self.alive[hit] = False
        self.dead += count
        if self.dead > max(64, self.seqs.shape[0] // 4):
            self._compact()

    def _compact(self) -> None:
        keep = self.alive
        self.terms = self.terms[np.repeat(keep, self.lengths)]
        self.seqs, self.codes = self.seqs[keep], self.codes[:, keep]
        self.lengths, self.sizes = self.lengths[keep], self.sizes[keep]
        self.record_of = np.repeat(np.arange(self.seqs.shape[0], dtype=np.int32), self.lengths)
        self.alive = np.ones(self.seqs.shape[0], dtype=bool)
        self.dead = 0
        self._invert()

    def _invert(self) -> None:
        order = np.argsort(self.terms, kind="stable")
        sorted_terms = self.terms[order]
        self._inverted_terms, first = np.unique(sorted_terms, return_index=True)
        self._term_starts = np.append(first, sorted_terms.shape[0]).astype(np.int64)
        self._postings = order.astype(np.int32)
        self._indexed = self.terms.shape[0]

    def positions(self, term: int) -> np.ndarray:
        """Where ``term`` stands in ``terms``, ascending."""
        at = int(np.searchsorted(self._inverted_terms, term))
        found = (self._postings[self._term_starts[at]:self._term_starts[at + 1]]
                 if at < self._inverted_terms.shape[0] and self._inverted_terms[at] == term
                 else self._postings[:0])
        if self._indexed == self.terms.shape[0]:
            return found
        tail = np.flatnonzero(self.terms[self._indexed:] == term) + self._indexed
        return np.concatenate([found, tail])

    def phrase_records(self, phrase: Sequence[int]) -> np.ndarray:
        """The record (row of these arrays) of each place the phrase stands, ascending."""
        first = self.positions(phrase[0])
        if len(phrase) == 1:
            return self.record_of[first]
        first = first[first < self.terms.shape[0] - (len(phrase) - 1)]
        records = self.record_of[first]
        for offset, term in enumerate(phrase[1:], 1):
            following = first + offset
            ok = (self.terms[following] == term) & (self.record_of[following] == records)
            first, records = first[ok], records[ok]
        return records


def _numbered(table: dict[Any, int], values: Sequence[Any]) -> list[int]:
    """Each value's number in ``table``, new values numbered on (one pass over the new ones,
    then one C-level lookup per value)."""
    for value in dict.fromkeys(values):
        if value not in table:
            table[value] = len(table)
    return list(map(table.__getitem__, values))


@dataclass
class PendingScope:
    """A search whose scope has no key held yet: the keys it may build (thread, user, agent
    order) and the index's state when it asked. The search reads the key's rows in its own
    read transaction, without the lock (``ScopeKeywords.complete``)."""

    keys: list[ScopeKey]
    words: list[str]
    exact: dict[str, str | None]
    version: int
    epoch: str | None
    mark: bytes | None


class ScopeKeywords:
    """The scope keys of one store held so far, kept in step with the change log.
    Callers serialise access (the store's cache lock), except ``complete``, which takes
    the lock itself only to hand a built key over."""

    def __init__(self) -> None:
        self._scopes: OrderedDict[ScopeKey, ScopeTerms] = OrderedDict()
        self._too_big: dict[ScopeKey, float] = {}
        """Keys found with more than MAX_SCOPE_RECORDS records (not counted again while
        that limit stays below their count), or whose terms overflow the budget (inf)."""
        self._version = -1
        self._epoch: str | None = None
        self._mark: bytes | None = None
        """Change-log mark at ``_version``: caught up only while the log still holds it."""
        self._lagging = False
        """A key was handed over at a version older than ``_version``."""
        self._usable: bool | None = None
        """Does the store's keyword index use the tokenizer mirrored here (None: not read)."""

    def reset(self) -> None:
        """Drop everything; the next search starts from SQLite alone (a search found the
        record cache disagreeing with SQLite, or the store closed)."""
        self._drop_keys()
        self._too_big.clear()
        self._version, self._epoch, self._usable = -1, None, None

    def _drop_keys(self) -> None:
        """Drop every held key (what was found too big stays known)."""
        self._scopes.clear()
        self._lagging = False

    # -- following the change log -------------------------------------------------------

    def sync(self, conn: Any) -> None:
        """Bring the held keys to the snapshot of ``conn``'s open read transaction."""
        version, epoch = changelog.state(conn)
        if version == self._version and epoch == self._epoch and not self._lagging:
            return
        try:
            if epoch != self._epoch:
                self._usable = None
                self._too_big.clear()
            if (epoch != self._epoch or version < self._version or not self._scopes
                    or changelog.mark_at(conn, self._version) != self._mark):
                self._drop_keys()  # (another history at our version: a restored backup)
            else:
                start = self._catch_up_from(conn)
                oldest = changelog.oldest_version(conn)
                behind = oldest is None or oldest > start + 1
                changed = [] if behind else changelog.changed_since(conn, start)
                if behind or len(changed) > MAX_CHANGES:
                    self._drop_keys()
                else:
                    self._apply(conn, changed)
        except BaseException:
            self.reset()
            raise
        self._version, self._epoch = version, epoch
        self._mark = changelog.mark_at(conn, version)
        for scope in self._scopes.values():
            scope.version, scope.mark = version, self._mark
        self._lagging = False

    def _catch_up_from(self, conn: Any) -> int:
        """The oldest version a held key reflects; a key handed over at a version whose
        mark the log no longer holds (another history) is dropped."""
        start = self._version
        if self._lagging:
            for key, scope in list(self._scopes.items()):
                if scope.version < start and changelog.mark_at(conn, scope.version) != scope.mark:
                    del self._scopes[key]
            start = min([start, *(scope.version for scope in self._scopes.values())])
        return start

    def _apply(self, conn: Any, seqs: list[int]) -> None:
        """Reload the changed rows into every held key they belong to (a row reloaded into
        a key that already had it replaces it, so catching up from an older version than a
        key reflects is harmless)."""
        if not seqs:
            return
        changed = np.asarray(seqs, dtype=np.int64)
        for scope in self._scopes.values():
            scope.remove(changed)
        rows = []
        for part in runs(conn, seqs):
            rows.extend(conn.execute(
                f"SELECT seq, {', '.join(SCOPE_COLUMNS)}, keyword_body FROM records"
                f" WHERE seq IN ({marks(part)}) AND record_type IN ({_TYPES})", part))
        belong: dict[ScopeKey, list[tuple[Any, ...]]] = {}
        for row in rows:
            for index in range(SCOPE_TOKENS):
                if (key := (index, row[1 + index])) in self._scopes:
                    belong.setdefault(key, []).append(row)
        for key, key_rows in belong.items():
            self._scopes[key].add_rows(key_rows)
        self._fit()

    # -- building a key (without the lock) ---------------------------------------------

    @staticmethod
    def _count(conn: Any, key: ScopeKey, cap: int) -> int:
        """The key's records, counted up to ``cap``."""
        column = SCOPE_COLUMNS[key[0]]
        row = conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM records WHERE {column} IS ?"
                           f" AND record_type IN ({_TYPES}) LIMIT ?)", (key[1], cap)).fetchone()
        return int(row[0])

    @staticmethod
    def _build(conn: Any, key: ScopeKey) -> ScopeTerms | None:
        """Read the key's records (in chunks) into terms of its own; None when their terms
        alone would not fit in the budget."""
        column = SCOPE_COLUMNS[key[0]]
        scope = ScopeTerms(key)
        cursor = conn.execute(
            f"SELECT seq, {', '.join(SCOPE_COLUMNS)}, keyword_body FROM records"
            f" WHERE {column} IS ? AND record_type IN ({_TYPES})", (key[1],))
        while rows := cursor.fetchmany(BUILD_ROWS):
            scope.add_rows(rows)
            if scope.nbytes > MEMORY_BUDGET:
                return None
        return scope

    def complete(self, conn: Any, pending: PendingScope,
                 lock: AbstractContextManager[Any]) -> tuple[np.ndarray, np.ndarray] | None:
        """The scores ``scores`` could not give yet: the smallest key of the search counted
        and built in ``conn``'s read transaction (the snapshot ``pending`` was taken at),
        scored, then handed over under ``lock`` for later searches. Called without the
        lock, so the first search of a big scope holds up no other search. None: FTS5 must
        answer (every key too large)."""
        best: ScopeKey | None = None
        smallest: float = MAX_SCOPE_RECORDS + 1
        sizes: dict[ScopeKey, float] = {}
        for key in pending.keys:
            size = self._count(conn, key, cap=int(smallest))
            if size < smallest:
                best, smallest = key, size
            elif size > MAX_SCOPE_RECORDS:
                sizes[key] = size
        scope = None if best is None else self._build(conn, best)
        if best is not None and scope is None:
            sizes[best] = math.inf
        result = None if scope is None else _scored(scope, pending.words, pending.exact)
        with lock:
            self._hand_over(pending, scope, sizes)
        return result

    def _hand_over(self, pending: PendingScope, scope: ScopeTerms | None,
                   sizes: Mapping[ScopeKey, float]) -> None:
        """Keep a key built without the lock, at the version it was built at (the next sync
        catches it up), unless the index moved to another epoch or history meanwhile, or
        another search handed the same key over first."""
        if pending.epoch != self._epoch or self._version < 0 or pending.version > self._version:
            return
        self._too_big.update(sizes)
        if (scope is None or scope.key in self._scopes
                or (pending.version < self._version and pending.mark is None)):
            self._fit()
            return
        scope.version, scope.mark = pending.version, pending.mark
        self._lagging = self._lagging or pending.version < self._version
        self._scopes[scope.key] = scope
        self._fit()

    def held_bytes(self) -> int:
        """What the held keys hold: their arrays and tables (an estimate per entry)."""
        return sum(scope.nbytes for scope in self._scopes.values())

    def _fit(self) -> None:
        """Drop the least recently searched keys while over budget; the last one too (then
        marked too big) when it does not fit alone."""
        total = self.held_bytes()
        while total > MEMORY_BUDGET and self._scopes:
            key, dropped = self._scopes.popitem(last=False)
            total -= dropped.nbytes
            if not self._scopes:
                self._too_big[key] = math.inf
        if not self._scopes:
            self._lagging = False

    def _is_usable(self, conn: Any) -> bool:
        if self._usable is None:
            row = conn.execute(
                "SELECT sql FROM sqlite_master WHERE name = 'records_fts'").fetchone()
            self._usable = bool(row) and f"tokenize='{TOKENIZER}'" in row[0]
        return self._usable

    # -- scoring -------------------------------------------------------------------------

    def scores(self, conn: Any, words: Sequence[str], exact: Mapping[str, str | None]
               ) -> tuple[np.ndarray, np.ndarray] | PendingScope | None:
        """(seq, BM25 score > 0) of each record of the scope matching any word; a
        PendingScope when no key of the search is held yet (``complete`` builds one); None
        when FTS5 must answer (no exact dimension, too large a scope, another tokenizer).
        ``conn`` is in the search's read transaction."""
        if not exact:
            return None
        self.sync(conn)
        if not self._is_usable(conn):
            return None
        keys = sorted(((SCOPE_COLUMNS.index(column), value) for column, value in exact.items()),
                      key=lambda key: COUNT_ORDER.index(key[0]))
        held = [self._scopes[key] for key in keys if key in self._scopes]
        if not held:
            open_keys = [key for key in keys
                         if self._too_big.get(key, 0) <= MAX_SCOPE_RECORDS]
            if not open_keys:
                return None
            return PendingScope(open_keys, list(words), dict(exact), self._version,
                                self._epoch, self._mark)
        scope = min(held, key=lambda terms: terms.records)
        if scope.records > MAX_SCOPE_RECORDS:  # grown past the limit since it was built
            del self._scopes[scope.key]
            self._too_big[scope.key] = scope.records
            return None
        self._scopes.move_to_end(scope.key)
        return _scored(scope, words, exact)


def _scored(scope: ScopeTerms, words: Sequence[str], exact: Mapping[str, str | None]
            ) -> tuple[np.ndarray, np.ndarray]:
    """BM25 of the records of ``scope`` matching every exact dimension of the search."""
    inside = scope.alive
    for column, value in exact.items():
        index = SCOPE_COLUMNS.index(column)
        if index != scope.key[0]:
            code = scope.value_codes.get(value)
            if code is None:
                return _EMPTY, np.zeros(0, dtype=np.float64)
            inside = inside & (scope.codes[index] == code)
    phrases = [[scope.term_ids.get(term, -1) for term in tokens]
               for tokens in TOKENS.tokens_of(list(words))]
    return bm25(scope, phrases, inside)


def bm25(scope: ScopeTerms, phrases: Sequence[Sequence[int]], inside: np.ndarray
         ) -> tuple[np.ndarray, np.ndarray]:
    """(seq, score) of the records ``inside`` matching any phrase, BM25 with the statistics
    of the records ``inside`` (see the module's docstring)."""
    count = int(np.count_nonzero(inside))
    if not count:
        return _EMPTY, np.zeros(0, dtype=np.float64)
    average = float(scope.sizes[inside].sum()) / count
    everyone = count == inside.shape[0]
    score: np.ndarray | None = None
    for phrase in phrases:
        if not phrase or min(phrase) < 0:
            continue  # a term no record of the key holds: the phrase matches nothing
        frequency = np.bincount(scope.phrase_records(phrase), minlength=inside.shape[0])
        if not everyone:
            frequency *= inside
        matched = np.flatnonzero(frequency)
        hits = matched.shape[0]
        if not hits:
            continue
        idf = math.log((count - hits + 0.5) / (hits + 0.5))
        if idf <= 0.0:
            idf = MIN_IDF
        found = frequency[matched].astype(np.float64)
        if score is None:
            score = np.zeros(inside.shape[0], dtype=np.float64)
        score[matched] += idf * (found * (BM25_K1 + 1.0)) / (
            found + BM25_K1 * (1 - BM25_B + BM25_B * scope.sizes[matched] / average))
    if score is None:
        return _EMPTY, np.zeros(0, dtype=np.float64)
    matched = np.flatnonzero(score)
    return scope.seqs[matched], score[matched]
