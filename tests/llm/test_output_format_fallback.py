"""JSON-mode fallback on an error that names the response format, once per endpoint.

llama.cpp answers HTTP 500 when it cannot turn a JSON schema into a grammar. That answer
used to be retried three times, and JSON mode stayed on for the next call.
"""

from __future__ import annotations

import json
import logging

import pytest

from oracleagentmemory.apis.message import Message
from oracleagentmemory.core.extractors import MemoryExtractor
from oracleagentmemory.core.extractors.memoryextractionconfig import ResolvedExtractionConfig
from oracleagentmemory.core.llms import Llm, LlmHttpError
from tests.support.llm_server import chat, error, refusing_json_schema

TEA = [Message("user", "I drink green tea every morning.")]
FACT = {"memories": [{"content": "The user drinks green tea every morning.", "type": "fact",
                      "source_messages": [1]}]}


def formats(server) -> list[str | None]:
    return [(request.body.get("response_format") or {}).get("type")
            for request in server.requests]


def extract(llm):
    return MemoryExtractor(llm).extract(TEA, None, ResolvedExtractionConfig())


@pytest.mark.parametrize("status", [500, 400, 422, 501])
def test_an_error_naming_the_format_falls_back_at_once(llm_server, status):
    llm_server.respond_with(refusing_json_schema(lambda r: chat(json.dumps(FACT)), status))
    with Llm("test-model", api_base=llm_server.base_url, max_retries=2) as llm:
        [memory] = extract(llm)
        assert memory.memory_type == "fact"
        assert formats(llm_server) == ["json_schema", "json_object"]  # no retry of the 500
        extract(llm)
    assert formats(llm_server)[2:] == ["json_object"]  # remembered


def test_the_fallback_is_learnt_once_per_endpoint(llm_server, caplog):
    llm_server.respond_with(refusing_json_schema(lambda r: chat(json.dumps(FACT))))
    with caplog.at_level(logging.INFO), \
            Llm("test-model", api_base=llm_server.base_url, max_retries=0) as first, \
            Llm("test-model", api_base=llm_server.base_url, max_retries=0) as second:
        extract(first)
        extract(second)
    assert formats(llm_server) == ["json_schema", "json_object", "json_object"]
    assert len([r for r in caplog.records if "refused SCHEMA output" in r.getMessage()]) == 1


def test_an_error_about_something_else_keeps_json_mode(llm_server):
    llm_server.enqueue(error(400, "this model's maximum context length is 2048 tokens"),
                       chat(json.dumps(FACT)))
    with Llm("test-model", api_base=llm_server.base_url, max_retries=0) as llm:
        with pytest.raises(LlmHttpError, match="context length"):
            llm.generate("x", response_json_schema={"type": "object"})
        llm.generate("x", response_json_schema={"type": "object"})
    assert formats(llm_server) == ["json_schema", "json_schema"]


def test_a_server_error_that_does_not_name_the_format_is_retried_not_a_fallback(llm_server):
    llm_server.enqueue(error(500, "out of memory"), chat(json.dumps(FACT)))
    with Llm("test-model", api_base=llm_server.base_url, max_retries=1) as llm:
        llm.http._sleep = lambda seconds: None  # the backoff is not what this test is about
        llm.generate("x", response_json_schema={"type": "object"})
    assert formats(llm_server) == ["json_schema", "json_schema"]
