"""Llm: the reference's model class, served by our OpenAI-protocol HTTP client.

Why one class for every OpenAI-speaking server: OpenAI, vLLM, Ollama, llama.cpp, LM Studio
and gateways all take the same requests; only the base URL, the key and a few field names
differ (see :mod:`~oracleagentmemory.core.llms.providers`). Both OpenAI request shapes are
served: chat completions and Responses (:class:`LlmApiType`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Mapping
from contextlib import contextmanager
from enum import Enum
from types import ModuleType
from typing import Any

from oracleagentmemory._async_twins import document_twins
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker, value_or
from oracleagentmemory.apis.llms.llm import ILlm, JsonSchema, LlmResponse, Prompt
from oracleagentmemory.apis.message import ImageContent, Message
from oracleagentmemory.core.imageinputlimitconfig import (
    ImageInputLimitConfig,
    validate_image_request,
)
from oracleagentmemory.core.llms import chat_completions, responses_api
from oracleagentmemory.core.llms.errors import LlmHttpError
from oracleagentmemory.core.llms.http_client import CircuitBreaker, shown_url
from oracleagentmemory.core.llms.model_arguments import flag, optional_value, positive_int
from oracleagentmemory.core.llms.prompt import to_messages
from oracleagentmemory.core.llms.providers import (
    endpoint_client,
    location_argument,
    resolve_endpoint,
)
from oracleagentmemory.core.llms.structured_output import (
    OutputMode,
    best_output,
    is_refusal,
    names_output_format,
    remember_refusal,
    reminder,
)
from oracleagentmemory.core.llms.tasks import TaskCall, TaskLimits, current_task

logger = logging.getLogger(__name__)

SLOT_POLL_SECONDS = 0.01
"""How often an async call waiting for a free ``max_concurrent_requests`` slot looks again."""
DEFAULT_BREAKER_THRESHOLD = 1
"""Failed calls (after their retries) that open the circuit breaker: one timeout is enough,
since the server may still be generating the answer nobody waits for any more."""
DEFAULT_BREAKER_COOLDOWN = 30.0
"""Seconds without calls after the breaker opens; doubled after each failed trial."""
CAP_FIELDS = frozenset({"max_tokens", "max_completion_tokens", "max_output_tokens"})
"""Request fields that cap the answer: one given by the caller replaces the task's cap."""


class LlmApiType(str, Enum):
    """Which OpenAI request shape to send.

    ``CHAT_COMPLETIONS`` (``"chat_completions"``) posts to ``/chat/completions``, which
    every OpenAI-compatible server serves; ``RESPONSES`` (``"responses"``) posts to
    ``/responses``, OpenAI's newer API. A str subclass: the value works where a member does.
    """

    CHAT_COMPLETIONS = "chat_completions"
    RESPONSES = "responses"


_PROTOCOLS: dict[LlmApiType, ModuleType] = {
    LlmApiType.CHAT_COMPLETIONS: chat_completions,
    LlmApiType.RESPONSES: responses_api,
}


@document_twins
class Llm(ILlm):
    """A chat model behind an OpenAI-compatible endpoint.

    Why one class: OpenAI, vLLM, Ollama, llama.cpp, LM Studio and gateways take the same
    requests; only the URL, the key and a few field names differ. ``response_json_schema``
    asks for structured output, falling back to JSON mode and then plain text on servers
    that refuse it (remembered for the endpoint by every client of the process). The
    library's own calls (extraction, summaries, topics, linking, captions, shortening) get
    an output cap and a timeout per task (:mod:`~oracleagentmemory.core.llms.tasks`).

    Extra keyword arguments (``default_kwargs``) are request fields sent with every call
    (per-call ``kwargs`` win), except these client options: ``timeout`` (seconds, default
    60; for every call when given), ``max_retries`` (default 3), ``retry_timeouts``
    (default False: a timed-out request is not sent again), ``structured_output`` (default
    True; False never asks for JSON or schema output), ``max_tokens_by_task`` and
    ``timeout_by_task`` (a mapping of task name to value), ``circuit_breaker_threshold``
    (failed calls that stop further calls, default 1; 0: never) and
    ``circuit_breaker_cooldown`` (seconds, default 30). ``base_url`` (the OpenAI SDK's and
    LiteLLM's name) is taken as ``api_base``; any other keyword naming a location
    (``api_url``, ``host``...) is refused, so requests only go where ``api_base`` says.

    Args:
        model: ``provider/name`` (``openai/gpt-4o-mini``, ``ollama/llama3.1``,
            ``vllm/Qwen/Qwen2.5-7B-Instruct``) or a plain name for OpenAI; any other prefix
            needs ``api_base``.
        api_base: Base URL of the server. Omitted: the provider's default URL
            (``https://api.openai.com/v1``, ``http://localhost:11434/v1`` for Ollama...).
        api_key: Bearer key. Omitted: the provider's key variable (``OPENAI_API_KEY``),
            read only when the URL is the provider's own (unset there, every call raises
            ``LlmMissingKeyError`` naming it, sending nothing); None sends no key.
        api_type: Request shape, an :class:`LlmApiType` or its value. Omitted:
            ``CHAT_COMPLETIONS``.
        stream: Receive the answer as server-sent events (the same text comes back).
            Omitted: False.
        temperature: Sampling temperature. Omitted or None: not sent (the server's default).
        max_tokens: Output cap of every call, the library's tasks included. Omitted: each
            task's own cap, and none for a direct call; None: no cap on any call.
        reasoning_effort: Reasoning effort for models that take one (``"low"``...).
            Omitted or None: not sent.
        enable_structured_output_reminder: When a schema is asked for but cannot be sent
            as schema output (a server that refused it, or ``structured_output=False``),
            append a system message with the schema. Omitted: True.
        supports_vision: Whether prompts may carry images. Omitted: True.
        image_input_limit_config: Limits on the images of one request. Omitted:
            ``ImageInputLimitConfig()`` (10 MiB per image, 100 images, 100 MiB in all).
        max_concurrent_requests: Calls in flight at once, sync and async together.
            Omitted or None: no bound.
        key_file: Private key of the client certificate, when separate from ``cert_file``.
            Omitted: None.
        cert_file: Client certificate for mutual TLS. Omitted: None (no client certificate).
        ca_file: CA bundle replacing the default one. Omitted: None (the default bundle).
        proxy: http(s) proxy URL. Omitted: None (the environment's proxy, if trusted).
        trust_env: Read ``HTTP(S)_PROXY``, ``NO_PROXY`` and ``SSL_CERT_FILE``. Omitted: True.

    Raises:
        ValueError: An argument or client option has a value that is not allowed (an empty
            model, an unknown provider without ``api_base``, an unknown ``api_type``, a
            non-positive number, a file that does not exist, ``api_base`` and ``base_url``
            naming two servers, a keyword naming a location); the message names it.
        TypeError: An argument or client option has the wrong type (a string for a flag, an
            ``image_input_limit_config`` that is not an ``ImageInputLimitConfig``).
    """

    def __init__(
        self,
        model: str,
        api_base: str | None | _NotSetMarker = NOT_SET_MARKER,
        api_key: str | None | _NotSetMarker = NOT_SET_MARKER,
        api_type: LlmApiType | _NotSetMarker = NOT_SET_MARKER,
        stream: bool | _NotSetMarker = NOT_SET_MARKER,
        temperature: float | None | _NotSetMarker = NOT_SET_MARKER,
        max_tokens: int | None | _NotSetMarker = NOT_SET_MARKER,
        reasoning_effort: str | None | _NotSetMarker = NOT_SET_MARKER,
        enable_structured_output_reminder: bool | _NotSetMarker = NOT_SET_MARKER,
        supports_vision: bool | _NotSetMarker = NOT_SET_MARKER,
        image_input_limit_config: ImageInputLimitConfig | _NotSetMarker = NOT_SET_MARKER,
        max_concurrent_requests: int | None | _NotSetMarker = NOT_SET_MARKER,
        key_file: str | None | _NotSetMarker = NOT_SET_MARKER,
        cert_file: str | None | _NotSetMarker = NOT_SET_MARKER,
        ca_file: str | None | _NotSetMarker = NOT_SET_MARKER,
        proxy: str | None | _NotSetMarker = NOT_SET_MARKER,
        trust_env: bool | _NotSetMarker = NOT_SET_MARKER,
        **default_kwargs: Any,
    ) -> None:
        default_kwargs = dict(default_kwargs)
        api_base = location_argument(api_base, default_kwargs)
        endpoint = resolve_endpoint(model, api_base, api_key)
        try:
            self.api_type = LlmApiType(value_or(api_type, LlmApiType.CHAT_COMPLETIONS))
        except ValueError:
            raise ValueError(f"api_type must be one of {[t.value for t in LlmApiType]}, "
                             f"got {api_type!r}") from None
        self.model = model
        self._wire_model = endpoint.model
        self._endpoint_key = (endpoint.base_url.rstrip("/"), endpoint.model,
                              self.api_type.value)
        self._protocol = _PROTOCOLS[self.api_type]
        self._stream = flag("stream", stream, False)
        self._options = self._protocol.option_fields(
            temperature=optional_value("temperature", temperature, (int, float)),
            reasoning_effort=optional_value("reasoning_effort", reasoning_effort, str),
        )
        self._cap_field = self._protocol.cap_field(endpoint.max_tokens_field)
        cap = positive_int("max_tokens", max_tokens, None)  # sent per call (see _body)
        self._reminder = flag("enable_structured_output_reminder",
                               enable_structured_output_reminder, True)
        self._supports_vision = flag("supports_vision", supports_vision, True)
        limits = value_or(image_input_limit_config, ImageInputLimitConfig())
        if not isinstance(limits, ImageInputLimitConfig):
            raise TypeError("image_input_limit_config must be an ImageInputLimitConfig, got "
                            f"{type(limits).__name__}")
        self._image_limits = limits.resolved()
        concurrency = positive_int("max_concurrent_requests", max_concurrent_requests, None)
        self._slots = threading.BoundedSemaphore(concurrency) if concurrency else None
        options = dict(default_kwargs)
        self._best_output = (OutputMode.SCHEMA if flag(
            "structured_output", options.pop("structured_output", True), True)
            else OutputMode.TEXT)
        limits_by_task = TaskLimits.from_options(
            max_tokens_by_task=options.pop("max_tokens_by_task", None),
            timeout_by_task=options.pop("timeout_by_task", None),
            max_tokens=cap, max_tokens_given=max_tokens is not NOT_SET_MARKER,
            timeout=options.get("timeout"))
        self.limits: TaskLimits = limits_by_task
        """The output cap and timeout of each library task, resolved from ``max_tokens``,
        ``max_tokens_by_task``, ``timeout`` and ``timeout_by_task`` (see
        ``core.llms.tasks``)."""
        breaker = CircuitBreaker(
            threshold=options.pop("circuit_breaker_threshold", DEFAULT_BREAKER_THRESHOLD),
            cooldown=options.pop("circuit_breaker_cooldown", DEFAULT_BREAKER_COOLDOWN))
        retry_timeouts = flag("retry_timeouts", options.pop("retry_timeouts", False), False)
        self.http = endpoint_client(endpoint, options, key_file=key_file, cert_file=cert_file,
                                    ca_file=ca_file, proxy=proxy, trust_env=trust_env,
                                    retry_timeouts=retry_timeouts, breaker=breaker)
        self._default_kwargs = options

    def __repr__(self) -> str:
        return (f"Llm(model={self.model!r}, api_base={shown_url(self.http.base_url)!r}, "
                f"api_type={self.api_type.value!r})")

    @property
    def supports_vision(self) -> bool:
        """Whether prompts may carry images (they are refused when not)."""
        return self._supports_vision

    # -- one request ----------------------------------------------------------------------

    def _messages(self, prompt: Prompt) -> list[Message]:
        """The prompt normalised, its images checked against vision support and limits."""
        messages = to_messages(prompt)
        for message in messages:
            has_image = not isinstance(message.content, str) and any(
                isinstance(part, ImageContent) for part in message.content)
            if has_image and not self._supports_vision:
                raise ValueError(f"{self.model} was created with supports_vision=False; "
                                 "the prompt carries images")
            if has_image and message.role != "user":
                raise ValueError(f"images can only be sent in user messages, not in a "
                                 f"{message.role!r} message")
        validate_image_request(messages, self._image_limits)
        return messages

    def _body(self, messages: list[Message], schema: JsonSchema | None, mode: OutputMode,
              kwargs: Mapping[str, Any], task: TaskCall | None) -> dict[str, Any]:
        if schema is not None and mode < OutputMode.SCHEMA and self._reminder:
            messages = [*messages, Message("system", reminder(schema))]
        fields = {**self._options, **self._protocol.output_fields(mode, schema),
                  **self._default_kwargs, **kwargs}
        cap = self.limits.cap(task)
        if cap is not None and not CAP_FIELDS & set(fields):
            fields[self._cap_field] = cap
        if self._stream:
            fields["stream"] = True
        return self._protocol.request_body(self._wire_model, messages, fields)

    def _read(self, payload: Any, body: Mapping[str, Any], task: TaskCall | None
              ) -> LlmResponse:
        if self._protocol.was_cut(payload):
            what = f"the {task.name} answer" if task is not None else "the answer"
            cap = next((body[name] for name in CAP_FIELDS if name in body), None)
            option = (f"max_tokens_by_task={{{task.name!r}: ...}}" if task is not None
                      else "max_tokens")
            logger.warning("%s of %s was cut at its output cap (%s tokens); raise %s if "
                           "answers of this length are expected", what, self.model, cap,
                           option)
        if self._stream:
            return LlmResponse(self._protocol.streamed_text(payload))
        return LlmResponse(self._protocol.answer_text(payload))

    def _mode(self) -> OutputMode:
        """The output mode to ask for: the best the endpoint has not refused."""
        return best_output(self._endpoint_key, self._best_output)

    @staticmethod
    def _final(schema: JsonSchema | None, mode: OutputMode) -> Any:
        """Error answers not to retry: those naming the output format asked for."""
        return names_output_format if schema is not None and mode > OutputMode.TEXT else None

    def _weaker(self, mode: OutputMode, schema: JsonSchema | None, error: LlmHttpError
                ) -> OutputMode:
        """The next output mode to try after ``error``, or the error itself re-raised."""
        if schema is None or mode is OutputMode.TEXT \
                or not is_refusal(error.status_code, str(error)):
            raise error
        weaker = OutputMode(mode - 1)
        if remember_refusal(self._endpoint_key, mode):
            logger.warning("%s (model %s) refused %s output (HTTP %s); asking it for %s "
                           "output from now on", shown_url(self.http.base_url), self._wire_model,
                           mode.name, error.status_code, weaker.name)
        return weaker

    @contextmanager
    def _slot(self) -> Any:
        if self._slots is None:
            yield
            return
        with self._slots:
            yield

    # -- ILlm --------------------------------------------------------------------------

    def generate(self, prompt: Prompt, *, response_json_schema: JsonSchema | None = None,
                 **kwargs: Any) -> LlmResponse:
        """The model's answer to ``prompt``.

        Args:
            prompt: A string (one user message), a chat message mapping, or a sequence of
                :class:`~oracleagentmemory.apis.message.Message` objects and mappings.
            response_json_schema: A JSON schema the answer must match. None (the default):
                a free-text answer. A server refusing schema output gets JSON mode, then
                text with a reminder of the schema.

        Returns:
            The answer's text as an :class:`~oracleagentmemory.apis.llms.llm.LlmResponse`.

        Raises:
            TypeError: ``prompt`` or one of its messages is not of an accepted kind.
            ValueError: ``prompt`` is empty, or carries images this model may not take
                (``supports_vision=False``, outside a user message, without bytes).
            InvalidArgumentError: The images exceed ``image_input_limit_config``, or an
                image's MIME type is not supported (a ``ValueError``).
            LlmHttpError: The server answered an error status after the retries.
            LlmTimeoutError: No answer within the timeout.
            LlmConnectionError: The connection failed or dropped.
            LlmUnavailableError: The circuit breaker is open after failed calls.
            LlmMissingKeyError: The provider's URL needs a key and none was given.
            LlmResponseError: The answer is not the protocol's shape, or a refusal.
        """
        messages = self._messages(prompt)
        mode = self._mode()
        task = current_task()
        timeout = self.limits.timeout_for(task)
        send = self.http.post_events if self._stream else self.http.post
        while True:
            body = self._body(messages, response_json_schema, mode, kwargs, task)
            try:
                with self._slot():
                    return self._read(send(self._protocol.PATH, body, timeout=timeout,
                                           final=self._final(response_json_schema, mode)),
                                      body, task)
            except LlmHttpError as error:
                mode = self._weaker(mode, response_json_schema, error)

    async def generate_async(self, prompt: Prompt, *,
                             response_json_schema: JsonSchema | None = None,
                             **kwargs: Any) -> LlmResponse:
        """Over native async HTTP, so the event loop never blocks, with the same fallbacks."""
        messages = self._messages(prompt)
        mode = self._mode()
        task = current_task()
        timeout = self.limits.timeout_for(task)
        send = self.http.post_events_async if self._stream else self.http.post_async
        while True:
            body = self._body(messages, response_json_schema, mode, kwargs, task)
            if self._slots is not None:
                # Polled, not awaited in a worker thread: a cancelled caller holds no slot.
                while not self._slots.acquire(blocking=False):
                    await asyncio.sleep(SLOT_POLL_SECONDS)
            try:
                return self._read(await send(self._protocol.PATH, body, timeout=timeout,
                                             final=self._final(response_json_schema, mode)),
                                  body, task)
            except LlmHttpError as error:
                mode = self._weaker(mode, response_json_schema, error)
            finally:
                if self._slots is not None:
                    self._slots.release()

    def close(self) -> None:
        """Release pooled connections. Idempotent; a later call reopens them.
        """
        self.http.close()

    def __enter__(self) -> Llm:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

