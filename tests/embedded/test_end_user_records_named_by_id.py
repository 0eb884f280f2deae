"""End-user rules on the embedded backend for records whose id names what they belong to.

A thread's rolling summary has the thread's id, and a user profile the user's: such a
record belongs to the thread (or user) its id names, whatever its own ``thread_id``. Before
the fix Alice, in her own security context, could write a summary named like Bob's thread
(with no ``thread_id``) or a profile named like Bob: Bob's summary refresh then failed for
good ("already exists"), the planted text came back to Bob in ``append_messages``'
``thread_summary`` (which the guard did not filter, where Oracle's read policy hides it)
and reached his LLM, and Bob's ``delete_cascade("user", "bob")`` deleted Alice's record.
"""

from __future__ import annotations

import pytest

from oracleagentmemory.core.deepsec import OracleMemoryEndUserSecurityContext
from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.end_user_guard import SecuritySettings
from oracleagentmemory.stores.guarded import guarded

ALICE, BOB = {"user_id": "alice"}, {"user_id": "bob"}
DUE = {"extraction_frequency": None, "extraction_window": 1, "summary_frequency": 0}


@pytest.fixture
def store(tmp_path):
    backend = EmbeddedBackend(tmp_path / "named.db", embedding_dimension=2)
    backend.write_records([
        {"record_type": "thread", "id": "t-bob", "thread_id": "t-bob", **BOB},
        {"record_type": "thread", "id": "t-alice", "thread_id": "t-alice", **ALICE},
    ])
    backend.save_security_settings(SecuritySettings(
        frozenset({"user_own_rows"}),
        frozenset({("local_user", "alice", "user_own_rows"),
                   ("local_user", "bob", "user_own_rows")})))
    yield backend, guarded(backend)
    backend.close()


def test_a_summary_named_like_another_users_thread_is_refused(store):
    backend, guard = store
    with OracleMemoryEndUserSecurityContext("alice"):
        with pytest.raises(PermissionError):
            guard.write_records([{"record_type": "summary", "id": "t-bob", **ALICE,
                                  "content": "planted by alice"}])
        with pytest.raises(PermissionError):
            guard.write_records([{"record_type": "summary", "id": "t-bob", **ALICE,
                                  "thread_id": "t-alice", "content": "planted by alice"}])
        # her own thread's summary is still hers to write
        guard.write_records([{"record_type": "summary", "id": "t-alice", **ALICE,
                              "thread_id": "t-alice", "content": "alice's summary"}])
    assert backend.get_records({"record_types": ["summary"], "ids": ["t-bob"]}) == []
    with OracleMemoryEndUserSecurityContext("bob"):  # bob's summary refresh still works
        guard.write_records([{"record_type": "summary", "id": "t-bob", **BOB,
                              "thread_id": "t-bob", "content": "bob's summary"}],
                            replace=True, thread_id="t-bob")


def test_append_messages_returns_only_a_summary_the_user_may_read(store):
    backend, guard = store
    # a summary named like bob's thread that bob may not read (written by the service)
    backend.write_records([{"record_type": "summary", "id": "t-bob", **ALICE,
                            "content": "alice's words"}])
    with OracleMemoryEndUserSecurityContext("bob"):
        assert guard.get_records({"record_types": ["summary"]}) == []
        result = guard.append_messages({
            "thread_id": "t-bob", "schedule": DUE,
            "records": [{"record_type": "message", "thread_id": "t-bob", **BOB,
                         "role": "user", "content": "hello", "embedding": [1, 0]}]})
    assert result["summary_window"] > 0  # the refresh is due: the summary is read
    assert result["thread_summary"] is None


def test_a_user_profile_named_like_another_user_is_refused(store):
    backend, guard = store
    with OracleMemoryEndUserSecurityContext("alice"):
        with pytest.raises(PermissionError):
            guard.write_records([{"record_type": "user_profile", "id": "bob", **ALICE,
                                  "content": "squatted", "embedding": [1, 0]}])
        guard.write_records([{"record_type": "user_profile", "id": "alice", **ALICE,
                              "content": "alice's profile", "embedding": [1, 0]}])
    with OracleMemoryEndUserSecurityContext("bob"):
        guard.write_records([{"record_type": "user_profile", "id": "bob", **BOB,
                              "content": "bob's profile", "embedding": [0, 1]}])
        guard.delete_cascade("user", "bob")
    assert [r["id"] for r in backend.get_records({"record_types": ["user_profile"]})] == [
        "alice"]


PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def image(message_id: str, **scope: str) -> dict:
    return {"record_type": "image", "message_id": message_id, **scope,
            "mime_type": "image/png", "image_bytes": PNG, "content": "a picture"}


def test_an_image_attached_to_another_users_message_is_refused(store):
    # Before, alice's image named bob's message: bob's next update of that message (which
    # replaces the images attached to it) deleted alice's record, a row he may not change.
    backend, guard = store
    backend.write_records([
        {"record_type": "message", "id": "m-bob", "thread_id": "t-bob", **BOB,
         "role": "user", "content": "bob says", "embedding": [1, 0]},
        {"record_type": "message", "id": "m-alice", "thread_id": "t-alice", **ALICE,
         "role": "user", "content": "alice says", "embedding": [1, 0]},
    ])
    with OracleMemoryEndUserSecurityContext("alice"):
        with pytest.raises(PermissionError):
            guard.write_records([image("m-bob", **ALICE)])
        assert guard.write_records([image("m-alice", thread_id="t-alice", **ALICE)])
    assert [r["message_id"] for r in backend.get_records({"record_types": ["image"]})] == [
        "m-alice"]


def test_a_thread_record_naming_another_users_thread_is_refused(store):
    # Before, alice's thread record could carry bob's thread as its thread_id (the guard
    # looked at the thread_id of every record but a thread): bob's deletion of his own
    # thread then deleted alice's record with it.
    backend, guard = store
    with OracleMemoryEndUserSecurityContext("alice"):
        with pytest.raises(PermissionError):
            guard.write_records([{"record_type": "thread", "id": "t-new", "thread_id": "t-bob",
                                  **ALICE}])
        guard.write_records([{"record_type": "thread", "id": "t-own", "thread_id": "t-own",
                              **ALICE}])
    with OracleMemoryEndUserSecurityContext("bob"):
        guard.delete_cascade("thread", "t-bob")
    assert sorted(r["id"] for r in backend.get_records({"user_id": "alice"})) == [
        "t-alice", "t-own"]
