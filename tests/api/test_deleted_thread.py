"""A handle on a deleted thread writes nothing.

A stale handle (or one in another process) kept writing after ``delete_thread``: its
records were orphans that user searches found while ``get_thread`` said the thread did not
exist. Writes through the handle now need the thread record, checked by the store in the
write's own transaction (background extraction and summaries too).
"""

from __future__ import annotations

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.errors import AgentMemoryError
from tests.support.embedders import HashingEmbedder
from tests.support.images import PNG


def open_client(path):
    return OracleAgentMemory(connection=str(path), embedder=HashingEmbedder())


def writes(thread):
    return [
        lambda: thread.add_messages([{"role": "user", "content": "pizza after the end"}]),
        lambda: thread.add_memory("pizza memory after the end"),
        lambda: thread.add_image(PNG, description="pizza picture after the end"),
    ]


def orphans(client, thread_id):
    """Records of the deleted thread that a user search or a listing still finds."""
    found = client.search("pizza after the end", user_id="u", max_results=50)
    stored = client.memory_service.backend.get_records({"thread_id": thread_id})
    return [r.id for r in found] + [r["id"] for r in stored]


def test_a_stale_handle_cannot_write_after_delete_thread(tmp_path):
    with open_client(tmp_path / "m.db") as client:
        thread = client.create_thread(user_id="u", agent_id="a")
        thread.add_messages([{"role": "user", "content": "before"}])
        client.delete_thread(thread.thread_id)
        for write in writes(thread):
            with pytest.raises(KeyError, match="does not exist") as refused:
                write()
            assert isinstance(refused.value, AgentMemoryError)
        assert orphans(client, thread.thread_id) == []
        with pytest.raises(KeyError):
            client.get_thread(thread.thread_id)


def test_a_handle_in_another_client_cannot_write_after_delete_thread(tmp_path):
    with open_client(tmp_path / "m.db") as mine, open_client(tmp_path / "m.db") as other:
        thread = mine.create_thread(user_id="u", agent_id="a")
        other.delete_thread(thread.thread_id)
        for write in writes(thread):
            with pytest.raises(KeyError, match="does not exist"):
                write()
        assert orphans(other, thread.thread_id) == []


def _embedded(client):
    backend = client.memory_service.backend
    while hasattr(backend, "inner"):
        backend = backend.inner
    return backend


def test_a_deletion_between_the_check_and_the_write_leaves_no_orphan(tmp_path):
    with open_client(tmp_path / "m.db") as mine, open_client(tmp_path / "m.db") as other:
        thread = mine.create_thread(user_id="u", agent_id="a")
        store = _embedded(mine)
        real_write, real_append = store.write_records, store.append_messages

        def write_after_the_deletion(records, links=(), replace=False, thread_id=None):
            other.delete_thread(thread.thread_id)  # the other process, right then
            return real_write(records, links, replace, thread_id)

        def append_after_the_deletion(batch):
            other.delete_thread(thread.thread_id)
            return real_append(batch)

        store.write_records = write_after_the_deletion
        store.append_messages = append_after_the_deletion
        with pytest.raises(KeyError, match="does not exist"):
            thread.add_messages([{"role": "user", "content": [
                {"type": "text", "text": "pizza after the end"},
                {"type": "image", "bytes": PNG, "description": "pizza picture after the end"}]}])
        with pytest.raises(KeyError, match="does not exist"):
            thread.add_memory("pizza memory after the end")
        assert orphans(other, thread.thread_id) == []


def test_a_standalone_thread_without_a_record_still_writes(tmp_path):
    from oracleagentmemory.core import OracleThread

    with open_client(tmp_path / "m.db") as client:
        thread = OracleThread(client.store, client=client, thread_id="loose", user_id="u")
        assert thread.add_messages([{"role": "user", "content": "still fine"}])


def test_background_extraction_after_another_client_deleted_the_thread_writes_nothing(
        tmp_path):
    # Client B deletes the thread while A's LLM call is in flight; A's
    # extracted fact and summary must not come back. The extraction's store step and the
    # summary write run here as the background job runs them, after the deletion.
    from oracleagentmemory.core import derived_memory
    from oracleagentmemory.core.extractors.extractor import ExtractedMemory

    with open_client(tmp_path / "m.db") as mine, open_client(tmp_path / "m.db") as other:
        thread = mine.create_thread(user_id="u", agent_id="a", thread_id="t-pin")
        thread.add_messages([{"role": "user", "content": "my bank pin is 4321"}])
        other.delete_thread("t-pin")
        context = thread._context
        with pytest.raises(KeyError, match="does not exist"):
            derived_memory._store_extracted(context, [ExtractedMemory("bank PIN is 4321")])
        with pytest.raises(KeyError, match="does not exist"):
            derived_memory._save_summary(context, "the user's bank pin is 4321")
        assert other.search("bank PIN", user_id="u", max_results=10) == []
        assert _embedded(other).get_records({"thread_id": "t-pin"}) == []
