"""An ILlm over the OpenAI chat-completions protocol (``POST {base_url}/chat/completions``).

Why this protocol: OpenAI, OCI Generative AI's OpenAI-compatible endpoint, vLLM, Ollama
(``http://localhost:11434/v1``) and llama.cpp's server (``http://localhost:8080/v1``) all
speak it, so one adapter covers hosted and local models.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.core.llms.errors import LlmHttpError, LlmResponseError
from oracleagentmemory.core.llms.http_client import HttpJsonClient, RetryPolicy

logger = logging.getLogger(__name__)

OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
JSON_MODE_REJECTION_STATUSES = frozenset({400, 415, 422})
"""Statuses with which servers reject an unsupported ``response_format``."""


def resolve_api_key(api_key: str | None, api_key_env: str | None) -> str | None:
    """The explicit key, else the named environment variable's value, else None (no auth)."""
    if api_key:
        return api_key
    if api_key_env:
        return os.environ.get(api_key_env) or None
    return None


def openai_http(base_url: str, api_key: str | None, api_key_env: str | None,
                headers: Mapping[str, str] | None, timeout: float,
                retry: RetryPolicy | None, max_retries: int,
                auth: httpx.Auth | None) -> HttpJsonClient:
    """The HTTP client both OpenAI-compatible adapters (chat and embeddings) talk through."""
    return HttpJsonClient(
        base_url,
        api_key=resolve_api_key(api_key, api_key_env),
        headers=headers,
        timeout=timeout,
        retry=retry or RetryPolicy(max_retries=max_retries),
        auth=auth,
    )


def message_text(payload: Mapping[str, Any]) -> str:
    """The assistant text of a chat-completions answer; LlmResponseError when there is none."""
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise LlmResponseError(f"chat completion has no choices: {str(payload)[:200]}")
    choice = choices[0]
    message = choice.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    if content is None and isinstance(choice.get("text"), str):
        content = choice["text"]  # legacy completions shape, still sent by some servers
    if isinstance(content, list):  # content parts, as some servers return them
        content = "".join(
            part.get("text", "") for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        )
    if not isinstance(content, str):
        raise LlmResponseError(
            "chat completion has no text content "
            f"(finish_reason={choice.get('finish_reason')!r})"
        )
    return content


class OpenAICompatibleLlm(ILlm):
    """Chat model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    ``generate(messages, **options)`` sends ``options`` as request fields (``temperature``,
    ``max_tokens``, ``response_format``, …) over ``default_options``. When
    ``response_format`` asks for JSON and the server rejects it (HTTP 400/415/422), the
    request is sent again without it and later calls skip it; callers parse the text
    tolerantly (:func:`~oracleagentmemory.core.llms.json_output.parse_json_output`).
    Failures raise :class:`~oracleagentmemory.core.llms.errors.LlmError` subclasses.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OPENAI_BASE_URL,
        api_key: str | None = None,
        api_key_env: str | None = DEFAULT_API_KEY_ENV,
        timeout: float = 60.0,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        default_options: Mapping[str, Any] | None = None,
        json_mode: bool = True,
        auth: httpx.Auth | None = None,
        http: HttpJsonClient | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model must be a non-empty model name")
        self.model = model
        self.default_options = dict(default_options or {})
        self.json_mode_supported = json_mode
        """False once the server rejected ``response_format`` (or when disabled)."""
        self.http = http or openai_http(base_url, api_key, api_key_env, headers, timeout,
                                        retry, max_retries, auth)

    def __repr__(self) -> str:
        return f"OpenAICompatibleLlm(model={self.model!r}, base_url={self.http.base_url!r})"

    def _body(self, messages: Sequence[Mapping[str, Any]], options: Mapping[str, Any]
              ) -> dict[str, Any]:
        body: dict[str, Any] = {**self.default_options, **options}
        body["model"] = self.model
        body["messages"] = [dict(message) for message in messages]
        if not self.json_mode_supported:
            body.pop("response_format", None)
        return body

    def _should_retry_without_json(self, error: LlmHttpError, body: Mapping[str, Any]) -> bool:
        if "response_format" not in body or error.status_code not in JSON_MODE_REJECTION_STATUSES:
            return False
        logger.info("%s rejected response_format (%s); retrying without JSON mode",
                    self.http.base_url, error.status_code)
        self.json_mode_supported = False
        return True

    def generate(self, messages: Sequence[dict[str, Any]], **options: Any) -> str:
        """The assistant's reply text for ``messages``."""
        body = self._body(messages, options)
        try:
            return message_text(self.http.post("chat/completions", body))
        except LlmHttpError as error:
            if not self._should_retry_without_json(error, body):
                raise
        return message_text(self.http.post("chat/completions", self._body(messages, options)))

    async def generate_async(self, messages: Sequence[dict[str, Any]], **options: Any) -> str:
        """Async twin of :meth:`generate` (native async HTTP, same errors)."""
        body = self._body(messages, options)
        try:
            return message_text(await self.http.post_async("chat/completions", body))
        except LlmHttpError as error:
            if not self._should_retry_without_json(error, body):
                raise
        payload = await self.http.post_async("chat/completions", self._body(messages, options))
        return message_text(payload)

    def close(self) -> None:
        """Release pooled connections. Idempotent."""
        self.http.close()

    def __enter__(self) -> OpenAICompatibleLlm:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
