"""Search in the embedded backend: scope and filters first, then exact scoring.

Candidates are narrowed over the in-memory record cache (type, status, expiry, exact scope
dimensions as numpy masks), then by the metadata filter over cached key columns, and only
the survivors are scored: cosine distance as one matrix product over cached unit vectors for
VECTOR, FTS5 bm25 for KEYWORD, for HYBRID the vector distance (at most the vector window's
edge for a record the keyword window holds) less a confidence-weighted keyword pull
(``stores.ranking``). Only the top hits and their links are read from SQLite.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import numpy as np

from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.stores import limits
from oracleagentmemory.stores import metadata_filter as mf
from oracleagentmemory.stores.embedded.bound_lists import marks, runs
from oracleagentmemory.stores.embedded.codec import (
    LINK_COLUMNS,
    RECORD_COLUMNS,
    encode_vector,
    row_to_link,
    row_to_record,
)
from oracleagentmemory.stores.embedded.record_cache import RecordCache
from oracleagentmemory.stores.embedded.record_terms import DamagedFile
from oracleagentmemory.stores.embedded.schema import scope_token
from oracleagentmemory.stores.embedded.scope_keywords import (
    ScopeTerms,
    bm25,
    index_uses_mirrored_tokenizer,
    scope_terms,
)
from oracleagentmemory.stores.errors import DimensionMismatchError, InvalidArgumentError
from oracleagentmemory.stores.protocol import (
    LinkedHit,
    RecordOut,
    ScopeDimension,
    SearchHit,
)
from oracleagentmemory.stores.ranking import (
    SCOPE_AFFINITY,
    fusion_window,
    hybrid_distances,
    keyword_parts,
    keyword_pull,
    ranking_confidence,
    vector_spread,
    window_edge,
)
from oracleagentmemory.stores.search_request import (
    SCOPE_COLUMNS,
    CheckedRequest,
    check_search_request,
)
from oracleagentmemory.stores.stoplist import content_words

FTS_FILTER_SHARE = 0.5
"""Below this share of all records, bm25 is computed for the candidates only."""


def run_search(
    conn: Any, request: Mapping[str, Any], cache: RecordCache,
    cache_lock: AbstractContextManager[Any], dimension: int | None, now: str,
) -> list[SearchHit]:
    """Run a search in ``conn``'s read transaction, begun but not yet read from.

    The cache is used under ``cache_lock`` only: synced to the transaction's snapshot (its
    first read happens under the lock, so snapshots follow the order the cache is synced
    in), the candidates chosen, the vector distances computed and the scope's keyword terms
    copied out. The keyword scores (``scope_keywords``), an FTS5 keyword side (no exact
    scope, a huge scope), the records and their links are then computed or read with the
    lock released, so a slow search never holds up another one.

    Every hit is checked against the row SQLite holds (type, exact scope, expiry, status,
    metadata filter) before it is returned: a cache that disagrees (a vector file from
    another state of the database), or whose terms, user slots or metadata-filter codes
    cannot be (a damaged file: ``DamagedFile``), is dropped, reloaded from SQLite, and the
    search run again on it."""
    req = check_search_request(request)
    # (cut once, before the lock: a long CJK query takes milliseconds)
    words = keyword_words(req["query_text"]) if req["strategy"] in ("KEYWORD", "HYBRID") else []
    for again in (False, True):
        with cache_lock:
            if again:  # the cache disagreed with SQLite
                cache.distrust()
            try:
                cache.sync(conn)  # (packing the terms reads every live record's run)
                candidates = _candidates(conn, req, words, cache, now, dimension)
            except DamagedFile:
                if again:
                    raise
                continue  # parts of a damaged vector file: read SQLite again
        hits = _hits(conn, req, words, candidates, now, strict=not again)
        if hits is not None:
            return hits
    return []


@dataclass(frozen=True)
class _Candidates:
    """What a search takes from the cache, copied out so the cache can move on: the
    candidates' seqs (ascending), how many non-exact scope dimensions each matches, the
    vector distances of those with a vector, the in-memory keyword scores, and the cache's
    size then."""

    seqs: np.ndarray
    affinity: np.ndarray | None
    vector: tuple[np.ndarray, np.ndarray] | None
    """(positions in ``seqs``, cosine distances), for VECTOR and HYBRID."""
    keyword: ScopeTerms | None
    """The scope's terms for the in-memory keyword scores, for KEYWORD and HYBRID; None
    when FTS5 answers."""
    cached: int


def _matches(record: RecordOut, req: CheckedRequest, now: str) -> bool:
    """The row SQLite holds is one this request may return."""
    expires = record.get("expires_at")
    return (record["record_type"] in req["record_types"]
            and (expires is None or expires > now)
            and (req["include_invalid"] or record.get("status") == "VALID")
            and all(record.get(column) == dimension["value"]
                    for column, dimension in req["scope"].items() if dimension["exact"])
            and mf.matches(req["metadata_filter"], record.get("metadata")))


def _hits(conn: Any, req: CheckedRequest, words: Sequence[str], candidates: _Candidates,
          now: str, strict: bool) -> list[SearchHit] | None:
    """The hits; when a hit's row does not match what the cache said of it, None
    (``strict``), else the hits without it (a cache just read from SQLite: never a row the
    request may not return, whatever the cause)."""
    seqs = candidates.seqs
    if not seqs.shape[0]:
        return []
    positions, ranking, distances = _score(conn, req, words, candidates)
    if not positions.shape[0]:
        return []
    if candidates.affinity is not None:
        # Without affinity the float32 distances rank exactly like their float64 values.
        ranking = ranking.astype(np.float64) - SCOPE_AFFINITY * candidates.affinity[positions]
    best = _top(ranking, seqs, positions, req["max_results"])
    chosen = [int(seq) for seq in seqs[positions[best]]]
    records = _load_records(conn, chosen)
    good = [seq in records and _matches(records[seq], req, now) for seq in chosen]
    if strict and not all(good):
        return None
    hits: list[SearchHit] = []
    for seq, distance, ok in zip(chosen, distances[best].tolist(), good, strict=True):
        if not ok:
            continue
        record = records[seq]
        linked: list[LinkedHit] = []
        if req["num_hops"] and req["max_linked_results"] and record["record_type"] in MEMORY_TYPES:
            linked = _expand_links(conn, record["id"], req, now)
        hits.append({"record": record, "distance": float(distance), "linked": linked})
    return hits


def _candidates(conn: Any, req: CheckedRequest, words: Sequence[str], cache: RecordCache,
                now: str, store_dimension: int | None) -> _Candidates:
    """The records passing type, status, expiry, exact scope and the metadata filter, with
    what scoring needs from the cache (called under the cache's lock); ``words``: the
    query's ``keyword_words``."""
    exact = {
        index: dimension["value"]
        for index, column in enumerate(SCOPE_COLUMNS)
        if (dimension := req["scope"].get(column)) and dimension["exact"]
    }
    scope = cache.scope_slots(exact, terms=bool(words))
    slots = cache.candidates(scope, req["record_types"], req["include_invalid"], now)
    if req["metadata_filter"] is not None and slots.shape[0]:
        slots = cache.metadata.filter(
            req["metadata_filter"], slots, lambda: cache.metadata_rows(conn)
        )
    vector = None
    if req["strategy"] in ("VECTOR", "HYBRID") and slots.shape[0]:
        if req["query_vector"] is None:
            raise InvalidArgumentError("VECTOR and HYBRID search need a query vector")
        query_vector = np.frombuffer(encode_vector(req["query_vector"], store_dimension),
                                     dtype="<f4")
        if cache.dimension is not None and query_vector.shape[0] != cache.dimension:
            raise DimensionMismatchError(
                f"query vector has {query_vector.shape[0]} dimensions, the store uses "
                f"{cache.dimension}")
        with_vector, distances = cache.distances(slots, query_vector)
        # with_vector keeps the order of slots: all of them, or a subset to look up.
        positions = (np.arange(slots.shape[0]) if with_vector.shape[0] == slots.shape[0]
                     else np.searchsorted(slots, with_vector))
        vector = (positions, distances)
    keyword = None
    if words and slots.shape[0] and scope is not None and index_uses_mirrored_tokenizer(conn):
        keyword = scope_terms(cache, scope, words)
    return _Candidates(cache.seq[slots], _affinity(cache, slots, req), vector, keyword,
                       cache.size)


def _affinity(
    cache: RecordCache, slots: np.ndarray, req: CheckedRequest
) -> np.ndarray | None:
    """How many non-exact scope dimensions each record matches (it ranks a little higher);
    None when the request has no non-exact dimension."""
    matches: np.ndarray | None = None
    for index, column in enumerate(SCOPE_COLUMNS):
        dimension = req["scope"].get(column)
        if dimension and not dimension["exact"]:
            if matches is None:
                matches = np.zeros(slots.shape[0], dtype=np.float64)
            code = cache.code(dimension["value"])
            if code is not None:
                matches += cache.scope[index, slots] == code
    return matches


def _top(ranking: np.ndarray, seq: np.ndarray, slots: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k best (lowest ranking, then lowest seq), best first."""
    if ranking.shape[0] > k:
        kth = np.partition(ranking, k - 1)[k - 1]
        chosen = np.flatnonzero(ranking <= kth)
    else:
        chosen = np.arange(ranking.shape[0])
    order = np.lexsort((seq[slots[chosen]], ranking[chosen]))
    return chosen[order[:k]]


def _score(conn: Any, req: CheckedRequest, words: Sequence[str],
           candidates: _Candidates) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scored positions in the candidates' seqs, their ranking values, their distances):
    vector, keyword, or both fused; only HYBRID ranks by something else than the distance
    it reports."""
    strategy = req["strategy"]
    if strategy == "VECTOR":
        assert candidates.vector is not None
        positions, distances = candidates.vector
        return positions, distances, distances
    keyword = _keyword_distances(conn, words, req["scope"], candidates)
    if strategy == "KEYWORD":
        return keyword[0], keyword[1], keyword[1]
    assert candidates.vector is not None
    return _fuse(candidates.seqs, candidates.vector, keyword,
                 fusion_window(req["max_results"]))


def keyword_words(text: str) -> list[str]:
    """The words a keyword query asks for: the content words (``stoplist.content_words``:
    its keyword text's words, Han and Hangul as character bigrams, without stopwords) of
    the query's first MAX_KEYWORD_QUERY_CHARS characters."""
    return content_words(text[:limits.MAX_KEYWORD_QUERY_CHARS])


def fts_query(words: Sequence[str], scope: Mapping[str, ScopeDimension] | None = None
              ) -> str:
    """An FTS5 query that ORs the words, each quoted (no injection, and one phrase), ANDed
    with the token of every exact scope dimension so FTS5 skips other scopes."""
    query = "keyword_body : (" + " OR ".join('"' + w.replace('"', '""') + '"' for w in words) + ")"
    for column, dimension in (scope or {}).items():
        if dimension["exact"]:
            query += f' AND scope_tokens : "{scope_token(column, dimension["value"])}"'
    return query


def _keyword_distances(
    conn: Any, words: Sequence[str], scope: Mapping[str, ScopeDimension],
    candidates: _Candidates,
) -> tuple[np.ndarray, np.ndarray]:
    """BM25 of the candidates that match any of the query's ``words``, as a distance
    1 / (1 + |bm25|): the scope's in-memory scores when there are, else FTS5's."""
    seqs = candidates.seqs
    if not words:
        return seqs[:0], np.zeros(0, dtype=np.float64)
    held = candidates.keyword
    found, scores = bm25(held) if held is not None else _fts_scores(
        conn, words, scope, candidates)
    if not found.shape[0]:
        return seqs[:0], np.zeros(0, dtype=np.float64)
    at = np.minimum(np.searchsorted(seqs, found), seqs.shape[0] - 1)
    keep = seqs[at] == found
    return at[keep], 1.0 / (1.0 + np.abs(scores[keep]))


def _fts_scores(
    conn: Any, words: Sequence[str], scope: Mapping[str, ScopeDimension],
    candidates: _Candidates,
) -> tuple[np.ndarray, np.ndarray]:
    """(seq, bm25) of the records FTS5 matches, its statistics counting the whole store."""
    seqs = candidates.seqs
    query = fts_query(words, scope)
    # bm25 weights: the keyword text column counts, the scope tokens do not.
    if seqs.shape[0] <= candidates.cached * FTS_FILTER_SHARE:
        # "+rowid" keeps the constraint out of FTS5 (which would re-run the query per rowid):
        # SQLite filters the matches and bm25 is only computed for candidates.
        rows = conn.execute(
            "SELECT rowid, bm25(records_fts, 1.0, 0.0) FROM records_fts"
            " WHERE records_fts MATCH ? AND +rowid IN (SELECT value FROM json_each(?))",
            (query, json.dumps(seqs.tolist())),
        ).fetchall()
    else:
        rows = conn.execute(
            "SELECT rowid, bm25(records_fts, 1.0, 0.0) FROM records_fts WHERE records_fts MATCH ?",
            (query,),
        ).fetchall()
    found = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
    scores = np.fromiter((row[1] for row in rows), dtype=np.float64, count=len(rows))
    return found, scores


def _fuse(
    seqs: np.ndarray,
    vector: tuple[np.ndarray, np.ndarray],
    keyword: tuple[np.ndarray, np.ndarray],
    window: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """HYBRID (the rule and its reasons: ``stores.ranking``) as (positions in ``seqs``,
    ranking values, distances): every record with a vector, and the keyword window's best,
    each at its vector distance (at most the vector window's edge for a keyword-window
    record) less its keyword part (confidence squared x window share of |bm25|, back from
    1 / (1 + |bm25|)) times the pull. Cutting the keyword list to its window keeps the long
    tail of weak matches out."""
    vector_slots, vector_distances = vector
    keyword_slots, keyword_distances = keyword
    similar = vector_distances.astype(np.float64)
    # The edge and the spread read the best and the window-th best distance: sort only
    # the window.
    head = np.sort(np.partition(similar, window - 1)[:window] if similar.shape[0] > window
                   else similar)
    edge = window_edge(head, window)
    pull = keyword_pull(ranking_confidence(1.0 - similar), vector_spread(head, window))
    windowed = keyword_slots[:0]
    parts = np.zeros(0, dtype=np.float64)
    if keyword_slots.shape[0]:
        scores = 1.0 / np.asarray(keyword_distances, dtype=np.float64) - 1.0
        best_first = _top(keyword_distances, seqs, keyword_slots, window)
        windowed = keyword_slots[best_first]
        parts = keyword_parts(scores, scores[best_first], window)
    # Both lists' positions ascend (candidates follow seq); the keyword window is usually
    # among the records with a vector, and then those are the records that take part.
    at = np.searchsorted(vector_slots, windowed)
    if (at < vector_slots.shape[0]).all() and (vector_slots[at] == windowed).all():
        slots, distances = vector_slots, similar
    else:
        slots = np.union1d(vector_slots, windowed)
        distances = np.full(slots.shape[0], np.nan)
        distances[np.searchsorted(slots, vector_slots)] = similar
        at = np.searchsorted(slots, windowed)
    part = np.zeros(slots.shape[0], dtype=np.float64)
    part[at] = parts
    in_window = np.zeros(slots.shape[0], dtype=bool)
    in_window[at] = True
    ranking, reported = hybrid_distances(distances, part, in_window, edge, pull)
    return slots, ranking, reported


def _load_records(conn: Any, seqs: list[int]) -> dict[int, RecordOut]:
    records: dict[int, RecordOut] = {}
    for part in runs(conn, seqs):
        for row in conn.execute(
                f"SELECT {RECORD_COLUMNS} FROM records WHERE seq IN ({marks(part)})", part):
            records[row[0]] = row_to_record(row)
    return records


def _expand_links(conn: Any, start_id: str, req: CheckedRequest, now: str) -> list[LinkedHit]:
    """Breadth-first walk of relations from one memory, up to num_hops and the cap."""
    seen = {start_id}
    frontier = [start_id]
    found: list[LinkedHit] = []
    for hop in range(1, req["num_hops"] + 1):
        if not frontier:
            break
        rows: dict[int, Any] = {}
        for part in runs(conn, frontier, per_item=2):
            for row in conn.execute(
                    f"SELECT seq, {LINK_COLUMNS} FROM relations"
                    f" WHERE source_id IN ({marks(part)}) OR target_id IN ({marks(part)})",
                    [*part, *part]):
                rows[row[0]] = row[1:]
        edges = [row_to_link(rows[seq]) for seq in sorted(rows)]
        next_frontier: list[str] = []
        frontier_set = set(frontier)
        steps = []
        for edge in edges:
            source, target = edge["source_id"], edge["target_id"]
            if source in frontier_set and target not in seen:
                steps.append((edge, source, target, edge["relation_type"]))
            if target in frontier_set and source not in seen:
                steps.append((edge, target, source, edge["opposite_relation_type"]))
        records = _visible_memories(conn, [step[2] for step in steps], req, now)
        for edge, via, other, label in steps:
            if other in seen or other not in records:
                continue
            seen.add(other)
            next_frontier.append(other)
            found.append({
                "record": records[other],
                "relation": edge,
                "relation_id": edge["id"],
                "relation_type": label,
                "via_record_id": via,
                "hops": hop,
            })
            if len(found) >= req["max_linked_results"]:
                return found
        frontier = next_frontier
    return found


def _visible_memories(
    conn: Any, ids: list[str], req: CheckedRequest, now: str
) -> dict[str, RecordOut]:
    found: dict[str, RecordOut] = {}
    valid = "" if req["include_invalid"] else " AND status = 'VALID'"
    for part in runs(conn, sorted(set(ids)), reserved=1):
        for row in conn.execute(
                f"SELECT {RECORD_COLUMNS} FROM records WHERE id_space = 'memory'"
                f" AND (expires_at IS NULL OR expires_at > ?){valid}"
                f" AND id IN ({marks(part)})", [now, *part]):
            found[row[1]] = row_to_record(row)
    return found
