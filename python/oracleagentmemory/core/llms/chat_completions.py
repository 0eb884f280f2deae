"""The chat-completions wire format (``POST {api_base}/chat/completions``).

Request: ``model``, ``messages`` (``role`` + text, or content parts ``text`` and
``image_url`` with a data URL), optional ``response_format`` (``json_schema`` or
``json_object``), ``stream``. Answer: ``choices[0].message.content``; streamed answers are
``chat.completion.chunk`` events whose ``choices[0].delta.content`` pieces are joined.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from oracleagentmemory.apis.message import Message
from oracleagentmemory.core.llms.errors import LlmResponseError
from oracleagentmemory.core.llms.prompt import wire_message
from oracleagentmemory.core.llms.structured_output import (
    OutputMode,
    is_strict_compatible,
    schema_name,
)

PATH = "chat/completions"


def render_message(message: Message) -> dict[str, Any]:
    """One message: plain text content, or parts when it carries images."""
    return wire_message(message, lambda text: {"type": "text", "text": text},
                        lambda url: {"type": "image_url", "image_url": {"url": url}})


def output_fields(mode: OutputMode, schema: dict[str, Any] | None) -> dict[str, Any]:
    """The ``response_format`` asking for ``mode`` (nothing for plain text)."""
    if schema is None or mode is OutputMode.TEXT:
        return {}
    if mode is OutputMode.JSON:
        return {"response_format": {"type": "json_object"}}
    return {"response_format": {"type": "json_schema", "json_schema": {
        "name": schema_name(schema), "schema": schema, "strict": is_strict_compatible(schema)}}}


def option_fields(*, temperature: float | None, reasoning_effort: str | None
                  ) -> dict[str, Any]:
    """The generation options under this protocol's field names (unset ones omitted; the
    output cap goes per call, in :func:`cap_field`)."""
    fields: dict[str, Any] = {"temperature": temperature, "reasoning_effort": reasoning_effort}
    return {name: value for name, value in fields.items() if value is not None}


def cap_field(max_tokens_field: str) -> str:
    """The request field that caps the answer (the endpoint's name for it)."""
    return max_tokens_field


def was_cut(payload: Any) -> bool:
    """True when the answer stopped at the output cap (``finish_reason`` ``length``), for a
    completion or the events of a streamed one."""
    events = payload if isinstance(payload, list) else [payload]
    return any(isinstance(choice, Mapping) and choice.get("finish_reason") == "length"
               for event in events if isinstance(event, Mapping)
               for choice in _choices(event))


def _choices(event: Mapping[str, Any]) -> list[Any]:
    """The ``choices`` of an answer or event; none when it is not a list."""
    choices = event.get("choices")
    return choices if isinstance(choices, list) else []


def request_body(model: str, messages: Sequence[Message], fields: Mapping[str, Any]
                 ) -> dict[str, Any]:
    """The JSON body: ``fields`` (options, output format, caller kwargs) plus the prompt."""
    return {**fields, "model": model, "messages": [render_message(m) for m in messages]}


def answer_text(payload: Mapping[str, Any]) -> str:
    """The assistant text of a completion; LlmResponseError when there is none."""
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise LlmResponseError(f"chat completion has no choices: {str(payload)[:200]}")
    choice = choices[0]
    message = choice.get("message")
    message = message if isinstance(message, Mapping) else {}
    if isinstance(message.get("refusal"), str) and message["refusal"]:
        raise LlmResponseError(f"the model refused to answer: {message['refusal'][:200]}")
    content = message.get("content")
    if content is None and isinstance(choice.get("text"), str):
        content = choice["text"]  # legacy completions shape, still sent by some servers
    if isinstance(content, list):  # content parts, as some servers return them
        content = "".join(part.get("text", "") for part in content
                          if isinstance(part, Mapping) and isinstance(part.get("text"), str))
    if not isinstance(content, str):
        raise LlmResponseError("chat completion has no text content "
                               f"(finish_reason={choice.get('finish_reason')!r})")
    return content


def streamed_text(events: Sequence[Mapping[str, Any]]) -> str:
    """The assistant text of a streamed completion (its delta pieces, in order)."""
    pieces: list[str] = []
    seen_choice = False
    for event in events:
        if isinstance(event.get("error"), Mapping):
            raise LlmResponseError(f"the stream reported an error: {event['error']}")
        for choice in _choices(event):
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue
            seen_choice = True
            delta = choice.get("delta")
            if isinstance(delta, Mapping) and isinstance(delta.get("content"), str):
                pieces.append(delta["content"])
    if not seen_choice:
        raise LlmResponseError("the streamed chat completion has no choices")
    return "".join(pieces)
