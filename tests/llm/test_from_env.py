"""Building the LLM and the embedder from environment variables."""

from __future__ import annotations

import pytest

from oracleagentmemory.core.embedders import Embedder
from oracleagentmemory.core.embedders.from_env import embedder_from_env
from oracleagentmemory.core.llms import Llm, llm_from_env
from tests.support.llm_server import chat, embeddings


def test_no_variables_means_no_llm():
    assert llm_from_env({}) is None
    assert embedder_from_env({}) is None


def test_the_llm_uses_the_named_endpoint_model_and_key(llm_server):
    llm = llm_from_env({
        "ORACLEAGENTMEMORY_LLM_BASE_URL": llm_server.base_url,
        "ORACLEAGENTMEMORY_LLM_MODEL": "llama3.1",
        "ORACLEAGENTMEMORY_LLM_API_KEY": "secret",
        "ORACLEAGENTMEMORY_LLM_TIMEOUT": "12.5",
        "ORACLEAGENTMEMORY_LLM_MAX_RETRIES": "1",
        "ORACLEAGENTMEMORY_LLM_JSON_MODE": "false",
    })
    assert isinstance(llm, Llm)
    assert llm.http.timeout == 12.5
    assert llm.http.retry.max_retries == 1
    llm_server.enqueue(chat("hello from env"))
    answer = llm.generate([{"role": "user", "content": "hi"}],
                          response_json_schema={"type": "object"})
    assert answer.text == "hello from env"
    request = llm_server.requests[0]
    assert request.body["model"] == "llama3.1"
    assert request.headers["Authorization"] == "Bearer secret"
    assert "response_format" not in request.body  # JSON_MODE=false


def test_the_llm_never_borrows_the_openai_key(llm_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-this-host")
    llm = llm_from_env({"ORACLEAGENTMEMORY_LLM_BASE_URL": llm_server.base_url,
                        "ORACLEAGENTMEMORY_LLM_MODEL": "m"})
    llm_server.enqueue(chat("ok"))
    llm.generate([{"role": "user", "content": "hi"}])
    assert "Authorization" not in llm_server.requests[0].headers


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"ORACLEAGENTMEMORY_LLM_BASE_URL": "http://127.0.0.1:1/v1"},
         "ORACLEAGENTMEMORY_LLM_MODEL"),
        ({"ORACLEAGENTMEMORY_LLM_MODEL": "m"}, "ORACLEAGENTMEMORY_LLM_BASE_URL"),
        ({"ORACLEAGENTMEMORY_LLM_BASE_URL": "http://127.0.0.1:1/v1",
          "ORACLEAGENTMEMORY_LLM_MODEL": "m", "ORACLEAGENTMEMORY_LLM_TIMEOUT": "soon"},
         "ORACLEAGENTMEMORY_LLM_TIMEOUT"),
        ({"ORACLEAGENTMEMORY_LLM_BASE_URL": "http://127.0.0.1:1/v1",
          "ORACLEAGENTMEMORY_LLM_MODEL": "m", "ORACLEAGENTMEMORY_LLM_JSON_MODE": "maybe"},
         "ORACLEAGENTMEMORY_LLM_JSON_MODE"),
        ({"ORACLEAGENTMEMORY_LLM_BASE_URL": "localhost:11434",
          "ORACLEAGENTMEMORY_LLM_MODEL": "m"}, "ORACLEAGENTMEMORY_LLM_BASE_URL"),
    ],
)
def test_incomplete_or_bad_variables_name_the_variable(environ, message):
    with pytest.raises(ValueError, match=message):
        llm_from_env(environ)


def test_the_embedder_from_env(llm_server):
    embedder = embedder_from_env({
        "ORACLEAGENTMEMORY_EMBEDDER_BASE_URL": llm_server.base_url,
        "ORACLEAGENTMEMORY_EMBEDDER_MODEL": "nomic-embed-text",
        "ORACLEAGENTMEMORY_EMBEDDER_DIMENSION": "3",
        "ORACLEAGENTMEMORY_EMBEDDER_BATCH_SIZE": "10",
    })
    assert isinstance(embedder, Embedder)
    assert embedder.embedding_dimension == 3
    llm_server.enqueue(embeddings([[1.0, 0.0, 0.0]] * 10), embeddings([[1.0, 0.0, 0.0]]))
    assert embedder.embed(["x"] * 11).shape == (11, 3)
    assert [len(r.body["input"]) for r in llm_server.requests] == [10, 1]  # BATCH_SIZE
    assert llm_server.requests[0].body["model"] == "nomic-embed-text"
    with pytest.raises(ValueError, match="BASE_URL"):
        embedder_from_env({"ORACLEAGENTMEMORY_EMBEDDER_MODEL": "m"})
