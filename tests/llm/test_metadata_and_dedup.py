"""Metadata inheritance rules and deduplication of extracted memories."""

from __future__ import annotations

import numpy as np
import pytest

from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core.embedders import Embedder
from oracleagentmemory.core.extractors import ExtractedMemory, MemoryDeduplicator
from oracleagentmemory.core.extractors.dedup import normalise_text
from oracleagentmemory.core.extractors.metadata_inheritance import inherited_metadata
from tests.support.llm_server import embeddings


class TableEmbedder(IEmbedder):
    """Vectors chosen by the test, so similarity is known exactly."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table
        self.calls: list[list[str]] = []

    @property
    def embedding_dimension(self) -> int:
        return 2

    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        self.calls.append(list(texts))
        return np.asarray([self.table[text] for text in texts], dtype=np.float32)

    async def embed_async(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        return self.embed(texts, is_query=is_query)


def memory(text: str, memory_type: str = "fact") -> ExtractedMemory:
    return ExtractedMemory(text, memory_type)


class TestMetadataInheritance:
    def test_true_inherits_everything_from_one_source(self):
        assert inherited_metadata([{"a": 1, "b": [2]}], True) == {"a": 1, "b": [2]}

    def test_false_inherits_nothing(self):
        assert inherited_metadata([{"a": 1}], False) is None

    def test_a_key_list_selects_keys(self):
        assert inherited_metadata([{"a": 1, "b": 2}], ["b", "c"]) == {"b": 2}

    def test_several_sources_keep_only_keys_equal_in_all(self):
        sources = [{"a": 1, "b": 2, "c": {"x": 1}}, {"a": 1, "b": 3, "c": {"x": 1}},
                   {"a": 1, "c": {"x": 1}, "d": 4}]
        assert inherited_metadata(sources, True) == {"a": 1, "c": {"x": 1}}
        assert inherited_metadata(sources, ["b", "a"]) == {"a": 1}

    def test_a_source_without_metadata_blocks_inheritance(self):
        assert inherited_metadata([{"a": 1}, None], True) is None

    def test_true_and_one_are_different_values(self):
        assert inherited_metadata([{"flag": True}, {"flag": 1}], True) is None

    @pytest.mark.parametrize("rule", ["a", 3, [1]])
    def test_bad_rules_are_type_errors(self, rule):
        with pytest.raises(TypeError):
            inherited_metadata([{"a": 1}], rule)


class TestDeduplication:
    def test_normalisation(self):
        assert normalise_text("  The user is VEGETARIAN.  ") == "the user is vegetarian"
        assert normalise_text("Ｌｙｏｎ\tcity!") == "lyon city"

    def test_exact_duplicates_of_stored_text_and_of_each_other_are_dropped(self):
        result = MemoryDeduplicator().deduplicate(
            [memory("The user is vegetarian"), memory("Lives in Lyon."),
             memory("lives in  lyon"), memory("New fact")],
            existing=["The user is vegetarian.", {"content": "Something else"}],
        )
        assert [m.content for m in result.kept] == ["Lives in Lyon.", "New fact"]
        assert result.vectors is None
        assert [(m.content, match) for m, match in result.duplicates] == [
            ("The user is vegetarian", "The user is vegetarian."),
            ("lives in  lyon", "Lives in Lyon."),
        ]

    def test_similar_texts_are_dropped_with_an_embedder(self):
        embedder = TableEmbedder({
            "Vegetarian user": [1.0, 0.0],
            "The user eats no meat": [0.99, 0.141],  # cosine 0.99 with the stored one
            "The user likes jazz": [0.0, 1.0],
            "Jazz fan": [0.05, 0.9987],  # cosine ~0.9987 with the candidate above
        })
        result = MemoryDeduplicator(embedder, similarity_threshold=0.95).deduplicate(
            [memory("The user eats no meat"), memory("The user likes jazz"),
             memory("Jazz fan")],
            existing=[{"content": "Vegetarian user"}],
        )
        assert [m.content for m in result.kept] == ["The user likes jazz"]
        assert dict((m.content, match) for m, match in result.duplicates) == {
            "The user eats no meat": "Vegetarian user",
            "Jazz fan": "The user likes jazz",
        }
        assert result.vectors is not None and result.vectors.shape == (1, 2)
        np.testing.assert_allclose(result.vectors[0], [0.0, 1.0])

    def test_stored_vectors_are_used_instead_of_embedding_again(self):
        embedder = TableEmbedder({"Candidate": [1.0, 0.0]})
        result = MemoryDeduplicator(embedder).deduplicate(
            [memory("Candidate")], existing=[{"content": "Stored", "embedding": [0.0, 1.0]}])
        assert [m.content for m in result.kept] == ["Candidate"]
        assert embedder.calls == [["Candidate"]]

    def test_below_the_threshold_both_are_kept(self):
        embedder = TableEmbedder({"A": [1.0, 0.0], "B": [0.8, 0.6]})  # cosine 0.8
        result = MemoryDeduplicator(embedder, 0.9).deduplicate([memory("A"), memory("B")])
        assert [m.content for m in result.kept] == ["A", "B"]

    def test_with_the_http_embedder(self, llm_server):
        embedder = Embedder("e", api_base=llm_server.base_url, embedding_dimension=2)
        llm_server.enqueue(embeddings([[1.0, 0.0], [0.0, 1.0]]), embeddings([[0.999, 0.04]]))
        result = MemoryDeduplicator(embedder).deduplicate(
            [memory("fresh"), memory("other")], existing=["stored"])
        assert [m.content for m in result.kept] == ["other"]
        assert [r.body["input"] for r in llm_server.requests] == [["fresh", "other"],
                                                                  ["stored"]]

    def test_known_similarities_replace_embedding_the_stored_texts(self):
        embedder = TableEmbedder({"near": [1.0, 0.0], "far": [0.0, 1.0]})
        result = MemoryDeduplicator(embedder, similarity_threshold=0.9).deduplicate(
            [memory("near"), memory("far")], existing=["stored a", "stored b"],
            candidate_vectors=np.asarray([[1.0, 0.0], [0.0, 1.0]]),
            nearest_existing=[[("stored a", 0.95), ("stored b", 0.97)], [("stored b", 0.5)]])
        assert [m.content for m in result.kept] == ["far"]
        assert [(m.content, text) for m, text in result.duplicates] == [("near", "stored b")]
        assert embedder.calls == []

    def test_threshold_is_validated(self):
        with pytest.raises(ValueError):
            MemoryDeduplicator(similarity_threshold=0)
