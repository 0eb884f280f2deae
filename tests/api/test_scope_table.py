"""The scope-resolution table of the reference pages, over the three API layers.

Layers: ``thread.search()``, ``OracleAgentMemory.search()`` and the store (the contract's
search with a scope resolved by the store-layer defaults). Cases per dimension: omitted,
explicit value with exact False (an id, or None), explicit id with exact True, None with
exact True. Expected results come from a plain predicate over the seeded records.
"""

from __future__ import annotations

import itertools

import pytest

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.apis.searchscope import SearchScope
from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.core.scope_resolution import OMITTED, store_scope

USERS, AGENTS, THREADS = ("u1", "u2", None), ("a1", "a2", None), ("t1", "t2", None)
THREAD_SCOPE = {"user_id": "u1", "agent_id": "a1", "thread_id": "t1"}
FLAGS = {"user_id": "exact_user_match", "agent_id": "exact_agent_match",
         "thread_id": "exact_thread_match"}
OTHER_VALUE = {"user_id": "u2", "agent_id": "a2", "thread_id": "t2"}
RECORDS = [
    {"id": f"{u}-{a}-{t}", "user_id": u, "agent_id": a, "thread_id": t}
    for u, a, t in itertools.product(USERS, AGENTS, THREADS)
]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from tests.support.embedders import HashingEmbedder

    client = OracleAgentMemory(connection=str(tmp_path_factory.mktemp("scope") / "s.db"),
                               embedder=HashingEmbedder())
    for record in RECORDS:
        client.add_memory("shared note", memory_id=record["id"],
                          **{k: record[k] for k in THREAD_SCOPE})
    thread = client.create_thread(**THREAD_SCOPE)
    yield client, thread
    client.close()


def expected(constraints: dict[str, object]) -> set[str]:
    return {r["id"] for r in RECORDS if all(r[k] == v for k, v in constraints.items())}


def run(layer: str, world, **arguments) -> set[str]:
    client, thread = world
    if layer == "thread":
        results = thread.search("shared note", max_results=100, **arguments)
    elif layer == "client":
        results = client.search("shared note", max_results=100, **arguments)
    else:
        dims = store_scope({**OMITTED, **arguments})
        hits = client.memory_service.backend.search({"query_text": "shared note", "scope": dims,
                                    "query_vector": client.memory_service.embed(["shared note"])[0],
                                    "record_types": ["memory"], "max_results": 100})
        return {hit["record"]["id"] for hit in hits}
    return {result.id for result in results}


def layer_defaults(layer: str) -> dict[str, object]:
    """What the other dimensions resolve to when omitted, per layer."""
    if layer == "thread":
        return {"user_id": "u1", "agent_id": "a1"}
    if layer == "client":
        return {}
    return {}


CASES = ["omitted", "value-not-exact", "none-not-exact", "id-exact", "none-exact"]


@pytest.mark.parametrize("layer", ["thread", "client", "store"])
@pytest.mark.parametrize("dimension", ["user_id", "agent_id", "thread_id"])
@pytest.mark.parametrize("case", CASES)
def test_scope_table(world, layer, dimension, case):
    flag = FLAGS[dimension]
    arguments: dict[str, object] = {}
    if case == "value-not-exact":
        arguments = {dimension: OTHER_VALUE[dimension], flag: False}
    elif case == "none-not-exact":
        arguments = {dimension: None, flag: False}
    elif case == "id-exact":
        arguments = {dimension: OTHER_VALUE[dimension], flag: True}
    elif case == "none-exact":
        arguments = {dimension: None, flag: True}
    if layer == "client" and dimension != "user_id":
        arguments = {"user_id": "u1", **arguments}  # client searches always need a user

    rejected = layer == "client" and dimension == "user_id" and case in (
        "omitted", "value-not-exact", "none-not-exact")
    if rejected:
        with pytest.raises(ValueError, match="user"):
            run(layer, world, **arguments)
        return

    constraints = dict(layer_defaults(layer))
    if layer == "client":
        constraints["user_id"] = "u1"
    constraints.pop(dimension, None)
    if case == "omitted" and layer == "thread" and dimension != "thread_id":
        constraints[dimension] = THREAD_SCOPE[dimension]
    if case == "id-exact":
        constraints[dimension] = OTHER_VALUE[dimension]
    if case == "none-exact":
        constraints[dimension] = None
    if layer == "client" and dimension == "user_id" and case == "omitted":
        constraints["user_id"] = "u1"
    assert run(layer, world, **arguments) == expected(constraints)


def test_scope_object_gives_the_same_result_as_explicit_arguments(world):
    scope = SearchScope(user_id="u1", agent_id=None, exact_agent_match=True)
    client, thread = world
    via_scope = {r.id for r in client.search("shared note", scope=scope, max_results=100)}
    explicit = {r.id for r in client.search("shared note", user_id="u1", agent_id=None,
                                            exact_agent_match=True, max_results=100)}
    assert via_scope == explicit == expected({"user_id": "u1", "agent_id": None})


@pytest.mark.parametrize("layer", ["thread", "client"])
def test_scope_combined_with_explicit_ids_is_rejected(world, layer):
    client, thread = world
    api = thread if layer == "thread" else client
    with pytest.raises(ValueError, match="scope"):
        api.search("x", scope=SearchScope(user_id="u1"), user_id="u1")
    with pytest.raises(ValueError, match="scope"):
        api.search("x", scope=SearchScope(user_id="u1"), exact_thread_match=True)


def test_thread_default_ranks_own_thread_first(world):
    client, thread = world
    results = thread.search("shared note", max_results=100)
    own = [r.id for r in results if r.record.thread_id == "t1"]
    assert [r.id for r in results][: len(own)] == own


def test_not_set_marker_is_the_omitted_state():
    assert SearchScope().user_id is NOT_SET_MARKER
    assert SearchScope(user_id=None).user_id is None
