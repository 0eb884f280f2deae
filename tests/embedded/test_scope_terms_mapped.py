"""A fresh store object scores a scope's first keyword search from the vector file, exactly.

The record cache keeps each record's keyword terms (``record_terms``) and the vector file
holds them, grouped like the vectors (user, then thread), with their vocabulary. A store
object opened on a file another one wrote maps them: its first KEYWORD or HYBRID search of a
scope reads no row and cuts no record's text, and returns exactly (ids and distances to the
last bit) what a store that read every row from SQLite (``vector_file=False``) returns, in
Chinese, Korean, French and English, also after other writers changed rows the file does
not hold. Expected results come from that SQLite-only store.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from oracleagentmemory.stores.embedded import (
    EmbeddedBackend,
    changelog,
    record_terms,
    vector_file,
)
from oracleagentmemory.stores.embedded.record_cache import RecordCache
from tests.embedded.test_scope_keywords import QUERIES, every_text, keyword, memory, vector
from tests.embedded.test_vector_file import no_full_reload

pytestmark = pytest.mark.skipif(vector_file.path_for("x.db") is None,
                                reason="no vector file on this platform")
USERS = ("u1", "u2", "u3")
SCOPES: list[dict[str, str]] = [
    {"user": "u1"}, {"user": "u2", "thread": "u2-t0"}, {"thread": "u3-t1"}, {"agent": "a1"},
    {"user": "u3", "agent": "a1"}, {"user": "nobody"}]


@pytest.fixture(autouse=True)
def small_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Write the file for any size and at every close (in this module only)."""
    monkeypatch.setattr(vector_file, "MIN_RECORDS", 1)
    monkeypatch.setattr(vector_file, "REFRESH_CHANGES", 1)


def results(store: EmbeddedBackend) -> list[list[tuple[str, float]]]:
    """(id, distance) of a KEYWORD and a HYBRID search per scope and query."""
    out = []
    for scope in SCOPES:
        for query in QUERIES:
            for strategy in ("KEYWORD", "HYBRID"):
                hits = store.search({
                    "query_text": query, "query_vector": vector(query), "strategy": strategy,
                    "max_results": 100, "scope": {f"{name}_id": {"value": value, "exact": True}
                                                  for name, value in scope.items()}})
                out.append([(hit["record"]["id"], hit["distance"]) for hit in hits])
    return out


def reference(path: Path) -> list[list[tuple[str, float]]]:
    store = EmbeddedBackend(path, vector_file=False)
    try:
        return results(store)
    finally:
        store.close()


def from_file(path: Path) -> RecordCache | None:
    """A cache holding exactly what the vector file holds, or None when it is not used."""
    cache = RecordCache(4, str(path))
    conn = sqlite3.connect(path)
    try:
        return cache if cache._adopt_file(conn, changelog.state(conn)[1]) else None
    finally:
        conn.close()


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """A store of every text for three users whose vector file a first search wrote."""
    location = tmp_path / "store.db"
    store = EmbeddedBackend(location, embedding_dimension=4)
    store.write_records(every_text(USERS))
    results(store)
    store.close()
    assert Path(f"{location}.vectors").exists()
    return location


@pytest.fixture
def cut_texts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every record text the record cache cuts into terms."""
    texts: list[str] = []
    real = record_terms.RecordTerms.add

    def spy(self: record_terms.RecordTerms, batch: Any) -> Any:
        texts.extend(batch)
        return real(self, batch)

    monkeypatch.setattr(record_terms.RecordTerms, "add", spy)
    yield texts


def test_a_fresh_store_scores_from_the_file_as_one_reading_sqlite(
        store_path: Path, monkeypatch: pytest.MonkeyPatch, cut_texts: list[str]) -> None:
    want = reference(store_path)
    cut_texts.clear()
    no_full_reload(monkeypatch)
    store = EmbeddedBackend(store_path)
    assert results(store) == want  # ids and distances, exactly
    assert cut_texts == []  # no record's text read or cut: the terms came from the file
    store.close()


def test_rows_changed_since_the_file_are_cut_and_scored_with_the_rest(
        store_path: Path, monkeypatch: pytest.MonkeyPatch, cut_texts: list[str]) -> None:
    writer = EmbeddedBackend(store_path, vector_file=False)
    writer.write_records([memory("new-fr", "Le marché aux puces de Zanzibar", user="u1"),
                          memory("new-zh", "台北的夜市很熱鬧", user="u2", thread="u2-t0"),
                          memory("new-ko", "서울의 정부 청사", user="u3", thread="u3-t1")])
    writer.update_record("u1-en1", ["memory"], {"content": "The train to Zanzibar"})
    writer.delete_records(["u3-ko1", "u1-fr3"], ["memory"])
    writer.close()
    raw = sqlite3.connect(store_path)  # a writer that is no store: the triggers log it
    with raw:
        raw.execute("UPDATE records SET user_id = 'u3' WHERE id = 'u2-zh0'")
    raw.close()
    want = reference(store_path)
    cut_texts.clear()
    no_full_reload(monkeypatch)
    store = EmbeddedBackend(store_path)
    assert results(store) == want
    assert len(cut_texts) == 5  # the rows changed since the file (the deleted are gone)
    store.close()


def test_a_file_of_another_format_is_read_again_from_sqlite_and_rewritten(
        store_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file of format 2 (no terms) is not read: the first search reads SQLite and writes
    a file of the current format, which the next store object uses."""
    want = reference(store_path)
    monkeypatch.setattr(vector_file, "FORMAT", 2)
    store = EmbeddedBackend(store_path)
    store.search({"query_vector": vector("x")})  # reads SQLite, writes a "format 2" file
    store.close()
    monkeypatch.undo()
    monkeypatch.setattr(vector_file, "MIN_RECORDS", 1)
    assert from_file(store_path) is None
    store = EmbeddedBackend(store_path)
    assert results(store) == want
    store.close()
    assert from_file(store_path) is not None
    no_full_reload(monkeypatch)
    store = EmbeddedBackend(store_path)
    assert results(store) == want
    store.close()


def test_the_file_keeps_no_word_of_a_deleted_record(store_path: Path) -> None:
    store = EmbeddedBackend(store_path)
    store.write_records([memory("secret", "Xylophonist Quagmire 密碼", user="u1")])
    store.search({"query_text": "xylophonist", "strategy": "KEYWORD",
                  "scope": {"user_id": {"value": "u1", "exact": True}}})
    store.close()
    assert b"xylophonist" in Path(f"{store_path}.vectors").read_bytes()
    store = EmbeddedBackend(store_path)
    store.delete_records(["secret"], ["memory"])
    store.search({"query_vector": vector("x")})
    store.close()
    written = Path(f"{store_path}.vectors").read_bytes()
    assert b"xylophonist" not in written and b"quagmire" not in written
    assert "密碼".encode() not in written
    assert from_file(store_path) is not None


def test_a_damaged_vocabulary_is_not_used(store_path: Path) -> None:
    target = Path(f"{store_path}.vectors")
    data = bytearray(target.read_bytes())
    at = data.index(b"boston")
    data[at] ^= 0x20  # "Boston": still a term, another one
    target.write_bytes(bytes(data))
    assert from_file(store_path) is None
    want = reference(store_path)
    store = EmbeddedBackend(store_path)
    assert results(store) == want
    store.close()
    assert from_file(store_path) is not None


def test_the_terms_of_a_user_or_thread_are_one_run_of_the_file(store_path: Path) -> None:
    """A user-scoped search reads its terms as one view of the mapped file: no copy."""
    cache = from_file(store_path)
    assert cache is not None
    live = np.flatnonzero(cache.live[: cache.size])
    for user in USERS:
        for thread in (None, f"{user}-t0", f"{user}-t1"):
            mask = cache.scope[0, live] == cache.code(user)
            if thread is not None:
                mask &= cache.scope[2, live] == cache.code(thread)
            slots = live[mask]
            order = np.lexsort((cache.term_count[slots], cache.term_start[slots]))
            terms, ends = cache.terms.read(cache.term_start[slots][order],
                                           cache.term_count[slots][order])
            assert np.shares_memory(terms, cache.terms.file_terms), (user, thread)
            assert int(ends[-1]) == int(cache.term_count[slots].sum()) > 0


def test_the_header_names_the_terms_and_the_vocabulary(store_path: Path) -> None:
    head = Path(f"{store_path}.vectors").read_bytes()[:vector_file.HEADER_BYTES]
    header = json.loads(head[16:16 + int.from_bytes(head[8:12], "little")])
    assert header["format"] == 4
    cache = from_file(store_path)
    assert isinstance(cache, RecordCache)
    assert header["scope_codes"] == len(cache._ids)
    assert header["terms"] == int(cache.term_count[: cache.size].sum())
    assert header["vocabulary"] == len(cache.terms.table)


def _header(path: Path) -> dict[str, Any]:
    head = path.read_bytes()[:vector_file.HEADER_BYTES]
    return dict(json.loads(head[16:16 + int.from_bytes(head[8:12], "little")]))


def _terms_at(path: Path) -> int:
    """Where the file's term numbers begin."""
    header = _header(path)
    _, table_at = vector_file._metadata_layout(
        header["scope_at"] + header["scope_bytes"], header["capacity"],
        header["metadata_columns"])
    parts, _ = vector_file._terms_layout(table_at + header["metadata_bytes"],
                                         vector_file._term_counts(
                                             header["terms"], header["vocabulary"],
                                             header["vocabulary_bytes"])
                                         | vector_file._user_counts(header["scope_codes"],
                                                                    header["size"]))
    return parts["terms"][0]


@pytest.mark.parametrize("damage", ["run", "number"])
def test_damaged_runs_or_term_numbers_are_not_trusted(
        store_path: Path, damage: str) -> None:
    """Parts no CRC covers (a slot's run, the term numbers): what cannot be is caught by
    the first search that reads it, which reads SQLite again; the file is written anew."""
    target = Path(f"{store_path}.vectors")
    data = bytearray(target.read_bytes())
    if damage == "run":  # the first slot's run starts far past the file's terms
        at = _header(target)["offsets"]["term_start"][0]
        data[at:at + 8] = (1 << 40).to_bytes(8, "little")
    else:  # the first record's first term: a number no vocabulary holds
        at = _terms_at(target)
        data[at:at + 4] = (2**31 - 1).to_bytes(4, "little")
    target.write_bytes(bytes(data))
    want = reference(store_path)
    store = EmbeddedBackend(store_path)
    assert results(store) == want
    store.close()
    cache = from_file(store_path)
    assert cache is not None
    live = np.flatnonzero(cache.live[: cache.size])
    terms, _ = cache.terms.read(cache.term_start[live], cache.term_count[live])
    assert int(terms.max()) < len(cache.terms.table)


def test_damaged_terms_a_closing_store_would_copy_remove_the_file(
        store_path: Path) -> None:
    """A store closing with terms mapped from a damaged file it never searched does not
    write them on into a new file: it removes the file, and the next store reads SQLite."""
    target = Path(f"{store_path}.vectors")
    data = bytearray(target.read_bytes())
    at = _terms_at(target)
    data[at:at + 4] = (2**31 - 1).to_bytes(4, "little")
    target.write_bytes(bytes(data))
    store = EmbeddedBackend(store_path)
    store.write_records([memory("late", "Boston late", user="u1")])  # the file lags behind
    store.search({"query_vector": vector("x")})  # vectors only: no term read
    store.close()
    assert not target.exists()
    want = reference(store_path)
    store = EmbeddedBackend(store_path)
    assert results(store) == want
    store.close()


def test_each_scope_scores_as_fts5_does_over_the_scope_alone(
        store_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An expected value the mapped path has no part in: FTS5's own bm25 in a store that
    holds the scope's records alone (its statistics are then the scope's), in the four
    languages."""
    from oracleagentmemory.stores.embedded import scope_keywords

    records = every_text(USERS)
    store = EmbeddedBackend(store_path)
    for number, scope in enumerate(SCOPES):
        inside = [record for record in records
                  if all(record[f"{name}_id"] == value for name, value in scope.items())]
        alone = EmbeddedBackend(tmp_path / f"alone{number}.db", embedding_dimension=4,
                                vector_file=False)
        alone.write_records(inside)
        for query in QUERIES:
            mapped = keyword(store, query, **scope)
            with monkeypatch.context() as patch:
                patch.setattr(scope_keywords, "MAX_SCOPE_RECORDS", 0)  # FTS5 answers
                by_fts5 = keyword(alone, query, **scope)
            assert [r for r, _ in mapped] == [r for r, _ in by_fts5], (scope, query)
            assert [d for _, d in mapped] == pytest.approx([d for _, d in by_fts5],
                                                           rel=1e-12), (scope, query)
        alone.close()
    store.close()


def test_a_damaged_run_met_while_packing_the_terms_is_not_trusted(
        store_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Catching up with writes packs the process's term array, which reads every live
    record's run: a damaged one found there is handled as in a search."""
    monkeypatch.setattr(record_terms, "MIN_GARBAGE", 0)
    target = Path(f"{store_path}.vectors")
    data = bytearray(target.read_bytes())
    at = _header(target)["offsets"]["term_start"][0]
    data[at:at + 8] = (1 << 40).to_bytes(8, "little")
    target.write_bytes(bytes(data))
    store = EmbeddedBackend(store_path)
    store.search({"query_vector": vector("x")})  # the file adopted, no term read
    store.update_record("u2-en1", ["memory"], {"content": "Zanzibar harbour"})
    store.search({"query_vector": vector("x")})
    store.delete_records(["u2-en1"], ["memory"])
    store.search({"query_vector": vector("x")})  # the rewritten terms released: packed
    got = results(store)
    store.close()
    assert got == reference(store_path)
