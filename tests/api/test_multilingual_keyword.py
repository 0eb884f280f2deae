"""KEYWORD search through the public client reads Chinese, Korean and French questions:
Han and Hangul are matched as character bigrams, French function words are ignored, and
English keeps its behaviour."""

from __future__ import annotations

import numpy as np
import pytest

from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core import OracleAgentMemory, SearchStrategy


class ConstantEmbedder(IEmbedder):
    """Every text gets the same vector: only the keyword side can rank."""

    @property
    def embedding_dimension(self) -> int:
        return 8

    def embed(self, texts, *, is_query=False):
        vectors = np.zeros((len(texts), 8), dtype=np.float32)
        vectors[:, 0] = 1.0
        return vectors

    async def embed_async(self, texts, *, is_query=False):
        return self.embed(texts, is_query=is_query)


@pytest.fixture
def thread():
    client = OracleAgentMemory(connection=":memory:", embedder=ConstantEmbedder(),
                               search_strategy=SearchStrategy.KEYWORD)
    yield client.create_thread(thread_id="t", user_id="u")
    client.close()


def found(thread, question: str) -> list[str]:
    return [result.content for result in thread.search(question, max_results=5)]


def test_a_chinese_question_finds_the_chinese_memory(thread):
    memory = "台北101於2004年落成，曾是世界最高的建築。"
    for text in ("高雄是台灣南部的港口城市。", "故宮博物院收藏了許多古代文物。", memory,
                 "日月潭是台灣最大的淡水湖。"):
        thread.add_memory(text)
    assert found(thread, "台北101是哪一年落成的？")[0] == memory


def test_a_korean_question_finds_the_noun_with_another_particle(thread):
    memory = "임종석이 대통령 비서실장으로 임명되었다."
    for text in ("서울은 대한민국의 수도이다.", memory, "한강은 서울을 가로지른다."):
        thread.add_memory(text)
    assert found(thread, "임종석은 누구인가?")[0] == memory


def test_french_function_words_do_not_match(thread):
    memory = "Paris est la capitale de la France."
    for text in ("la la la de de", "Le chat dort sur le canapé.", memory):
        thread.add_memory(text)
    results = found(thread, "Quelle est la capitale de la France ?")
    assert results[0] == memory
    assert "la la la de de" not in results


def test_english_is_unchanged(thread):
    memory = "My spouse's name is Robin."
    for text in ("What is it?", memory, "The weather is nice today."):
        thread.add_memory(text)
    assert found(thread, "What is my spouse's name?") == [memory]


def test_an_updated_memory_is_found_by_its_new_chinese_text(thread):
    memory_id = thread.add_memory("The tower opened in 2004.")
    thread.update_memory(memory_id, "台北101於2004年落成。")
    assert found(thread, "台北101是哪一年落成的？") == ["台北101於2004年落成。"]
