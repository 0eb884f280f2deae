"""Ids the library makes for what the caller leaves unnamed: dashed version 7 UUIDs, so ids
made later sort later and a store's id index is appended to (``oracleagentmemory._ids``)."""

from __future__ import annotations

import re
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

import pytest

from oracleagentmemory import _ids
from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.integrations.mcp_config import McpServerConfig
from oracleagentmemory.integrations.mcp_scope import McpScope
from oracleagentmemory.stores.embedded import EmbeddedBackend

DASHED_V7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def _at(monkeypatch: pytest.MonkeyPatch, milliseconds: int) -> None:
    monkeypatch.setattr(_ids.time, "time_ns", lambda: milliseconds * 1_000_000 + 999_999)


def test_an_id_is_a_dashed_version_7_uuid_starting_with_its_millisecond(monkeypatch):
    moment = datetime(2026, 12, 2, 10, 30, 0, 123000, tzinfo=timezone.utc)
    milliseconds = 1_796_207_400_123  # the moment above (`date -u -d 2026-12-02T10:30:00Z +%s`)
    assert moment.timestamp() * 1000 == milliseconds
    _at(monkeypatch, milliseconds)
    made = _ids.new_id()
    assert DASHED_V7.match(made)
    parsed = uuid.UUID(made)
    assert parsed.version == 7 and parsed.variant == uuid.RFC_4122
    assert parsed.int >> 80 == milliseconds
    assert made.replace("-", "")[:12] == f"{milliseconds:012x}"


def test_later_ids_sort_later_and_ids_of_one_millisecond_differ(monkeypatch):
    made = []
    for milliseconds in (1_700_000_000_000, 1_700_000_000_001, 1_700_000_001_000,
                         2_000_000_000_000):
        _at(monkeypatch, milliseconds)
        made.append(_ids.new_id())
    assert made == sorted(made)
    _at(monkeypatch, 1_700_000_000_000)
    same_moment = {_ids.new_id() for _ in range(1000)}
    assert len(same_moment) == 1000  # 74 random bits each
    assert {made_id[:13] for made_id in same_moment} == {made[0][:13]}


def test_the_client_and_the_embedded_store_make_version_7_ids(embedder):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    try:
        thread = client.create_thread(user_id="u1")
        message_ids = thread.add_messages([{"role": "user", "content": "hello"}])
        memory_id = client.add_memory("likes tea", user_id="u1")
        made = [thread.thread_id, *message_ids, memory_id]
    finally:
        client.close()
    store = EmbeddedBackend(":memory:", embedding_dimension=2)
    try:
        made += store.write_records([{"record_type": "memory", "content": "x"}])
    finally:
        store.close()
    assert len(made) == 4
    for one in made:
        assert DASHED_V7.match(one), one


def test_every_bit_after_the_time_but_version_and_variant_is_random(monkeypatch):
    """Across ids of one millisecond, 74 of the 80 bits after the time vary, and the 6 that
    do not are exactly those whose flip changes the version or variant ``uuid`` reads."""
    _at(monkeypatch, 1_700_000_000_000)
    made = [uuid.UUID(_ids.new_id()) for _ in range(1000)]
    ones = zeros = 0
    for one in made:
        ones |= one.int
        zeros |= ~one.int
    varying = {bit for bit in range(80) if (ones & zeros) >> bit & 1}
    sample = made[0]

    def flip_changes_version_or_variant(bit: int) -> bool:
        flipped = uuid.UUID(int=sample.int ^ (1 << bit))
        return (flipped.version, flipped.variant) != (sample.version, sample.variant)

    fields = {bit for bit in range(80) if flip_changes_version_or_variant(bit)}
    assert len(varying) == 74
    assert fields == set(range(80)) - varying


def test_ids_made_on_many_threads_at_once_are_all_different():
    with ThreadPoolExecutor(max_workers=8) as pool:
        batches = list(pool.map(lambda _: [_ids.new_id() for _ in range(500)], range(8)))
    made = [one for batch in batches for one in batch]
    assert len(made) == 4000 and len(set(made)) == 4000
    assert all(DASHED_V7.match(one) for one in made)


def test_the_mcp_session_thread_id_is_a_generated_id(embedder):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    try:
        scope = McpScope(client, McpServerConfig(db="unused", user_id="alice",
                                                 session_thread=True))
        session = scope.session_thread_id()
    finally:
        client.close()
    assert DASHED_V7.match(session), session
