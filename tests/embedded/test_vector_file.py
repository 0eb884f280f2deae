"""The vector file beside a store file: used only when it agrees with SQLite, crash-safe.

The reference for every comparison is a cache loaded from SQLite alone (``vector_file=False``),
and search results of a store without the file. Crash consistency is tested by killing a
child process with SIGKILL at each named step (``vector_file.FAULT_VARIABLE``) or in the
middle of a SQLite write transaction, then opening the file here.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from oracleagentmemory.stores.embedded import (
    EmbeddedBackend,
    changelog,
    metadata_columns,
    record_cache,
    vector_file,
)
from oracleagentmemory.stores.embedded.record_cache import RecordCache
from tests.embedded import test_search_cache

pytestmark = pytest.mark.skipif(vector_file.path_for("x.db") is None,
                                reason="no vector file on this platform")
DIM = 8
USERS = ("u1", "u2", "u3")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def small_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Write the file for any size and at every close (in this module only)."""
    monkeypatch.setattr(vector_file, "MIN_RECORDS", 1)
    monkeypatch.setattr(vector_file, "REFRESH_CHANGES", 1)


# Every cache-coherence test of test_search_cache runs here again, now with the file
# written at each reload and close and read by every new store object.
globals().update({name: value for name, value in vars(test_search_cache).items()
                  if name.startswith("test_") or name == "path"})


def vec(i: int) -> list[float]:
    return np.random.default_rng(i).standard_normal(DIM).astype(np.float32).tolist()


def records(start: int, stop: int, prefix: str = "m") -> list[dict[str, Any]]:
    """Mixed records: three users, some threads, a few without vectors or with a TTL."""
    out: list[dict[str, Any]] = []
    for i in range(start, stop):
        item: dict[str, Any] = {
            "record_type": ("memory", "fact", "message")[i % 3], "id": f"{prefix}{i}",
            "user_id": USERS[i % 3], "agent_id": f"a{i % 2}", "thread_id": f"t{i % 7}",
            "content": f"record number {i}",
        }
        if i % 11:
            item["embedding"] = vec(i)
        if i % 13 == 0:
            item["ttl_days"] = 30
        if i % 5:
            item["metadata"] = {"topic": ("food", "work", 3, 3.0, True)[i % 5],
                                "tags": [f"t{i % 4}", f"t{i % 6}"]}
            if i % 17 == 0:
                item["metadata"] = {"tags": {"nested": i % 3}}
        out.append(item)
    return out


FILTERS: list[dict[str, Any]] = [
    {"topic": "food"}, {"topic": 3}, {"topic": {"$not": "work"}},
    {"tags": {"$array_contains": "t1"}}, {"tags": {"nested": 2}},
]


def filtered(store: EmbeddedBackend) -> list[list[str]]:
    """Results of filtered searches (each builds or uses the filter keys' columns)."""
    out = []
    for i, metadata_filter in enumerate(FILTERS):
        hits = store.search({"query_vector": vec(2000 + i), "max_results": 20,
                             "metadata_filter": metadata_filter,
                             "scope": {"user_id": {"value": USERS[i % 3], "exact": True}}})
        out.append([hit["record"]["id"] for hit in hits])
    return out


def metadata_state(cache: RecordCache) -> dict[str, dict[int, tuple]]:
    """key -> seq -> what the key's column holds for each live slot."""
    return {column.key: {int(cache.seq[slot]): column.token(slot)
                         for slot in np.flatnonzero(cache.live[: cache.size]).tolist()}
            for column in cache.metadata.columns}


def state(cache: RecordCache) -> tuple[dict[int, tuple], dict[int, np.ndarray]]:
    """(seq -> type, scope strings, status, expiry, has vector, keyword terms; seq -> unit
    vector)."""
    names = {code: value for value, code in cache._ids.items()}
    rows: dict[int, tuple] = {}
    vectors: dict[int, np.ndarray] = {}
    for slot in np.flatnonzero(cache.live[: cache.size]).tolist():
        seq = int(cache.seq[slot])
        rows[seq] = (int(cache.type_code[slot]),
                     tuple(names[int(code)] for code in cache.scope[:, slot]),
                     bool(cache.valid[slot]), bytes(cache.expires[slot]),
                     bool(cache.has_vector[slot]), terms_of(cache, slot))
        if cache.has_vector[slot]:
            vectors[seq] = np.array(cache.vectors[cache.row[slot]])
    return rows, vectors


def terms_of(cache: RecordCache, slot: int) -> tuple[bytes, ...]:
    """The slot's keyword terms, spelled out."""
    numbers, _ = cache.terms.read(cache.term_start[slot:slot + 1],
                                  cache.term_count[slot:slot + 1])
    return tuple(cache.terms.table.terms(numbers))


def assert_same_state(got: RecordCache, want: RecordCache) -> None:
    got_rows, got_vectors = state(got)
    want_rows, want_vectors = state(want)
    assert got_rows == want_rows
    assert got_vectors.keys() == want_vectors.keys()
    for seq, vector in want_vectors.items():
        np.testing.assert_allclose(got_vectors[seq], vector, rtol=0, atol=1e-6)


def reference(path: Path, distances: bool = False) -> tuple[RecordCache, list[list[Any]]]:
    """The cache and the search results (``searches``) of a store reading SQLite alone."""
    store = EmbeddedBackend(path, vector_file=False)
    results = searches(store, distances)
    cache = store._cache
    store.close()
    return cache, results


def searches(store: EmbeddedBackend, distances: bool = False) -> list[list[Any]]:
    """Each user's results and the unscoped ones: ids (with ``distances``, id and distance)."""
    out = []
    for i, user in enumerate((None, *USERS)):
        request: dict[str, Any] = {"query_vector": vec(1000 + i), "max_results": 15}
        if user is not None:
            request["scope"] = {"user_id": {"value": user, "exact": True}}
        out.append([(hit["record"]["id"], round(hit["distance"], 5)) if distances
                    else hit["record"]["id"] for hit in store.search(request)])
    return out


def epoch_of(path: Path) -> str | None:
    conn = sqlite3.connect(path)
    try:
        return changelog.state(conn)[1]
    finally:
        conn.close()


def from_file(path: Path) -> RecordCache | None:
    """A cache holding exactly what the vector file holds (no catching up), or None when
    there is no usable file that holds a state of this database."""
    cache = RecordCache(DIM, str(path))
    conn = sqlite3.connect(path)
    try:
        return cache if cache._adopt_file(conn, changelog.state(conn)[1]) else None
    finally:
        conn.close()


def no_full_reload(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: RecordCache, conn: Any) -> None:
        raise AssertionError("the cache read every row instead of the vector file")

    monkeypatch.setattr(RecordCache, "_full_reload", refuse)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """A store of 300 records whose vector file was written by a first search."""
    location = tmp_path / "store.db"
    store = EmbeddedBackend(location, embedding_dimension=DIM)
    store.write_records(records(0, 300))
    searches(store)
    store.close()
    assert Path(f"{location}.vectors").exists()
    return location


def vectors_of(path: Path) -> Path:
    return Path(f"{path}.vectors")


# -- the file is used, and agrees ---------------------------------------------------------


def test_a_new_store_searches_from_the_file_without_reading_every_row(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    want_cache, want = reference(store_path)
    no_full_reload(monkeypatch)
    store = EmbeddedBackend(store_path)
    assert searches(store) == want
    assert_same_state(store._cache, want_cache)
    store.close()


def test_changes_by_other_writers_are_caught_up_through_the_change_log(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = EmbeddedBackend(store_path, vector_file=False)
    writer.write_records(records(300, 340))
    writer.update_record("m5", ["fact", "memory", "message"], {"embedding": vec(5000)})
    writer.update_record("m7", ["fact", "memory", "message"], {"status": "INVALID"})
    writer.delete_records(["m8", "m9", "m299"], ["memory", "fact", "message"])
    writer.close()
    want_cache, want = reference(store_path)
    no_full_reload(monkeypatch)
    store = EmbeddedBackend(store_path)
    assert searches(store) == want
    assert_same_state(store._cache, want_cache)
    assert store._cache._file_version is not None
    store.close()


def test_appends_beyond_the_room_left_in_the_file_are_kept(store_path: Path) -> None:
    store = EmbeddedBackend(store_path)
    searches(store)
    capacity = store._cache.seq.shape[0]
    store.write_records(records(300, 300 + capacity))  # more than the file's spare room
    got = searches(store)
    store.close()
    want_cache, want = reference(store_path)
    assert got == want
    assert_same_state(from_file(store_path) or RecordCache(DIM), want_cache)


def test_close_writes_a_file_that_matches_sqlite(store_path: Path) -> None:
    store = EmbeddedBackend(store_path)
    searches(store)
    store.write_records(records(300, 320))
    store.delete_records(["m1"], ["fact", "memory", "message"])
    searches(store)
    store.close()
    want_cache, _ = reference(store_path)
    written = from_file(store_path)
    assert written is not None
    assert_same_state(written, want_cache)


def test_filter_columns_built_by_one_process_serve_the_next(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Columns built for metadata filters go into the file at close; a new store filters
    with them (after catching up with other writers) without reading every metadata."""
    store = EmbeddedBackend(store_path)
    filtered(store)
    store.delete_records(["m2", "m3"], ["fact", "memory", "message"])  # file compacts
    searches(store)
    store.close()
    writer = EmbeddedBackend(store_path, vector_file=False)
    writer.write_records(records(300, 330))
    writer.update_record("m6", ["fact", "memory", "message"], {"metadata": {"topic": "food"}})
    writer.update_record("m7", ["fact", "memory", "message"], {"metadata": None})
    writer.delete_records(["m8"], ["memory", "fact", "message"])
    want = filtered(writer)
    want_columns = metadata_state(writer._cache)
    writer.close()

    def refuse(self: RecordCache, conn: Any) -> None:
        raise AssertionError("the filter columns were built from every row again")

    monkeypatch.setattr(RecordCache, "metadata_rows", refuse)
    no_full_reload(monkeypatch)
    store = EmbeddedBackend(store_path)
    assert filtered(store) == want
    assert metadata_state(store._cache) == want_columns
    store.close()


def test_a_filter_column_with_a_code_that_stands_for_nothing_is_not_used(
        store_path: Path) -> None:
    """A code past the column's values (a damaged file) fails the first filter that reads
    the column (not the file's load, which does not read the columns): the cache is
    rebuilt from SQLite. (A code changed into another valid one is damage in place that no
    O(1) check sees; every hit is still checked against the filter on its SQLite row.)"""
    store = EmbeddedBackend(store_path)
    filtered(store)
    store.close()
    cache = from_file(store_path)
    assert cache is not None and cache.metadata.columns
    last = int(np.flatnonzero(cache.live[: cache.size])[-1])
    codes = cache.metadata.columns[0].codes
    at = codes.__array_interface__["data"][0] - cache.seq.__array_interface__["data"][0]
    offsets, _ = vector_file._layout(cache.seq.shape[0], DIM)
    position = offsets["seq"][0] + at + last * 4
    first = metadata_columns.FIRST_SCALAR
    new = first + len(cache.metadata.columns[0].values)
    del cache, codes
    with open(vectors_of(store_path), "r+b") as handle:
        handle.seek(position)
        handle.write(new.to_bytes(4, "little"))
    writer = EmbeddedBackend(store_path, vector_file=False)
    want = filtered(writer)
    want_columns = metadata_state(writer._cache)
    writer.close()
    store = EmbeddedBackend(store_path)
    assert not store._cache._distrusted  # the file was taken
    assert filtered(store) == want
    assert store._cache._distrusted  # and dropped by the filter that read the bad code
    assert metadata_state(store._cache) == want_columns
    store.close()


# -- the file is ignored when it does not provably agree ----------------------------------


def _flip(path: Path, offset: int) -> None:
    with open(path, "r+b") as handle:
        handle.seek(offset)
        byte = handle.read(1)
        handle.seek(offset)
        handle.write(bytes([byte[0] ^ 0xFF]))


def _header(path: Path) -> dict[str, Any]:
    """The vector file's header (its layout)."""
    head = vectors_of(path).read_bytes()[:vector_file.HEADER_BYTES]
    return dict(json.loads(head[16:16 + int.from_bytes(head[8:12], "little")]))


def _damage(path: Path, how: str) -> None:
    target = vectors_of(path)
    if how == "header":
        _flip(target, 40)
    elif how == "truncated":
        with open(target, "r+b") as handle:
            handle.truncate(target.stat().st_size - 1)
    elif how == "longer":
        with open(target, "ab") as handle:
            handle.write(b"\0")
    elif how == "scope table":
        _flip(target, _header(path)["scope_at"] + 1)
    elif how == "vocabulary":  # a byte of a term's UTF-8 ("record number i")
        _flip(target, target.read_bytes().rfind(b"number"))
    elif how == "not a vector file":
        target.write_bytes(b"hello" * 1000)


@pytest.mark.parametrize("how", ["header", "truncated", "longer", "scope table",
                                 "vocabulary", "not a vector file"])
def test_a_damaged_file_is_ignored_and_rewritten(store_path: Path, how: str) -> None:
    _damage(store_path, how)
    assert_read_again_and_rewritten(store_path)


def assert_read_again_and_rewritten(path: Path, distances: bool = False) -> None:
    """A store on the (damaged) file searches as one reading SQLite alone, holds what it
    holds, and the file it writes does too."""
    want_cache, want = reference(path, distances)
    store = EmbeddedBackend(path)
    assert searches(store, distances) == want
    assert_same_state(store._cache, want_cache)
    store.close()
    written = from_file(path)
    assert written is not None
    assert_same_state(written, want_cache)


@pytest.mark.parametrize("damage", ["a row past the vectors", "a negative row",
                                    "a vector's exponent"])
def test_a_damaged_vector_or_row_is_not_trusted(store_path: Path, damage: str) -> None:
    """Parts no CRC covers: a vector row that points outside the vectors failed every search
    of every process with an IndexError, and a damaged vector gave a distance of -3e36; now
    the search reads SQLite again and the file is written anew."""
    header = _header(store_path)
    row_at = header["offsets"]["row"][0]
    with open(vectors_of(store_path), "r+b") as handle:
        if damage == "a row past the vectors":
            handle.seek(row_at + 4 + 3)  # slot 1's row (m1 has a vector) gains 2**24
            handle.write(b"\x01")
        elif damage == "a negative row":
            handle.seek(row_at + 4 + 3)
            handle.write(b"\xff")
        else:  # the high byte of a component of every user's first vectors
            for user in range(len(USERS)):
                handle.seek(header["offsets"]["vectors"][0] + user * 100 * DIM * 4 + 3)
                handle.write(b"\x7f")
    assert_read_again_and_rewritten(store_path, distances=True)


def test_the_unit_vector_check_never_fails_a_search_on_vectors_the_cache_made(
        store_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the check ever wrong (here made so: any cosine past 0.05 is "damage"), the file
    store reloads from SQLite once and answers; vectors the cache normalised itself are not
    checked, so the reload cannot fail the same way and no error reaches the caller."""
    want_cache, want = reference(store_path, distances=True)
    monkeypatch.setattr(record_cache, "_MAX_COSINE", 0.05)
    store = EmbeddedBackend(store_path)
    assert searches(store, distances=True) == want
    assert store._cache._distrusted  # the file's vectors failed the check: read again
    assert_same_state(store._cache, want_cache)
    store.close()
    in_memory = EmbeddedBackend(":memory:", embedding_dimension=DIM)
    in_memory.write_records(records(0, 50))
    assert searches(in_memory)[0]
    assert not in_memory._cache._distrusted
    in_memory.close()


def test_a_damaged_row_met_while_catching_up_an_update_is_not_trusted(store_path: Path) -> None:
    """Another writer changed a record whose row in the file points outside the vectors:
    catching the change up wrote its vector there, an IndexError in every search."""
    with open(vectors_of(store_path), "r+b") as handle:
        handle.seek(_header(store_path)["offsets"]["row"][0] + 4 + 3)  # slot 1's row
        handle.write(b"\x01")
    other = EmbeddedBackend(store_path, vector_file=False)
    assert other.update_record("m1", ["fact"], {"embedding": vec(77)}) is not None
    other.close()
    assert_read_again_and_rewritten(store_path, distances=True)


def test_a_damaged_row_met_while_dropping_deleted_slots_is_not_trusted(tmp_path: Path) -> None:
    """Catching up many deletions packs the cache (its vectors moved by each slot's row): a
    row outside the vectors was an IndexError there, failing the search."""
    path = tmp_path / "many.db"
    writer = EmbeddedBackend(path, embedding_dimension=DIM)
    writer.write_records(records(0, 2400))
    searches(writer)
    writer.close()
    row_at = _header(path)["offsets"]["row"][0]
    with open(vectors_of(path), "r+b") as handle:
        handle.seek(row_at + 4 * 2399 + 3)  # the last slot's row (m2399 has a vector)
        handle.write(b"\x01")
    store = EmbeddedBackend(path)  # maps the file
    deleter = EmbeddedBackend(path, vector_file=False)
    assert deleter.delete_records([f"m{i}" for i in range(1300)],
                                  ["memory", "fact", "message"]) == 1300
    deleter.close()
    want_cache, want = reference(path)
    assert searches(store) == want
    assert_same_state(store._cache, want_cache)
    store.close()


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc/self/maps")
def test_a_reload_lets_go_of_the_file_it_had_mapped(store_path: Path) -> None:
    """After a full reload the cache kept the old file's map (and two descriptors) until its
    next vector search, so for good under keyword searches only, even once an erasure had
    unlinked the file."""
    def mapped() -> bool:
        return str(vectors_of(store_path)) in Path("/proc/self/maps").read_text()

    store = EmbeddedBackend(store_path)
    store.search({"query_text": "record", "strategy": "KEYWORD"})
    assert mapped()
    assert store.delete_cascade("user", USERS[0])["records"] > 0  # unlinks the file
    store.search({"query_text": "record", "strategy": "KEYWORD"})  # reloads from SQLite
    gc.collect()
    assert not mapped()
    store.close()


def test_a_file_written_by_another_store_object_holds_no_erased_value(tmp_path: Path) -> None:
    """delete_cascade removes the vector file at once, but another store object that had the
    user's records cached (in this process or another) wrote a new file at its close from
    its cache, whose scope ids and metadata values were never cut: the erased user's id and
    metadata were back on disk. A file now holds only the values its records hold."""
    path = tmp_path / "erase.db"
    marker, secret = "erased-user-9c1d", "secret-value-4e2b"
    writer = EmbeddedBackend(path, embedding_dimension=DIM)
    writer.write_records([{**record, "user_id": marker, "metadata": {"topic": secret}}
                          for record in records(0, 30, "x")] + records(30, 90))
    searches(writer)
    writer.close()
    side = vectors_of(path)
    assert marker.encode() in side.read_bytes()
    other = EmbeddedBackend(path, embedding_dimension=DIM)
    filtered(other)  # maps the file and builds the "topic" column, secret included
    eraser = EmbeddedBackend(path, embedding_dimension=DIM)
    assert eraser.delete_cascade("user", marker)["records"] == 30
    assert not side.exists()
    other.search({"query_vector": vec(5), "metadata_filter": {"tags": "t1"}})  # a new key
    other.close()  # its cache caught up through the change log, then wrote the file
    eraser.close()
    assert side.exists()
    held = side.read_bytes()
    assert marker.encode() not in held and secret.encode() not in held
    want_cache, want = reference(path)
    columns_from_sqlite = EmbeddedBackend(path, vector_file=False)
    filtered(columns_from_sqlite)
    columns_from_sqlite.search({"query_vector": vec(5), "metadata_filter": {"tags": "t1"}})
    want_columns = metadata_state(columns_from_sqlite._cache)
    columns_from_sqlite.close()
    written = from_file(path)
    assert written is not None
    assert_same_state(written, want_cache)
    assert set(want_columns) == {"topic", "tags"}
    assert metadata_state(written) == want_columns
    reopened = EmbeddedBackend(path)
    assert searches(reopened) == want
    reopened.close()


def test_a_file_whose_codes_mean_something_else_is_ignored(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file written by a version whose record types (or scope order) were coded
    differently is not read with this version's meanings."""
    from oracleagentmemory.stores.embedded import record_cache

    monkeypatch.setattr(record_cache, "_FILE_TAG", record_cache._FILE_TAG + ";other")
    assert from_file(store_path) is None
    want_cache, want = reference(store_path)
    store = EmbeddedBackend(store_path)
    assert searches(store) == want
    assert_same_state(store._cache, want_cache)
    store.close()
    assert from_file(store_path) is not None  # rewritten with the current meanings


def test_the_file_is_as_private_as_the_store_file(tmp_path: Path) -> None:
    location = tmp_path / "store.db"
    store = EmbeddedBackend(location, embedding_dimension=DIM)
    store.write_records(records(0, 50))
    os.chmod(location, 0o600)
    searches(store)
    store.close()
    assert vectors_of(location).stat().st_mode & 0o777 == 0o600


def test_a_file_of_a_recreated_schema_is_ignored(store_path: Path) -> None:
    old_epoch = epoch_of(store_path)
    store = EmbeddedBackend(store_path, embedding_dimension=DIM, schema_policy="RECREATE")
    store.write_records(records(500, 520))
    assert epoch_of(store_path) != old_epoch
    assert from_file(store_path) is None  # the file names the old epoch
    want_cache, want = reference(store_path)
    assert searches(store) == want
    assert_same_state(store._cache, want_cache)
    store.close()


def test_a_file_ahead_of_a_restored_backup_is_ignored(tmp_path: Path) -> None:
    location = tmp_path / "store.db"
    store = EmbeddedBackend(location, embedding_dimension=DIM)
    store.write_records(records(0, 100))
    store.close()
    backup = tmp_path / "backup.db"
    with sqlite3.connect(location) as source, sqlite3.connect(backup) as target:
        source.backup(target)
    store = EmbeddedBackend(location)
    store.write_records(records(100, 150))
    searches(store)  # the file now names a later version than the backup's
    store.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{location}{suffix}").unlink(missing_ok=True)
    backup.rename(location)
    want_cache, want = reference(location)
    store = EmbeddedBackend(location)
    assert searches(store) == want
    assert_same_state(store._cache, want_cache)
    store.close()


def test_a_restored_backup_that_diverged_is_rebuilt(tmp_path: Path) -> None:
    """Same epoch, the file's version reached again by other writes: the sampled rows
    differ from SQLite, so the file is not used."""
    location = tmp_path / "store.db"
    EmbeddedBackend(location, embedding_dimension=DIM).close()
    backup = tmp_path / "backup.db"
    with sqlite3.connect(location) as source, sqlite3.connect(backup) as target:
        source.backup(target)
    store = EmbeddedBackend(location)
    store.write_records(records(0, 200))
    searches(store)
    store.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{location}{suffix}").unlink(missing_ok=True)
    backup.rename(location)
    store = EmbeddedBackend(location, vector_file=False)
    store.write_records(records(1000, 1200, prefix="other"))  # same seqs, other records
    store.close()
    want_cache, want = reference(location)
    store = EmbeddedBackend(location)
    assert searches(store) == want
    assert_same_state(store._cache, want_cache)
    store.close()


# -- where no file is used ----------------------------------------------------------------


def test_memory_stores_and_the_opt_out_write_no_file(tmp_path: Path) -> None:
    assert vector_file.path_for(":memory:") is None
    memory = EmbeddedBackend(":memory:", embedding_dimension=DIM)
    memory.write_records(records(0, 50))
    assert searches(memory)[0]
    memory.close()
    location = tmp_path / "plain.db"
    store = EmbeddedBackend(location, embedding_dimension=DIM, vector_file=False)
    store.write_records(records(0, 50))
    searches(store)
    store.close()
    assert not vectors_of(location).exists()


def test_without_posix_mmap_semantics_no_file_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows (no rename over a mapped file) falls back to reading SQLite."""
    monkeypatch.setattr(vector_file.os, "name", "nt")
    assert vector_file.path_for(str(tmp_path / "store.db")) is None
    location = tmp_path / "store.db"
    store = EmbeddedBackend(location, embedding_dimension=DIM)
    store.write_records(records(0, 50))
    got = searches(store)
    store.close()
    monkeypatch.undo()
    assert not vectors_of(location).exists()
    assert got == reference(location)[1]


def test_a_store_whose_file_cannot_be_written_still_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: Any) -> None:
        raise PermissionError("read-only directory")

    monkeypatch.setattr(vector_file.os, "replace", refuse)
    location = tmp_path / "store.db"
    store = EmbeddedBackend(location, embedding_dimension=DIM)
    store.write_records(records(0, 50))
    got = searches(store)
    store.close()
    assert got == reference(location)[1]
    assert sorted(path.name for path in tmp_path.iterdir()
                  if ".vectors" in path.name) == []


def test_files_left_by_killed_writers_are_removed_by_the_next_writer(store_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    leftover = Path(f"{vectors_of(store_path)}.{dead.stdout.strip()}-00000000.tmp")
    leftover.write_bytes(b"partial")
    store = EmbeddedBackend(store_path)
    store.write_records(records(300, 310))
    searches(store)
    store.close()
    assert not leftover.exists()


# -- SIGKILL at every step ----------------------------------------------------------------

CHILD = textwrap.dedent("""
    import os, signal, sys
    import numpy as np
    from oracleagentmemory.stores.embedded import EmbeddedBackend, vector_file
    from tests.embedded.test_vector_file import filtered, records, searches, vec
    vector_file.MIN_RECORDS = 1
    vector_file.REFRESH_CHANGES = 1
    location, scenario = sys.argv[1], sys.argv[2]
    store = EmbeddedBackend(location)
    searches(store)  # "rebuild": reads every row and writes the file
    if scenario == "sqlite-write":
        calls = []
        def kill():
            calls.append(1)
            if len(calls) > 50:
                os.kill(os.getpid(), signal.SIGKILL)
        store._conn.set_progress_handler(kill, 100)
        store.write_records(records(300, 800))
    if scenario == "refresh":
        store.write_records(records(300, 360))
        store.update_record("m4", ["fact", "memory", "message"], {"embedding": vec(4000)})
        store.update_record("m6", ["fact", "memory", "message"], {"status": "INVALID"})
        store.delete_records(["m10", "m12", "m299"], ["memory", "fact", "message"])
        searches(store)
        filtered(store)  # the file written at close holds the filter columns too
    if scenario.startswith("race"):
        worker = int(scenario[4:])
        for round_ in range(5):
            start = 1000 + worker * 100 + round_ * 20
            store.write_records(records(start, start + 20, prefix=f"w{worker}-"))
            store.delete_records([f"m{worker * 5 + round_}"], ["memory", "fact", "message"])
            searches(store)
            store._cache._save()  # every round rewrites the file, racing the others
    store.close()  # "refresh": writes the file again
    """)

REBUILD_STEPS = ("cache-reload", *vector_file.FAULT_STEPS)


def _run_child(location: Path, scenario: str, step: str | None) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)])}
    env.pop(vector_file.FAULT_VARIABLE, None)
    if step is not None:
        env[vector_file.FAULT_VARIABLE] = step
    done = subprocess.run([sys.executable, "-c", CHILD, str(location), scenario], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode in (0, -signal.SIGKILL), done.stderr
    return done.returncode


def _check_after_crash(location: Path, known: dict[int, RecordCache]) -> None:
    """The store opens, searches like SQLite says, and its file (if any) holds exactly the
    state of one version SQLite went through."""
    on_disk = from_file(location)
    if on_disk is not None:
        assert on_disk._version in known
        assert_same_state(on_disk, known[on_disk._version])
    want_cache, want = reference(location)
    writer = EmbeddedBackend(location, vector_file=False)
    want_filtered, want_columns = filtered(writer), metadata_state(writer._cache)
    writer.close()
    store = EmbeddedBackend(location)
    assert searches(store) == want
    assert_same_state(store._cache, want_cache)
    assert filtered(store) == want_filtered
    assert metadata_state(store._cache) == want_columns
    store.close()
    written = from_file(location)
    assert written is not None
    assert_same_state(written, want_cache)
    assert metadata_state(written) == want_columns


def _version(location: Path) -> int:
    conn = sqlite3.connect(location)
    try:
        return changelog.state(conn)[0]
    finally:
        conn.close()


@pytest.mark.parametrize("step", REBUILD_STEPS)
def test_sigkill_while_rebuilding_the_file(tmp_path: Path, step: str) -> None:
    location = tmp_path / "store.db"
    store = EmbeddedBackend(location, embedding_dimension=DIM, vector_file=False)
    store.write_records(records(0, 300))
    store.close()
    assert _run_child(location, "rebuild", step) == -signal.SIGKILL
    _check_after_crash(location, {_version(location): reference(location)[0]})


@pytest.mark.parametrize("step", vector_file.FAULT_STEPS)
def test_sigkill_while_refreshing_the_file(store_path: Path, step: str) -> None:
    before = {_version(store_path): reference(store_path)[0]}
    assert _run_child(store_path, "refresh", step) == -signal.SIGKILL
    _check_after_crash(store_path, {**before, _version(store_path): reference(store_path)[0]})


def test_sigkill_inside_a_sqlite_write_transaction(store_path: Path) -> None:
    before_version = _version(store_path)
    before = reference(store_path)[0]
    assert _run_child(store_path, "sqlite-write", None) == -signal.SIGKILL
    assert _version(store_path) == before_version  # the transaction rolled back
    _check_after_crash(store_path, {before_version: before})


def test_processes_rewriting_the_file_at_once_leave_one_that_agrees(tmp_path: Path) -> None:
    """Three processes rebuild, write and rewrite the file of one store at the same time
    (each rename replaces whole files): whatever file is left holds one version SQLite
    went through, and a new store searches like SQLite says."""
    location = tmp_path / "store.db"
    store = EmbeddedBackend(location, embedding_dimension=DIM, vector_file=False)
    store.write_records(records(0, 300))
    store.close()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)])}
    env.pop(vector_file.FAULT_VARIABLE, None)
    workers = [subprocess.Popen([sys.executable, "-c", CHILD, str(location), f"race{worker}"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True) for worker in range(3)]
    for worker in workers:
        _, errors = worker.communicate(timeout=120)
        assert worker.returncode == 0, errors
    on_disk = from_file(location)
    assert on_disk is not None
    assert on_disk._version <= _version(location)
    want_cache, want = reference(location)
    if on_disk._version == _version(location):
        assert_same_state(on_disk, want_cache)
    store = EmbeddedBackend(location)
    assert searches(store) == want
    assert_same_state(store._cache, want_cache)
    store.close()
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]


def test_the_child_completes_without_a_fault(store_path: Path) -> None:
    """The crash tests' child does what they assume when nobody kills it."""
    assert _run_child(store_path, "refresh", None) == 0
    want_cache, _ = reference(store_path)
    written = from_file(store_path)
    assert written is not None and written._version == _version(store_path)
    assert_same_state(written, want_cache)


def test_the_vectors_of_each_scope_are_one_run_of_the_file(store_path: Path) -> None:
    """A user-scoped search reads one contiguous run of the mapped file (and a thread's is a
    run inside its user's), so it touches only its scope's pages; asking the kernel to read
    a run ahead changes no vector."""
    cache = from_file(store_path)
    assert cache is not None and cache._prefetch is not None
    live = np.flatnonzero(cache.live[: cache.size])
    for user in USERS:
        for thread in (None, *(f"t{i}" for i in range(7))):
            mask = cache.scope[0, live] == cache.code(user)
            if thread is not None:
                mask &= cache.scope[2, live] == cache.code(thread)
            rows = np.sort(cache.row[live[mask]])
            assert rows.shape[0] > 1
            assert rows[-1] - rows[0] + 1 == rows.shape[0], (user, thread)
    assert sorted(cache.row[: cache.size].tolist()) == list(range(cache.size))
    before = np.array(cache.vectors[: cache.size])
    cache._prefetch.rows(0, cache.size)
    cache._prefetch.rows(5, 5)
    np.testing.assert_array_equal(cache.vectors[: cache.size], before)


# -- review: defects found after the first version ----------------------------------------


def _diverge(location: Path) -> None:
    """Give SQLite another history at the file's version (as a restored backup that went on
    differently has): other rows, and another mark logged at that version."""
    conn = sqlite3.connect(location, isolation_level=None)
    try:
        conn.execute("DROP TRIGGER record_changes_update")
        conn.execute("UPDATE records SET status = 'INVALID' WHERE user_id = 'u1'")
        conn.executescript(changelog.DDL)
        conn.execute("UPDATE record_changes SET mark = randomblob(8) WHERE version ="
                     " (SELECT seq FROM sqlite_sequence WHERE name = 'record_changes')")
    finally:
        conn.close()


def test_a_check_that_fails_with_an_error_is_run_again(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first check of the file against SQLite (when the store opens) fails with an error
    (an I/O error, an interrupt): the open goes on without the file, and the first search
    checks again, never trusting the file unchecked."""
    _diverge(store_path)
    want_cache, want = reference(store_path)
    real, calls = changelog.mark_at, []

    def flaky(conn: Any, version: int) -> bytes | None:
        calls.append(1)
        if len(calls) == 1:
            raise sqlite3.OperationalError("disk I/O error")
        return real(conn, version)

    monkeypatch.setattr(changelog, "mark_at", flaky)
    store = EmbeddedBackend(store_path)
    assert calls == [1] and store._cache._version < 0  # not adopted
    assert searches(store) == want
    assert len(calls) > 1
    assert_same_state(store._cache, want_cache)
    store.close()
    written = from_file(store_path)
    assert written is not None
    assert_same_state(written, want_cache)


def test_the_write_ahead_log_of_a_store_opened_through_a_symlink_is_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite resolves symbolic links and keeps the WAL beside the real file: that WAL is
    the one that must be on disk before a file names its version."""
    (tmp_path / "real").mkdir()
    (tmp_path / "link").mkdir()
    real = tmp_path / "real" / "store.db"
    EmbeddedBackend(real, embedding_dimension=DIM).close()
    link = tmp_path / "link" / "store.db"
    link.symlink_to(real)
    synced: list[str] = []
    real_open = vector_file.os.open

    def recording_open(name: Any, *args: Any, **kwargs: Any) -> int:
        descriptor = real_open(name, *args, **kwargs)
        synced.append(os.path.realpath(name))
        return descriptor

    store = EmbeddedBackend(link, embedding_dimension=DIM)
    store.write_records(records(0, 50))
    assert Path(f"{real}-wal").exists()
    monkeypatch.setattr(vector_file.os, "open", recording_open)
    searches(store)  # writes the vector file
    monkeypatch.undo()
    store.close()
    assert vectors_of(link).exists()
    assert os.path.realpath(f"{real}-wal") in synced


def test_a_writer_failing_with_another_error_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only an OSError: a MemoryError (or an interrupt) while writing removes the
    temporary file too; this process's own leftovers are never removed by its next writer,
    as another store object of it may be writing them."""
    def fail(*args: Any) -> None:
        raise MemoryError

    monkeypatch.setattr(vector_file, "_write_rows", fail)
    location = tmp_path / "store.db"
    store = EmbeddedBackend(location, embedding_dimension=DIM)
    store.write_records(records(0, 50))
    got = searches(store)
    store.close()
    monkeypatch.undo()
    assert got == reference(location)[1]
    assert [path.name for path in tmp_path.iterdir() if ".vectors" in path.name] == []


def test_delete_user_leaves_the_vector_file_at_once(tmp_path: Path) -> None:
    # After delete_user and close the side file still held the user's
    # id and vectors (rewritten only after a full reload or many changes, ids never pruned).
    path = tmp_path / "erase.db"
    marker = "erased-user-7f3a"
    store = EmbeddedBackend(path, embedding_dimension=DIM)
    store.write_records([{**record, "user_id": marker} for record in records(0, 30, "x")]
                        + records(30, 60))
    searches(store)
    store.close()
    side = Path(vector_file.path_for(str(path)))
    assert marker.encode() in side.read_bytes()
    store = EmbeddedBackend(path, embedding_dimension=DIM)
    searches(store)
    assert store.delete_cascade("user", marker)["records"] == 30
    assert not side.exists()  # gone when the call returns
    assert searches(store)  # the store still searches, from SQLite
    store.close()
    assert side.exists() and marker.encode() not in side.read_bytes()
    reopened = EmbeddedBackend(path, embedding_dimension=DIM)
    try:
        hits = reopened.search({"query_text": "", "query_vector": vec(1), "strategy": "VECTOR",
                                "scope": {"user_id": {"value": marker, "exact": True}}})
        assert hits == []
    finally:
        reopened.close()
