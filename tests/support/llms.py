"""In-process LLM stand-ins for tests that need a thread to have an LLM but never call it."""

from __future__ import annotations

from typing import Any

from oracleagentmemory.apis.llms.llm import ILlm, LlmResponse


class NeverCalledLlm(ILlm):
    """An LLM for settings whose extraction is never due: any call is a test failure."""

    def generate(self, prompt: Any, *, response_json_schema: dict[str, Any] | None = None,
                 **kwargs: Any) -> LlmResponse:
        raise AssertionError("the LLM was called, but nothing was due")

    async def generate_async(self, prompt: Any, *,
                             response_json_schema: dict[str, Any] | None = None,
                             **kwargs: Any) -> LlmResponse:
        raise AssertionError("the LLM was called, but nothing was due")
