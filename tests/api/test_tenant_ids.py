"""Ids a thread handle names are checked against its own scope.

Alice's thread handle names the id of an image attached to Bob's message: the update is
refused before anything changes, Bob's image keeps its bytes and scope, his message keeps
its image part, and the answer is the one Alice gets for an id taken in her own scope.
"""

from __future__ import annotations

import pytest

from oracleagentmemory.apis.message import ImageContent, ImageMimeType
from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.errors import AgentMemoryError
from tests.support.embedders import HashingEmbedder
from tests.support.images import JPEG, PNG


@pytest.fixture
def client(tmp_path):
    with OracleAgentMemory(connection=str(tmp_path / "tenants.db"),
                           embedder=HashingEmbedder()) as opened:
        yield opened


def _bob_with_image(client):
    bob = client.create_thread(user_id="bob", agent_id="helper")
    [message_id] = bob.add_messages([{"role": "user", "content": [
        {"type": "text", "text": "my cat"},
        {"type": "image", "id": "bob-img", "bytes": PNG, "description": "bob's cat"}]}])
    return bob, message_id


def test_a_thread_cannot_replace_another_tenants_attached_image(client):
    bob, bob_message = _bob_with_image(client)
    alice = client.create_thread(user_id="alice", agent_id="helper")
    [alice_message] = alice.add_messages([{"role": "user", "content": "hello"}])

    with pytest.raises(ValueError, match="bob-img") as refused:
        alice.update_message(alice_message, content=[
            {"type": "image", "id": "bob-img", "bytes": JPEG, "description": "mine"}])
    assert isinstance(refused.value, AgentMemoryError)

    [image] = client.list_images(image_id="bob-img", include_bytes=True)
    assert (image.user_id, image.thread_id, image.message_id) == (
        "bob", bob.thread_id, bob_message)
    assert image.bytes == PNG and image.content == "bob's cat"
    part = bob.get_message(bob_message, included_image_ids=["bob-img"]).content[1]
    assert isinstance(part, ImageContent) and part.bytes == PNG
    assert alice.get_message(alice_message).content == "hello"
    assert alice.list_images() == []


def test_the_answer_does_not_depend_on_whose_id_it_is(client):
    _bob_with_image(client)
    alice = client.create_thread(user_id="alice", agent_id="helper")
    alice.add_image(PNG, description="alice's dog", image_id="alice-img")
    [alice_message] = alice.add_messages([{"role": "user", "content": "hello"}])

    answers = []
    for taken in ("bob-img", "alice-img"):
        with pytest.raises(ValueError) as refused:
            alice.update_message(alice_message, content=[
                ImageContent(bytes=JPEG, mime_type=ImageMimeType.JPEG, id=taken)])
        answers.append((type(refused.value), str(refused.value).replace(taken, "<id>")))
    assert answers[0] == answers[1]
    [own] = alice.list_images(image_id="alice-img", include_bytes=True)
    assert own.bytes == PNG and own.message_id is None
