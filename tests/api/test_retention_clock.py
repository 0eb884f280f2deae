"""Time to live with the store's clock set by the test (nothing sleeps): the rules of
docs/concepts.md (Retention) and docs/store-contract.md (Expiry) at and around expiry."""

from __future__ import annotations

from datetime import timedelta

import pytest

from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.core import OracleAgentMemory
from tests.support.clock import START, Clock, clocked_client
from tests.support.embedders import HashingEmbedder
from tests.support.images import PNG


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(clock: Clock):
    with clocked_client(clock) as opened:
        yield opened


def _message_with_image(thread, timestamp: str) -> str:
    """A message at ``timestamp`` with the image "pic", kept one day from that time."""
    [message_id] = thread.add_messages(
        [{"role": "user", "timestamp": timestamp,
          "content": [{"type": "text", "text": "look at this"},
                      {"type": "image", "bytes": PNG, "description": "a harbour chart",
                       "id": "pic"}]}],
        ttl_days=1, ttl_anchor=TimeToLiveAnchor.TIMESTAMP)
    return message_id


def test_an_attached_image_expires_with_its_timestamp_anchored_message(
        client: OracleAgentMemory, clock: Clock) -> None:
    # docs/concepts.md: "Images attached to a message expire with it". The message's event
    # time is two days before the write: with a one-day TTL counted from it, the message
    # has expired when it is written, and so has its image.
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    _message_with_image(thread, "2026-04-29T21:00:00+09:00")  # 12:00 UTC
    assert thread.get_messages() == []
    assert thread.list_images() == []
    assert thread.search("harbour chart", record_types=["image"]) == []
    assert client.purge_expired() == 2  # the message and its image


def test_an_attached_image_keeps_its_message_until_both_expire(
        client: OracleAgentMemory, clock: Clock) -> None:
    # The message's event time is two days after the write: it lives three days from now;
    # its image must not go (nor be purged) a day after the write, while the message stays.
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    message_id = _message_with_image(thread, "2026-05-03T14:00:00+02:00")  # 12:00 UTC
    clock.now = START + timedelta(days=2)
    assert client.purge_expired() == 0
    assert [image.id for image in thread.list_images()] == ["pic"]
    assert thread.get_message(message_id, included_image_ids=["pic"]).content[1].bytes == PNG
    clock.now = START + timedelta(days=3)
    assert thread.get_messages() == []
    assert thread.list_images() == []
    assert client.purge_expired() == 2


def test_the_clamping_warning_names_the_callers_line() -> None:
    # A warning is attributed to the line that asked for too long a TTL (what the warning
    # filters and the "shown once per location" rule go by), not to a line of the library.
    from oracleagentmemory.core import MemoryRetentionConfig

    clamped = OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder(),
                                memory_retention_config=MemoryRetentionConfig(max_ttl_days=10))
    thread = clamped.create_thread(thread_id="t", user_id="u", agent_id="a")
    memory_id = thread.add_memory("a")
    calls = [
        lambda: thread.add_memory("a", ttl_days=99),
        lambda: clamped.add_memory("a", user_id="u", ttl_days=99),
        lambda: thread.add_messages([{"role": "user", "content": "x"}], ttl_days=[99]),
        lambda: thread.update_memory(memory_id, ttl_days=99),
        lambda: thread.add_image(PNG, description="x", ttl_days=99),
    ]
    for call in calls:
        with pytest.warns(UserWarning, match="clamped") as caught:
            call()
        assert [warning.filename for warning in caught] == [__file__]
    clamped.close()
