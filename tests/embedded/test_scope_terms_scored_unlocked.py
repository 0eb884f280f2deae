"""A scoped keyword search scores its scope without the cache's lock, at its own snapshot.

The scope's terms are copied out of the record cache under its lock (a run of term numbers
per record, no row read), then scored with the lock released: a search of a big scope never
holds up another search, and what it scores is the snapshot its read transaction sees,
whatever others write meanwhile. The scoring is held by an event, never by time.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend, search

DIM = 2
BIG = 30


def memory(record_id: str, content: str, user: str) -> dict[str, Any]:
    return {"record_type": "memory", "id": record_id, "user_id": user, "thread_id": f"{user}-t",
            "content": content, "embedding": [1.0, 0.5]}


def found(store: EmbeddedBackend, text: str, user: str) -> set[str]:
    hits = store.search({"query_text": text, "strategy": "KEYWORD", "max_results": 100,
                         "scope": {"user_id": {"value": user, "exact": True}}})
    return {hit["record"]["id"] for hit in hits}


@pytest.fixture
def held_scoring(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Semaphore,
                                                                     threading.Event]]:
    """Scoring a scope of BIG records or more waits for ``release``."""
    entered, release = threading.Semaphore(0), threading.Event()
    real = search.bm25

    def held(scope: Any) -> Any:
        if scope.seqs.shape[0] >= BIG:
            entered.release()
            release.wait(60)
        return real(scope)

    monkeypatch.setattr(search, "bm25", held)
    yield entered, release
    release.set()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EmbeddedBackend]:
    opened = EmbeddedBackend(tmp_path / "scopes.db", embedding_dimension=DIM)
    opened.write_records([memory(f"b{i}", f"alpha beta {i}", "big") for i in range(BIG)]
                         + [memory("s1", "alpha small", "small")])
    yield opened
    opened.close()


def in_thread(target: Any) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(target()))
    thread.start()
    return thread, out


def test_another_scope_is_searched_while_a_big_scope_is_scored(
        store: EmbeddedBackend, held_scoring: tuple[threading.Semaphore, threading.Event]
) -> None:
    entered, release = held_scoring
    big, big_found = in_thread(lambda: found(store, "alpha", "big"))
    try:
        assert entered.acquire(timeout=30)  # the big scope's search is scoring
        quick, quick_found = in_thread(lambda: found(store, "alpha", "small"))
        quick.join(30)
        assert quick_found == [{"s1"}], "the small scope's search waited for the big one"
        assert big.is_alive()
    finally:
        release.set()
        big.join(30)
    assert big_found == [{f"b{i}" for i in range(BIG)}]


def test_a_search_scores_its_snapshot_and_the_next_one_sees_the_writes(
        store: EmbeddedBackend, held_scoring: tuple[threading.Semaphore, threading.Event]
) -> None:
    entered, release = held_scoring
    big, big_found = in_thread(lambda: found(store, "alpha", "big"))
    try:
        assert entered.acquire(timeout=30)  # scoring the terms of its snapshot
        store.write_records([memory("late", "alpha late", "big")])
        store.delete_records(["b0"], ["memory"])
        store.update_record("b1", ["memory"], {"content": "omega"})
        # another search moves the cache past the snapshot the big scope is scored at
        quick, quick_found = in_thread(lambda: found(store, "alpha", "small"))
        quick.join(30)
        assert quick_found == [{"s1"}]
    finally:
        release.set()
        big.join(30)
    assert big_found == [{f"b{i}" for i in range(BIG)}]  # before the writes
    assert found(store, "alpha", "big") == {f"b{i}" for i in range(2, BIG)} | {"late"}
    assert found(store, "omega", "big") == {"b1"}
    store.write_records([memory("later", "alpha again", "big")])
    assert found(store, "alpha", "big") == {f"b{i}" for i in range(2, BIG)} | {"late", "later"}
