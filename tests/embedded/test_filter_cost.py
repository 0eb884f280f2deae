"""A metadata filter cannot stall the store.

200 ``$not`` keys over 20K records held the store lock for 44 s: each key built its own
column by parsing every record's metadata again, columns were never evicted, and writers of
the same store object waited meanwhile. A filter is now bounded (MAX_FILTER_KEYS), the
columns of one filter are built in one pass over the metadata, at most
MAX_CACHED_FILTER_KEYS columns are kept, and a filter is evaluated without the lock writes
take. Costs are counted (metadata parses), never timed.
"""

from __future__ import annotations

import json
import threading

import pytest

from oracleagentmemory.stores import metadata_filter as mf
from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.embedded import metadata_columns as columns_module
from oracleagentmemory.stores.errors import InvalidFilterError

RECORDS = 300


@pytest.fixture
def store(tmp_path):
    opened = EmbeddedBackend(tmp_path / "filters.db", embedding_dimension=2)
    opened.write_records([
        {"record_type": "memory", "id": f"m{i}", "content": f"note {i}", "embedding": [1, i],
         "metadata": {**{f"k{j}": i % 3 for j in range(0, 200, 7)}, "tags": [i % 5]}}
        for i in range(RECORDS)])
    yield opened
    opened.close()


def search(store, metadata_filter, strategy="KEYWORD"):
    return store.search({"query_text": "note", "query_vector": [1, 0], "strategy": strategy,
                         "metadata_filter": metadata_filter, "max_results": RECORDS})


class CountingJson:
    """Stands in for the json module of the metadata columns: counts metadata parses."""

    def __init__(self) -> None:
        self.loads_calls = 0

    def loads(self, text):
        self.loads_calls += 1
        return json.loads(text)


def test_the_attack_filter_is_refused(store):
    attack = {f"k{j}": {"$not": 1} for j in range(200)}
    with pytest.raises(InvalidFilterError, match="more than 64 field names and operators"):
        search(store, attack)
    with pytest.raises(InvalidFilterError, match="more than 1000 list items"):
        search(store, {"tags": {"$array_contains_any": list(range(1001))}})


def test_the_columns_of_one_filter_are_built_in_one_pass(store, monkeypatch):
    counting = CountingJson()
    monkeypatch.setattr(columns_module, "json", counting)
    wide = {f"k{j}": {"$not": 2} for j in range(0, 200, 7)}  # 29 keys
    hits = search(store, wide)
    expected = [f"m{i}" for i in range(RECORDS) if i % 3 != 2]
    assert sorted(hit["record"]["id"] for hit in hits) == sorted(expected)
    assert counting.loads_calls <= RECORDS  # not one parse per key and record
    counting.loads_calls = 0
    search(store, wide)
    assert counting.loads_calls == 0  # built once, then reused


def test_filter_columns_are_bounded(store):
    for start in range(0, 420, 30):
        assert len(search(store, {f"x{j}": {"$not": 1} for j in range(start, start + 30)}))
    cached = store._cache.metadata._columns  # the store's filter columns, by key
    assert 0 < len(cached) <= 128
    assert {f"x{j}" for j in range(390, 420)} <= set(cached)  # the latest are kept


@pytest.mark.parametrize("read", ["search", "get_records", "list_links"])
def test_writers_are_not_held_up_while_a_filter_is_evaluated(store, monkeypatch, read):
    """While the filter evaluator runs, the lock every write takes is free, and a write from
    another thread of the same store object completes."""
    store.write_records([], links=[{"source_id": "m0", "source_type": "memory",
                                    "target_id": "m1", "target_type": "memory",
                                    "relation_type": "supports", "metadata": {"w": 1}}])
    real_matches = mf.matches
    observed: list[bool] = []

    def evaluating(*args):
        if not observed:
            observed.append(_free(store._lock))
            assert observed == [True], "a filter was evaluated holding the write lock"
            writer = threading.Thread(target=store.write_records, args=([
                {"record_type": "memory", "id": f"written-during-{read}", "content": "w"}],))
            writer.start()
            writer.join()
        return real_matches(*args)

    monkeypatch.setattr(mf, "matches", evaluating)
    complex_filter = {"tags": {"$array_contains": 1}, "w": {"$not": {"$array_contains": 9}}}
    if read == "search":
        assert search(store, complex_filter)
    elif read == "get_records":
        assert store.get_records({"metadata_filter": complex_filter})
    else:
        assert store.list_links({"metadata_filter": {"w": {"$not": [2]}}})
    assert observed == [True]
    assert store.get_records({"ids": [f"written-during-{read}"]})


def _free(lock) -> bool:
    """Whether another thread could take ``lock`` right now (without waiting for it)."""
    result: list[bool] = []

    def probe() -> None:
        taken = lock.acquire(blocking=False)
        if taken:
            lock.release()
        result.append(taken)

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    return result[0]
