"""Interface of large language models: a prompt in, an :class:`LlmResponse` out.

A prompt is a plain string (one user message), a sequence of chat messages, each an
:class:`~oracleagentmemory.apis.message.Message` or an OpenAI-style ``{"role", "content"}``
mapping, or a single such mapping. Implementations turn it into their wire format once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from oracleagentmemory._async_twins import document_twins
from oracleagentmemory.apis.message import JsonSchema as JsonSchema
from oracleagentmemory.apis.message import Message

ChatMessageMappingT = Mapping[str, str | Sequence[Mapping[str, Any]]]
"""An OpenAI-style chat message: ``role`` and ``content`` (text, or content parts)."""


class ChatMessageTypedDictT(TypedDict):
    """The typed form of one OpenAI-style chat message."""

    role: str
    content: str | Sequence[Mapping[str, Any]]


ChatMessages = Sequence[Message | ChatMessageMappingT]
"""A conversation: messages as objects or as OpenAI-style mappings, in order."""

Prompt = str | ChatMessages | ChatMessageTypedDictT
"""What :meth:`ILlm.generate` accepts."""


@dataclass(frozen=True, slots=True)
class LlmResponse:
    """The model's answer.

    Args:
        text: The answer's text (JSON text when a schema was asked for).
    """

    text: str


@document_twins
class ILlm(ABC):
    """A language model. Implement both methods to plug your own model in.

    ``response_json_schema`` asks for an answer that is JSON matching the schema; a model
    that cannot enforce it should still answer JSON (callers parse it tolerantly).
    ``kwargs`` are per-call generation options of the implementation.
    """

    def __init__(self) -> None:  # noqa: B027 - the reference's constructor takes nothing
        """Nothing to set up; subclasses need not call it."""

    @abstractmethod
    def generate(
        self,
        prompt: Prompt,
        *,
        response_json_schema: JsonSchema | None = None,
        **kwargs: Any,
    ) -> LlmResponse:
        """The model's answer to ``prompt``.

        Args:
            prompt: A string (one user message), a chat message mapping, or a sequence of
                :class:`~oracleagentmemory.apis.message.Message` objects and mappings.
            response_json_schema: A JSON schema the answer should match. None (the
                default): a free-text answer.

        Returns:
            The answer.

        Raises:
            LlmError: The model failed or its answer is unusable; the library's tasks catch
                it and keep the raw data. Raise a subclass of
                :class:`~oracleagentmemory.core.llms.errors.LlmError` from your own model.
        """

    @abstractmethod
    async def generate_async(
        self,
        prompt: Prompt,
        *,
        response_json_schema: JsonSchema | None = None,
        **kwargs: Any,
    ) -> LlmResponse:
        ...
