"""Every search hit is checked against the row SQLite holds.

A vector file from another state of the database (left beside a restored backup) once made
a search scoped to one user return another user's rows: results were read by row number
with no scope check. Here the cache is made to lie about scopes, as such a file would, and
the search still returns only the scope's rows, after reloading from SQLite.
"""

from __future__ import annotations

from oracleagentmemory.stores.embedded import EmbeddedBackend


def scoped(store, user):
    hits = store.search({"query_text": "", "query_vector": [1, 0], "strategy": "VECTOR",
                         "scope": {"user_id": {"value": user, "exact": True}},
                         "max_results": 50})
    return sorted({hit["record"]["user_id"] for hit in hits}), len(hits)


def test_a_cache_that_lies_about_scopes_leaks_nothing(tmp_path):
    store = EmbeddedBackend(tmp_path / "s.db", embedding_dimension=2)
    try:
        store.write_records(
            [{"record_type": "memory", "user_id": "u1", "content": f"u1 secret {i}",
              "embedding": [1, 0]} for i in range(20)]
            + [{"record_type": "memory", "user_id": "u2", "content": f"u2 note {i}",
                "embedding": [1, 0]} for i in range(5)])
        assert scoped(store, "u2") == (["u2"], 5)
        cache = store._cache
        cache.scope[0, :cache.size] = cache.code("u2")  # every row "belongs" to u2 now
        assert scoped(store, "u2") == (["u2"], 5)
        assert scoped(store, "u1") == (["u1"], 20)  # and the reloaded cache is right
    finally:
        store.close()


def test_a_cache_that_lies_about_expiry_returns_no_expired_row(tmp_path):
    store = EmbeddedBackend(tmp_path / "e.db", embedding_dimension=2)
    try:
        store.write_records([
            {"record_type": "memory", "id": "gone", "user_id": "u", "content": "old",
             "embedding": [1, 0], "ttl_days": 0},
            {"record_type": "memory", "id": "kept", "user_id": "u", "content": "new",
             "embedding": [1, 0]}])
        cache = store._cache
        store.search({"query_text": "", "query_vector": [1, 0], "strategy": "VECTOR"})
        cache.expires[:cache.size] = b"9999"  # nothing expires, it says
        hits = store.search({"query_text": "", "query_vector": [1, 0], "strategy": "VECTOR"})
        assert [hit["record"]["id"] for hit in hits] == ["kept"]
    finally:
        store.close()


def test_a_hit_the_reloaded_cache_still_disagrees_on_is_dropped_not_every_hit(
        tmp_path, monkeypatch):
    """After a reload from SQLite alone, a hit whose row still fails the check (a semantic
    difference, not staleness) is left out; the others are returned, not an empty list."""
    from oracleagentmemory.stores.embedded import search

    store = EmbeddedBackend(tmp_path / "d.db", embedding_dimension=2)
    try:
        store.write_records([{"record_type": "memory", "id": f"m{i}", "user_id": "u",
                              "content": f"note {i}", "embedding": [1, i / 10]}
                             for i in range(5)])
        real = search._matches
        monkeypatch.setattr(search, "_matches",
                            lambda record, req, now: record["id"] != "m2"
                            and real(record, req, now))
        hits = store.search({"query_text": "", "query_vector": [1, 0], "strategy": "VECTOR",
                             "max_results": 10})
        assert sorted(hit["record"]["id"] for hit in hits) == ["m0", "m1", "m3", "m4"]
    finally:
        store.close()
