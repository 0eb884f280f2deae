"""What a message is embedded with (speaker, date, the turn before it), that its stored
content stays what the caller wrote, and what an unset search strategy resolves to."""

from __future__ import annotations

import numpy as np
import pytest

from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core import OracleAgentMemory, OracleDBMemoryStore, SearchStrategy
from oracleagentmemory.core.index_text import Turn, message_index_text, spoken_date
from tests.support.dict_memory_store import DictMemoryStore


@pytest.fixture
def client(embedder, tmp_path):
    with OracleAgentMemory(connection=str(tmp_path / "m.db"), embedder=embedder) as opened:
        yield opened


def embedded_documents(embedder) -> list[str]:
    """Every text the embedder was given outside queries, in order."""
    return [text for call in embedder.calls for text in call]


def test_a_named_speaker_and_the_date_are_embedded_with_the_content(client, embedder):
    thread = client.create_thread(thread_id="t", user_id="u")
    thread.add_messages([
        {"role": "Priya", "content": "I signed up for a pottery class.",
         "timestamp": "2024-03-14T09:30:00"},
        {"role": "Tom", "content": "How was it?", "timestamp": "2024-03-14T09:31:00Z"},
    ])
    assert embedded_documents(embedder) == [
        "Priya (14 March 2024): I signed up for a pottery class.",
        "Tom (14 March 2024): How was it?\nPriya: I signed up for a pottery class.",
    ]


def test_the_stored_content_is_exactly_what_was_written(client):
    thread = client.create_thread(thread_id="t", user_id="u")
    ids = thread.add_messages([
        {"role": "Priya", "content": "I signed up for a pottery class.",
         "timestamp": "2024-03-14T09:30:00"},
        {"role": "Tom", "content": "How was it?"},
    ])
    assert [m.content for m in thread.get_messages()] == [
        "I signed up for a pottery class.", "How was it?"]
    assert [m.role for m in thread.get_messages()] == ["Priya", "Tom"]
    results = thread.search("pottery class", record_types=["message"])
    assert {r.record.id: r.record.content for r in results}[ids[0]] == \
        "I signed up for a pottery class."


def test_generic_roles_add_no_speaker_and_no_date_means_none(client, embedder):
    thread = client.create_thread(thread_id="t", user_id="u")
    thread.add_messages([{"role": "user", "content": "I like pizza."},
                         {"role": "assistant", "content": "Noted."}])
    assert embedded_documents(embedder) == ["I like pizza.", "Noted.\nI like pizza."]


def test_the_turn_before_comes_from_the_thread_across_calls(client, embedder):
    thread = client.create_thread(thread_id="t", user_id="u")
    thread.add_messages([{"role": "Ann", "content": "Did you see the match?"}])
    other = client.create_thread(thread_id="other", user_id="u")
    other.add_messages([{"role": "Zed", "content": "Unrelated."}])
    thread.add_messages([{"role": "Bob", "content": "Yes, what a goal!"}])
    assert embedded_documents(embedder)[-1] == "Bob: Yes, what a goal!\nAnn: Did you see the match?"


def test_updating_a_message_re_embeds_it_with_its_role_date_and_turn_before(client, embedder):
    thread = client.create_thread(thread_id="t", user_id="u")
    ids = thread.add_messages([
        {"role": "Ann", "content": "Where did you go?"},
        {"role": "Bob", "content": "Paris.", "timestamp": "2024-02-29T10:00:00"},
    ])
    thread.update_message(ids[1], content="Lisbon.")
    assert embedded_documents(embedder)[-1] == \
        "Bob (29 February 2024): Lisbon.\nAnn: Where did you go?"
    stored = thread.get_message(ids[1])
    assert (stored.role, stored.content) == ("Bob", "Lisbon.")


def test_index_text_rules():
    assert spoken_date("2024-03-14T09:30:00Z") == "14 March 2024"
    assert spoken_date("yesterday") is None
    assert spoken_date(None) is None
    assert message_index_text(Turn("Ann", "hi", "2023-01-02")) == "Ann (2 January 2023): hi"
    assert message_index_text(Turn("user", "hi", "2023-01-02")) == "2 January 2023: hi"
    assert message_index_text(Turn("Ann", "", "2023-01-02"), Turn("Bob", "x")) == ""
    assert message_index_text(Turn("Ann", "hi"), Turn("Bob", "")) == "Ann: hi"


def test_the_turn_before_is_added_only_when_another_speaker_said_it():
    """A reply's context is the other party's turn; a speaker's own previous message is
    usually another subject (a list of notes, a second question) and only blurs the vector."""
    assert message_index_text(Turn("Bob", "Yes!"), Turn("Ann", "Coming?")) == (
        "Bob: Yes!\nAnn: Coming?")
    assert message_index_text(Turn("Ann", "Also: milk."), Turn("Ann", "Buy bread.")) == (
        "Ann: Also: milk.")
    assert message_index_text(Turn("user", "Thanks."), Turn("user", "My cat is Biscuit.")) == (
        "Thanks.")


class ConstantEmbedder(IEmbedder):
    """One vector for every text: vector ranking alone cannot tell texts apart."""

    embedding_dimension = 8

    def embed(self, texts, *, is_query=False):
        vectors = np.zeros((len(texts), 8), dtype=np.float32)
        vectors[:, 0] = 1.0
        return vectors

    async def embed_async(self, texts, *, is_query=False):
        return self.embed(texts, is_query=is_query)


def test_an_unset_strategy_is_hybrid_on_our_backends(tmp_path):
    path = str(tmp_path / "m.db")
    with OracleAgentMemory(connection=path, embedder=ConstantEmbedder()) as client:
        assert client.search_strategy is SearchStrategy.HYBRID
        thread = client.create_thread(thread_id="t", user_id="u")
        thread.add_messages([{"role": "user", "content": f"filler message {i}"}
                             for i in range(5)]
                            + [{"role": "user", "content": "my cat is called Biscuit"}])
        # vectors tie; the keyword half of HYBRID puts the message naming the cat first
        assert thread.search("Biscuit", max_results=1)[0].record.content == \
            "my cat is called Biscuit"
    with OracleAgentMemory(connection=path, embedder=ConstantEmbedder(),
                           search_strategy=SearchStrategy.VECTOR) as client:
        assert client.search_strategy is SearchStrategy.VECTOR
        assert client.get_thread("t").search("Biscuit", max_results=1)[0].record.content \
            == "filler message 0"
    store = OracleDBMemoryStore(ConstantEmbedder(), path)
    assert store.search_strategy is SearchStrategy.HYBRID
    assert store.backend.describe()["search_strategy"] == "HYBRID"


def test_an_unset_strategy_stays_vector_on_a_callers_store():
    with OracleAgentMemory(connection=DictMemoryStore(), embedder=ConstantEmbedder()) as client:
        assert client.search_strategy is SearchStrategy.VECTOR


def test_an_unset_strategy_leaves_the_oracle_store_its_recorded_choice(monkeypatch, tmp_path):
    """The Oracle backend is told no strategy when none was given, so a store installed
    with another one is never refused at upgrade over a default; searches use HYBRID."""
    from oracleagentmemory.core import oracledbmemorystore
    from oracleagentmemory.stores.backend_for_connection import open_backend

    given: list[object] = []

    def spy(connection, **options):
        given.append(options["search_strategy"])
        return open_backend(connection, **options)

    monkeypatch.setattr(oracledbmemorystore, "open_backend", spy)
    path = str(tmp_path / "m.db")
    assert OracleDBMemoryStore(ConstantEmbedder(), path, "create_if_necessary"
                               ).search_strategy is SearchStrategy.HYBRID
    OracleDBMemoryStore(ConstantEmbedder(), path, search_strategy=SearchStrategy.VECTOR)
    assert given == [None, "VECTOR"]


def test_an_imported_message_is_embedded_as_add_messages_embeds_it(tmp_path):
    """Moving a store (export, then import into another backend or file) gives its
    messages the vectors ``thread.add_messages`` gives them."""
    from oracleagentmemory.transfer import export_lines, import_store
    from tests.support.embedders import HashingEmbedder

    source_embedder, target_embedder = HashingEmbedder(), HashingEmbedder()
    with OracleAgentMemory(connection=str(tmp_path / "a.db"), embedder=source_embedder) as a:
        a.create_thread(thread_id="t", user_id="u").add_messages([
            {"role": "Ann", "content": "Did you see the match?",
             "timestamp": "2024-03-14T10:00:00"},
            {"role": "Bob", "content": "Yes, what a goal!"}])
        lines = list(export_lines(a))
    with OracleAgentMemory(connection=str(tmp_path / "b.db"), embedder=target_embedder) as b:
        import_store(b, lines)
        assert [m.content for m in b.get_thread("t").get_messages()] == [
            "Did you see the match?", "Yes, what a goal!"]
    assert embedded_documents(target_embedder) == embedded_documents(source_embedder) == [
        "Ann (14 March 2024): Did you see the match?",
        "Bob: Yes, what a goal!\nAnn: Did you see the match?"]
