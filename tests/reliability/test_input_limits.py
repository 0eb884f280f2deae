"""Input limits.

Deep or oversized metadata, oversized content and text that is not valid Unicode are
refused at write with a ValueError naming the argument, before anything is embedded or
stored; filters deeper than the limit are refused the same way. Each limit's value is the
one docs/reliability.md documents (``test_the_documented_limits_are_the_enforced_ones``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.errors import AgentMemoryError
from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.errors import InvalidArgumentError, InvalidFilterError
from tests.support.embedders import HashingEmbedder

DOCS = Path(__file__).resolve().parents[2] / "docs" / "reliability.md"


def documented_limits() -> dict[str, int]:
    """The limits table of docs/reliability.md: the values these tests hold the code to."""
    text = DOCS.read_text(encoding="utf-8")
    return {name: int(value.replace(",", "")) for name, value in re.findall(
        r"^\| `(MAX_\w+|SQLITE_\w+)` \| ([\d,]+) \|", text, flags=re.MULTILINE)}


class Documented:
    """The documented values, by name."""

    MAX_JSON_DEPTH = documented_limits()["MAX_JSON_DEPTH"]
    MAX_METADATA_CHARS = documented_limits()["MAX_METADATA_CHARS"]
    MAX_CONTENT_CHARS = documented_limits()["MAX_CONTENT_CHARS"]


def nested(depth: int, leaf: object = "x") -> object:
    """A value with ``depth`` levels of objects (``{"k": {"k": ... leaf}}``)."""
    value = leaf
    for _ in range(depth):
        value = {"k": value}
    return value


@pytest.fixture
def embedder():
    return HashingEmbedder()


@pytest.fixture
def client(tmp_path, embedder):
    with OracleAgentMemory(connection=str(tmp_path / "limits.db"), embedder=embedder) as opened:
        yield opened


@pytest.fixture
def thread(client):
    return client.create_thread(thread_id="t", user_id="u", agent_id="a")


def stored(client) -> list[str]:
    return sorted(r["id"] for r in client.memory_service.backend.get_records({}))


# -- defect 4: nesting depth ------------------------------------------------------------


@pytest.mark.parametrize("depth", [Documented.MAX_JSON_DEPTH + 1, 987, 10_000])
def test_metadata_nested_deeper_than_the_limit_is_refused_at_write(client, thread, depth):
    before = stored(client)
    with pytest.raises(ValueError, match="metadata nests") as refused:
        thread.add_memory("deep", metadata=nested(depth))
    assert isinstance(refused.value, AgentMemoryError)
    with pytest.raises(ValueError, match="metadata nests"):
        thread.add_messages([{"role": "user", "content": "hi", "metadata": nested(depth)}])
    with pytest.raises(ValueError, match="metadata nests"):
        client.create_thread(user_id="u", metadata=nested(depth))
    assert stored(client) == before


def test_metadata_at_the_depth_limit_is_stored_and_filtered(client, thread):
    thread.add_memory("deep enough", metadata=nested(Documented.MAX_JSON_DEPTH, "leaf"))
    found = thread.search("deep enough", metadata_filter=nested(Documented.MAX_JSON_DEPTH, "leaf"))
    assert [r.content for r in found] == ["deep enough"]


def test_after_a_refused_deep_write_every_search_still_works(client, thread):
    thread.add_memory("pizza night", metadata={"tag": "food"})
    with pytest.raises(ValueError):
        thread.add_memory("pizza too", metadata={"tag": "food", "deep": nested(990)})
    assert [r.content for r in thread.search("pizza", metadata_filter={"tag": "food"})] == [
        "pizza night"]
    assert [r.content for r in thread.search("pizza", metadata_filter={"deep": {"k": "x"}})] == []
    assert [r.content for r in thread.search("pizza")] == ["pizza night"]


@pytest.mark.parametrize("depth", [Documented.MAX_JSON_DEPTH + 1, 10_000])
def test_a_filter_deeper_than_the_limit_is_an_invalid_filter(client, thread, depth):
    with pytest.raises(InvalidFilterError, match="levels deep"):
        thread.search("x", metadata_filter=nested(depth))
    store = EmbeddedBackend(":memory:", embedding_dimension=4)
    with pytest.raises(InvalidFilterError, match="levels deep"):
        store.get_records({"metadata_filter": nested(depth)})


def test_the_store_refuses_deep_json_in_every_field(tmp_path):
    store = EmbeddedBackend(tmp_path / "s.db", embedding_dimension=4)
    deep = nested(Documented.MAX_JSON_DEPTH + 1)
    for field, value in (("metadata", deep), ("config", deep), ("parts", [deep])):
        with pytest.raises(InvalidArgumentError, match=r"records\[0\]"):
            store.write_records([{"record_type": "thread", "id": "t", field: value}])
    store.write_records([{"record_type": "memory", "id": "m", "content": "x"}])
    with pytest.raises(InvalidArgumentError, match="metadata nests"):
        store.update_record("m", ["memory"], {"metadata": deep})
    assert [r["metadata"] for r in store.get_records({})] == [None]


# -- defect 4: metadata size --------------------------------------------------------------


def test_metadata_over_the_size_limit_is_refused(client, thread):
    # {"k":"..."} serialises to the value plus 8 characters
    fits = {"k": "x" * (Documented.MAX_METADATA_CHARS - 8)}
    too_big = {"k": "x" * (Documented.MAX_METADATA_CHARS - 7)}
    thread.add_memory("fits", metadata=fits)
    before = stored(client)
    with pytest.raises(ValueError, match=r"metadata has \d+ characters as JSON"):
        thread.add_memory("too big", metadata=too_big)
    with pytest.raises(ValueError, match="metadata"):
        thread.update_memory(before[0] if before[0] != "t" else before[1], metadata=too_big)
    assert stored(client) == before


# -- defect 7: content size ---------------------------------------------------------------


def test_a_message_over_the_content_limit_is_refused_before_it_is_embedded(
        client, thread, embedder):
    embedder.calls.clear()
    huge = "word " * (Documented.MAX_CONTENT_CHARS // 5) + "!"
    with pytest.raises(ValueError, match=r"messages\[1\]\.content has \d+ characters"):
        thread.add_messages([{"role": "user", "content": "small"},
                             {"role": "user", "content": huge}])
    assert embedder.calls == []
    assert thread.get_messages() == []


def test_content_at_the_limit_is_stored_whole(client, thread):
    text = "a" * Documented.MAX_CONTENT_CHARS
    [message_id] = thread.add_messages([{"role": "user", "content": text}])
    assert thread.get_message(message_id).content == text


def test_every_content_path_refuses_oversized_text(client, thread):
    huge = "x" * (Documented.MAX_CONTENT_CHARS + 1)
    memory_id = thread.add_memory("small")
    before = stored(client)
    calls = [
        lambda: thread.add_memory(huge),
        lambda: client.add_memory(huge, user_id="u"),
        lambda: thread.update_memory(memory_id, content=huge),
        lambda: client.add_user("someone", huge),
        lambda: thread.update_message(
            thread.add_messages([{"role": "user", "content": "m"}])[0], content=huge),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=f"has {Documented.MAX_CONTENT_CHARS + 1} characters"):
            call()
    assert len(stored(client)) == len(before) + 1  # only the message of the last call


def test_characters_are_counted_as_oracle_counts_them(tmp_path):
    """An emoji is two UTF-16 code units, as in an Oracle CLOB: both backends agree."""
    store = EmbeddedBackend(tmp_path / "s.db", embedding_dimension=4)
    half = Documented.MAX_CONTENT_CHARS // 2
    store.write_records([{"record_type": "memory", "id": "ok", "content": "\U0001F600" * half}])
    with pytest.raises(InvalidArgumentError,
                       match=rf"records\[0\]\.content has {2 * (half + 1)} characters"):
        store.write_records([{"record_type": "memory", "id": "no",
                              "content": "\U0001F600" * (half + 1)}])
    assert [r["id"] for r in store.get_records({})] == ["ok"]


# -- defect 10: text that is not valid Unicode --------------------------------------------


@pytest.mark.parametrize(("call", "argument"), [
    (lambda c, t: t.add_messages([{"role": "user", "content": "a\ud800b"}]),
     r"messages\[0\]\.content"),
    (lambda c, t: t.add_messages([{"role": "us\udfffer", "content": "x"}]),
     r"messages\[0\]\.role"),
    (lambda c, t: t.add_memory("a\ud800"), "content"),
    (lambda c, t: t.add_memory("ok", metadata={"k": "\udc00"}), "metadata"),
    (lambda c, t: t.add_memory("ok", metadata={"\udc00": 1}), "metadata"),
    (lambda c, t: t.add_memory("ok", memory_id="m\ud800"), "memory_id"),
    (lambda c, t: t.search("pizza \ud800"), "query"),
    (lambda c, t: c.create_thread(user_id="u\ud800"), "user_id"),
    (lambda c, t: t.search("pizza", metadata_filter={"k": "\ud800"}), "metadata_filter"),
])
def test_unpaired_surrogates_are_refused_naming_the_argument(client, thread, call, argument):
    before = stored(client)
    with pytest.raises(ValueError, match=argument) as refused:
        call(client, thread)
    assert isinstance(refused.value, AgentMemoryError)
    assert not isinstance(refused.value, UnicodeError)
    assert "surrogate" in str(refused.value)
    assert stored(client) == before


def test_the_store_itself_refuses_surrogates(tmp_path):
    store = EmbeddedBackend(tmp_path / "s.db", embedding_dimension=4)
    for record in ({"record_type": "memory", "content": "\ud800"},
                   {"record_type": "memory", "id": "\ud800"},
                   {"record_type": "memory", "user_id": "\ud800"},
                   {"record_type": "message", "role": "\ud800"},
                   {"record_type": "memory", "metadata": {"a": ["\ud800"]}}):
        with pytest.raises(InvalidArgumentError, match="surrogate"):
            store.write_records([record])
    assert store.get_records({}) == []


# -- the documentation states the enforced values -----------------------------------------


def test_the_documented_limits_are_the_enforced_ones():
    from oracleagentmemory.stores import limits as enforced_limits

    enforced = {name: getattr(enforced_limits, name) for name in dir(enforced_limits)
                if name.startswith(("MAX_", "SQLITE_"))}
    assert documented_limits() == enforced


def test_the_keyword_side_reads_only_the_first_characters_of_a_query():
    # A 4.7 MB query took 76 s in the full-text match. Words past the
    # documented limit are not looked up, on both backends (Oracle reads as many).
    from oracleagentmemory.stores.embedded import EmbeddedBackend
    from oracleagentmemory.stores.oracle_sql import render

    limit = documented_limits()["MAX_KEYWORD_QUERY_CHARS"]
    store = EmbeddedBackend(":memory:", embedding_dimension=2)
    try:
        store.write_records([{"record_type": "memory", "id": "far", "content": "zebra",
                              "embedding": [1, 0]},
                             {"record_type": "memory", "id": "near", "content": "giraffe",
                              "embedding": [0, 1]}])
        query = "giraffe " + "x" * (limit - len("giraffe ")) + " zebra"
        hits = store.search({"query_text": query, "strategy": "KEYWORD"})
        assert [hit["record"]["id"] for hit in hits] == ["near"]
        long_query = " ".join(f"w{i}" for i in range(200_000)) + " giraffe"  # 1.4 MB
        assert store.search({"query_text": long_query, "strategy": "KEYWORD"}) == []
    finally:
        store.close()
    search_body = dict(render.render_install())["agent_memory_search.pkb"]
    assert re.search(rf"DBMS_LOB\.SUBSTR\(l_req\.query_text,\s*{limit}, 1\)", search_body)


@pytest.mark.parametrize("metadata", [
    {"reading": 1e300}, {"reading": -1e126}, {"reading": 5e-324}, {"reading": 2 ** 200},
    {"reading": 10 ** 5000}, {"nested": {"list": [1, 1e200]}},
    {"k" * 65_536: 1}, {"é" * 32_768: 1},
])
def test_metadata_an_oracle_number_or_field_name_cannot_hold_is_refused_on_both_backends(
        client, thread, metadata):
    """The Oracle backend writes metadata as OSON, where a number is an Oracle NUMBER (40
    significant digits, 1e-130 to 1e126) and a field name at most 65,535 bytes; the embedded
    store refuses what Oracle cannot hold, so one contract holds on both."""
    before = stored(client)
    with pytest.raises(InvalidArgumentError, match="metadata"):
        thread.add_memory("a reading", metadata=metadata)
    with pytest.raises(InvalidArgumentError, match="metadata"):
        thread.add_messages([{"role": "user", "content": "hi", "metadata": metadata}])
    assert stored(client) == before


@pytest.mark.parametrize("metadata", [
    {"reading": 1e125}, {"reading": 1e-130}, {"reading": 0.0}, {"reading": 10 ** 60},
    {"reading": 10 ** 39 + 7}, {"k" * 65_535: 1}, {"데이터" * 7_000: "값"},
])
def test_metadata_at_those_limits_is_stored_and_read_back(client, thread, metadata):
    memory_id = thread.add_memory("a reading", metadata=metadata)
    [record] = [record for record in client.memory_service.backend.get_records({})
                if record["id"] == memory_id]
    assert record["metadata"] == metadata
