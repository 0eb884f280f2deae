"""A store of the caller's receives the argument types the public store interface declares.

The client speaks the store contract; ``InterfaceBackend`` turns contract values into
``IMemoryStore`` calls. A store written against the interface compares ``ttl_anchor`` with
``TimeToLiveAnchor`` members and takes one relation label per link, so that is what it
must be given (the contract's spellings, such as ``"TIMESTAMP"``, must not leak through).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.stores.interface_backend import InterfaceBackend
from tests.support.dict_memory_store import DictMemoryStore


class RecordingStore(DictMemoryStore):
    """Remembers the TTL anchors and opposite labels it was handed."""

    def __init__(self) -> None:
        super().__init__()
        self.anchors: list[Any] = []
        self.opposites: list[Any] = []

    def _add_prepared_batches(self, batches, **store_kwargs):
        for batch in batches:
            self.anchors += [batch.values("ttl_anchor", i) for i in range(len(batch))]
        return super()._add_prepared_batches(batches, **store_kwargs)

    def update(self, record_type, record_id, **changes):
        if "ttl_anchor" in changes:
            self.anchors.append(changes["ttl_anchor"])
        return super().update(record_type, record_id, **changes)

    def add_relations(self, *args, **kwargs):
        self.opposites.append(kwargs.get("opposite_relation_types"))
        return super().add_relations(*args, **kwargs)


def test_a_memory_written_with_a_ttl_anchor_hands_the_store_the_enum_member(embedder):
    store = RecordingStore()
    thread = OracleAgentMemory(connection=store, embedder=embedder).create_thread(
        thread_id="t", user_id="u", agent_id="a")
    event = (datetime.now(timezone.utc) + timedelta(days=1)).isoformat()
    thread.add_memory("a", memory_id="m1", ttl_days=2, ttl_anchor=TimeToLiveAnchor.TIMESTAMP,
                      timestamp=event)
    thread.add_memory("b", memory_id="m2", ttl_days=2)
    assert TimeToLiveAnchor.TIMESTAMP in store.anchors
    assert TimeToLiveAnchor.CREATED_AT in store.anchors
    assert all(isinstance(anchor, TimeToLiveAnchor) for anchor in store.anchors
               if anchor is not NOT_SET_MARKER)


def test_a_ttl_change_hands_the_store_the_enum_member(embedder):
    store = RecordingStore()
    backend = InterfaceBackend(store)
    backend.write_records([{"record_type": "memory", "id": "m", "content": "x",
                            "user_id": "u", "embedding": [1.0, 0.0, 0.0, 0.0]}])
    backend.update_record("m", ["memory"], {"ttl_days": 3, "ttl_anchor": "TIMESTAMP"})
    assert store.anchors[-1] is TimeToLiveAnchor.TIMESTAMP


def test_links_with_and_without_an_opposite_label_each_get_one():
    store = RecordingStore()
    backend = InterfaceBackend(store)
    backend.write_records([], links=[
        {"id": "r1", "source_id": "a", "source_type": "memory", "target_id": "b",
         "target_type": "memory", "relation_type": "supports",
         "opposite_relation_type": None},
        {"id": "r2", "source_id": "b", "source_type": "memory", "target_id": "c",
         "target_type": "memory", "relation_type": "follows",
         "opposite_relation_type": "precedes"},
        {"id": "r3", "source_id": "c", "source_type": "memory", "target_id": "d",
         "target_type": "memory", "relation_type": "mentions"},
    ])
    assert store.opposites == [["is_supported_by", "precedes", "mentions"]]
