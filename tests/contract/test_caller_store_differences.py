"""Contract rules where the caller-store adapter answered otherwise than the embedded backend
(found by a differential run of seeded operation sequences over both). Each test runs on the
embedded backend directly and on ``InterfaceBackend`` over ``OracleDBMemoryStore``, and
asserts what docs/store-contract.md says; none of these is among the adapter's documented
differences (docs/custom-store.md, "What the adapter gives")."""

from __future__ import annotations

import pytest

from oracleagentmemory.conformance.contract import png
from oracleagentmemory.core.dbschemapolicy import SchemaPolicy
from oracleagentmemory.core.oracledbmemorystore import OracleDBMemoryStore
from oracleagentmemory.stores.embedded.store import EmbeddedBackend
from oracleagentmemory.stores.interface_backend import InterfaceBackend


@pytest.fixture(params=["embedded", "adapter"])
def store(request):
    if request.param == "embedded":
        backend = EmbeddedBackend(":memory:", embedding_dimension=4)
        yield backend
        backend.close()
        return
    public = OracleDBMemoryStore(None, ":memory:", vector_dim=4,
                                 schema_policy=SchemaPolicy.CREATE_IF_NECESSARY)
    yield InterfaceBackend(public)
    public.close()


def test_get_records_without_record_types_selects_every_type(store):
    # "Every key is optional": without record_types no type is left out, threads and
    # summaries included (what an export of the whole store reads).
    store.write_records([
        {"record_type": "thread", "id": "t", "thread_id": "t", "user_id": "u"},
        {"record_type": "summary", "id": "t", "thread_id": "t", "user_id": "u",
         "content": "so far"},
        {"record_type": "memory", "id": "m", "thread_id": "t", "user_id": "u",
         "content": "likes tea", "embedding": [1, 0, 0, 0]},
    ])
    assert sorted((r["record_type"], r["id"]) for r in store.get_records({})) == [
        ("memory", "m"), ("summary", "t"), ("thread", "t")]


def test_a_link_end_left_untyped_may_be_a_record_of_the_same_batch(store):
    # "Records of one call may reference each other", and an end given without its type
    # "is then of its stored type".
    store.write_records(
        [{"record_type": "guideline", "id": "g", "content": "说中文", "embedding": [1, 0, 0, 0]},
         {"record_type": "fact", "id": "f", "content": "il parle français",
          "embedding": [0, 1, 0, 0]}],
        links=[{"source_id": "g", "target_id": "f", "relation_type": "supports"}])
    [link] = store.list_links({})
    assert (link["source_type"], link["target_type"]) == ("guideline", "fact")


def test_a_text_part_without_an_id_is_stored(store):
    # The contract gives a message's parts no required id; image parts name their images,
    # text parts name nothing.
    store.write_records([{"record_type": "message", "id": "msg", "thread_id": "t",
                          "role": "user", "content": "안녕하세요",
                          "parts": [{"type": "text", "text": "안녕하세요"}],
                          "embedding": [1, 0, 0, 0]}])
    [message] = store.list_messages("t", None, None)
    assert [part["text"] for part in message["parts"]] == ["안녕하세요"]


def test_a_null_message_id_selects_the_records_of_no_message(store):
    # "A scope key that is present matches exactly, null included": message_id null is
    # every record not attached to a message, the standalone image among them.
    store.write_records([
        {"record_type": "message", "id": "msg", "thread_id": "t", "role": "user",
         "content": "regarde", "parts": [{"type": "image", "id": "attached"}],
         "embedding": [1, 0, 0, 0]},
        {"record_type": "image", "id": "attached", "thread_id": "t", "message_id": "msg",
         "mime_type": "image/png", "image_bytes": png("attached")},
        {"record_type": "image", "id": "loose", "thread_id": "t", "mime_type": "image/png",
         "image_bytes": png("loose")},
        {"record_type": "memory", "id": "m", "thread_id": "t", "content": "보라색",
         "embedding": [0, 1, 0, 0]},
    ])
    found = store.get_records({"thread_id": "t", "message_id": None})
    assert sorted(r["id"] for r in found) == ["loose", "m", "msg"]
    assert [r["id"] for r in store.get_records({"record_types": ["image"], "message_id": None,
                                                "limit": 1})] == ["loose"]
