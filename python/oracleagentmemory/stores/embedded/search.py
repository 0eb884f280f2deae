"""Search in the embedded backend: scope and filters first, then exact scoring.

Candidates are narrowed in SQL (type, status, expiry, exact scope dimensions), then by the
metadata filter, and only the survivors are scored: cosine distance with numpy for VECTOR,
FTS5 bm25 for KEYWORD, reciprocal-rank fusion of both for HYBRID.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from oracleagentmemory.apis.record import MEMORY_TYPES, SEARCHABLE_TYPES
from oracleagentmemory.stores import metadata_filter as mf
from oracleagentmemory.stores.embedded.codec import (
    RECORD_COLUMNS,
    decode_vectors,
    encode_vector,
    load_json,
    row_to_record,
)
from oracleagentmemory.stores.errors import InvalidArgumentError

STRATEGIES = ("VECTOR", "KEYWORD", "HYBRID")
SCOPE_COLUMNS = ("user_id", "agent_id", "thread_id")
SCOPE_AFFINITY = 0.05
"""Ranking bonus (in distance units) per non-exact scope dimension the record matches."""
RRF_K = 60
MAX_HOPS = 5
_WORD = re.compile(r"\w+", re.UNICODE)


def check_search_request(request: dict[str, Any]) -> dict[str, Any]:
    """Validate a search request and fill the contract's defaults."""
    if not isinstance(request, dict):
        raise InvalidArgumentError("search request must be a dict")
    strategy = request.get("strategy", "VECTOR")
    if strategy not in STRATEGIES:
        raise InvalidArgumentError(f"strategy must be one of {', '.join(STRATEGIES)}")
    query_text = request.get("query_text", "")
    if not isinstance(query_text, str):
        raise InvalidArgumentError("query must be a string")
    record_types = request.get("record_types") or list(SEARCHABLE_TYPES)
    if isinstance(record_types, str):
        raise InvalidArgumentError("record_types must be a list of record type names")
    for record_type in record_types:
        if record_type not in SEARCHABLE_TYPES:
            raise InvalidArgumentError(
                f"record_types contains unknown or unsearchable record type {record_type!r}; "
                f"allowed: {', '.join(SEARCHABLE_TYPES)}"
            )
    max_results = _check_int(request.get("max_results", 10), "max_results", minimum=1)
    num_hops = _check_int(request.get("num_hops", 0), "num_hops", minimum=0)
    if num_hops > MAX_HOPS:
        raise InvalidArgumentError(f"num_hops must be between 0 and {MAX_HOPS}")
    max_linked = _check_int(request.get("max_linked_results", 100), "max_linked_results", 0)
    scope = request.get("scope") or {}
    for key, dimension in scope.items():
        if key not in SCOPE_COLUMNS or not isinstance(dimension, dict):
            raise InvalidArgumentError(f"scope has an unknown dimension {key!r}")
        if not isinstance(dimension.get("exact"), bool):
            raise InvalidArgumentError(f"scope {key} needs a boolean 'exact'")
        value = dimension.get("value")
        if value is not None and not isinstance(value, str):
            raise InvalidArgumentError(f"scope {key} value must be a string or None")
    return {
        "query_text": query_text,
        "query_vector": request.get("query_vector"),
        "strategy": strategy,
        "scope": scope,
        "record_types": list(dict.fromkeys(record_types)),
        "metadata_filter": mf.validate_filter(request.get("metadata_filter")),
        "include_invalid": bool(request.get("include_invalid", True)),
        "max_results": max_results,
        "num_hops": num_hops,
        "max_linked_results": max_linked,
    }


def _check_int(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgumentError(f"{name} must be an integer of at least {minimum}")
    return value


def run_search(
    conn: Any, request: dict[str, Any], dimension: int | None, now: str
) -> list[dict[str, Any]]:
    req = check_search_request(request)
    candidates = _candidates(conn, req, now)
    if not candidates:
        return []
    scored = _score(conn, req, candidates, dimension)
    ranked = sorted(
        scored.items(),
        key=lambda item: (item[1] - SCOPE_AFFINITY * _affinity(candidates[item[0]], req), item[0]),
    )[: req["max_results"]]
    seqs = [seq for seq, _ in ranked]
    records = _load_records(conn, seqs)
    hits = []
    for seq, distance in ranked:
        record = records[seq]
        linked: list[dict[str, Any]] = []
        if req["num_hops"] and req["max_linked_results"] and record["record_type"] in MEMORY_TYPES:
            linked = _expand_links(conn, record["id"], req, now)
        hits.append({"record": record, "distance": float(distance), "linked": linked})
    return hits


def _candidates(conn: Any, req: dict[str, Any], now: str) -> dict[int, tuple]:
    """seq -> (user_id, agent_id, thread_id, embedding) for rows passing every filter."""
    types = req["record_types"]
    clauses = [
        f"record_type IN ({', '.join('?' for _ in types)})",
        "(expires_at IS NULL OR expires_at > ?)",
    ]
    params: list[Any] = [*types, now]
    if not req["include_invalid"]:
        clauses.append("status = 'VALID'")
    for column in SCOPE_COLUMNS:
        dimension = req["scope"].get(column)
        if dimension and dimension["exact"]:
            clauses.append(f"{column} IS ?")
            params.append(dimension["value"])
    want_metadata = req["metadata_filter"] is not None
    columns = "seq, user_id, agent_id, thread_id, embedding" + (
        ", metadata" if want_metadata else ""
    )
    rows = conn.execute(
        f"SELECT {columns} FROM records WHERE {' AND '.join(clauses)}", params
    ).fetchall()
    if want_metadata:
        rows = [row for row in rows if mf.matches(req["metadata_filter"], load_json(row[5]))]
    return {row[0]: row[1:5] for row in rows}


def _affinity(candidate: tuple, req: dict[str, Any]) -> int:
    """How many non-exact scope dimensions this record matches (it ranks a little higher)."""
    matches = 0
    for index, column in enumerate(SCOPE_COLUMNS):
        dimension = req["scope"].get(column)
        if dimension and not dimension["exact"] and candidate[index] == dimension["value"]:
            matches += 1
    return matches


def _score(
    conn: Any, req: dict[str, Any], candidates: dict[int, tuple], dimension: int | None
) -> dict[int, float]:
    strategy = req["strategy"]
    vector_scores = keyword_scores = {}
    if strategy in ("VECTOR", "HYBRID"):
        vector_scores = _vector_distances(req, candidates, dimension)
    if strategy in ("KEYWORD", "HYBRID"):
        keyword_scores = _keyword_distances(conn, req["query_text"], candidates)
    if strategy == "VECTOR":
        return vector_scores
    if strategy == "KEYWORD":
        return keyword_scores
    return _fuse(vector_scores, keyword_scores)


def _vector_distances(
    req: dict[str, Any], candidates: dict[int, tuple], dimension: int | None
) -> dict[int, float]:
    query = req["query_vector"]
    if query is None:
        raise InvalidArgumentError("VECTOR and HYBRID search need a query vector")
    query_vec = np.frombuffer(encode_vector(query, dimension), dtype="<f4")
    with_vectors = [(seq, c[3]) for seq, c in candidates.items() if c[3] is not None]
    if not with_vectors:
        return {}
    matrix = decode_vectors([blob for _, blob in with_vectors], query_vec.shape[0])
    norms = np.linalg.norm(matrix, axis=1) * max(float(np.linalg.norm(query_vec)), 1e-12)
    similarity = (matrix @ query_vec) / np.maximum(norms, 1e-12)
    distances = 1.0 - similarity
    return {seq: float(d) for (seq, _), d in zip(with_vectors, distances, strict=True)}


def fts_query(text: str) -> str | None:
    """An FTS5 query that ORs the words of free text, each quoted (no operator injection)."""
    words = _WORD.findall(text.lower())
    if not words:
        return None
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in dict.fromkeys(words))


def _keyword_distances(conn: Any, text: str, candidates: dict[int, tuple]) -> dict[int, float]:
    query = fts_query(text)
    if query is None:
        return {}
    rows = conn.execute(
        "SELECT rowid, bm25(records_fts) FROM records_fts WHERE records_fts MATCH ?", (query,)
    ).fetchall()
    return {seq: 1.0 / (1.0 + abs(score)) for seq, score in rows if seq in candidates}


def _fuse(vector: dict[int, float], keyword: dict[int, float]) -> dict[int, float]:
    """Reciprocal-rank fusion, reported as a distance: 0 when first in both lists."""
    fused: dict[int, float] = {}
    for scores in (vector, keyword):
        for rank, seq in enumerate(sorted(scores, key=lambda s: (scores[s], s)), start=1):
            fused[seq] = fused.get(seq, 0.0) + 1.0 / (RRF_K + rank)
    best = 2.0 / (RRF_K + 1)
    return {seq: 1.0 - score / best for seq, score in fused.items()}


def _load_records(conn: Any, seqs: list[int]) -> dict[int, dict[str, Any]]:
    if not seqs:
        return {}
    rows = conn.execute(
        f"SELECT {RECORD_COLUMNS} FROM records WHERE seq IN ({', '.join('?' for _ in seqs)})",
        seqs,
    ).fetchall()
    return {row[0]: row_to_record(row) for row in rows}


def _expand_links(conn: Any, start_id: str, req: dict[str, Any], now: str) -> list[dict]:
    """Breadth-first walk of relations from one memory, up to num_hops and the cap."""
    seen = {start_id}
    frontier = [start_id]
    found: list[dict[str, Any]] = []
    for hop in range(1, req["num_hops"] + 1):
        if not frontier:
            break
        marks = ", ".join("?" for _ in frontier)
        edges = conn.execute(
            "SELECT id, source_id, target_id, relation_type, opposite_relation_type"
            f" FROM relations WHERE source_id IN ({marks}) OR target_id IN ({marks})"
            " ORDER BY seq",
            [*frontier, *frontier],
        ).fetchall()
        next_frontier: list[str] = []
        frontier_set = set(frontier)
        steps = []
        for relation_id, source, target, label, opposite in edges:
            if source in frontier_set and target not in seen:
                steps.append((relation_id, source, target, label))
            if target in frontier_set and source not in seen:
                steps.append((relation_id, target, source, opposite))
        records = _visible_memories(conn, [step[2] for step in steps], req, now)
        for relation_id, via, other, label in steps:
            if other in seen or other not in records:
                continue
            seen.add(other)
            next_frontier.append(other)
            found.append({
                "record": records[other],
                "relation_id": relation_id,
                "relation_type": label,
                "via_record_id": via,
                "hops": hop,
            })
            if len(found) >= req["max_linked_results"]:
                return found
        frontier = next_frontier
    return found


def _visible_memories(
    conn: Any, ids: list[str], req: dict[str, Any], now: str
) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    sql = (
        f"SELECT {RECORD_COLUMNS} FROM records WHERE id_space = 'memory'"
        f" AND id IN ({', '.join('?' for _ in ids)}) AND (expires_at IS NULL OR expires_at > ?)"
    )
    if not req["include_invalid"]:
        sql += " AND status = 'VALID'"
    rows = conn.execute(sql, [*ids, now]).fetchall()
    return {row[1]: row_to_record(row) for row in rows}
