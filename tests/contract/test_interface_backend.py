"""The caller-store adapter over a store that knows only the public interface.

``DictMemoryStore`` keeps what the interface hands it and nothing more (no thread-record
methods, no attachment of images, no transaction across calls), so what the client reads
back here is what the adapter itself keeps of the contract: an image's message named by the
message's parts, and a failed write taken back.
"""

from __future__ import annotations

import pytest

from oracleagentmemory.apis.message import ImageContent, Message, TextContent
from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.stores.errors import InvalidLinkError
from oracleagentmemory.stores.interface_backend import InterfaceBackend
from tests.support.dict_memory_store import DictMemoryStore
from tests.support.images import image_bytes


def test_a_threads_message_keeps_its_image_on_a_store_of_the_callers(embedder):
    store = DictMemoryStore()
    picture = image_bytes("PNG")
    with OracleAgentMemory(connection=store, embedder=embedder) as client:
        thread = client.create_thread(user_id="u")
        [message_id] = thread.add_messages([Message(role="user", content=[
            TextContent(text="look at this"), ImageContent(bytes=picture, mime_type="image/png",
                                                           description="a red square")])])
        [message] = thread.get_messages(include_image_bytes=True)
        text, image = message.content
        assert text.text == "look at this"
        assert (image.bytes, image.description) == (picture, "a red square")
        backend = InterfaceBackend(store)
        [stored] = backend.get_records({"record_types": ["image"]})
        assert stored["message_id"] == message_id
        thread.delete_message(message_id)
        assert backend.get_records({"record_types": ["image"]}) == []


class RefusingLinks(DictMemoryStore):
    """Refuses every relation, as a store does whose ends are missing."""

    def add_relations(self, *args, **kwargs):
        raise InvalidLinkError("no relations here")


def test_records_written_before_a_refused_link_are_taken_back():
    backend = InterfaceBackend(RefusingLinks())
    backend.write_records([{"record_type": "memory", "id": "kept", "content": "k",
                            "embedding": [1.0, 0.0]}])
    with pytest.raises(InvalidLinkError):
        backend.write_records(
            [{"record_type": "memory", "id": "a", "content": "a", "embedding": [1.0, 0.0]},
             {"record_type": "memory", "id": "b", "content": "b", "embedding": [0.0, 1.0]}],
            links=[{"source_id": "a", "source_type": "memory", "target_id": "b",
                    "target_type": "memory", "relation_type": "supports"}])
    assert [record["id"] for record in backend.get_records({})] == ["kept"]


def test_a_replace_that_fails_puts_the_replaced_record_back():
    backend = InterfaceBackend(RefusingLinks())
    backend.write_records([{"record_type": "memory", "id": "m", "content": "old",
                            "metadata": {"v": 1}}])
    with pytest.raises(InvalidLinkError):
        backend.write_records(
            [{"record_type": "memory", "id": "m", "content": "new"},
             {"record_type": "memory", "id": "n", "content": "n"}],
            links=[{"source_id": "m", "source_type": "memory", "target_id": "n",
                    "target_type": "memory", "relation_type": "supports"}], replace=True)
    assert [(r["id"], r["content"], r["metadata"]) for r in backend.get_records({})] == [
        ("m", "old", {"v": 1})]
