"""Linked records of a search hit, for an end user on the embedded backend.

The contract: a link is readable when both its ends are. The embedded store walks links
through every record; before the fix the end-user guard dropped only the linked records the
user may not read, so a record of the user's own reached through another user's record
came back naming that record (``via_record_id`` and ``relation``). On Oracle the row
policies keep the walk to readable records.
"""

from __future__ import annotations

from oracleagentmemory.core.deepsec import OracleMemoryEndUserSecurityContext
from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.end_user_guard import SecuritySettings
from oracleagentmemory.stores.guarded import guarded


def link(source: str, target: str, relation_type: str) -> dict:
    return {"source_id": source, "source_type": "memory", "target_id": target,
            "target_type": "memory", "relation_type": relation_type}


def test_a_walk_never_passes_through_a_record_the_user_may_not_read(tmp_path):
    backend = EmbeddedBackend(tmp_path / "walk.db", embedding_dimension=2)
    backend.write_records([
        {"record_type": "memory", "id": "a1", "user_id": "alice", "content": "a1",
         "embedding": [1, 0]},
        {"record_type": "memory", "id": "a2", "user_id": "alice", "content": "a2",
         "embedding": [0, 1]},
        {"record_type": "memory", "id": "a3", "user_id": "alice", "content": "a3",
         "embedding": [0, 1]},
        {"record_type": "memory", "id": "bob-secret", "user_id": "bob", "content": "b",
         "embedding": [0, 1]},
    ], links=[link("a1", "a2", "supports"), link("a1", "bob-secret", "refines"),
              link("bob-secret", "a3", "supports")])
    backend.save_security_settings(SecuritySettings(
        frozenset({"user_own_rows"}), frozenset({("local_user", "alice", "user_own_rows")})))
    guard = guarded(backend)  # the chain every path to the store passes
    with OracleMemoryEndUserSecurityContext("alice"):
        [hit] = guard.search({"query_text": "", "query_vector": [1, 0], "max_results": 1,
                              "num_hops": 2, "record_types": ["memory"]})
        readable_links = {item["id"] for item in guard.list_links({})}
    assert hit["record"]["id"] == "a1"
    assert [(item["record"]["id"], item["via_record_id"], item["hops"])
            for item in hit["linked"]] == [("a2", "a1", 1)]
    assert {item["relation_id"] for item in hit["linked"]} <= readable_links
    backend.close()
