"""Keyword scoring inside one scope, in memory: its cost follows the scope, not the store.

Why: FTS5 answers a scoped KEYWORD query by walking each query word's posting list across
the whole store, and its ``bm25`` counts every row of the store holding the word; at 100K
records, for a user holding 2,000 of them, that was 20-25 times the vector half of a HYBRID
search (``benchmarks/hybrid_cost.py``). Here a search reads the terms of its scope's records
from the record cache (``record_terms``: every cached record's terms as numbers, cut by the
FTS5 tokenizer mirrored in ``fts_tokens``, kept in step with every writer by the cache's
change-log sync, and mapped from the vector file in a fresh process), so its first search of
a scope costs what the later ones cost: no row is read.

Scoring: BM25 as FTS5's ``bm25()`` computes it for the keyword index (k1 1.2, b 0.75; each
quoted query word one phrase; a record's length counting its three scope tokens; idf
``log((N - n + 0.5) / (n + 0.5))``, at least 1e-6), but N, n and the average length are
those of the searched scope (every searchable record matching each exact dimension,
whatever its status or expiry), not of the whole store: what is rare in one user's memories
ranks them, whatever other users write, and one user's ranking never depends on another's
records.

Left to FTS5 (which then counts the whole store's rows): a search without an exact
dimension, a scope of more than ``MAX_SCOPE_RECORDS`` records or ``MAX_SCOPE_TERMS`` terms
(what one search copies out is bounded), and a keyword index made with another tokenizer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from oracleagentmemory.stores.embedded.fts_tokens import TOKENIZER, TOKENS
from oracleagentmemory.stores.embedded.record_cache import RecordCache
from oracleagentmemory.stores.embedded.schema import SCOPE_TOKEN_LETTERS

SCOPE_TOKENS = len(SCOPE_TOKEN_LETTERS)
"""Tokens of the scope column that FTS5 counts in every record's length."""
BM25_K1 = 1.2
BM25_B = 0.75
MIN_IDF = 1e-6
MAX_SCOPE_RECORDS = 100_000
"""A larger scope is left to FTS5: scoring it reads every term of its records."""
MAX_SCOPE_TERMS = 16 * 1024 * 1024
"""A scope whose records hold more terms is left to FTS5: a search copies its scope's terms
(4 bytes each, at most 64 MiB) out of the cache to score them without the cache's lock."""
_EMPTY = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class ScopeTerms:
    """What scoring needs, copied out of the cache under its lock (then scored without
    it): the scope's records (their seqs, their terms one record after another, where each
    record's terms end) and the query's phrases as term numbers (-1: no record has it)."""

    seqs: np.ndarray
    terms: np.ndarray
    ends: np.ndarray
    counts: np.ndarray
    phrases: list[list[int]]


def index_uses_mirrored_tokenizer(conn: Any) -> bool:
    """Does the store's keyword index cut text as ``fts_tokens`` does."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'records_fts'").fetchone()
    return bool(row) and f"tokenize='{TOKENIZER}'" in row[0]


def scope_terms(cache: RecordCache, scope: np.ndarray | None, words: Sequence[str]
                ) -> ScopeTerms | None:
    """The terms of the ``scope`` slots (``RecordCache.scope_slots``) and the query's
    phrases; None when FTS5 must answer (no exact dimension, too large a scope). Called
    under the cache's lock, the cache synced to the search's snapshot. Raises
    ``DamagedFile`` when the runs or numbers the cache holds cannot be (a damaged vector
    file)."""
    if scope is None or scope.shape[0] > MAX_SCOPE_RECORDS:
        return None
    starts, counts = cache.term_start[scope], cache.term_count[scope]
    if int(counts.sum(dtype=np.int64)) > MAX_SCOPE_TERMS:
        return None
    order = np.lexsort((counts, starts))  # runs of the mapped file in order: one view
    terms, ends = cache.terms.read(starts[order], counts[order])
    table = cache.terms.table
    phrases = [[-1 if (number := table.find(term)) is None else number for term in tokens]
               for tokens in TOKENS.tokens_of(list(words))]
    return ScopeTerms(cache.seq[scope[order]], terms, ends, counts[order], phrases)


def phrase_records(scope: ScopeTerms, phrase: Sequence[int], record_of: np.ndarray
                   ) -> np.ndarray:
    """The record (index into ``scope.seqs``) of each place the phrase stands;
    ``record_of`` gives the record of each term (a look-up: a frequent word stands in
    thousands of places, and a binary search of each in ``ends`` cost several times the
    rest of the scoring)."""
    first = np.flatnonzero(scope.terms == phrase[0])
    records = record_of[first]
    if len(phrase) == 1:
        return records
    ok = first + (len(phrase) - 1) < scope.ends[records]  # the phrase ends in its record
    first, records = first[ok], records[ok]
    for offset, term in enumerate(phrase[1:], 1):
        ok = scope.terms[first + offset] == term
        first, records = first[ok], records[ok]
    return records


def bm25(scope: ScopeTerms) -> tuple[np.ndarray, np.ndarray]:
    """(seq ascending, score > 0) of the scope's records matching any phrase, BM25 with the
    statistics of the scope (see the module's docstring)."""
    count = int(scope.seqs.shape[0])
    if not count:
        return _EMPTY, np.zeros(0, dtype=np.float64)
    sizes = scope.counts + float(SCOPE_TOKENS)
    average = float(sizes.sum()) / count
    score: np.ndarray | None = None
    record_of: np.ndarray | None = None
    for phrase in scope.phrases:
        if not phrase or min(phrase) < 0:
            continue  # a term no record holds: the phrase matches nothing
        if record_of is None:
            record_of = np.repeat(np.arange(count, dtype=np.int32), scope.counts)
        frequency = np.bincount(phrase_records(scope, phrase, record_of), minlength=count)
        matched = np.flatnonzero(frequency)
        hits = matched.shape[0]
        if not hits:
            continue
        idf = math.log((count - hits + 0.5) / (hits + 0.5))
        if idf <= 0.0:
            idf = MIN_IDF
        found = frequency[matched].astype(np.float64)
        if score is None:
            score = np.zeros(count, dtype=np.float64)
        # idf * (numerator / denominator), as FTS5's bm25() rounds it: (idf * numerator) /
        # denominator differed in the last bit, which turned ties into orders
        score[matched] += idf * ((found * (BM25_K1 + 1.0)) / (
            found + BM25_K1 * (1 - BM25_B + BM25_B * sizes[matched] / average)))
    if score is None:
        return _EMPTY, np.zeros(0, dtype=np.float64)
    matched = np.flatnonzero(score)
    seqs = scope.seqs[matched]
    ascending = np.argsort(seqs)
    return seqs[ascending], score[matched][ascending]
