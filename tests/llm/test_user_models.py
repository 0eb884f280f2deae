"""Models written for the reference plug in: subclasses that implement only the abstract
methods, with the reference's signatures, drive extraction, summaries and search."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from oracleagentmemory.apis.embedders import IEmbedder
from oracleagentmemory.apis.llms import ILlm, LlmResponse
from oracleagentmemory.core import OracleAgentMemory

DIMENSION = 16


class UserLlm(ILlm):
    """Answers by the shape the caller asks for, as a user's own model adapter would."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, dict | None]] = []

    def generate(self, prompt, *, response_json_schema=None, **kwargs) -> LlmResponse:
        self.calls.append((prompt, response_json_schema))
        wanted = set((response_json_schema or {}).get("properties", {}))
        if "memories" in wanted:
            return LlmResponse(json.dumps({"memories": [
                {"content": "The user is vegetarian.", "type": "fact",
                 "source_messages": [1]}]}))
        if "topics" in wanted:
            return LlmResponse('{"topics": ["diet"]}')
        if "links" in wanted:
            return LlmResponse('{"links": []}')
        return LlmResponse("The user said they are vegetarian.")

    async def generate_async(self, prompt, *, response_json_schema=None,
                             **kwargs) -> LlmResponse:
        return self.generate(prompt, response_json_schema=response_json_schema, **kwargs)


class UserEmbedder(IEmbedder):
    """Hashed bag of words; relies on the base class for the dimension and input limit."""

    def __init__(self) -> None:
        self.query_texts: list[str] = []
        self.calls = 0

    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        self.calls += 1
        if is_query:
            self.query_texts.extend(texts)
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(".", " ").replace("?", " ").split():
                out[row, hashlib.sha256(word.encode()).digest()[0] % DIMENSION] += 1.0
            out[row, 0] += 0.01  # never a zero vector
        return out

    async def embed_async(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        return self.embed(texts, is_query=is_query)


@pytest.fixture
def client():
    made = OracleAgentMemory(connection=":memory:", llm=UserLlm(), embedder=UserEmbedder())
    yield made
    made.close()


def test_a_user_llm_drives_extraction_and_a_user_embedder_serves_search(client):
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "I'm vegetarian, by the way."}])
    facts = [m for m in client.list_memories(thread_id="t") if m.record_type == "fact"]
    assert [fact.content for fact in facts] == ["The user is vegetarian."]

    [result] = thread.search("what does the user eat? vegetarian", record_types=["fact"])
    assert result.content == "The user is vegetarian."
    assert client.embedder.query_texts[-1] == "what does the user eat? vegetarian"
    assert "I'm vegetarian, by the way." not in client.embedder.query_texts  # a document


def test_the_user_llm_gets_reference_shaped_prompts_and_schemas(client):
    thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
    thread.add_messages([{"role": "user", "content": "I'm vegetarian."}])
    extraction = [(prompt, schema) for prompt, schema in client.llm.calls
                  if schema and "memories" in schema["properties"]]
    assert extraction, "extraction never asked the LLM"
    prompt, schema = extraction[0]
    assert all(isinstance(m, Mapping) and {"role", "content"} <= set(m) for m in prompt)
    assert "I'm vegetarian." in prompt[-1]["content"]
    assert schema["type"] == "object"


def test_the_base_class_learns_the_dimension_and_assumes_a_limit():
    embedder = UserEmbedder()
    assert embedder.embedding_dimension == DIMENSION
    assert embedder.embedding_dimension == DIMENSION
    assert embedder.calls == 1  # probed once, then remembered
    assert embedder.max_input_tokens == 512


def test_a_user_model_must_implement_both_abstract_methods():
    class SyncOnly(ILlm):
        def generate(self, prompt, *, response_json_schema=None, **kwargs):
            return LlmResponse("x")

    class EmbedOnly(IEmbedder):
        def embed(self, texts, *, is_query=False):
            return np.zeros((len(texts), 2), dtype=np.float32)

    with pytest.raises(TypeError, match="generate_async"):
        SyncOnly()  # type: ignore[abstract]
    with pytest.raises(TypeError, match="embed_async"):
        EmbedOnly()  # type: ignore[abstract]


def test_llm_response_is_a_frozen_value():
    response = LlmResponse("hi")
    assert response == LlmResponse(text="hi")
    with pytest.raises(AttributeError):
        response.text = "changed"  # type: ignore[misc]
    assert asyncio.run(UserLlm().generate_async("x")).text.startswith("The user")


def test_a_bad_probe_shape_is_a_clear_error():
    class Flat(IEmbedder):
        def embed(self, texts, *, is_query=False):
            return np.zeros(3, dtype=np.float32)

        async def embed_async(self, texts, *, is_query=False):
            return self.embed(texts)

    with pytest.raises(ValueError, match=r"Flat.embed returned shape \(3,\)"):
        _ = Flat().embedding_dimension
