"""LLMs: :class:`Llm` over the OpenAI protocol, its HTTP layer, errors and JSON parsing.

``__all__`` is the reference's public pair; the other names stay importable from here.
"""

from __future__ import annotations

from oracleagentmemory.core.llms.errors import LlmConnectionError as LlmConnectionError
from oracleagentmemory.core.llms.errors import LlmError as LlmError
from oracleagentmemory.core.llms.errors import LlmHttpError as LlmHttpError
from oracleagentmemory.core.llms.errors import LlmMissingKeyError as LlmMissingKeyError
from oracleagentmemory.core.llms.errors import LlmOutputError as LlmOutputError
from oracleagentmemory.core.llms.errors import LlmResponseError as LlmResponseError
from oracleagentmemory.core.llms.errors import LlmTimeoutError as LlmTimeoutError
from oracleagentmemory.core.llms.from_env import llm_from_env as llm_from_env
from oracleagentmemory.core.llms.http_client import ConnectionOptions as ConnectionOptions
from oracleagentmemory.core.llms.http_client import HttpJsonClient as HttpJsonClient
from oracleagentmemory.core.llms.http_client import RetryPolicy as RetryPolicy
from oracleagentmemory.core.llms.json_output import parse_json_output as parse_json_output
from oracleagentmemory.core.llms.llm import Llm, LlmApiType

__all__ = ["Llm", "LlmApiType"]
