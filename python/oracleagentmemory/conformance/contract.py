"""The store contract (docs/store-contract.md) as a pytest suite, for any store.

Import everything from this module into a test module and give it a ``make_store`` fixture
(see ``oracleagentmemory.conformance``); ``tests/contract/`` runs it on the project's
backends and on the caller-store adapter. Stores are of dimension 4 unless a test asks for
another; each test starts from an empty store.
"""

from __future__ import annotations

import math
import statistics
import struct
import uuid
import zlib
from collections.abc import Callable
from typing import Any

import pytest

from oracleagentmemory.conformance import CAPABILITIES
from oracleagentmemory.conformance.cases import (
    FILTER_CASES,
    MALFORMED_FILTERS,
    SCOPE_CASES,
    FilterCase,
    MalformedFilter,
    ScopeCase,
)
from oracleagentmemory.stores.errors import (
    AttachedImageError,
    DimensionMismatchError,
    DuplicateRecordError,
    InvalidArgumentError,
    InvalidFilterError,
    InvalidLinkError,
    LinkEndNotFoundError,
    MessageContextChangedError,
)

TestFunction = Callable[..., None]


def needs(capability: str) -> Callable[[TestFunction], TestFunction]:
    """Marks a test that only a store with ``capability`` (``CAPABILITIES``) can pass."""
    if capability not in CAPABILITIES:
        raise ValueError(f"unknown capability {capability!r}; known: {', '.join(CAPABILITIES)}")

    def mark(test: TestFunction) -> TestFunction:
        test.store_needs = capability  # type: ignore[attr-defined]
        return test

    return mark


@pytest.fixture
def store_capabilities() -> frozenset[str]:
    """What the store under test can do: every capability unless a test module says less."""
    return frozenset(CAPABILITIES)


@pytest.fixture
def store(make_store: Callable[..., Any], store_capabilities: frozenset[str],
          request: pytest.FixtureRequest) -> Any:
    """A fresh, empty store of dimension 4; a test that needs what the store lacks skips."""
    needed = getattr(request.function, "store_needs", None)
    if needed is not None and needed not in store_capabilities:
        pytest.skip(f"the store does not offer {needed}: {CAPABILITIES[needed]}")
    return make_store()


E1, E2, E3, E4 = [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]


def png(tag: str = "") -> bytes:
    """A one-pixel grey PNG whose text chunk holds ``tag``: image bytes that any store
    accepts (one that reads the type from the bytes too), told apart by their tag."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
            + chunk(b"tEXt", b"Comment\x00" + tag.encode()) + chunk(b"IDAT", zlib.compress(b"\0\0"))
            + chunk(b"IEND", b""))


def memory(rid, vector=E1, **fields):
    return {"record_type": fields.pop("record_type", "memory"), "id": rid, "content": rid,
            "embedding": vector, **fields}


def ids(hits):
    return [hit["record"]["id"] for hit in hits]


def search(store, vector=E1, **request):
    return store.search({"query_text": "", "query_vector": vector, **request})


# -- writes and reads -------------------------------------------------------------------


@needs("utc_timestamps")
def test_written_record_reads_back_with_every_field(store):
    store.write_records([{
        "record_type": "fact", "id": "f-1", "user_id": "u1", "agent_id": None,
        "thread_id": "t1", "content": "Paris is in France",
        "metadata": {"source": "chat", "tags": ["geo"], "n": 1.5, "ok": True, "none": None},
        "timestamp": "2026-01-02T03:04:05+02:00", "status": "INVALID", "embedding": E1,
    }])
    [record] = store.get_records({"ids": ["f-1"]})
    assert record["record_type"] == "fact"
    assert (record["user_id"], record["agent_id"], record["thread_id"]) == ("u1", None, "t1")
    assert record["content"] == "Paris is in France"
    assert record["metadata"] == {"source": "chat", "tags": ["geo"], "n": 1.5, "ok": True,
                                  "none": None}
    assert record["timestamp"] == "2026-01-02T01:04:05.000000Z"  # kept in UTC
    assert record["status"] == "INVALID"
    assert record["expires_at"] is None
    assert record["created_at"].endswith("Z")


def test_a_write_into_a_thread_needs_that_thread(store):
    store.write_records([{"record_type": "thread", "id": "t1", "thread_id": "t1"}])
    assert store.write_records([memory("in", thread_id="t1")], thread_id="t1") == ["in"]
    with pytest.raises(KeyError, match="does not exist"):
        store.write_records([memory("out", thread_id="gone")], thread_id="gone")
    store.write_records([{"record_type": "thread", "id": "old", "thread_id": "old",
                          "ttl_days": 0}])
    with pytest.raises(KeyError, match="does not exist"):
        store.write_records([memory("late", thread_id="old")], thread_id="old")
    assert store.get_records({"ids": ["out", "late"]}) == []


def test_write_returns_ids_in_order_and_generates_missing_ones(store):
    written = store.write_records([memory("a"), {"record_type": "memory", "content": "x"}])
    assert written[0] == "a"
    generated = uuid.UUID(written[1])
    assert str(generated) == written[1] and generated.version == 7  # a dashed UUID7
    later = store.write_records([{"record_type": "memory", "content": "y"}])[0]
    assert later[:13] >= written[1][:13]  # its time (ms) first: later ids sort later


@needs("atomic_writes")
def test_failed_batch_leaves_nothing_behind(store):
    store.write_records([memory("kept")])
    with pytest.raises(DuplicateRecordError):
        store.write_records([memory("new-1"), memory("new-2"), memory("kept")])
    with pytest.raises(DimensionMismatchError):
        store.write_records([memory("new-3"), memory("bad", vector=[1, 2, 3])])
    with pytest.raises(InvalidLinkError):
        store.write_records([memory("new-4", thread_id="t")], links=[{
            "thread_id": "t", "source_id": "new-4", "source_type": "memory",
            "target_id": "missing", "target_type": "memory", "relation_type": "supports"}])
    assert ids([{"record": r} for r in store.get_records({})]) == ["kept"]


@needs("keyword_search")
def test_every_record_of_a_large_batch_is_stored_and_found(store):
    """A batch larger than one insert statement: nothing is lost at the statement seams."""
    count = 1234
    store.write_records([memory(f"r{i}", E1 if i % 2 else E2) | {"content": f"word{i} shared"}
                         for i in range(count)])
    assert len(store.get_records({})) == count
    for i in (0, 499, 500, 501, 999, 1000, 1233):
        found = ids(search(store, None, query_text=f"word{i}", strategy="KEYWORD"))
        assert found == [f"r{i}"]
    assert len(search(store, E2, max_results=count)) == count


@needs("atomic_writes")
def test_duplicate_id_within_one_batch_is_rejected(store):
    with pytest.raises(DuplicateRecordError):
        store.write_records([memory("x"), memory("x", record_type="fact")])
    assert store.get_records({}) == []


def test_memory_like_types_share_one_id_space_but_other_types_do_not(store):
    store.write_records([memory("same"), {"record_type": "message", "id": "same",
                                          "thread_id": "t", "role": "user", "embedding": E2}])
    with pytest.raises(DuplicateRecordError):
        store.write_records([memory("same", record_type="preference")])
    assert sorted(r["record_type"] for r in store.get_records({"ids": ["same"]})) == [
        "memory", "message"]


def test_replace_overwrites_the_record(store):
    store.write_records([{"record_type": "summary", "id": "t1", "content": "old"}])
    store.write_records([{"record_type": "summary", "id": "t1", "content": "new"}], replace=True)
    assert [r["content"] for r in store.get_records({"record_types": ["summary"]})] == ["new"]


def test_a_replacing_batch_stores_every_record_it_returns(store):
    # Row by row, a message replaced after an image of the same batch attached to it took
    # that image away with its old attached images, and the call still returned its id.
    def message(image_id):
        return {"record_type": "message", "id": "m", "thread_id": "t", "role": "user",
                "content": "look", "parts": [{"type": "image", "id": image_id}],
                "embedding": [1, 0, 0, 0]}

    image = {"record_type": "image", "id": "i", "thread_id": "t", "message_id": "m",
             "mime_type": "image/png", "image_bytes": png("old"), "content": "a cat"}
    store.write_records([message("i"), image])
    for image_id in ("i", "i2"):  # the attached image's own id, and a new one
        new_image = {**image, "id": image_id, "image_bytes": png(image_id)}
        assert store.write_records([new_image, message(image_id)], replace=True) == [
            image_id, "m"]
        stored = store.get_records({"thread_id": "t", "include_bytes": True})
        assert sorted(record["id"] for record in stored) == sorted(["m", image_id])
        [kept] = [record for record in stored if record["id"] == image_id]
        assert kept["image_bytes"] == png(image_id)


def test_a_replacing_batch_checks_every_id_before_it_replaces_any(store):
    # The attached image's id named by a loose image (no message): its holder is not the
    # same record, so the batch is refused, also when the batch replaces the message the
    # image is attached to (deleting it with the message first made the id look free).
    thread = {"user_id": "u", "agent_id": "a", "thread_id": "t"}
    store.write_records([
        {"record_type": "message", "id": "m", **thread, "role": "user", "content": "look",
         "parts": [{"type": "image", "id": "i"}], "embedding": [1, 0, 0, 0]},
        {"record_type": "image", "id": "i", **thread, "message_id": "m",
         "mime_type": "image/png", "image_bytes": png("old"), "content": "a cat"}])
    before = sorted((r["id"], r["content"], r.get("message_id"), r.get("image_bytes"))
                    for r in store.get_records({"thread_id": "t", "include_bytes": True}))
    message = {"record_type": "message", "id": "m", **thread, "role": "user",
               "content": "new", "embedding": [0, 1, 0, 0]}
    loose = {"record_type": "image", "id": "i", **thread, "mime_type": "image/png",
             "image_bytes": png("loose"), "content": "loose"}
    for batch in ([message, loose], [loose, message]):
        with pytest.raises(DuplicateRecordError):
            store.write_records(batch, replace=True)
        assert sorted(
            (r["id"], r["content"], r.get("message_id"), r.get("image_bytes"))
            for r in store.get_records({"thread_id": "t", "include_bytes": True})) == before


def test_unknown_record_type_is_rejected_naming_the_field(store):
    with pytest.raises(InvalidArgumentError, match="record_type"):
        store.write_records([{"record_type": "note", "content": "x"}])


def test_get_records_matches_present_scope_keys_exactly_including_null(store):
    store.write_records([
        memory("u1-a1", user_id="u1", agent_id="a1"),
        memory("u1-none", user_id="u1", agent_id=None),
        memory("u2-a1", user_id="u2", agent_id="a1"),
    ])
    assert [r["id"] for r in store.get_records({"user_id": "u1"})] == ["u1-a1", "u1-none"]
    assert [r["id"] for r in store.get_records({"agent_id": None})] == ["u1-none"]
    assert [r["id"] for r in store.get_records({"user_id": "u1", "agent_id": "a1"})] == ["u1-a1"]


def test_a_limit_keeps_the_first_or_with_newest_the_last_matches_oldest_first(store):
    store.write_records([memory(f"m{i}", user_id="u", metadata={"even": i % 2 == 0})
                         for i in range(5)])

    def listed(**query):
        return [r["id"] for r in store.get_records({"user_id": "u", **query})]

    assert listed(limit=2) == ["m0", "m1"]
    assert listed(limit=2, newest=True) == ["m3", "m4"]
    assert listed(limit=2, newest=True, metadata_filter={"even": True}) == ["m2", "m4"]
    assert listed(limit=9, newest=True) == ["m0", "m1", "m2", "m3", "m4"]
    assert listed(newest=True) == ["m0", "m1", "m2", "m3", "m4"]


def test_list_messages_uses_python_slice_semantics(store):
    store.write_records([
        {"record_type": "message", "id": f"m{i}", "thread_id": "t", "role": "user",
         "content": f"message {i}", "embedding": E1}
        for i in range(5)
    ])
    store.write_records([{"record_type": "message", "id": "other", "thread_id": "t2",
                          "role": "user", "embedding": E1}])

    def listed(start, end):
        return [r["id"] for r in store.list_messages("t", start, end)]

    assert listed(None, None) == ["m0", "m1", "m2", "m3", "m4"]
    assert listed(-2, None) == ["m3", "m4"]
    assert listed(-1, None) == ["m4"]
    assert listed(-9, None) == ["m0", "m1", "m2", "m3", "m4"]
    assert listed(1, 3) == ["m1", "m2"]
    assert listed(-4, -1) == ["m1", "m2", "m3"]


# -- updates and deletes ----------------------------------------------------------------


def test_update_replaces_given_fields_and_keeps_the_rest(store):
    store.write_records([memory("m", user_id="u1", thread_id="t1",
                                metadata={"a": {"b": 1}, "c": 2})])
    updated = store.update_record("m", ["memory"], {"metadata": {"a": {"x": 1}}})
    assert updated["metadata"] == {"a": {"x": 1}}
    assert updated["content"] == "m" and updated["user_id"] == "u1"
    assert store.update_record("m", ["memory"], {"status": "INVALID"})["status"] == "INVALID"


def test_update_of_a_record_in_another_thread_or_type_matches_nothing(store):
    store.write_records([memory("m", thread_id="t1")])
    assert store.update_record("m", ["memory"], {"content": "x"}, thread_id="t2") is None
    assert store.update_record("m", ["fact"], {"content": "x"}) is None
    assert store.get_records({"ids": ["m"]})[0]["content"] == "m"


def test_update_with_new_content_changes_what_search_finds(store):
    store.write_records([memory("m", vector=E1)])
    store.update_record("m", ["memory"], {"content": "moved", "embedding": E2})
    assert search(store, E2, max_results=1)[0]["distance"] == pytest.approx(0.0, abs=1e-6)


def test_delete_records_counts_and_respects_thread(store):
    store.write_records([memory("m1", thread_id="t1"), memory("m2", thread_id="t1")])
    assert store.delete_records(["m1"], ["memory"], thread_id="t2") == 0
    assert store.delete_records(["m1", "m2", "nope"], ["memory"], thread_id="t1") == 2
    assert store.get_records({}) == []


def message_with_image():
    """A message and the image attached to it (its parts name it)."""
    return [
        {"record_type": "message", "id": "msg", "thread_id": "t", "role": "user",
         "content": "look", "parts": [{"type": "image", "id": "img", "mime_type": "image/png"}],
         "embedding": E1},
        {"record_type": "image", "id": "img", "thread_id": "t", "message_id": "msg",
         "mime_type": "image/png", "image_bytes": png()},
    ]


def test_deleting_an_attached_image_directly_is_refused(store):
    store.write_records(message_with_image())
    [image] = store.get_records({"record_types": ["image"], "message_id": "msg"})
    assert image["id"] == "img" and image["message_id"] == "msg"
    with pytest.raises(AttachedImageError):
        store.delete_records(["img"], ["image"])
    assert store.delete_records(["msg"], ["message"]) == 1
    assert store.get_records({"record_types": ["image"]}) == []


def test_image_bytes_are_returned_only_when_asked(store):
    store.write_records([{"record_type": "image", "id": "img", "mime_type": "image/png",
                          "image_bytes": png("raw")}])
    assert "image_bytes" not in store.get_records({"ids": ["img"]})[0]
    [loaded] = store.get_records({"ids": ["img"], "include_bytes": True})
    assert loaded["image_bytes"] == png("raw")
    assert (loaded["mime_type"], loaded["message_id"]) == ("image/png", None)


@needs("any_image_bytes")
def test_image_bytes_are_kept_as_given_with_their_declared_type(store):
    """The client checks an image before it reaches the store; the store keeps what it is
    given, whatever the bytes."""
    store.write_records([{"record_type": "image", "id": "img", "mime_type": "image/webp",
                          "image_bytes": b"\x00\x01raw"}])
    [loaded] = store.get_records({"ids": ["img"], "include_bytes": True})
    assert (loaded["image_bytes"], loaded["mime_type"]) == (b"\x00\x01raw", "image/webp")


def _thread_with_everything(store):
    """Thread t1 with a message, two linked memories, a summary and an image; a memory of
    the same user in thread t2."""
    store.write_records([
        {"record_type": "thread", "id": "t1", "thread_id": "t1", "user_id": "u1"},
        {"record_type": "message", "id": "msg", "thread_id": "t1", "role": "user",
         "embedding": E1},
        memory("m1", thread_id="t1"), memory("m2", thread_id="t1"),
        {"record_type": "summary", "id": "t1", "thread_id": "t1", "content": "s"},
        {"record_type": "image", "id": "img", "thread_id": "t1", "image_bytes": png()},
        memory("elsewhere", thread_id="t2", user_id="u1"),
    ], links=[{"thread_id": "t1", "source_id": "m1", "source_type": "memory",
               "target_id": "m2", "target_type": "memory", "relation_type": "supports"}])


def test_thread_cascade_removes_everything_of_the_thread_only(store):
    _thread_with_everything(store)
    assert store.delete_cascade("thread", "t1")["owner"] == 1
    assert [r["id"] for r in store.get_records({})] == ["elsewhere"]
    assert store.get_records({"record_types": ["thread", "summary"]}) == []
    assert store.list_links({"thread_id": "t1"}) == []
    assert store.delete_cascade("thread", "t1")["owner"] == 0


def _user_with_everything(store):
    """User u1's profile, a thread it owns (holding a record of no user), a record of u1 in
    another thread, and a record of user u2."""
    store.write_records([
        {"record_type": "user_profile", "id": "u1", "user_id": "u1", "content": "p",
         "embedding": E1},
        {"record_type": "thread", "id": "t1", "thread_id": "t1", "user_id": "u1"},
        memory("unscoped-in-owned-thread", thread_id="t1", user_id=None),
        memory("scoped-elsewhere", thread_id="t9", user_id="u1"),
        memory("other-user", user_id="u2"),
    ])


def test_user_cascade_removes_profile_owned_threads_and_scoped_records(store):
    _user_with_everything(store)
    assert store.delete_cascade("user", "u1")["owner"] == 1
    assert [r["id"] for r in store.get_records({})] == ["other-user"]
    assert store.get_records({"record_types": ["thread"]}) == []
    assert store.delete_cascade("user", "u1")["owner"] == 0


@needs("cascade_counts")
def test_a_cascade_counts_the_records_and_links_it_deleted(store):
    _thread_with_everything(store)
    assert store.delete_cascade("thread", "t1") == {"owner": 1, "records": 6, "links": 1}
    _user_with_everything(store)  # and u1's memory "elsewhere", which the thread's kept
    assert store.delete_cascade("user", "u1") == {"owner": 1, "records": 5, "links": 0}


# -- search -----------------------------------------------------------------------------


def test_vector_search_orders_by_cosine_distance(store):
    store.write_records([memory("far", E2), memory("near", [1, 0.2, 0, 0]), memory("same", E1)])
    hits = search(store, E1)
    assert ids(hits) == ["same", "near", "far"]
    assert hits[0]["distance"] == pytest.approx(0.0, abs=1e-6)
    assert hits[2]["distance"] == pytest.approx(1.0, abs=1e-6)
    # cos(E1, [1, 0.2, 0, 0]) = 1 / sqrt(1.04)
    assert hits[1]["distance"] == pytest.approx(1 - 1 / 1.04 ** 0.5, abs=1e-6)


@needs("contract_messages")
def test_max_results_caps_and_record_types_filter(store):
    store.write_records([memory("m"), memory("f", record_type="fact"),
                         {"record_type": "message", "id": "msg", "thread_id": "t",
                          "role": "user", "embedding": E1}])
    assert len(search(store, max_results=2)) == 2
    assert ids(search(store, record_types=["fact"])) == ["f"]
    with pytest.raises(InvalidArgumentError, match="record_types"):
        search(store, record_types=["thread"])
    with pytest.raises(InvalidArgumentError, match="max_results"):
        search(store, max_results=0)


def test_exact_scope_filters_and_null_matches_only_null(store):
    store.write_records([
        memory("u1", user_id="u1"), memory("u2", user_id="u2"), memory("none", user_id=None)
    ])
    assert ids(search(store, scope={"user_id": {"value": "u1", "exact": True}})) == ["u1"]
    assert ids(search(store, scope={"user_id": {"value": None, "exact": True}})) == ["none"]
    assert len(search(store, scope={"user_id": {"value": "u1", "exact": False}})) == 3


def test_non_exact_scope_ranks_matching_records_higher(store):
    store.write_records([memory("other-thread", E1, thread_id="t2"),
                         memory("this-thread", [1, 0.1, 0, 0], thread_id="t1")])
    plain = search(store, E1)
    assert ids(plain) == ["other-thread", "this-thread"]
    boosted = search(store, E1, scope={"thread_id": {"value": "t1", "exact": False}})
    assert ids(boosted) == ["this-thread", "other-thread"]
    assert boosted[0]["distance"] == pytest.approx(plain[1]["distance"])


def test_invalid_records_are_excluded_on_request(store):
    store.write_records([memory("ok"), memory("bad", status="INVALID")])
    assert sorted(ids(search(store))) == ["bad", "ok"]
    assert ids(search(store, include_invalid=False)) == ["ok"]


@needs("keyword_search")
def test_keyword_search_matches_words_and_ignores_fts_syntax(store):
    store.write_records([
        memory("pizza", E1) | {"content": "User loves pizza with olives"},
        memory("tea", E2) | {"content": "User drinks green tea"},
    ])
    assert ids(search(store, None, query_text="pizza", strategy="KEYWORD")) == ["pizza"]
    injected = search(store, None, query_text='tea" OR pizza*', strategy="KEYWORD")
    assert set(ids(injected)) == {"tea", "pizza"}
    assert search(store, None, query_text="???", strategy="KEYWORD") == []


@needs("keyword_search")
def test_hybrid_search_fuses_vector_and_keyword_ranks(store):
    store.write_records([
        memory("both", E1) | {"content": "pizza night"},
        memory("vector-only", [1, 0.3, 0, 0]) | {"content": "unrelated words"},
        memory("keyword-only", E3) | {"content": "pizza place"},
    ])
    hits = search(store, E1, query_text="pizza", strategy="HYBRID")
    assert ids(hits)[0] == "both"
    assert hits[0]["distance"] == pytest.approx(0.0, abs=1e-9)
    assert set(ids(hits)) == {"both", "vector-only", "keyword-only"}
    # a record no query word matches reads its plain cosine distance
    distance = {hit["record"]["id"]: hit["distance"] for hit in hits}
    assert distance["vector-only"] == pytest.approx(1 - 1 / math.sqrt(1.09), abs=1e-6)


def hybrid_pull(cosines, window):
    """The contract's HYBRID pull of a keyword part of 1 over these vector cosines:
    0.1 x spread / c_v^2, spread the window's edge less the best distance, c_v the z-score
    of the best cosine."""
    distances = sorted(1 - c for c in cosines)
    confidence = (max(cosines) - statistics.mean(cosines)) / statistics.pstdev(cosines)
    return 0.1 * (window_edge(cosines, window) - distances[0]) / confidence ** 2


def window_edge(cosines, window):
    """The vector window's edge: its last (window-th best) distance, 1 when the list is
    shorter than the window."""
    distances = sorted(1 - c for c in cosines)
    return distances[window - 1] if len(distances) >= window else 1.0


@needs("keyword_search")
def test_hybrid_distance_is_the_vector_distance_less_the_keyword_pull(store):
    """HYBRID reports a distance to the query: each record's cosine distance (for a record
    in the keyword window, at most the vector window's edge), less the pull of its keyword
    part (the keyword side's confidence squared x the record's share of the keyword
    window) measured in spreads of the vector window; never below 0."""
    store.write_records([
        memory(f"r{i}", [1, 0.1 * i, 0, 0]) | {"content": "zebra note" if i == 11 else "note"}
        for i in range(12)
    ])
    hits = search(store, E1, query_text="zebra", strategy="HYBRID", max_results=11)
    distance = {hit["record"]["id"]: hit["distance"] for hit in hits}
    cosines = [1 / math.sqrt(1 + (0.1 * i) ** 2) for i in range(12)]
    # r11, the one keyword match (confidence 1, share 1 of a one-record list), is the 12th
    # by vector, beyond the window of 11: it counts the window's edge (r10's distance), less
    # the whole pull; every other record keeps its cosine distance
    expected = [1 - c for c in cosines]
    assert window_edge(cosines, 11) == pytest.approx(expected[10])
    expected[11] = window_edge(cosines, 11) - hybrid_pull(cosines, 11)
    assert 0 < expected[11] < expected[10]                  # r11 passes r10 (and is kept)
    assert distance == pytest.approx(
        {f"r{i}": expected[i] for i in range(12) if i != 10}, abs=1e-6)
    assert ids(hits) == sorted(distance, key=distance.get)  # best first, by that distance
    plain = search(store, E1, query_text="what is it", strategy="HYBRID", max_results=3)
    assert ids(plain) == ["r0", "r1", "r2"]                 # no content word: vector alone
    assert [hit["distance"] for hit in plain] == pytest.approx(expected[:3], abs=1e-6)


@needs("keyword_search")
def test_hybrid_keyword_match_passes_closer_records_by_its_confidence(store):
    """A keyword match that stands out (one match of two rare words over five matches of a
    common one: confidence sqrt(5), weighing 5) passes vector neighbours within its pull,
    and a record the words barely match (share 0.1 of the list's top) moves a tenth as
    far."""
    vectors = [[1, 0.05 * i, 0, 0] for i in range(12)]
    store.write_records(
        [memory(f"v{i}", vectors[i]) | {"content": "plain words"} for i in range(12)
         if i not in (3, 5, 6, 7, 8, 9)]
        + [memory(f"v{i}", vectors[i]) | {"content": "note words"} for i in range(5, 10)]
        + [memory("v3", vectors[3]) | {"content": "zebra crossing"}])
    hits = search(store, E1, query_text="zebra crossing note", strategy="HYBRID",
                  max_results=4)
    cosines = [1 / math.sqrt(1 + (0.05 * i) ** 2) for i in range(12)]
    # keyword scores: v3 matches two words, v5..v9 one common word each; whatever bm25
    # gives, five equal weak scores and one strong one have a top z-score of sqrt(5)
    # (squared: 5), and the weak ones a share s of the list's top (short list: floor 0)
    # with s < 1
    pull = hybrid_pull(cosines, 10) * 5
    assert ids(hits)[0] == "v3"
    assert hits[0]["distance"] == pytest.approx(max(0.0, 1 - cosines[3] - pull), abs=1e-6)
    assert ids(hits)[1:3] == ["v0", "v1"]                   # plain vector distances
    assert hits[1]["distance"] == pytest.approx(1 - cosines[0], abs=1e-6)
    assert hits[2]["distance"] == pytest.approx(1 - cosines[1], abs=1e-6)


@needs("keyword_search")
def test_a_query_that_matches_nothing_reads_farther_than_a_good_match(store):
    """The distance is one a user can threshold on. A nonsense query's
    best hit (its vector orthogonal to every record, no word matched) is at cosine distance
    1; a query that means and names a stored memory finds it close."""
    store.write_records([
        memory("pizza", E1) | {"content": "User loves pizza with olives"},
        memory("tea", E2) | {"content": "User drinks green tea"},
    ])
    for strategy in ("HYBRID", "VECTOR"):
        good = search(store, [1, 0.2, 0, 0], query_text="pizza", strategy=strategy)
        nonsense = search(store, E4, query_text="xyzzy", strategy=strategy)
        assert ids(good)[0] == "pizza"
        assert good[0]["distance"] < 0.05
        assert nonsense[0]["distance"] == pytest.approx(1.0, abs=1e-6)
        assert nonsense[0]["distance"] > good[0]["distance"] + 0.5


def test_metadata_filter_applies_in_search_and_get(store):
    store.write_records([
        memory("chat", metadata={"source": "chat", "tags": ["trip", "urgent"]}),
        memory("archived", metadata={"source": "chat", "tags": ["trip", "archived"]}),
        memory("mail", metadata={"source": "mail"}),
        memory("bare"),
    ])
    flt = {"source": "chat", "tags": {"$array_contains": "trip",
                                      "$not": {"$array_contains": "archived"}}}
    assert ids(search(store, metadata_filter=flt)) == ["chat"]
    assert [r["id"] for r in store.get_records({"metadata_filter": {"source": "mail"}})] == [
        "mail"]
    with pytest.raises(InvalidFilterError, match=r"\$contains"):
        search(store, metadata_filter={"tags": {"$contains": "x"}})


def test_a_negation_matches_a_record_without_metadata(store):
    store.write_records([memory("mail", metadata={"source": "mail"}),
                         memory("chat", metadata={"source": "chat"}), memory("bare")])
    negation = {"source": {"$not": "mail"}}
    assert sorted(ids(search(store, metadata_filter=negation))) == ["bare", "chat"]
    assert sorted(r["id"] for r in store.get_records({"metadata_filter": negation})) == [
        "bare", "chat"]
    assert ids(search(store, metadata_filter={"source": {"$not": "mail"}, "x": 1})) == []
    # the key-column path of the embedded store is built once a key is filtered on
    assert sorted(ids(search(store, metadata_filter=negation))) == ["bare", "chat"]
    store.write_records([memory("late")])
    assert sorted(ids(search(store, metadata_filter=negation))) == ["bare", "chat", "late"]


# -- expiry -----------------------------------------------------------------------------


def _expired_live_and_forever(store):
    past = "2020-01-01T00:00:00Z"
    store.write_records([
        memory("expired", timestamp=past, ttl_days=1, ttl_anchor="TIMESTAMP",
               thread_id="t"),
        memory("live", timestamp=past, ttl_days=1_000_000, ttl_anchor="TIMESTAMP",
               thread_id="t"),
        memory("forever", ttl_days=None, thread_id="t"),
    ])


@needs("expiry")
def test_expired_records_are_invisible_everywhere(store):
    _expired_live_and_forever(store)
    assert sorted(r["id"] for r in store.get_records({})) == ["forever", "live"]
    assert store.get_records({"ids": ["expired"]}) == []
    assert "expired" not in ids(search(store))
    assert store.update_record("expired", ["memory"], {"content": "x"}) is None


@needs("expiry_times")
def test_expiry_times_are_reported_and_expired_records_purged(store):
    _expired_live_and_forever(store)
    [live] = store.get_records({"ids": ["live"]})
    assert live["expires_at"].startswith("4757-")  # 2020-01-01 + 1,000,000 days
    assert store.purge_expired() == 1
    assert store.purge_expired() == 0


@needs("expiry_times")
def test_created_at_anchor_counts_from_creation(store):
    store.write_records([memory("m", ttl_days=10)])
    [record] = store.get_records({})
    from datetime import datetime, timedelta

    created = datetime.fromisoformat(record["created_at"].replace("Z", "+00:00"))
    expires = datetime.fromisoformat(record["expires_at"].replace("Z", "+00:00"))
    assert expires - created == timedelta(days=10)


@needs("utc_timestamps")
@pytest.mark.parametrize(("given", "stored"), [
    (" 2024-01-01 ", "2024-01-01T00:00:00.000000Z"),
    ("2024-01-01T10:00:00+14:00", "2023-12-31T20:00:00.000000Z"),
    ("2024-01-01T10:00-05:30", "2024-01-01T15:30:00.000000Z"),
    ("2024-01-01 10:00:00.5z", "2024-01-01T10:00:00.500000Z"),
])
def test_event_timestamps_are_stored_in_utc(store, given, stored):
    store.write_records([memory("t", timestamp=given)])
    assert store.get_records({"ids": ["t"]})[0]["timestamp"] == stored
    store.update_record("t", ["memory"], {"timestamp": given})
    assert store.get_records({"ids": ["t"]})[0]["timestamp"] == stored


@pytest.mark.parametrize("given", ["2024-W01-1", "2024-01-01T10", "2024-02-30", "soon"])
def test_a_timestamp_outside_the_shared_grammar_is_refused(store, given):
    with pytest.raises(InvalidArgumentError, match="ISO-8601"):
        store.write_records([memory("t", timestamp=given)])
    assert store.get_records({"ids": ["t"]}) == []


def test_event_times_in_other_zones_sort_by_their_moment(store):
    # 10:00 at +14:00 is before 09:00 UTC of the same day: "oldest first" must say so.
    store.write_records([memory("late", timestamp="2024-01-01T09:00:00Z"),
                         memory("early", timestamp="2024-01-01T10:00:00+14:00")])
    stamps = {r["id"]: r["timestamp"] for r in store.get_records({"ids": ["late", "early"]})}
    assert stamps["early"] < stamps["late"]


def test_timestamp_anchor_without_timestamp_is_rejected(store):
    with pytest.raises(InvalidArgumentError, match="ttl_anchor"):
        store.write_records([memory("m", ttl_days=1, ttl_anchor="TIMESTAMP")])


@needs("expiry_times")
def test_ttl_refresh_on_update(store):
    store.write_records([memory("m", ttl_days=1)])
    assert store.get_records({"ids": ["m"]})[0]["expires_at"] is not None
    updated = store.update_record("m", ["memory"], {"ttl_days": None,
                                                    "ttl_anchor": "CREATED_AT"})
    assert updated["expires_at"] is None


# -- links ------------------------------------------------------------------------------


def _chain(store):
    """a -supports-> b -refines-> c -supersedes-> d, all in thread t."""
    store.write_records(
        [memory(x, E1 if x == "a" else E4, thread_id="t") for x in "abcd"],
        links=[
            {"id": "ab", "thread_id": "t", "source_id": "a", "source_type": "memory",
             "target_id": "b", "target_type": "memory", "relation_type": "supports"},
            {"id": "bc", "thread_id": "t", "source_id": "b", "source_type": "memory",
             "target_id": "c", "target_type": "memory", "relation_type": "refines"},
            {"id": "dc", "thread_id": "t", "source_id": "d", "source_type": "memory",
             "target_id": "c", "target_type": "memory", "relation_type": "supersedes"},
        ],
    )


@needs("link_graph")
def test_link_traversal_follows_hops_with_direction_labels(store):
    _chain(store)
    hits = search(store, E1, max_results=1, num_hops=3)
    assert ids(hits) == ["a"]
    linked = [(x["record"]["id"], x["relation_type"], x["via_record_id"], x["hops"])
              for x in hits[0]["linked"]]
    assert linked == [("b", "supports", "a", 1), ("c", "refines", "b", 2),
                      ("d", "is_superseded_by", "c", 3)]


@needs("link_graph")
def test_link_traversal_respects_hops_and_cap(store):
    _chain(store)
    assert [x["record"]["id"] for x in search(store, E1, max_results=1, num_hops=1)[0][
        "linked"]] == ["b"]
    assert search(store, E1, max_results=1, num_hops=0)[0]["linked"] == []
    capped = search(store, E1, max_results=1, num_hops=5, max_linked_results=2)
    assert [x["record"]["id"] for x in capped[0]["linked"]] == ["b", "c"]
    assert search(store, E1, max_results=1, num_hops=3, max_linked_results=0)[0][
        "linked"] == []
    with pytest.raises(InvalidArgumentError, match="num_hops"):
        search(store, num_hops=6)


@needs("link_graph")
def test_reverse_walk_uses_opposite_labels(store):
    _chain(store)
    hits = search(store, E1, record_types=["memory"], max_results=4, num_hops=1)
    by_id = {hit["record"]["id"]: hit for hit in hits}
    assert [(x["record"]["id"], x["relation_type"]) for x in by_id["b"]["linked"]] == [
        ("a", "is_supported_by"), ("c", "refines")]


def test_one_stored_direction_per_endpoint_pair(store):
    _chain(store)
    with pytest.raises(DuplicateRecordError):
        store.write_records([], links=[{
            "thread_id": "t", "source_id": "b", "source_type": "memory", "target_id": "a",
            "target_type": "memory", "relation_type": "contradicts"}])


@needs("link_graph")
def test_links_of_one_batch_may_not_repeat_a_pair_or_an_id(store):
    def link(rid, source, target):
        return {"id": rid, "thread_id": "t", "source_id": source, "source_type": "memory",
                "target_id": target, "target_type": "memory", "relation_type": "supports"}

    records = [memory(x, thread_id="t") for x in "abc"]
    with pytest.raises(DuplicateRecordError, match="already links"):
        store.write_records(records, links=[link("ab", "a", "b"), link("ba", "b", "a")])
    with pytest.raises(DuplicateRecordError, match="'l1' already exists"):
        store.write_records(records, links=[link("l1", "a", "b"), link("l1", "b", "c")])
    assert store.get_records({}) == []
    store.write_records(records, links=[link("ab", "a", "b"), link("bc", "b", "c")])
    assert [x["id"] for x in store.list_links({"thread_id": "t"})] == ["ab", "bc"]
    with pytest.raises(DuplicateRecordError, match="'ab' already exists"):
        store.write_records([], links=[link("ab", "a", "c")])
    with pytest.raises(DuplicateRecordError, match="relation 'bc' already links"):
        store.write_records([], links=[link("cb", "c", "b")])


@needs("link_graph")
def test_link_endpoints_must_be_memories_of_the_thread(store):
    store.write_records([memory("x", thread_id="t"), memory("y", thread_id="other"),
                         {"record_type": "message", "id": "msg", "thread_id": "t",
                          "role": "user", "embedding": E1}])

    def link(target_id, target_type="memory", **extra):
        return {"thread_id": "t", "source_id": "x", "source_type": "memory",
                "target_id": target_id, "target_type": target_type,
                "relation_type": "supports", **extra}

    with pytest.raises(InvalidLinkError):
        store.write_records([], links=[link("y")])
    with pytest.raises(InvalidLinkError):
        store.write_records([], links=[link("msg", "message")])
    with pytest.raises(InvalidLinkError):
        store.write_records([], links=[link("x")])
    with pytest.raises(InvalidLinkError):
        store.write_records([], links=[link("x", relation_type="")])


def test_custom_relation_labels(store):
    store.write_records([memory("x", thread_id="t"), memory("y", thread_id="t"),
                         memory("z", thread_id="t")], links=[
        {"thread_id": "t", "source_id": "x", "source_type": "memory", "target_id": "y",
         "target_type": "memory", "relation_type": "causes", "opposite_relation_type":
         "caused_by"},
        {"thread_id": "t", "source_id": "z", "source_type": "memory", "target_id": "y",
         "target_type": "memory", "relation_type": "mentions"},
    ])
    labels = {(link["source_id"], link["relation_type"], link["opposite_relation_type"])
              for link in store.list_links({"thread_id": "t"})}
    assert labels == {("x", "causes", "caused_by"), ("z", "mentions", "mentions")}


@needs("link_graph")
def test_update_link_to_builtin_type_fixes_opposite_label(store):
    _chain(store)
    assert store.update_link("ab", "t", {"relation_type": "refines"}) == 1
    assert store.update_link("ab", "other-thread", {"relation_type": "supports"}) == 0
    assert store.update_link("missing", "t", {"relation_type": "supports"}) == 0
    [ab] = [link for link in store.list_links({"thread_id": "t"}) if link["id"] == "ab"]
    assert (ab["relation_type"], ab["opposite_relation_type"]) == ("refines", "is_refined_by")


@needs("link_graph")
def test_delete_link_by_id_or_by_stored_direction_tuple(store):
    _chain(store)
    assert store.delete_links({"id": "ab"}, "t") == 1
    reverse = {"source_id": "c", "source_type": "memory", "target_id": "b",
               "target_type": "memory", "relation_type": "refines"}
    assert store.delete_links(reverse, "t") == 0
    forward = {"source_id": "b", "source_type": "memory", "target_id": "c",
               "target_type": "memory", "relation_type": "refines"}
    assert store.delete_links(forward, "t") == 1
    assert [link["id"] for link in store.list_links({"thread_id": "t"})] == ["dc"]
    with pytest.raises(InvalidArgumentError):
        store.delete_links({"id": "dc", "source_id": "d"}, "t")


def test_deleting_a_memory_removes_its_links(store):
    _chain(store)
    store.delete_records(["b"], ["memory"])
    assert [link["id"] for link in store.list_links({"thread_id": "t"})] == ["dc"]


def _client_link(rid, source, target, **extra):
    return {"id": rid, "source_id": source, "source_type": "memory", "target_id": target,
            "target_type": "memory", "relation_type": "supports", **extra}


@needs("link_graph")
def test_a_client_level_link_may_join_threads_and_keeps_a_shared_thread(store):
    store.write_records([memory("x", thread_id="t1"), memory("y", thread_id="t2"),
                         memory("z", thread_id="t1"), memory("free")],
                        links=[_client_link("xy", "x", "y"), _client_link("xz", "x", "z"),
                               _client_link("yf", "y", "free")])
    stored = {link["id"]: link["thread_id"] for link in store.list_links({})}
    assert stored == {"xy": None, "xz": "t1", "yf": None}
    assert [link["id"] for link in store.list_links({"thread_id": None})] == ["xy", "yf"]
    assert [link["id"] for link in store.list_links({"thread_id": "t1"})] == ["xz"]
    assert store.list_links({"thread_id": "t2"}) == []


def test_link_queries_match_every_given_key(store):
    store.write_records([memory(x, thread_id="t") for x in "abc"], links=[
        _client_link("ab", "a", "b"), _client_link("bc", "b", "c", relation_type="refines"),
        _client_link("ac", "a", "c", metadata={"why": "test"})])

    def found(**query):
        return [link["id"] for link in store.list_links(query)]

    assert found() == ["ab", "bc", "ac"]
    assert found(source_id="a") == ["ab", "ac"]
    assert found(target_id="c", source_type="memory") == ["bc", "ac"]
    assert found(relation_type="refines") == ["bc"]
    assert found(ids=["ac", "ab", "missing"]) == ["ab", "ac"]
    assert found(source_id="a", target_id="b") == ["ab"]
    assert found(metadata_filter={"why": "test"}) == ["ac"]
    assert found(limit=2) == ["ab", "bc"]
    assert found(source_id="nobody") == []


@needs("link_graph")
def test_link_changes_without_a_thread_reach_any_link(store):
    store.write_records([memory("x", thread_id="t1"), memory("y", thread_id="t2")],
                        links=[_client_link("xy", "x", "y")])
    assert store.update_link("xy", "t1", {"relation_type": "refines"}) == 0
    assert store.update_link("xy", None, {"relation_type": "refines"}) == 1
    [link] = store.list_links({"ids": ["xy"]})
    assert (link["relation_type"], link["opposite_relation_type"]) == ("refines",
                                                                       "is_refined_by")
    assert store.delete_links({"id": "xy"}, "t2") == 0
    assert store.delete_links({"id": "xy"}, None) == 1
    assert store.list_links({}) == []


@needs("link_graph")
def test_linked_hits_carry_the_whole_relation(store):
    _chain(store)
    [hit] = search(store, E1, max_results=1, num_hops=1)
    [linked] = hit["linked"]
    relation = linked["relation"]
    assert relation["id"] == "ab"
    assert (relation["source_id"], relation["target_id"]) == ("a", "b")
    assert (relation["relation_type"], relation["opposite_relation_type"]) == (
        "supports", "is_supported_by")
    assert relation["thread_id"] == "t"


def test_messages_carry_an_increasing_sequence_within_their_thread(store):
    def message(rid, thread):
        return {"record_type": "message", "id": rid, "thread_id": thread, "role": "user",
                "content": rid, "embedding": E1}

    store.write_records([message("m1", "t"), message("m2", "t"), message("o1", "o")])
    store.write_records([message("m3", "t")])
    records = {r["id"]: r for r in store.get_records({"record_types": ["message"]})}
    sequence = [records[rid]["seq_no"] for rid in ("m1", "m2", "m3")]
    assert all(isinstance(n, int) for n in sequence)
    assert sequence == sorted(set(sequence))


@needs("keyword_search")
def test_keyword_search_keeps_to_exact_scopes_whatever_the_ids_hold(store):
    odd = 'é "x" OR * NEAR(u)'
    store.write_records([
        memory("mine", E1, user_id=odd, thread_id="t1") | {"content": "garden roses"},
        memory("theirs", E1, user_id="u2", thread_id="t1") | {"content": "garden roses"},
        memory("nobody", E1, thread_id="t2") | {"content": "garden tulips"},
    ])

    def found(**scope):
        return set(ids(search(store, None, query_text="garden", strategy="KEYWORD",
                              scope=scope)))

    assert found(user_id={"value": odd, "exact": True}) == {"mine"}
    assert found(user_id={"value": None, "exact": True}) == {"nobody"}
    assert found(user_id={"value": "u2", "exact": False}) == {"mine", "theirs", "nobody"}
    assert found(user_id={"value": "u2", "exact": True},
                 thread_id={"value": "t2", "exact": True}) == set()
    assert found(thread_id={"value": "t1", "exact": True}) == {"mine", "theirs"}
    assert set(ids(search(store, E1, query_text="garden", strategy="HYBRID",
                          scope={"user_id": {"value": odd, "exact": True}}))) == {"mine"}


@needs("keyword_search")
def test_keyword_search_ignores_function_words(store):
    store.write_records([
        memory("dog", E1) | {"content": "My dog is called Rex"},
        memory("small-talk", E2) | {"content": "What is my plan for the day?"},
    ])
    assert ids(search(store, None, query_text="What is my dog called?", strategy="KEYWORD")) \
        == ["dog"]
    assert search(store, None, query_text="what is my", strategy="KEYWORD") == []
    store.write_records([{"record_type": "message", "id": "chat", "role": "assistant",
                          "content": "Here's a shorter version.", "embedding": E3}])
    assert search(store, None, query_text="What's my spouse's name?", strategy="KEYWORD") == []


# -- a thread's messages in one call (append_messages) ----------------------------------

def message(rid, thread="t1", **fields):
    return {"record_type": "message", "id": rid, "thread_id": thread, "role": "user",
            "content": rid, "embedding": E1, **fields}


EVERY_BATCH = {"extraction_frequency": -1, "extraction_window": -1, "summary_frequency": 3}


@needs("extraction_counters")
def test_append_messages_writes_counts_and_returns_what_is_due(store):
    store.write_records([{"record_type": "thread", "id": "t1", "thread_id": "t1",
                          "config": {"settings": {"k": 1}, "state": {}}}])
    first = store.append_messages({"thread_id": "t1", "records": [message("a"), message("b")],
                                   "schedule": EVERY_BATCH})
    assert first["written"] and first["ids"] == ["a", "b"]
    assert (first["extraction_window"], first["summary_window"]) == (2, 0)
    assert [m["id"] for m in first["messages"]] == ["a", "b"]
    store.write_records([{"record_type": "summary", "id": "t1", "thread_id": "t1",
                          "content": "so far"}])
    second = store.append_messages({"thread_id": "t1", "records": [message("c")],
                                    "schedule": EVERY_BATCH})
    assert (second["extraction_window"], second["summary_window"]) == (1, 3)
    assert [m["id"] for m in second["messages"]] == ["a", "b", "c"]
    assert second["thread_summary"] == "so far"
    [thread] = store.get_records({"ids": ["t1"], "record_types": ["thread"]})
    assert thread["config"]["settings"] == {"k": 1}
    assert thread["config"]["state"]["extraction"] == {"messages_since_extraction": 0,
                                                       "messages_since_summary": 0}


def test_append_messages_needs_its_thread_unless_told_otherwise(store):
    with pytest.raises(KeyError, match="does not exist"):
        store.append_messages({"thread_id": "gone", "records": [message("x", "gone")]})
    assert store.get_records({"ids": ["x"]}) == []
    loose = store.append_messages({"thread_id": "loose", "thread_required": False,
                                   "records": [message("y", "loose")],
                                   "schedule": EVERY_BATCH})
    assert loose["ids"] == ["y"] and loose["extraction_window"] == 1


def test_append_messages_writes_nothing_after_another_last_message(store):
    store.write_records([{"record_type": "thread", "id": "t1", "thread_id": "t1"}])
    assert store.append_messages({"thread_id": "t1", "after_message_id": None,
                                  "records": [message("a")]})["written"]
    stale = store.append_messages({"thread_id": "t1", "after_message_id": None,
                                   "records": [message("b")]})
    assert not stale["written"] and stale["ids"] == []
    assert stale["last_message"]["id"] == "a"
    assert [m["id"] for m in store.list_messages("t1", None, None)] == ["a"]
    assert store.append_messages({"thread_id": "t1", "after_message_id": "a",
                                  "records": [message("b")]})["ids"] == ["b"]


def test_append_messages_takes_only_messages_and_images_of_its_thread(store):
    store.write_records([{"record_type": "thread", "id": "t1", "thread_id": "t1"}])
    for record in (message("m", "t2"), memory("mem", thread_id="t1")):
        with pytest.raises(InvalidArgumentError):
            store.append_messages({"thread_id": "t1", "records": [record]})
    assert store.get_records({"ids": ["m", "mem"]}) == []


def test_append_messages_refuses_a_scope_from(store):
    # A batch's records carry their thread's scope; a scope_from there used to be ignored.
    store.write_records([{"record_type": "thread", "id": "t1", "thread_id": "t1"},
                         memory("mem", thread_id="t1")])
    with pytest.raises(InvalidArgumentError, match=r"records\[1\]\.scope_from"):
        store.append_messages({"thread_id": "t1",
                               "records": [message("a"), message("b", scope_from="mem")]})
    assert store.get_records({"ids": ["a", "b"]}) == []


@needs("extraction_counters")
def test_changing_a_threads_settings_keeps_its_counters(store):
    # update_thread used to write the whole config it had read: a batch counted meanwhile
    # by another client was lost. "settings" changes only the settings, in the update.
    store.write_records([{"record_type": "thread", "id": "t1", "thread_id": "t1",
                          "config": {"settings": {"a": 1}, "state": {}}}])
    store.append_messages({"thread_id": "t1", "records": [message("a")], "schedule": {
        "extraction_frequency": 10, "extraction_window": -1, "summary_frequency": None}})
    updated = store.update_record("t1", ["thread"], {"settings": {"b": 2}})
    assert updated["config"]["settings"] == {"a": 1, "b": 2}
    assert updated["config"]["state"]["extraction"]["messages_since_extraction"] == 1
    with pytest.raises(InvalidArgumentError):
        store.update_record("t1", ["thread"], {"settings": {"c": 3}, "config": {}})


@needs("extraction_counters")
def test_a_threads_settings_layer_over_the_stored_ones(store):
    # Each setting given replaces the stored one, except the extraction config, whose
    # fields given replace the stored fields; what was set by another client stays.
    stored = {"max_message_token_length": 500, "context_card_token_limit": 9,
              "image_input_limit_config": {"max_images_per_llm_request": 4},
              "memory_extraction_config": {"memory_extraction_frequency": 5,
                                           "memory_extraction_custom_instructions": "brief"}}
    store.write_records([{"record_type": "thread", "id": "t1", "thread_id": "t1",
                          "config": {"settings": stored, "state": {}}}])
    updated = store.update_record("t1", ["thread"], {"settings": {
        "max_message_token_length": 800,
        "image_input_limit_config": {"max_raw_image_bytes": 1000},
        "memory_extraction_config": {"memory_extraction_custom_instructions": None,
                                     "memory_extraction_window": 7}}})
    assert updated["config"]["settings"] == {
        "max_message_token_length": 800, "context_card_token_limit": 9,
        "image_input_limit_config": {"max_raw_image_bytes": 1000},
        "memory_extraction_config": {"memory_extraction_frequency": 5,
                                     "memory_extraction_custom_instructions": None,
                                     "memory_extraction_window": 7}}
    [thread] = store.get_records({"ids": ["t1"], "record_types": ["thread"]})
    assert thread["config"]["settings"] == updated["config"]["settings"]


@needs("whole_metadata")
def test_new_metadata_keeps_the_langgraph_bookkeeping_when_asked(store):
    envelope = {"kind": "langgraph_store_item", "namespace": ["n"], "key": "k"}
    store.write_records([memory("kept", metadata={"langgraph": envelope, "a": 1}),
                         memory("plain", metadata={"langgraph": "ordinary", "a": 1})])
    kept = store.update_record("kept", ["memory"], {"metadata": {"b": 2},
                                                    "keep_bookkeeping": True})
    assert kept["metadata"] == {"b": 2, "langgraph": envelope}
    # only the store's own bookkeeping is kept, never ordinary metadata of that name, and
    # metadata that sets the key itself (or clears everything) replaces it
    plain = store.update_record("plain", ["memory"], {"metadata": {"b": 2},
                                                      "keep_bookkeeping": True})
    assert plain["metadata"] == {"b": 2}
    assert store.update_record("kept", ["memory"], {"metadata": None,
                                                    "keep_bookkeeping": True})["metadata"] is None
    store.update_record("kept", ["memory"], {"metadata": {"langgraph": envelope}})
    assert store.update_record("kept", ["memory"], {"metadata": {"c": 3}})["metadata"] == {
        "c": 3}


@needs("link_graph")
def test_a_record_takes_the_scope_it_leaves_out_from_the_memory_it_names(store):
    store.write_records([{"record_type": "thread", "id": "t", "thread_id": "t"},
                         memory("home", record_type="fact", user_id="u", agent_id="a",
                                thread_id="t")])
    # one write: the new memory's scope is the stored memory's (the keys it gives win),
    # and a link end without a type is of its stored type
    store.write_records([memory("work", scope_from="home", agent_id=None)], links=[
        {"source_id": "work", "source_type": "memory", "target_id": "home",
         "relation_type": "supports"}])
    [work] = store.get_records({"ids": ["work"]})
    assert (work["user_id"], work["agent_id"], work["thread_id"]) == ("u", None, "t")
    [link] = store.list_links({"source_id": "work"})
    assert (link["target_type"], link["thread_id"]) == ("fact", "t")
    with pytest.raises(LinkEndNotFoundError):
        store.write_records([memory("lost", scope_from="missing")])
    with pytest.raises(InvalidLinkError):
        store.write_records([memory("typed", user_id="u")], links=[
            {"source_id": "typed", "source_type": "memory", "target_id": "home",
             "target_type": "memory", "relation_type": "supports"}])
    assert store.get_records({"ids": ["lost", "typed"]}) == []


def test_an_attached_images_expiry_changes_only_with_its_message(store):
    store.write_records(message_with_image())
    with pytest.raises(AttachedImageError):
        store.update_record("img", ["image"], {"ttl_days": 3})
    assert store.get_records({"ids": ["img"]})[0]["expires_at"] is None
    assert store.update_record("img", ["image"], {"content": "a cat"})["content"] == "a cat"


def test_a_message_update_checks_the_message_before_it(store):
    store.write_records([message("a"), message("b"), message("c")])
    # the new content's vector was made against "b": the update applies while "b" is the
    # message before it, and changes nothing once another one is
    assert store.update_record("c", ["message"], {"content": "C", "embedding": E2,
                                                  "after_message_id": "b"})["content"] == "C"
    assert store.update_record("a", ["message"], {"content": "A",
                                                  "after_message_id": None})["content"] == "A"
    store.delete_records(["b"], ["message"])
    with pytest.raises(MessageContextChangedError):
        store.update_record("c", ["message"], {"content": "C2", "after_message_id": "b"})
    assert store.get_records({"ids": ["c"]})[0]["content"] == "C"
    with pytest.raises(MessageContextChangedError):
        store.update_record("a", ["message"], {"content": "A2", "after_message_id": "c"})
    assert store.update_record("missing", ["message"], {"content": "x",
                                                        "after_message_id": None}) is None
    store.write_records([memory("m")])
    with pytest.raises(InvalidArgumentError):
        store.update_record("m", ["memory"], {"content": "x", "after_message_id": None})


def test_a_malformed_after_message_id_is_refused_whether_the_record_exists_or_not(store):
    # checked before the record is looked for: not "no such record" on one backend and an
    # error on the other
    store.write_records([message("a")])
    for record_id in ("a", "missing"):
        with pytest.raises(InvalidArgumentError, match="after_message_id"):
            store.update_record(record_id, ["message"], {"content": "x", "after_message_id": 5})
    assert store.get_records({"ids": ["a"]})[0]["content"] == "a"


@needs("whole_metadata")
def test_keep_bookkeeping_is_a_boolean(store):
    # the PL/SQL record API reads a JSON boolean (null: false); a truthy string or number is
    # refused on every backend, with or without metadata, whether the record exists or not,
    # and nothing changes
    store.write_records([memory("m", metadata={"a": 1})])
    for record_id, changes in (("m", {"metadata": {"b": 2}, "keep_bookkeeping": "yes"}),
                               ("m", {"metadata": {"b": 2}, "keep_bookkeeping": 1}),
                               ("m", {"content": "x", "keep_bookkeeping": "no"}),
                               ("missing", {"metadata": {}, "keep_bookkeeping": "yes"})):
        with pytest.raises(InvalidArgumentError, match="keep_bookkeeping"):
            store.update_record(record_id, ["memory"], changes)
    assert store.get_records({"ids": ["m"]})[0]["metadata"] == {"a": 1}
    assert store.update_record("m", ["memory"], {"metadata": {"b": 2},
                                                 "keep_bookkeeping": None})["metadata"] == {
        "b": 2}


# -- a replace keeps to its own scope ----------------------------------------------------
# A replace only replaces a record of the caller's own scope.
#
# Naming an id that another user's record holds, in ``write_records(replace=True)`` or in a
# message's ``replace_images``, must neither delete that record nor move it into the caller's
# scope: it is a DuplicateRecordError, as a write without replace answers. Run on every
# backend (the Oracle package checks the same in ``replace_row``).


BOB = {"user_id": "bob", "agent_id": "a1", "thread_id": "t-bob"}
ALICE = {"user_id": "alice", "agent_id": "a1", "thread_id": "t-alice"}


def _conversation(store):
    """Bob's message with an attached image, and Alice's message without one."""
    store.write_records([
        {"record_type": "message", "id": "m-bob", **BOB, "role": "user", "content": "look",
         "parts": [{"type": "image", "id": "img-bob"}], "embedding": [1, 0, 0, 0]},
        {"record_type": "image", "id": "img-bob", **BOB, "message_id": "m-bob",
         "mime_type": "image/png", "image_bytes": png("bob"), "content": "bob's cat"},
        {"record_type": "message", "id": "m-alice", **ALICE, "role": "user",
         "content": "hello", "embedding": [0, 1, 0, 0]},
    ])


def _bobs_image(store):
    [image] = store.get_records({"ids": ["img-bob"], "record_types": ["image"],
                                 "include_bytes": True})
    return image


@needs("scoped_replace")
def test_replace_images_cannot_take_over_another_users_attached_image(store):
    _conversation(store)
    with pytest.raises(DuplicateRecordError, match="img-bob"):
        store.update_record("m-alice", ["message"], {
            "content": "mine now", "parts": [{"type": "image", "id": "img-bob"}],
            "replace_images": [{"id": "img-bob", "mime_type": "image/png",
                                "image_bytes": png("alice")}],
        }, "t-alice")
    image = _bobs_image(store)
    assert (image["user_id"], image["thread_id"], image["message_id"]) == (
        "bob", "t-bob", "m-bob")
    assert image["image_bytes"] == png("bob")
    [alice] = store.get_records({"ids": ["m-alice"]})
    assert alice["content"] == "hello" and alice["parts"] is None  # nothing half-written


@needs("scoped_replace")
def test_the_answer_is_the_one_a_write_without_replace_gives(store):
    _conversation(store)
    with pytest.raises(DuplicateRecordError) as plain:
        store.write_records([{"record_type": "image", "id": "img-bob", **ALICE,
                              "image_bytes": png("x")}])
    with pytest.raises(DuplicateRecordError) as replacing:
        store.update_record("m-alice", ["message"], {
            "replace_images": [{"id": "img-bob", "image_bytes": png("x")}]}, "t-alice")
    assert str(replacing.value) == str(plain.value)


@needs("scoped_replace")
def test_write_with_replace_keeps_records_of_another_scope(store):
    store.write_records([{"record_type": "memory", "id": "mem-bob", **BOB,
                          "content": "bob likes tea", "embedding": [1, 0, 0, 0]}])
    for other in (ALICE, {**BOB, "thread_id": "t-other"}, {**BOB, "user_id": None}):
        with pytest.raises(DuplicateRecordError, match="mem-bob"):
            store.write_records([{"record_type": "memory", "id": "mem-bob", **other,
                                  "content": "overwritten", "embedding": [0, 1, 0, 0]}],
                                replace=True)
    with pytest.raises(DuplicateRecordError):  # another type of the same id space
        store.write_records([{"record_type": "fact", "id": "mem-bob", **BOB,
                              "content": "overwritten"}], replace=True)
    [kept] = store.get_records({"ids": ["mem-bob"]})
    assert (kept["record_type"], kept["user_id"], kept["content"]) == (
        "memory", "bob", "bob likes tea")


@needs("scoped_replace")
def test_replace_within_the_same_scope_still_replaces(store):
    _conversation(store)
    store.update_record("m-bob", ["message"], {
        "replace_images": [{"id": "img-bob", "mime_type": "image/png",
                            "image_bytes": png("new")}]}, "t-bob")
    assert _bobs_image(store)["image_bytes"] == png("new")
    store.write_records([{"record_type": "memory", "id": "mem", **BOB, "content": "v1"}])
    store.write_records([{"record_type": "memory", "id": "mem", **BOB, "content": "v2"}],
                        replace=True)
    assert store.get_records({"ids": ["mem"]})[0]["content"] == "v2"


@needs("scoped_replace")
def test_a_standalone_image_cannot_be_attached_by_naming_it(store):
    store.write_records([
        {"record_type": "image", "id": "loose", **ALICE, "image_bytes": png("loose")},
        {"record_type": "message", "id": "m", **ALICE, "role": "user", "content": "x"},
    ])
    with pytest.raises(DuplicateRecordError, match="loose"):
        store.update_record("m", ["message"], {
            "replace_images": [{"id": "loose", "image_bytes": png("other")}]}, "t-alice")
    [loose] = store.get_records({"ids": ["loose"], "include_bytes": True})
    assert (loose["message_id"], loose["image_bytes"]) == (None, png("loose"))


# -- the metadata-filter and scope cases (conformance/cases.py) -------------------------


@pytest.mark.parametrize("case", FILTER_CASES,
                         ids=[f"{case.group.name}-{i}" for i, case in enumerate(FILTER_CASES)])
def test_metadata_filter_case(store, case: FilterCase):
    store.write_records([memory("subject", metadata=case.metadata)])
    expected = ["subject"] if case.matches else []
    assert ids(search(store, metadata_filter=case.metadata_filter)) == expected
    assert [r["id"] for r in store.get_records({"metadata_filter": case.metadata_filter})] == (
        expected)


@pytest.mark.parametrize("case", MALFORMED_FILTERS,
                         ids=[f"malformed-{i}" for i in range(len(MALFORMED_FILTERS))])
def test_malformed_metadata_filter_case(store, case: MalformedFilter):
    store.write_records([memory("kept", metadata={"a": 1})])
    with pytest.raises(InvalidFilterError) as error:
        search(store, metadata_filter=case.metadata_filter)
    assert isinstance(error.value, ValueError)
    assert case.names in str(error.value)
    with pytest.raises(InvalidFilterError):
        store.get_records({"metadata_filter": case.metadata_filter})
    assert ids(search(store)) == ["kept"]


NEAR_E1 = [1, 0.1425, 0, 0]
"""At cosine distance 0.01 from E1: farther than a record at E1, but closer than it once
one step of scope affinity (0.05, docs/store-contract.md "Scope") counts."""


@pytest.mark.parametrize("case", SCOPE_CASES, ids=[case.name for case in SCOPE_CASES])
def test_scope_case(store, case: ScopeCase):
    user, agent, thread = case.record
    subject = memory("subject", NEAR_E1, user_id=user, agent_id=agent, thread_id=thread)
    # the control passes the same exact dimensions and holds no non-exact value
    control = dict(subject, id="control", embedding=E1)
    for key, dimension in case.scope.items():
        if not dimension["exact"]:
            control[key] = f"not-{dimension['value']}"
    store.write_records([subject, control] if case.matches else [subject])
    found = ids(search(store, scope=case.scope))
    if not case.matches:
        assert found == []
        return
    assert found == (["subject", "control"] if case.affinity else ["control", "subject"])
