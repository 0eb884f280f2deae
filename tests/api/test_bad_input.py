"""Bad input raises the documented exception, names the argument, and stores nothing."""

from __future__ import annotations

import pytest

from oracleagentmemory.apis.searchscope import SearchScope
from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.errors import AgentMemoryError


@pytest.fixture
def client(embedder):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    yield client
    client.close()


@pytest.fixture
def thread(client):
    return client.create_thread(thread_id="t", user_id="u", agent_id="a")


def stored_ids(client) -> list[str]:
    return sorted(record["id"] for record in client.memory_service.backend.get_records({}))


@pytest.mark.parametrize("api", ["thread", "client"])
@pytest.mark.parametrize(
    ("arguments", "error", "named"),
    [
        ({"record_types": ["memory", "note"]}, ValueError, "record_types"),
        ({"record_types": "memory"}, ValueError, "record_types"),
        ({"metadata_filter": {"tags": {"$regex": "x"}}}, ValueError, "$regex"),
        ({"metadata_filter": "source=chat"}, ValueError, "metadata_filter"),
        ({"max_results": 0}, ValueError, "max_results"),
        ({"max_results": -3}, ValueError, "max_results"),
        ({"num_hops": 6}, ValueError, "num_hops"),
        ({"scope": SearchScope(user_id="u"), "agent_id": "a"}, ValueError, "scope"),
        ({"scope": SearchScope(user_id="u"), "exact_user_match": True}, ValueError, "scope"),
        ({"user_id": 4.2}, TypeError, "user_id"),
    ],
)
def test_search_rejects_bad_arguments(client, thread, api, arguments, error, named):
    target = thread if api == "thread" else client
    if api == "client" and "user_id" not in arguments and "scope" not in arguments:
        arguments = {"user_id": "u", **arguments}
    with pytest.raises(error) as raised:
        target.search("anything", **arguments)
    assert named in str(raised.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda c, t: t.search("x", unknown_option=1),
        lambda c, t: t.add_messages([{"role": "user", "content": "x"}], fancy=True),
        lambda c, t: t.add_memory("x", importance=3),
        lambda c, t: t.update_memory("m", colour="red"),
        lambda c, t: t.update_message("m", pinned=True),
        lambda c, t: t.get_context_card(verbose=True),
        lambda c, t: t.get_summary(style="short"),
        lambda c, t: c.add_memory("x", importance=3),
        lambda c, t: c.create_thread(colour="red"),
        lambda c, t: c.get_thread("t", colour="red"),
    ],
)
def test_unknown_keyword_arguments_raise_type_error(client, thread, call):
    with pytest.raises(TypeError, match="unexpected keyword"):
        call(client, thread)


def test_failed_message_batch_stores_nothing(client, thread):
    before = stored_ids(client)
    with pytest.raises(KeyError, match=r"messages\[1\]"):
        thread.add_messages([{"role": "user", "content": "fine"}, {"role": "user"}])
    with pytest.raises(KeyError, match="role"):
        thread.add_messages([{"content": "no role"}])
    with pytest.raises(ValueError, match="single string"):
        thread.add_messages("hello")
    with pytest.raises(ValueError, match="timestamp"):
        thread.add_messages([{"role": "user", "content": "fine"},
                             {"role": "user", "content": "x", "timestamp": "yesterday"}])
    thread.add_messages([{"role": "user", "content": "one", "id": "dup"}])
    with pytest.raises(ValueError, match="dup"):
        thread.add_messages([{"role": "user", "content": "two", "id": "new"},
                             {"role": "user", "content": "three", "id": "dup"}])
    assert stored_ids(client) == sorted([*before, "dup"])


def test_memory_with_bad_fields_is_not_stored(client, thread):
    before = stored_ids(client)
    with pytest.raises(ValueError, match="memory_type"):
        thread.add_memory("x", memory_type="opinion")
    with pytest.raises(ValueError, match="metadata"):
        thread.add_memory("x", metadata={"when": object()})
    with pytest.raises(ValueError, match="ttl_anchor"):
        thread.add_memory("x", ttl_days=3, ttl_anchor="TIMESTAMP")
    with pytest.raises(ValueError, match="ttl_days"):
        thread.add_memory("x", ttl_days=-1)
    with pytest.raises(ValueError, match="status"):
        thread.add_memory("x", status="ARCHIVED")
    with pytest.raises(ValueError, match="memory_id_to_link"):
        thread.add_memory("x", memory_id_to_link="missing", link_type="supports")
    with pytest.raises(ValueError, match="link_type"):
        thread.add_memory("x", memory_id_to_link="missing")
    with pytest.raises(TypeError, match="content"):
        thread.add_memory(None)
    with pytest.raises(ValueError, match="ttl_days"):
        thread.add_memory("x", ttl_days=1.5)
    assert stored_ids(client) == before


def test_an_empty_query_is_a_value_error(client, thread):
    with pytest.raises(ValueError, match="query"):
        thread.search("")
    with pytest.raises(ValueError, match="query"):
        client.search("   ", user_id="u")


def test_every_bad_input_error_is_an_agent_memory_error(client, thread):
    """One root for everything the library raises on purpose, below the documented
    built-in exceptions."""
    calls = [
        lambda: thread.search(""),
        lambda: thread.add_messages("hello"),
        lambda: thread.add_messages([{"role": "user"}]),
        lambda: thread.add_memory("x", memory_type="opinion"),
        lambda: thread.get_message("nope"),
        lambda: client.get_thread("nope"),
        lambda: client.search("x"),
        lambda: thread.add_memory(None),
        lambda: thread.search("x", max_results=0),
        lambda: thread.get_context_card(verbose=True),
    ]
    for call in calls:
        with pytest.raises(AgentMemoryError):
            call()


def test_client_search_requires_exact_user_scope(client):
    with pytest.raises(ValueError, match="user_id"):
        client.search("x")
    with pytest.raises(ValueError, match="exact_user_match"):
        client.search("x", user_id="u", exact_user_match=False)


def test_missing_records_raise_key_error(client, thread):
    with pytest.raises(KeyError, match="nope"):
        thread.get_message("nope")
    with pytest.raises(KeyError, match="nope"):
        thread.update_message("nope", content="x")
    with pytest.raises(KeyError, match="nope"):
        thread.update_memory("nope", content="x")
    with pytest.raises(KeyError, match="nope"):
        client.get_thread("nope")


def test_context_card_argument_rules(thread):
    thread.add_messages([{"role": "user", "content": f"m{i}"} for i in range(4)])
    with pytest.raises(ValueError, match="max_recent_messages"):
        thread.get_context_card(except_last_messages=2, max_recent_messages=1)
    with pytest.raises(ValueError, match="min_relevant_results_by_type"):
        thread.get_context_card(min_relevant_results_by_type={"image": 1})
    with pytest.raises(ValueError, match="fallback_message_count"):
        thread.get_context_card(fallback_message_count=-1)


def test_duplicate_thread_and_profile_ids_are_rejected(client, thread):
    with pytest.raises(ValueError, match="'t'"):
        client.create_thread(thread_id="t")
    client.add_user("u1", "profile")
    with pytest.raises(ValueError, match="'u1'"):
        client.add_user("u1", "again")


def test_unsupported_connection_is_a_type_error(embedder):
    with pytest.raises(TypeError, match="connection"):
        OracleAgentMemory(connection=42, embedder=embedder)


@pytest.mark.parametrize("api", ["thread", "client"])
@pytest.mark.parametrize("value", ["3", 2.0, True])
def test_a_max_results_of_another_type_is_a_type_error(client, thread, api, value):
    """The search docstring: a value of the wrong type is an ``ArgumentTypeError`` (a
    ``TypeError``), as ``num_hops="1"`` and ``max_linked_results="3"`` are; ``max_results="3"``
    and ``2.0`` were only a ``ValueError``."""
    target = thread if api == "thread" else client
    arguments = {"max_results": value} if api == "thread" else {"user_id": "u",
                                                                "max_results": value}
    with pytest.raises(TypeError, match="max_results") as raised:
        target.search("anything", **arguments)
    assert isinstance(raised.value, ValueError)  # the reference's ValueError still catches it


@pytest.mark.parametrize("api", ["thread", "client"])
def test_an_empty_relation_id_is_refused_not_replaced(client, thread, api):
    """link_records' docstring: an empty ``relation_id`` is an ``InvalidArgumentError``. It
    was taken as "not given": a new UUID was made and the relation written."""
    thread.add_memory("likes pizza", memory_id="m1")
    thread.add_memory("likes pasta", memory_id="m2")
    target = thread if api == "thread" else client
    with pytest.raises(ValueError, match="relation_id") as raised:
        target.link_records("m1", "memory", "m2", "memory", "supports", relation_id="")
    assert isinstance(raised.value, AgentMemoryError)
    assert client.memory_service.backend.list_links({}) == []
