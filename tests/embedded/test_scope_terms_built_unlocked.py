"""A scope's first keyword search reads its terms without the cache's lock, consistently.

The first KEYWORD or HYBRID search of a user, agent or thread reads that scope's records
(up to MAX_SCOPE_RECORDS of them) to hold their terms in memory. That read ran under the
record cache's lock, so every other search of the store object waited for it. It now runs
in the search's own read transaction with the lock released, and the key is handed over
at the version it was read at: a search that meanwhile moved the index past that version
(after a write) leaves the key to be caught up through the change log by the next search.
The build is held by an event (its tokenizer waits on the records of the big scope), never
by time.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend, fts_tokens, scope_keywords

MARK = "zzbigscopezz"
DIM = 2


def memory(record_id: str, content: str, user: str) -> dict[str, Any]:
    return {"record_type": "memory", "id": record_id, "user_id": user, "thread_id": f"{user}-t",
            "content": content, "embedding": [1.0, 0.5]}


def found(store: EmbeddedBackend, text: str, user: str) -> set[str]:
    hits = store.search({"query_text": text, "strategy": "KEYWORD", "max_results": 100,
                         "scope": {"user_id": {"value": user, "exact": True}}})
    return {hit["record"]["id"] for hit in hits}


@pytest.fixture
def held_build(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Semaphore,
                                                                   threading.Event]]:
    """Cutting texts that hold MARK (the big scope's records) waits for ``release``."""
    entered, release = threading.Semaphore(0), threading.Event()
    real = fts_tokens.TOKENS.tokens_of

    def held(texts: Any) -> list[list[str]]:
        if any(MARK in text for text in texts):
            entered.release()
            release.wait(60)
        return real(texts)

    monkeypatch.setattr(fts_tokens.TOKENS, "tokens_of", held)
    yield entered, release
    release.set()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EmbeddedBackend]:
    opened = EmbeddedBackend(tmp_path / "scopes.db", embedding_dimension=DIM)
    opened.write_records([memory(f"b{i}", f"alpha {MARK} {i}", "big") for i in range(30)]
                         + [memory("s1", "alpha small", "small")])
    yield opened
    opened.close()


def in_thread(target: Any) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(target()))
    thread.start()
    return thread, out


def test_another_scope_is_searched_while_a_big_scope_reads_its_terms(
        store: EmbeddedBackend, held_build: tuple[threading.Semaphore, threading.Event]
) -> None:
    entered, release = held_build
    big, big_found = in_thread(lambda: found(store, "alpha", "big"))
    try:
        assert entered.acquire(timeout=30)  # the big scope's first search is reading terms
        quick, quick_found = in_thread(lambda: found(store, "alpha", "small"))
        quick.join(30)
        assert quick_found == [{"s1"}], "the small scope's search waited for the big one"
        assert big.is_alive()
    finally:
        release.set()
        big.join(30)
    assert big_found == [{f"b{i}" for i in range(30)}]


def test_a_key_read_before_a_write_is_caught_up_after_it(
        store: EmbeddedBackend, held_build: tuple[threading.Semaphore, threading.Event],
        monkeypatch: pytest.MonkeyPatch) -> None:
    entered, release = held_build
    built: list[Any] = []
    real_build = scope_keywords.ScopeKeywords._build

    def counted(conn: Any, key: Any) -> Any:
        built.append(key)
        return real_build(conn, key)

    monkeypatch.setattr(scope_keywords.ScopeKeywords, "_build", staticmethod(counted))
    big, big_found = in_thread(lambda: found(store, "alpha", "big"))
    try:
        assert entered.acquire(timeout=30)  # reading the big scope at its snapshot
        store.write_records([memory("late", f"alpha {MARK} late", "big")])
        store.delete_records(["b0"], ["memory"])
        store.update_record("b1", ["memory"], {"content": "omega"})
        # another search moves the index past the snapshot the big scope is read at
        quick, quick_found = in_thread(lambda: found(store, "alpha", "small"))
        quick.join(30)
        assert quick_found == [{"s1"}]
    finally:
        release.set()
        big.join(30)
    # the first search answered from its own snapshot, before the writes
    assert big_found == [{f"b{i}" for i in range(30)}]
    assert built == [(0, "big"), (0, "small")]
    # the key it handed over is caught up to the writes by the next search
    assert found(store, "alpha", "big") == {f"b{i}" for i in range(2, 30)} | {"late"}
    assert found(store, "omega", "big") == {"b1"}
    store.write_records([memory("later", "alpha again", "big")])
    assert found(store, "alpha", "big") == {f"b{i}" for i in range(2, 30)} | {"late", "later"}
    assert len(built) == 2  # caught up through the change log, never read again
