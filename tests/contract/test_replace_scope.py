"""A replace only replaces a record of the caller's own scope.

Naming an id that another user's record holds, in ``write_records(replace=True)`` or in a
message's ``replace_images``, must neither delete that record nor move it into the caller's
scope: it is a DuplicateRecordError, as a write without replace answers. Run on every
backend (the Oracle package checks the same in ``replace_row``).
"""

from __future__ import annotations

import pytest

from oracleagentmemory.stores.errors import DuplicateRecordError

BOB = {"user_id": "bob", "agent_id": "a1", "thread_id": "t-bob"}
ALICE = {"user_id": "alice", "agent_id": "a1", "thread_id": "t-alice"}


def _conversation(store):
    """Bob's message with an attached image, and Alice's message without one."""
    store.write_records([
        {"record_type": "message", "id": "m-bob", **BOB, "role": "user", "content": "look",
         "parts": [{"type": "image", "id": "img-bob"}], "embedding": [1, 0, 0, 0]},
        {"record_type": "image", "id": "img-bob", **BOB, "message_id": "m-bob",
         "mime_type": "image/png", "image_bytes": b"bob's bytes", "content": "bob's cat"},
        {"record_type": "message", "id": "m-alice", **ALICE, "role": "user",
         "content": "hello", "embedding": [0, 1, 0, 0]},
    ])


def _bobs_image(store):
    [image] = store.get_records({"ids": ["img-bob"], "record_types": ["image"],
                                 "include_bytes": True})
    return image


def test_replace_images_cannot_take_over_another_users_attached_image(store):
    _conversation(store)
    with pytest.raises(DuplicateRecordError, match="img-bob"):
        store.update_record("m-alice", ["message"], {
            "content": "mine now", "parts": [{"type": "image", "id": "img-bob"}],
            "replace_images": [{"id": "img-bob", "mime_type": "image/png",
                                "image_bytes": b"alice's bytes"}],
        }, "t-alice")
    image = _bobs_image(store)
    assert (image["user_id"], image["thread_id"], image["message_id"]) == (
        "bob", "t-bob", "m-bob")
    assert image["image_bytes"] == b"bob's bytes"
    [alice] = store.get_records({"ids": ["m-alice"]})
    assert alice["content"] == "hello" and alice["parts"] is None  # nothing half-written


def test_the_answer_is_the_one_a_write_without_replace_gives(store):
    _conversation(store)
    with pytest.raises(DuplicateRecordError) as plain:
        store.write_records([{"record_type": "image", "id": "img-bob", **ALICE,
                              "image_bytes": b"x"}])
    with pytest.raises(DuplicateRecordError) as replacing:
        store.update_record("m-alice", ["message"], {
            "replace_images": [{"id": "img-bob", "image_bytes": b"x"}]}, "t-alice")
    assert str(replacing.value) == str(plain.value)


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


def test_replace_within_the_same_scope_still_replaces(store):
    _conversation(store)
    store.update_record("m-bob", ["message"], {
        "replace_images": [{"id": "img-bob", "mime_type": "image/png",
                            "image_bytes": b"new bytes"}]}, "t-bob")
    assert _bobs_image(store)["image_bytes"] == b"new bytes"
    store.write_records([{"record_type": "memory", "id": "mem", **BOB, "content": "v1"}])
    store.write_records([{"record_type": "memory", "id": "mem", **BOB, "content": "v2"}],
                        replace=True)
    assert store.get_records({"ids": ["mem"]})[0]["content"] == "v2"


def test_a_standalone_image_cannot_be_attached_by_naming_it(store):
    store.write_records([
        {"record_type": "image", "id": "loose", **ALICE, "image_bytes": b"loose bytes"},
        {"record_type": "message", "id": "m", **ALICE, "role": "user", "content": "x"},
    ])
    with pytest.raises(DuplicateRecordError, match="loose"):
        store.update_record("m", ["message"], {
            "replace_images": [{"id": "loose", "image_bytes": b"other"}]}, "t-alice")
    [loose] = store.get_records({"ids": ["loose"], "include_bytes": True})
    assert (loose["message_id"], loose["image_bytes"]) == (None, b"loose bytes")
