"""User-scoped searches served through the vector file's user index agree with a store that
reads SQLite alone, whatever sequence of writes, updates, deletions, erasures, expiry,
reopenings and file rewrites came before.

A seeded random walk drives two store objects on one file (each maps the file when it
opens, catches up through the change log, writes the file again when it closes) and,
after every step, compares searches of each with the same searches of a store opened with
``vector_file=False``. A record missing from a user's hits would otherwise be silent (hits
are re-checked against SQLite only for rows that should not be there), so the walk also
requires that no cache ever disagreed with SQLite (``distrust`` other than by an erasure)
and that each cache's slots of every user are those found by comparing every slot's
user."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend, vector_file
from oracleagentmemory.stores.embedded.record_cache import RecordCache
from oracleagentmemory.stores.embedded.user_slots import UserSlots
from tests.embedded import test_vector_file

pytestmark = pytest.mark.skipif(vector_file.path_for("x.db") is None,
                                reason="no vector file on this platform")
small_files = test_vector_file.small_files  # (fixture: a file for any size, at every close)

DIM = 6
TYPES = ["memory", "fact", "message"]
USERS = ("u0", "u1", "u2", "u3", None)
THREADS = ("t0", "t1", "t2")
AGENTS = ("a0", "a1")
WORDS = ("apple", "river", "stone", "lamp", "cloud", "tiger", "paper", "wind")
FILTERS: tuple[dict[str, Any] | None, ...] = (
    None, None, {"topic": "food"}, {"topic": {"$not": "work"}}, {"n": 1})


class Walk:
    """The random walk: its stores, the records alive, and how often the index served."""

    def __init__(self, location: Path, seed: int) -> None:
        self.location = location
        self.rng = np.random.default_rng(seed)
        self.now = datetime(2026, 1, 1, tzinfo=timezone.utc)
        self.reference = self._open(with_file=False)
        self.stores = [self._open(), self._open()]
        self.alive: dict[str, dict[str, Any]] = {}
        """id -> the record as last written (for updates and deletions)."""
        self.written = 0
        self.indexed = 0
        """Checks that found a cache using a file's index, with records appended since."""
        self.steps: list[tuple[float, Callable[[EmbeddedBackend], None]]] = [
            (30, self.write), (10, self.replace), (12, self.update), (10, self.delete),
            (5, self.reuse_newest_seqs), (4, self.reorder_slots), (1.5, self.erase),
            (4.5, self.expire), (10, self.reopen_one), (13, lambda store: None)]

    def _open(self, with_file: bool = True) -> EmbeddedBackend:
        return EmbeddedBackend(self.location, embedding_dimension=DIM,
                               clock=lambda: self.now, vector_file=with_file)

    def vector(self) -> list[float]:
        return self.rng.standard_normal(DIM).astype(np.float32).tolist()

    def pick(self, values: Any) -> Any:
        return values[int(self.rng.integers(len(values)))]

    def text(self, words: int) -> str:
        return " ".join(self.pick(WORDS) for _ in range(words))

    def new_records(self, most: int) -> list[dict[str, Any]]:
        out = []
        for _ in range(int(self.rng.integers(1, most + 1))):
            self.written += 1
            item: dict[str, Any] = {
                "record_type": self.pick(TYPES), "id": f"r{self.written}",
                "user_id": self.pick(USERS), "agent_id": self.pick(AGENTS),
                "thread_id": self.pick(THREADS), "content": self.text(3),
                "metadata": {"topic": self.pick(("food", "work")),
                             "n": int(self.rng.integers(3))}}
            if self.rng.random() < 0.85:
                item["embedding"] = self.vector()
            if self.rng.random() < 0.15:
                item["ttl_days"] = float(self.rng.integers(1, 4))
            out.append(item)
        return out

    def some_ids(self, most: int) -> list[str]:
        ids = sorted(self.alive)
        count = min(len(ids), int(self.rng.integers(1, most + 1)))
        return [ids[i] for i in self.rng.choice(len(ids), count, replace=False)]

    def newest(self, count: int) -> list[str]:
        return sorted(self.alive, key=lambda rid: int(rid[1:]))[-count:]

    def forget(self, ids: list[str]) -> None:
        for rid in ids:
            self.alive.pop(rid, None)

    # -- steps (each through one of the stores) -----------------------------------------

    def step(self) -> None:
        weights = np.array([weight for weight, _ in self.steps])
        _, run = self.steps[int(self.rng.choice(len(self.steps), p=weights / weights.sum()))]
        run(self.pick(self.stores))
        self.check()

    def write(self, store: EmbeddedBackend) -> None:
        batch = self.new_records(5)
        store.write_records(batch)
        self.alive.update({item["id"]: item for item in batch})

    def replace(self, store: EmbeddedBackend) -> None:
        """The same records again: each deleted and inserted as a new row."""
        items = [{**self.alive[rid], "content": self.text(3), "embedding": self.vector()}
                 for rid in self.some_ids(3)]
        store.write_records(items, replace=True)
        self.alive.update({item["id"]: item for item in items})

    def update(self, store: EmbeddedBackend) -> None:
        """Updated in place: the same seq and user, other columns changed."""
        for rid in self.some_ids(2):
            changes: dict[str, Any] = {"content": self.text(2)}
            if self.rng.random() < 0.5:
                changes["embedding"] = self.vector() if self.rng.random() < 0.8 else None
            if self.rng.random() < 0.3:
                changes["status"] = self.pick(("VALID", "INVALID"))
            if self.rng.random() < 0.2:
                changes["metadata"] = {"topic": self.pick(("food", "work")), "n": 1}
            store.update_record(rid, [self.alive[rid]["record_type"]], changes)

    def delete(self, store: EmbeddedBackend) -> None:
        ids = self.some_ids(4)
        store.delete_records(ids, TYPES)
        self.forget(ids)

    def reuse_newest_seqs(self, store: EmbeddedBackend) -> None:
        """The newest records deleted: SQLite hands their seqs to new records, of any user."""
        newest = self.newest(int(self.rng.integers(1, 4)))
        store.delete_records(newest, TYPES)
        self.forget(newest)
        self.write(self.pick(self.stores))

    def reorder_slots(self, store: EmbeddedBackend) -> None:
        """A store opens on a file without the second newest record but with the newest;
        once that is deleted, its seq goes to a new record that sorts before it: the
        cache's slots are renumbered."""
        newest = self.newest(2)
        if len(newest) < 2:
            return
        store.delete_records(newest[:1], TYPES)
        self.reopen_one(store)
        store = self.pick(self.stores)
        store.delete_records(newest[1:], TYPES)
        self.forget(newest)
        self.write(store)

    def erase(self, store: EmbeddedBackend) -> None:
        owner_type = self.pick(("user", "agent", "thread"))
        owner = self.pick({"user": USERS[:-1], "agent": AGENTS, "thread": THREADS}[owner_type])
        store.delete_cascade(owner_type, owner)
        self.forget([rid for rid, item in self.alive.items()
                     if item[f"{owner_type}_id"] == owner])

    def expire(self, store: EmbeddedBackend) -> None:
        self.now += timedelta(days=float(self.rng.integers(1, 3)))
        if self.rng.random() < 0.5:
            store.purge_expired()

    def reopen_one(self, store: EmbeddedBackend) -> None:
        """A store closes, its cache caught up first (the file it writes is current), and
        another opens (and maps that file)."""
        store.search({"query_vector": self.vector(), "max_results": 1})
        store.close()
        self.stores[self.stores.index(store)] = self._open()

    # -- checks -------------------------------------------------------------------------

    def request(self) -> dict[str, Any]:
        scope: dict[str, Any] = {
            "user_id": {"value": self.pick((*USERS, "nobody")), "exact": True}}
        for column, values in (("thread_id", THREADS), ("agent_id", AGENTS)):
            if self.rng.random() < 0.3:
                scope[column] = {"value": self.pick(values),
                                 "exact": bool(self.rng.random() < 0.5)}
        request: dict[str, Any] = {
            "strategy": self.pick(("VECTOR", "KEYWORD", "HYBRID")), "scope": scope,
            "max_results": int(self.rng.integers(3, 40)),
            "include_invalid": bool(self.rng.random() < 0.5),
            "metadata_filter": self.pick(FILTERS)}
        if request["strategy"] != "KEYWORD":
            request["query_vector"] = self.vector()
        if request["strategy"] != "VECTOR":
            request["query_text"] = self.text(2)
        if self.rng.random() < 0.2:
            request["record_types"] = ["memory", "fact"]
        return request

    def check(self) -> None:
        for _ in range(2):
            request = self.request()
            want = _hits(self.reference, request)
            for store in self.stores:
                assert _hits(store, request) == want, request
        for store in self.stores:
            cache = store._cache
            if cache.users is not None and cache.users.covered < cache.size:
                self.indexed += 1
            _assert_user_slots(cache)

    def close(self) -> None:
        for store in (*self.stores, self.reference):
            store.close()


def _hits(store: EmbeddedBackend, request: dict[str, Any]) -> list[tuple[str, float]]:
    return [(hit["record"]["id"], round(hit["distance"], 5)) for hit in store.search(request)]


def _assert_user_slots(cache: RecordCache) -> None:
    """Each user's slots (from the index, if any, and appended since) are exactly the live
    slots holding the user's code, ascending."""
    live = cache.live[: cache.size]
    for value, code in cache._ids.items():
        want = np.flatnonzero((cache.scope[0, : cache.size] == code) & live)
        got = cache.scope_slots({0: value})
        assert got is not None and got.tolist() == want.tolist(), value


def _counting(monkeypatch: pytest.MonkeyPatch, owner: type, name: str) -> list[str]:
    """Calls of ``owner.name`` (and the exceptions they raised) from now on."""
    calls: list[str] = []
    original = getattr(owner, name)

    def counted(*args: Any) -> Any:
        try:
            result = original(*args)
        except Exception as error:
            calls.append(f"raised {error!r}")
            raise
        calls.append("returned")
        return result

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_user_scoped_searches_agree_with_sqlite_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    distrusted = _counting(monkeypatch, RecordCache, "distrust")
    erased = _counting(monkeypatch, RecordCache, "erase_file")  # (it distrusts too)
    read = _counting(monkeypatch, UserSlots, "of")
    walk = Walk(tmp_path / "walk.db", seed=1)
    for _ in range(300):
        walk.step()
    walk.close()
    assert len(distrusted) == len(erased)  # no search found a cache disagreeing with SQLite
    assert "returned" in read and all(call == "returned" for call in read)  # nor damage
    assert walk.indexed > 50  # the index served, with records appended since
