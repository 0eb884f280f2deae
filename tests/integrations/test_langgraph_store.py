"""The LangGraph store against LangGraph's own ``InMemoryStore``: same scenarios, same answers.

The installed ``langgraph`` ships no store conformance suite, so every scenario runs on
both stores with the same embedder and the results are compared: items, order, scores.
Where the two differ by design (no-query ordering, scope mapping) the test says so; TTLs
(which ``InMemoryStore`` lacks) and the bookkeeping hidden from other readers are tested in
test_langgraph_ttl.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, TypedDict

import pytest

pytest.importorskip(
    "langgraph.store.base",
    reason="LangGraph store not tested: install LangGraph (pip install 'langgraph>=1.0')",
)

from langgraph.store.base import (  # noqa: E402
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore  # noqa: E402

from oracleagentmemory.core import OracleAgentMemory  # noqa: E402
from oracleagentmemory.integrations.langgraph_namespaces import (  # noqa: E402
    NamespaceScope,
    default_namespace_mapper,
)
from oracleagentmemory.integrations.langgraph_store import OracleAgentMemoryStore  # noqa: E402
from tests.support.embedders import HashingEmbedder  # noqa: E402

EMBEDDER = HashingEmbedder()


def reference(fields: list[str] | None = None) -> InMemoryStore:
    index: dict[str, Any] = {"dims": EMBEDDER.embedding_dimension,
                             "embed": lambda texts: EMBEDDER.embed(texts).tolist()}
    if fields is not None:
        index["fields"] = fields
    return InMemoryStore(index=index)


@pytest.fixture
def client():
    with OracleAgentMemory(connection=":memory:", embedder=EMBEDDER) as opened:
        yield opened


def pair(client: OracleAgentMemory, fields: list[str] | None = None
         ) -> tuple[OracleAgentMemoryStore, InMemoryStore]:
    index = {"fields": fields} if fields is not None else None
    return OracleAgentMemoryStore(client, index=index), reference(fields)


def view(result: Any) -> Any:
    """What must agree between the stores (timestamps are each store's own clock)."""
    if result is None:
        return None
    if isinstance(result, list):
        return [view(entry) for entry in result]
    if isinstance(result, tuple):
        return result
    entry = (result.namespace, result.key, result.value)
    score = getattr(result, "score", "absent")
    if score != "absent":
        entry += (None if score is None else round(score, 5),)
    return entry


ITEMS = [
    (("users", "alice", "memories"), "m1",
     {"text": "Alice likes night trains to Vienna", "kind": "pref", "stars": 5,
      "tags": ["travel", "rail"], "meta": {"source": "chat", "lang": "en"}}),
    (("users", "alice", "memories"), "m2",
     {"text": "Alice dislikes early flights", "kind": "pref", "stars": 2,
      "tags": ["travel"], "meta": {"source": "form", "lang": "en"}}),
    (("users", "alice", "notes"), "n1",
     {"text": "Passport renewal due in March", "kind": "todo", "stars": 4,
      "tags": [], "meta": {"source": "chat", "lang": "fr"}}),
    (("users", "bob", "memories"), "m1",
     {"text": "Bob takes trains to work every day", "kind": "pref", "stars": 3,
      "tags": ["rail"], "meta": {"source": "chat", "lang": "de"}}),
    (("docs",), "d1",
     {"text": "Rail network map of Europe", "kind": "doc", "stars": 1,
      "tags": ["rail"], "meta": {"source": "web", "lang": "en"}}),
]


def load(*stores: Any) -> None:
    for store in stores:
        for namespace, key, value in ITEMS:
            store.put(namespace, key, value)


def test_values_round_trip_exactly(client: OracleAgentMemory) -> None:
    ours, ref = pair(client)
    value = {"text": "héllo ✓", "n": 1.5, "big": 2**53, "flag": False, "none": None,
             "nested": {"list": [1, "two", [3], {"four": 4}]}, "empty": {}}
    for store in (ours, ref):
        store.put(("users", "alice"), "k", value)
        assert store.get(("users", "alice"), "k").value == value
        assert store.get(("users", "alice"), "missing") is None
        assert store.get(("users", "bob"), "k") is None
    assert ours.get(("users", "alice"), "k").value is not value  # a stored copy


def test_overwrite_and_delete_match_in_memory_store(client: OracleAgentMemory) -> None:
    ours, ref = pair(client, ["text"])
    load(ours, ref)
    first = ours.get(("users", "alice", "memories"), "m1")
    for store in (ours, ref):
        store.put(("users", "alice", "memories"), "m1", {"text": "Alice now flies", "stars": 1})
        store.delete(("users", "bob", "memories"), "m1")
        store.delete(("users", "bob", "memories"), "never-existed")
    for namespace, key, _ in ITEMS:
        assert view(ours.get(namespace, key)) == view(ref.get(namespace, key))
    assert view(ours.search(("users",), query="flies", limit=10)) == \
        view(ref.search(("users",), query="flies", limit=10))
    again = ours.get(("users", "alice", "memories"), "m1")
    assert again.created_at == first.created_at and again.updated_at > first.updated_at


@pytest.mark.parametrize("fields", [None, ["text"], ["text", "tags[*]"], ["meta.source"]])
@pytest.mark.parametrize("prefix", [(), ("users",), ("users", "alice"), ("docs",), ("none",)])
def test_semantic_search_matches_in_memory_store(client: OracleAgentMemory, fields: Any,
                                                 prefix: tuple[str, ...]) -> None:
    ours, ref = pair(client, fields)
    load(ours, ref)
    for query, limit, offset in (("trains to Vienna", 10, 0), ("rail", 2, 1),
                                 ("early flights", 1, 0), ("chat", 3, 2)):
        expected = view(ref.search(prefix, query=query, limit=limit, offset=offset))
        assert view(ours.search(prefix, query=query, limit=limit, offset=offset)) == expected


FILTERS = [
    {"kind": "pref"},
    {"kind": "pref", "stars": 5},
    {"meta": {"source": "chat"}},
    {"meta": {"lang": {"$ne": "en"}}},
    {"tags": ["travel", "rail"]},
    {"tags": []},
    {"stars": {"$gt": 2}},
    {"stars": {"$gte": 2, "$lt": 5}},
    {"stars": {"$lte": 3}, "kind": {"$eq": "pref"}},
    {"kind": {"$ne": "pref"}},
    {"missing": {"$ne": 1}},
    {"missing": None},
    {"kind": "nothing"},
]


@pytest.mark.parametrize("filter_", FILTERS)
def test_filters_match_in_memory_store(client: OracleAgentMemory, filter_: dict) -> None:
    ours, ref = pair(client, ["text"])
    load(ours, ref)
    ranked = view(ref.search((), query="trains", filter=filter_, limit=10))
    assert view(ours.search((), query="trains", filter=filter_, limit=10)) == ranked
    # Without a query the order is each store's own (ours: oldest write first); same set.
    plain = ours.search((), filter=filter_, limit=10)
    assert sorted(map(view, plain)) == sorted(map(view, ref.search((), filter=filter_, limit=10)))
    assert [item.key for item in plain] == [key for _, key, value in ITEMS
                                             if any(i.key == key and i.value == value
                                                    for i in plain)]


def test_paging_without_query_follows_insertion_order(client: OracleAgentMemory) -> None:
    ours, ref = pair(client)
    for store in (ours, ref):
        for index in range(7):
            store.put(("pages",), f"k{index}", {"i": index, "even": index % 2 == 0})
    for limit, offset in ((3, 0), (3, 3), (3, 6), (10, 0), (0, 0)):
        assert view(ours.search(("pages",), limit=limit, offset=offset)) == \
            view(ref.search(("pages",), limit=limit, offset=offset))
    assert view(ours.search(("pages",), filter={"even": True}, limit=2, offset=1)) == \
        view(ref.search(("pages",), filter={"even": True}, limit=2, offset=1))


def test_unindexed_items_fill_after_ranked_ones(client: OracleAgentMemory) -> None:
    ours, ref = pair(client, ["text"])
    for store in (ours, ref):
        store.put(("docs",), "ranked", {"text": "trains and rails"})
        store.put(("docs",), "off", {"text": "trains everywhere"}, index=False)
        store.put(("docs",), "no-field", {"title": "trains"})
        store.put(("docs",), "by-path", {"title": "night trains"}, index=["title"])
    assert view(ours.search(("docs",), query="night trains", limit=10)) == \
        view(ref.search(("docs",), query="night trains", limit=10))


def test_list_namespaces_matches_in_memory_store(client: OracleAgentMemory) -> None:
    ours, ref = pair(client)
    load(ours, ref)
    for store in (ours, ref):
        store.put(("users", "carol", "memories", "archive"), "x", {"text": "old"})
    cases: list[dict[str, Any]] = [
        {}, {"prefix": ("users",)}, {"prefix": ("users", "*", "memories")},
        {"suffix": ("memories",)}, {"suffix": ("*", "notes")}, {"max_depth": 2},
        {"prefix": ("users",), "max_depth": 3, "limit": 2, "offset": 1},
        {"prefix": ("users", "alice"), "suffix": ("notes",)}, {"prefix": ("nothing",)},
    ]
    for case in cases:
        assert ours.list_namespaces(**case) == ref.list_namespaces(**case), case


def test_batch_reads_see_the_state_before_its_writes(client: OracleAgentMemory) -> None:
    ours, ref = pair(client, ["text"])
    load(ours, ref)
    namespace = ("users", "alice", "memories")
    ops = [
        PutOp(namespace, "m9", {"text": "first"}),
        GetOp(namespace, "m9"),
        GetOp(namespace, "m1"),
        SearchOp(("users", "alice"), None, 10, 0, "trains"),
        PutOp(namespace, "m1", None),
        PutOp(namespace, "m9", {"text": "second"}),
        ListNamespacesOp((MatchCondition("prefix", ("users",)),), None, 10, 0),
    ]
    assert view(ours.batch(ops)) == view(ref.batch(ops))
    assert view(ours.get(namespace, "m9")) == view(ref.get(namespace, "m9"))
    assert ours.get(namespace, "m1") is None


def test_async_api_matches_in_memory_store(client: OracleAgentMemory) -> None:
    ours, ref = pair(client, ["text"])

    async def scenario(store: Any) -> list[Any]:
        await store.aput(("users", "alice"), "a", {"text": "Alice rides trains"})
        await store.aput(("users", "alice"), "b", {"text": "Alice reads books"})
        await store.adelete(("users", "alice"), "b")
        return [await store.aget(("users", "alice"), "a"),
                await store.aget(("users", "alice"), "b"),
                await store.asearch(("users",), query="trains"),
                await store.alist_namespaces()]

    assert view(asyncio.run(scenario(ours))) == view(asyncio.run(scenario(ref)))


def test_invalid_namespaces_are_refused_like_in_memory_store(
        client: OracleAgentMemory) -> None:
    ours, ref = pair(client)
    for store in (ours, ref):
        for namespace in ((), ("a.b",), ("langgraph", "x"), ("",)):
            with pytest.raises(InvalidNamespaceError):
                store.put(namespace, "k", {"v": 1})
    # Stricter by design: LangGraph asks stores that join labels with '.' to validate ops
    # given to batch() directly (validate_op_namespace); InMemoryStore does not need to.
    with pytest.raises(InvalidNamespaceError):
        ours.batch([GetOp(("a.b",), "k")])
    with pytest.raises(ValueError, match="ttl"):
        ours.put(("users", "alice"), "k", {"v": 1}, ttl=-5)


def test_index_config_is_checked(client: OracleAgentMemory) -> None:
    with pytest.raises(ValueError, match=r"index\['dims'\] must be .* when index\['embed'\]"):
        OracleAgentMemoryStore(client, index={"embed": lambda texts: texts})
    with pytest.raises(ValueError, match="dims"):
        OracleAgentMemoryStore(client, index={"dims": 3})
    assert OracleAgentMemoryStore(client, index={"dims": 64, "fields": ["a"]}).fields


def test_index_dims_without_a_client_embedder_is_a_clear_error() -> None:
    from tests.support.dict_memory_store import DictMemoryStore

    without_embedder = OracleAgentMemory(connection=DictMemoryStore())
    assert without_embedder.embedder is None
    with pytest.raises(ValueError, match="no embedder"):
        OracleAgentMemoryStore(without_embedder, index={"dims": 64})
    assert OracleAgentMemoryStore(without_embedder, index={"fields": ["a"]}).fields


def test_namespaces_map_to_memory_scopes(client: OracleAgentMemory) -> None:
    assert default_namespace_mapper(("users", "alice", "agents", "travel", "threads", "t1")) \
        == NamespaceScope("alice", "travel", "t1")
    assert default_namespace_mapper(("memories", "users", "bob")) == NamespaceScope("bob")
    assert default_namespace_mapper(("users",)) == NamespaceScope()
    store = OracleAgentMemoryStore(client, index={"fields": ["text"]})
    store.put(("users", "alice", "agents", "travel", "prefs"), "seat",
              {"text": "Alice wants a window seat"})
    store.put(("users", "bob"), "seat", {"text": "Bob wants an aisle seat"})
    store.put(("docs",), "seat", {"text": "Seat map"})

    hits = client.search("window seat", user_id="alice", agent_id="travel")
    assert [(h.content, h.record.user_id, h.record.agent_id) for h in hits] == [
        ("Alice wants a window seat", "alice", "travel")]
    assert hits[0].metadata["value"] == {"text": "Alice wants a window seat"}

    client.delete_user("alice")  # a cascade of the memory system reaches graph items too
    assert store.get(("users", "alice", "agents", "travel", "prefs"), "seat") is None
    assert store.get(("users", "bob"), "seat") is not None

    by_tenant = OracleAgentMemoryStore(
        client, namespace_mapper=lambda ns: NamespaceScope(user_id=ns[0], thread_id=ns[-1]))
    by_tenant.put(("carol", "chats", "t7"), "k", {"text": "hello"})
    record = client.memory_service.backend.get_records({"user_id": "carol", "thread_id": "t7"})
    assert [r["metadata"]["langgraph"]["key"] for r in record] == ["k"]


def test_items_persist_in_a_store_file(tmp_path: Path) -> None:
    db = str(tmp_path / "graph.db")
    with OracleAgentMemory(connection=db, embedder=EMBEDDER) as client:
        OracleAgentMemoryStore(client).put(("users", "alice"), "k", {"text": "kept"})
    with OracleAgentMemory(connection=db, embedder=EMBEDDER) as client:
        store = OracleAgentMemoryStore(client)
        assert store.get(("users", "alice"), "k").value == {"text": "kept"}
        assert [item.key for item in store.search(("users",), query="kept")] == ["k"]


def test_a_compiled_graph_uses_the_store(client: OracleAgentMemory) -> None:
    from langgraph.config import get_store
    from langgraph.graph import END, START, StateGraph

    class State(TypedDict, total=False):
        user: str
        text: str
        recalled: list[str]

    def remember(state: State) -> State:
        get_store().put(("users", state["user"], "memories"), "latest", {"text": state["text"]})
        return {}

    def recall(state: State) -> State:
        found = get_store().search(("users", state["user"]), query="trains", limit=3)
        return {"recalled": [item.value["text"] for item in found]}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    graph = builder.compile(store=OracleAgentMemoryStore(client, index={"fields": ["text"]}))
    out = graph.invoke({"user": "alice", "text": "Alice loves trains"})
    assert out["recalled"] == ["Alice loves trains"]
    assert client.search("trains", user_id="alice")[0].content == "Alice loves trains"


def test_a_failing_put_leaves_the_whole_batch_unapplied(client: OracleAgentMemory) -> None:
    """The second put fails in the store; the first one, which shrinks
    an item from two indexed texts to one, must not be half applied (its second text gone,
    its new value not written)."""
    ours = OracleAgentMemoryStore(client, index={"fields": ["a", "b"]})
    namespace = ("users", "alice", "notes")
    ours.put(namespace, "x", {"a": "alpha apples", "b": "beta bananas"})
    before = (ours.get(namespace, "x"), view(ours.search(("users",), query="bananas")))
    too_long_user = ("users", "u" * 600, "notes")  # the store refuses a 600-character id
    with pytest.raises(ValueError, match="user_id"):
        ours.batch([PutOp(namespace, "x", {"a": "gamma grapes"}),
                    PutOp(too_long_user, "y", {"a": "never stored"})])
    assert view(ours.get(namespace, "x")) == view(before[0])
    assert view(ours.search(("users",), query="bananas")) == before[1] != []
    assert [hit.value for hit in ours.search(("users",), query="grapes")] == [
        {"a": "alpha apples", "b": "beta bananas"}]


def test_shrinking_and_deleting_items_leave_no_records_behind(client: OracleAgentMemory) -> None:
    ours, ref = pair(client, ["a", "b"])
    namespace = ("users", "alice", "notes")
    backend = client.memory_service.backend
    for store in (ours, ref):
        store.put(namespace, "x", {"a": "alpha", "b": "beta"})
        store.put(namespace, "gone", {"a": "one", "b": "two"})
        store.batch([PutOp(namespace, "x", {"a": "gamma"}), PutOp(namespace, "gone", None)])
    [hit] = ours.search(("users",), query="beta")  # found by its one text, "gamma"
    assert hit.value == {"a": "gamma"} and hit.score == pytest.approx(0.0)
    assert [r["content"] for r in backend.get_records({})] == ["gamma"]
    assert client.purge_expired() == 0  # nothing left over, not even expired
    assert view(ours.get(namespace, "x")) == view(ref.get(namespace, "x"))
    assert ours.get(namespace, "gone") is None


def test_an_item_moves_when_its_namespace_maps_to_another_scope(
        client: OracleAgentMemory) -> None:
    namespace = ("users", "alice", "notes")
    OracleAgentMemoryStore(client, index={"fields": ["a", "b"]}).put(
        namespace, "x", {"a": "one", "b": "two"})

    def everything_to_carol(_: tuple[str, ...]) -> NamespaceScope:
        return NamespaceScope(user_id="carol")

    moved = OracleAgentMemoryStore(client, index={"fields": ["a"]},
                                   namespace_mapper=everything_to_carol)
    moved.put(namespace, "x", {"a": "three"})
    assert moved.get(namespace, "x").value == {"a": "three"}
    assert [(r["user_id"], r["content"]) for r in client.memory_service.backend.get_records(
        {})] == [("carol", "three")]


def test_a_memory_dressed_as_an_item_of_another_users_namespace_is_never_served(client):
    # Any writer could plant a memory whose metadata carries a "langgraph"
    # envelope naming alice's namespace; search and list served it to alice's agent.
    from oracleagentmemory.integrations.langgraph_namespaces import envelope, item_id

    store = OracleAgentMemoryStore(client)
    namespace = ("users", "alice", "memories")
    store.put(namespace, "real", {"text": "alice likes tea"})
    forged = {"langgraph": envelope(namespace, "pin", 0, 1, True),
              "value": {"text": "alice's bank pin is 0000"}}
    mallory = client.create_thread(user_id="mallory")
    mallory.add_memory("alice's bank pin is 0000", metadata=forged)  # mallory's own scope
    mallory.add_memory("alice's bank pin is 0000", metadata=forged,  # even with the right id
                       memory_id=item_id(namespace, "pin"))
    assert [item.key for item in store.search(("users", "alice"))] == ["real"]
    assert [item.key for item in store.search(("users", "alice"), query="bank pin")] == [
        "real"]
    assert store.get(namespace, "pin") is None
    assert store.list_namespaces(prefix=("users",)) == [namespace]
