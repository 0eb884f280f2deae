"""Code written for the reference product behaves the same here, not only looks the same.

A side-by-side run of the reference (oracleagentmemory 26.8) and this library, one scripted
LLM and embedder on both sides, found where calls agree in shape but not in behaviour:
error classes that ``except`` clauses rely on, inputs one side refuses, checks one side
skips. Each test here states what the reference does (as observed) and checks ours does
the same; docs/compatibility.md lists the differences kept on purpose.
"""

from __future__ import annotations

import asyncio

import pytest

from oracleagentmemory.apis import ImageContent, MemoryLink
from oracleagentmemory.apis.message import ImageMimeType
from oracleagentmemory.core import OracleAgentMemory
from tests.support.embedders import HashingEmbedder
from tests.support.images import PNG


@pytest.fixture
def client():
    with OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder()) as client:
        yield client


@pytest.fixture
def thread(client):
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "I like pizza"}])
    return thread


@pytest.fixture
def memory_id(client):
    return client.add_memory("likes pizza", user_id="u", memory_id="m1")


def stored_ids(client) -> list[str]:
    return sorted(record["id"] for record in client.memory_service.backend.get_records({}))


# -- 1. error classes ----------------------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda c, t: c.search(123, user_id="u"),
    lambda c, t: c.search(None, user_id="u"),
    lambda c, t: c.add_memory("x", ttl_days="abc"),
    lambda c, t: t.get_messages(start="a"),
    lambda c, t: c.add_user(123, "information"),
    lambda c, t: c.delete_user(123),
    lambda c, t: c.add_memory(content=5),
], ids=["search-int", "search-none", "ttl-str", "start-str", "add_user-int",
        "delete_user-int", "content-int"])
def test_a_wrong_type_is_a_value_error_as_there_and_a_type_error(client, thread, call):
    with pytest.raises(ValueError) as raised:
        call(client, thread)
    assert isinstance(raised.value, TypeError)


@pytest.mark.parametrize("call", [
    lambda c, t, m: c.get_thread(123),
    lambda c, t, m: c.link_records("nope", "memory", m, "memory", "supports"),
    lambda c, t, m: c.link_records(m, "memory", "nope", "memory", "supports"),
    lambda c, t, m: c.add_memory("y", memory_id_to_link="nope", link_type="supports"),
    lambda c, t, m: t.add_memory("y", memory_id_to_link="nope", link_type="supports"),
], ids=["get_thread-int", "link-source", "link-target", "client-link-to", "thread-link-to"])
def test_an_unknown_id_is_a_key_error(client, thread, memory_id, call):
    before = stored_ids(client)
    with pytest.raises(KeyError):
        call(client, thread, memory_id)
    assert stored_ids(client) == before


@pytest.mark.parametrize("call", [
    lambda c: c.search("pizza", user_id="u", record_types=["fact", 5]),
    lambda c: c.add_memory("z", metadata={"when": object()}),
    lambda c: c.add_memory("z", metadata={1: "one"}),
    lambda c: c.list_memories(limit="2"),
], ids=["record_types", "metadata-value", "metadata-key", "limit"])
def test_these_wrong_types_are_type_errors(client, call):
    before = stored_ids(client)
    with pytest.raises(TypeError):
        call(client)
    assert stored_ids(client) == before


@pytest.mark.parametrize("call", [
    lambda c: c.search("pizza", user_id="u"),
    lambda c: c.search(123),  # refused for being closed before its arguments are read
    lambda c: c.list_memories(),
    lambda c: c.add_memory("more"),
    lambda c: c.create_thread(),
    lambda c: c.get_thread("t"),
    lambda c: c.purge_expired(),
    lambda c: asyncio.run(c.list_memories_async()),
])
def test_every_call_after_close_is_the_reference_runtime_error(client, call):
    client.close()
    with pytest.raises(RuntimeError, match=r"^OracleAgentMemory is closed\.$"):
        call(client)


def test_a_thread_of_a_closed_client_refuses_with_a_runtime_error(client, thread):
    client.close()
    with pytest.raises(RuntimeError):
        thread.get_messages()


def test_close_refuses_a_negative_timeout_even_when_closed(client):
    with pytest.raises(ValueError, match="timeout"):
        client.close(timeout=-1)
    client.close()
    with pytest.raises(ValueError, match="timeout"):
        client.close(timeout=-1)
    client.close()  # still idempotent


# -- 2. lists with a limit -----------------------------------------------------------------


def test_a_limited_list_has_the_newest_rows_oldest_first(client):
    threads = [client.create_thread(thread_id=f"t{i}", user_id="u") for i in range(3)]
    for i in range(3):
        threads[0].add_messages([{"role": "user", "content": f"message {i}"}])
        client.add_memory(f"memory {i}", user_id="u", memory_id=f"m{i}")
    assert [t.id for t in client.list_threads("u", limit=2)] == ["t1", "t2"]
    assert [m.id for m in client.list_memories(user_id="u", limit=2)] == ["m1", "m2"]
    assert [m.content for m in client.list_messages(thread_id="t0", limit=2)] == [
        "message 1", "message 2"]
    assert [m.id for m in client.list_memories(user_id="u")] == ["m0", "m1", "m2"]


# -- 3. checks the reference makes ----------------------------------------------------


@pytest.mark.parametrize("api", ["client", "thread"])
def test_an_unknown_memory_link_type_is_refused(client, thread, api):
    target = thread.add_memory("likes pasta")
    before = stored_ids(client)
    add = client.add_memory if api == "client" else thread.add_memory
    with pytest.raises(ValueError, match=r"^Invalid memory link type\.$"):
        add("likes sauce", memory_id_to_link=target, link_type="bogus")
    assert stored_ids(client) == before


def _link(**changes):
    fields = {"id": "l", "source_record_id": "a", "source_record_type": "memory",
              "target_record_id": "b", "target_record_type": "fact",
              "relation_type": "supports", "opposite_relation_type": "is_supported_by",
              "timestamp": None, "metadata": None, "created_at": "2024-01-01T00:00:00+00:00"}
    return MemoryLink(**{**fields, **changes})


def test_a_memory_link_takes_a_built_in_type_between_memories():
    assert _link().link_type == "supports"
    with pytest.raises(ValueError, match=r"^Invalid memory link type\.$"):
        _link(relation_type="bogus")
    with pytest.raises(ValueError, match=r"^Invalid memory link type\.$"):
        _link(target_record_type="message")


def test_a_link_of_ones_own_label_is_read_back_as_a_plain_relation(client, thread):
    first = thread.add_memory("likes pasta")
    second = thread.add_memory("likes sauce")
    client.link_records(first, "memory", second, "memory", "goes_with")
    [result] = thread.search("likes pasta", max_results=1, num_hops=1,
                             record_types=["memory"])
    [(relation, _)] = result.linked_results
    assert relation.relation_type == "goes_with"
    assert type(relation).__name__ == "RecordRelation"


def test_image_content_needs_a_mime_type():
    with pytest.raises(TypeError):
        ImageContent(PNG, None)
    assert ImageContent(PNG, "image/png").mime_type is ImageMimeType.PNG


def test_listing_images_needs_an_owner_scope(client, thread):
    thread.add_image(PNG, description="a pizza", image_id="img")
    with pytest.raises(ValueError, match=r"^An image owner scope is required\.$"):
        client.list_images()
    assert [image.id for image in client.list_images(user_id="u")] == ["img"]
    assert [image.id for image in client.list_images(thread_id="t")] == ["img"]
    assert [image.id for image in client.list_images(image_id="img")] == ["img"]


# -- 4. inputs the reference accepts ----------------------------------------------------


def test_integer_scope_ids_are_taken_as_their_text(client):
    thread = client.create_thread(thread_id=7, user_id=123, agent_id=9)
    assert (thread.thread_id, thread.user_id, thread.agent_id) == ("7", "123", "9")
    thread.add_messages([{"role": "user", "content": "I collect stamps"}])
    assert client.get_thread(7).user_id == "123"
    assert [t.id for t in client.list_threads(123)] == ["7"]
    client.add_memory("collects stamps", user_id=123, memory_id="stamps")
    found = client.search("stamps", user_id=123, record_types=["memory"])
    assert [result.id for result in found] == ["stamps"]
    assert client.delete_thread(7) == 1


def test_empty_memory_content_is_stored_as_given(client):
    for content in ("", "   "):
        memory_id = client.add_memory(content, user_id="u")
        assert client.list_memories(user_id="u")[-1].content == content
        assert client.list_memories(user_id="u")[-1].id == memory_id


def test_a_whole_number_of_days_may_be_a_float(client):
    client.add_memory("kept two days", user_id="u", ttl_days=2.0)
    with pytest.raises(ValueError, match="ttl_days .*1.5"):
        client.add_memory("kept a day and a half", user_id="u", ttl_days=1.5)


def test_ttl_anchor_and_status_may_be_strings(client):
    memory_id = client.add_memory("dated", user_id="u", timestamp="2030-01-01T00:00:00Z",
                                  ttl_days=3, ttl_anchor="timestamp", status="invalid")
    [stored] = client.list_memories(user_id="u")
    assert (stored.id, stored.status.value) == (memory_id, "invalid")


# -- 5. the text a model reads -------------------------------------------------------------


def test_a_card_that_found_nothing_keeps_an_empty_relevant_section(thread):
    card = thread.get_context_card(metadata_filter={"missing": 1})
    assert card.relevant_results == []
    assert "\n<relevant_information></relevant_information>\n" in card.content
    assert "\n<topics></topics>\n" in card.content
    from oracleagentmemory.core import OracleContextCard

    assert "relevant_information" not in OracleContextCard(summary="ctx").content
    assert OracleContextCard(summary="", relevant_results=[]).content == ""


def test_the_transcript_summary_is_written_as_the_references(thread):
    thread.add_messages([{"role": "assistant", "content": "Noted.",
                          "timestamp": "2026-01-01T10:00:00Z"}])
    [first, second] = thread.get_messages()
    summary = thread.get_summary().content
    assert summary == (f"user ({first.timestamp[:-1]}+00:00): I like pizza\n"
                       "- assistant (2026-01-01T10:00:00+00:00): Noted.")


def test_format_content_shows_the_estimated_relevance(client, thread):
    [result] = thread.search("pizza", record_types=["message"], max_results=1)
    from oracleagentmemory.core import OracleSearchResultFormatConfig

    shown = result.format_content(OracleSearchResultFormatConfig(show_distance=True))
    assert f"<estimated_relevance>{1 - result.distance:.4f}</estimated_relevance>" in shown
    assert "<distance>" not in shown


# -- 6. records ---------------------------------------------------------------------------


def test_records_are_hashable(client, thread, memory_id):
    [memory] = client.list_memories(user_id="u")
    [message] = client.list_messages(thread_id="t")
    assert {memory, message} == {memory, message}
    assert hash(memory) == hash(client.list_memories(user_id="u")[0])


# -- 8. async twins ---------------------------------------------------------------------


def test_async_twins_take_arguments_as_the_reference_twins(client, thread):
    # update_thread_async takes thread_id and metadata, the rest by keyword only
    with pytest.raises(TypeError):
        asyncio.run(client.update_thread_async("t", {"k": 1}, None))
    updated = asyncio.run(client.update_thread_async("t", {"k": 1}, extract_memories=False))
    assert updated.metadata == {"k": 1}
    # get_messages_async takes start and end by position (get_messages by keyword only)
    assert asyncio.run(thread.get_messages_async(0, 1))[0].content == "I like pizza"


# -- 9. the message type where the pages show it ----------------------------------------


def test_the_thread_module_has_the_message_type():
    from oracleagentmemory.apis.message import Message
    from oracleagentmemory.apis.thread import Message as ThreadMessage

    assert ThreadMessage is Message
