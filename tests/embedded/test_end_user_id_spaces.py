"""End-user rules on the embedded backend across id spaces.

Ids are unique per id space only (a thread and a memory may share one). The end-user guard
must judge a call by the records it would touch, never by a record of another type that
happens to carry the same id: before the fix, Alice could plant a memory named like Bob's
thread and then delete Bob's thread, or a thread named like Bob's memory and then rewrite,
delete or link that memory.
"""

from __future__ import annotations

import pytest

from oracleagentmemory.core.deepsec import OracleMemoryEndUserSecurityContext
from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.end_user_guard import SecuritySettings
from oracleagentmemory.stores.guarded import guarded

BOB = {"user_id": "bob"}
ALICE = {"user_id": "alice"}


@pytest.fixture
def store(tmp_path):
    backend = EmbeddedBackend(tmp_path / "ids.db", embedding_dimension=2)
    backend.write_records([
        {"record_type": "thread", "id": "t-bob", "thread_id": "t-bob", **BOB},
        {"record_type": "message", "id": "m-bob", "thread_id": "t-bob", **BOB,
         "role": "user", "content": "bob says", "embedding": [1, 0]},
        {"record_type": "memory", "id": "secret", **BOB, "content": "bob's secret",
         "embedding": [0, 1]},
        {"record_type": "memory", "id": "secret-2", **BOB, "content": "bob's other secret",
         "embedding": [0, 1]},
    ])
    backend.save_security_settings(SecuritySettings(
        frozenset({"user_own_rows"}), frozenset({("local_user", "alice", "user_own_rows")})))
    guard = guarded(backend)  # the chain every path to the store passes
    with OracleMemoryEndUserSecurityContext("alice"):
        guard.write_records([  # Alice's own records, named like Bob's
            {"record_type": "memory", "id": "t-bob", **ALICE, "content": "decoy",
             "embedding": [1, 0]},
            {"record_type": "thread", "id": "secret", "thread_id": "secret", **ALICE},
        ])
    yield backend, guard
    backend.close()


def bobs(backend):
    return sorted((r["record_type"], r["id"], r["content"])
                  for r in backend.get_records({"user_id": "bob"}))


def test_a_record_of_another_type_does_not_open_bobs_records(store):
    backend, guard = store
    before = bobs(backend)
    with OracleMemoryEndUserSecurityContext("alice"):
        assert guard.update_record("secret", ["memory"], {"content": "alice was here"}) is None
        assert guard.delete_records(["secret"], ["memory"]) == 0
        with pytest.raises(PermissionError):
            guard.delete_cascade("thread", "t-bob")
        with pytest.raises(PermissionError):
            guard.write_records([{"record_type": "memory", "id": "mine", **ALICE,
                                  "content": "x", "embedding": [1, 0]}],
                                links=[{"source_id": "mine", "source_type": "memory",
                                        "target_id": "secret", "target_type": "memory",
                                        "relation_type": "supports"}])
        with pytest.raises(PermissionError):  # a thread of the batch is not a link end
            guard.write_records([{"record_type": "thread", "id": "secret-2",
                                  "thread_id": "secret-2", **ALICE}],
                                links=[{"source_id": "t-bob", "source_type": "memory",
                                        "target_id": "secret-2", "target_type": "memory",
                                        "relation_type": "supports"}])
    assert bobs(backend) == before
    assert backend.list_links({}) == []


def test_alice_still_changes_her_own_records_of_either_type(store):
    backend, guard = store
    with OracleMemoryEndUserSecurityContext("alice"):
        assert guard.update_record("t-bob", ["memory"], {"content": "mine"})["content"] == "mine"
        assert guard.delete_records(["t-bob"], ["memory"]) == 1
        assert guard.delete_cascade("thread", "secret")["owner"] == 1
    assert bobs(backend) == [("memory", "secret", "bob's secret"),
                             ("memory", "secret-2", "bob's other secret"),
                             ("message", "m-bob", "bob says"), ("thread", "t-bob", "")]


def test_replacing_another_users_record_by_id_is_refused_and_leaves_it(store):
    # docs/deep-data-security.md: a replace by id of a record the end user may not change
    # raises DuplicateRecordError on both backends (the page said the embedded one replaced).
    from oracleagentmemory.stores.errors import DuplicateRecordError

    backend, guard = store
    before = bobs(backend)
    with OracleMemoryEndUserSecurityContext("alice"), pytest.raises(DuplicateRecordError):
        guard.write_records([{"record_type": "memory", "id": "secret", **ALICE,
                              "content": "alice's now", "embedding": [0, 1]}], replace=True)
    assert bobs(backend) == before
