"""LLM adapters: the OpenAI-compatible chat client, its HTTP layer, errors and JSON parsing."""

from __future__ import annotations

from oracleagentmemory.core.llms.errors import (
    LlmConnectionError,
    LlmError,
    LlmHttpError,
    LlmOutputError,
    LlmResponseError,
    LlmTimeoutError,
)
from oracleagentmemory.core.llms.from_env import llm_from_env
from oracleagentmemory.core.llms.http_client import HttpJsonClient, RetryPolicy
from oracleagentmemory.core.llms.json_output import JSON_RESPONSE_FORMAT, parse_json_output
from oracleagentmemory.core.llms.openai_compatible import OpenAICompatibleLlm

__all__ = [
    "JSON_RESPONSE_FORMAT",
    "HttpJsonClient",
    "LlmConnectionError",
    "LlmError",
    "LlmHttpError",
    "LlmOutputError",
    "LlmResponseError",
    "LlmTimeoutError",
    "OpenAICompatibleLlm",
    "RetryPolicy",
    "llm_from_env",
    "parse_json_output",
]
