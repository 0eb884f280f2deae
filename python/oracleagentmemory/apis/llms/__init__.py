"""The LLM interface and its answer type."""

from oracleagentmemory.apis.llms.llm import ILlm, LlmResponse

__all__ = ["ILlm", "LlmResponse"]
