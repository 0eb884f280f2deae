"""The LLM interface."""

from oracleagentmemory.apis.llms.llm import ILlm

__all__ = ["ILlm"]
