"""One slow call never makes another user's quick search wait.

Every read of an embedded store object ran on one read connection under one lock, so a
context card whose query was three huge messages held every other search of the same client
for its whole keyword side (another user's one-word search waited 18 s). Reads now run on
read connections of their own, and the record cache's lock is held only while a search
copies out what it needs. The slow step is held here by an event, not by time: the quick
search must finish while the slow one is still inside its keyword side.
"""

from __future__ import annotations

import threading

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.stores.embedded import search

MARK = "zzslowqueryzz"


@pytest.fixture
def held_keyword_side(monkeypatch):
    """The keyword side of any search whose query holds MARK waits for ``release``."""
    entered, release = threading.Semaphore(0), threading.Event()
    real = search._keyword_distances

    def slow(conn, words, *rest):
        if MARK in words:
            entered.release()
            release.wait(60)
        return real(conn, words, *rest)

    monkeypatch.setattr(search, "_keyword_distances", slow)
    yield entered, release
    release.set()


def test_a_one_word_search_finishes_while_a_huge_context_card_is_searching(
        tmp_path, embedder, held_keyword_side):
    entered, release = held_keyword_side
    with OracleAgentMemory(connection=str(tmp_path / "m.db"), embedder=embedder) as client:
        big = client.create_thread(thread_id="big", user_id="u1")
        big.add_messages([{"role": "user", "content": f"{MARK} " + "words " * 2000}
                          for _ in range(3)])
        client.create_thread(thread_id="small", user_id="u2").add_memory(
            "u2 drinks green tea", memory_id="tea")
        cards = []
        card = threading.Thread(target=lambda: cards.append(big.get_context_card()))
        card.start()
        try:
            assert entered.acquire(timeout=30)  # the card's search is in its keyword side
            found = []
            quick = threading.Thread(
                target=lambda: found.append([r.id for r in client.search("tea",
                                                                          user_id="u2")]))
            quick.start()
            quick.join(30)
            assert found == [["tea"]], "the one-word search waited for the context card"
            assert card.is_alive()  # the card was still searching all along
        finally:
            release.set()
            card.join(30)
        assert cards and MARK in cards[0].content
