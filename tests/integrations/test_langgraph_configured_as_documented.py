"""The LangGraph store configured as LangGraph's documentation configures every store, then
used only through ``BaseStore`` calls, the way LangGraph's own store tests are written.

What a LangGraph user met: ``index={"embed": ..., "dims": ...}`` refused and no
``store.embeddings``; ``distance_type="l2"`` accepted and ignored (scores stayed cosine);
a filter on NaN or infinity raising ``InvalidFilterError`` where LangGraph's stores match
nothing for ``$eq`` and everything for ``$ne``.

The embedding model here is written for the tests, as LangGraph's suites write theirs: a
character-count model whose similarities are computed below by hand, not by the store.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip(
    "langgraph.store.base",
    reason="LangGraph store not tested: install LangGraph (pip install 'langgraph>=1.0')",
)

from langchain_core.embeddings import Embeddings  # noqa: E402
from langgraph.store.base import BaseStore, PutOp, SearchOp  # noqa: E402

from oracleagentmemory.core import OracleAgentMemory  # noqa: E402
from oracleagentmemory.integrations.langgraph_store import OracleAgentMemoryStore  # noqa: E402
from tests.support.embedders import HashingEmbedder  # noqa: E402

DIMS = 500


class CharacterEmbeddings(Embeddings):
    """Counts of each character code modulo ``dims``, normalised: texts sharing more
    characters are closer."""

    def __init__(self, dims: int = DIMS) -> None:
        self.dims = dims
        self.documents: list[str] = []
        self.queries: list[str] = []

    def vector(self, text: str) -> list[float]:
        counts = [0.0] * self.dims
        for char in text:
            counts[ord(char) % self.dims] += 1.0
        norm = math.sqrt(sum(c * c for c in counts)) or 1.0
        return [c / norm for c in counts]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents.extend(texts)
        return [self.vector(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return self.vector(text)


def cosine(model: CharacterEmbeddings, a: str, b: str) -> float:
    return sum(x * y for x, y in zip(model.vector(a), model.vector(b), strict=True))


@pytest.fixture
def fake_embeddings() -> CharacterEmbeddings:
    return CharacterEmbeddings(dims=DIMS)


@pytest.fixture
def store(fake_embeddings: CharacterEmbeddings) -> Iterator[BaseStore]:
    with OracleAgentMemoryStore.from_conn_string(
            ":memory:", index={"dims": DIMS, "embed": fake_embeddings,
                               "fields": ["text"]}) as opened:
        yield opened


DOCS = [("doc1", "short text"), ("doc2", "longer text document"),
        ("doc3", "longest text document here"), ("doc4", "text")]


def test_the_index_embeds_with_the_configured_model(
        store: BaseStore, fake_embeddings: CharacterEmbeddings) -> None:
    assert store.embeddings is fake_embeddings
    for key, text in DOCS:
        store.put(("test",), key, {"text": text})
    assert sorted(fake_embeddings.documents) == sorted(text for _, text in DOCS)

    results = store.search(("test",), query="long text", limit=4)

    expected = sorted(DOCS, key=lambda doc: -cosine(fake_embeddings, "long text", doc[1]))
    assert [r.key for r in results] == [key for key, _ in expected]
    for result, (_, text) in zip(results, expected, strict=True):
        assert result.score == pytest.approx(cosine(fake_embeddings, "long text", text),
                                             abs=1e-5)
    assert fake_embeddings.queries == ["long text"]


def test_a_function_is_an_embedding_model_too() -> None:
    model = CharacterEmbeddings()
    with OracleAgentMemoryStore.from_conn_string(
            ":memory:", index={"dims": DIMS, "embed": model.embed_documents}) as store:
        store.put(("docs",), "a", {"text": "apples"})
        store.put(("docs",), "b", {"text": "zzz"})
        assert [r.key for r in store.search(("docs",), query="apple")] == ["a", "b"]
        assert store.embeddings is not None


def test_an_async_function_is_an_embedding_model_for_the_async_calls() -> None:
    """LangGraph's ``IndexConfig.embed`` may be an async function (``AEmbeddingsFunc``):
    LangGraph's stores use it in ``aput``/``asearch``; a sync call cannot use it."""
    model = CharacterEmbeddings()

    async def embed(texts: Any) -> list[list[float]]:
        return model.embed_documents(list(texts))

    async def scenario(store: BaseStore) -> list[Any]:
        await store.aput(("docs",), "a", {"text": "apples"})
        await store.aput(("docs",), "b", {"text": "zzz"})
        return await store.asearch(("docs",), query="apple")

    with OracleAgentMemoryStore.from_conn_string(
            ":memory:", index={"dims": DIMS, "embed": embed, "fields": ["text"]}) as store:
        results = asyncio.run(asyncio.wait_for(scenario(store), 30))
        assert [r.key for r in results] == ["a", "b"]
        assert results[0].score == pytest.approx(cosine(model, "apple", "apples"), abs=1e-5)
        assert sorted(model.documents) == ["apple", "apples", "zzz"]
        with pytest.raises(ValueError, match="async function"):
            store.put(("docs",), "c", {"text": "sync"})


def test_index_paths_select_the_texts_embedded(fake_embeddings: CharacterEmbeddings) -> None:
    with OracleAgentMemoryStore.from_conn_string(
            ":memory:", index={"dims": DIMS, "embed": fake_embeddings,
                               "fields": ["key1", "key2.sub"]}) as store:
        store.put(("test",), "item", {"key1": "first", "key2": {"sub": "second"},
                                      "key3": "never"})
        assert sorted(fake_embeddings.documents) == ["first", "second"]
        store.put(("test",), "other", {"key1": "x", "key3": "third"}, index=["key3"])
        assert "third" in fake_embeddings.documents
        assert store.search(("test",), query="second")[0].key == "item"


def test_async_calls_use_the_same_model(store: BaseStore,
                                        fake_embeddings: CharacterEmbeddings) -> None:
    async def scenario() -> list[Any]:
        await store.aput(("test",), "doc1", {"text": "short text"})
        await store.aput(("test",), "doc2", {"text": "completely different"})
        return await store.asearch(("test",), query="short text")

    results = asyncio.run(scenario())
    assert [r.key for r in results] == ["doc1", "doc2"]
    assert results[0].score == pytest.approx(1.0, abs=1e-5)


def test_a_client_opened_with_a_model_of_that_size_takes_the_index_model() -> None:
    model = CharacterEmbeddings(dims=64)
    with OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder(64)) as client:
        store = OracleAgentMemoryStore(client, index={"dims": 64, "embed": model})
        store.put(("docs",), "a", {"text": "apples"})
        assert model.documents == ['{"text": "apples"}']
        assert store.search(("docs",), query="apples")[0].key == "a"


def test_dims_other_than_the_stores_are_refused_with_the_way_out() -> None:
    with OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder(64)) as client, \
            pytest.raises(ValueError, match="index\\['dims'\\] is 500 but the client's store "
                                            "keeps 64-dimensional vectors.*from_conn_string"):
        OracleAgentMemoryStore(client, index={"dims": DIMS, "embed": CharacterEmbeddings()})


def test_a_model_giving_vectors_of_another_size_is_caught(
        fake_embeddings: CharacterEmbeddings) -> None:
    with OracleAgentMemoryStore.from_conn_string(
            ":memory:", index={"dims": DIMS, "embed": CharacterEmbeddings(dims=12)}) as store, \
            pytest.raises(ValueError, match=r"shape \(1, 12\), expected \(1, 500\)"):
        store.put(("docs",), "a", {"text": "apples"})


# -- distance_type ----------------------------------------------------------------------


@pytest.mark.parametrize("distance_type", ["l2", "inner_product"])
def test_a_distance_type_the_store_does_not_compute_is_refused(
        fake_embeddings: CharacterEmbeddings, distance_type: str) -> None:
    with pytest.raises(ValueError, match=rf"\['distance_type'\] '{distance_type}' is not "
                                         "supported: this store ranks by cosine"), \
            OracleAgentMemoryStore.from_conn_string(
                ":memory:", index={"dims": DIMS, "embed": fake_embeddings,
                                   "distance_type": distance_type}):
        pass


def test_cosine_is_the_distance_type_honoured(fake_embeddings: CharacterEmbeddings) -> None:
    with OracleAgentMemoryStore.from_conn_string(
            ":memory:", index={"dims": DIMS, "embed": fake_embeddings,
                               "distance_type": "cosine"}) as store:
        store.put(("docs",), "a", {"text": "apples and pears"})
        (result,) = store.search(("docs",), query="pears")
        assert result.score == pytest.approx(
            cosine(fake_embeddings, "pears", '{"text": "apples and pears"}'), abs=1e-5)


# -- filters on values JSON does not have -----------------------------------------------


@pytest.mark.parametrize("odd", [math.nan, math.inf, -math.inf])
def test_a_filter_on_nan_or_infinity_matches_as_in_langgraph(store: BaseStore,
                                                             odd: float) -> None:
    store.batch([PutOp(("items",), key, {"text": key, "price": price})
                 for key, price in (("cheap", 1.5), ("dear", 99.0), ("free", 0))])

    equal, unequal, plain, ranked = store.batch([
        SearchOp(("items",), filter={"price": {"$eq": odd}}),
        SearchOp(("items",), filter={"price": {"$ne": odd}}),
        SearchOp(("items",), filter={"price": odd}),
        SearchOp(("items",), query="cheap", filter={"price": {"$ne": odd}}),
    ])

    assert equal == [] and plain == []
    assert {item.key for item in unequal} == {"cheap", "dear", "free"}
    assert {item.key for item in ranked} == {"cheap", "dear", "free"}
