"""The Responses wire format (``POST {api_base}/responses``).

Request: ``model``, ``input`` (messages with text content, or parts ``input_text`` and
``input_image`` with a data URL), optional ``text.format`` (``json_schema`` or
``json_object``), ``max_output_tokens``, ``reasoning.effort``, ``store`` (false unless the
caller asks: memory prompts are not kept on the provider's side), ``stream``. Answer: the
``output_text`` parts of the ``message`` items of ``output``; a streamed answer ends with a
``response.completed`` event carrying the whole response, after ``response.output_text.delta``
pieces.
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

PATH = "responses"


def render_message(message: Message) -> dict[str, Any]:
    """One input message: plain text content, or parts when it carries images."""
    return wire_message(message, lambda text: {"type": "input_text", "text": text},
                        lambda url: {"type": "input_image", "image_url": url})


def output_fields(mode: OutputMode, schema: dict[str, Any] | None) -> dict[str, Any]:
    """The ``text.format`` asking for ``mode`` (nothing for plain text)."""
    if schema is None or mode is OutputMode.TEXT:
        return {}
    if mode is OutputMode.JSON:
        return {"text": {"format": {"type": "json_object"}}}
    return {"text": {"format": {"type": "json_schema", "name": schema_name(schema),
                                "schema": schema, "strict": is_strict_compatible(schema)}}}


def option_fields(*, temperature: float | None, reasoning_effort: str | None
                  ) -> dict[str, Any]:
    """The generation options under this protocol's field names (unset ones omitted; the
    output cap goes per call, in :func:`cap_field`)."""
    fields: dict[str, Any] = {"store": False}
    if temperature is not None:
        fields["temperature"] = temperature
    if reasoning_effort is not None:
        fields["reasoning"] = {"effort": reasoning_effort}
    return fields


def cap_field(max_tokens_field: str) -> str:
    """The request field that caps the answer (one name in this protocol)."""
    return "max_output_tokens"


def was_cut(payload: Any) -> bool:
    """True when the response stopped at ``max_output_tokens`` (also for a stream's final
    response)."""
    responses = [event.get("response") for event in payload if isinstance(event, Mapping)] \
        if isinstance(payload, list) else [payload]
    for response in responses:
        details = response.get("incomplete_details") if isinstance(response, Mapping) else None
        if isinstance(details, Mapping) and details.get("reason") == "max_output_tokens":
            return True
    return False


def request_body(model: str, messages: Sequence[Message], fields: Mapping[str, Any]
                 ) -> dict[str, Any]:
    """The JSON body: ``fields`` (options, output format, caller kwargs) plus the prompt."""
    return {**fields, "model": model, "input": [render_message(m) for m in messages]}


def answer_text(payload: Mapping[str, Any]) -> str:
    """The text of a response; LlmResponseError when it failed, refused or has no text."""
    status = payload.get("status")
    if status == "failed" or isinstance(payload.get("error"), Mapping):
        raise LlmResponseError(f"the response failed: {payload.get('error')}")
    pieces: list[str] = []
    found = False
    for item in payload.get("output") or ():
        if not isinstance(item, Mapping) or item.get("type") != "message":
            continue
        for part in item.get("content") or ():
            if not isinstance(part, Mapping):
                continue
            if part.get("type") == "refusal":
                raise LlmResponseError(f"the model refused to answer: "
                                       f"{str(part.get('refusal'))[:200]}")
            if part.get("type") == "output_text" and isinstance(part.get("text"), str):
                pieces.append(part["text"])
                found = True
    if not found and isinstance(payload.get("output_text"), str):
        return payload["output_text"]  # the convenience field some servers add
    if not found:
        reason = (payload.get("incomplete_details") or {}).get("reason") \
            if isinstance(payload.get("incomplete_details"), Mapping) else None
        raise LlmResponseError(f"the response has no output text (status={status!r}, "
                               f"reason={reason!r})")
    return "".join(pieces)


def streamed_text(events: Sequence[Mapping[str, Any]]) -> str:
    """The text of a streamed response: the final response's, else the joined deltas."""
    deltas: list[str] = []
    final: Mapping[str, Any] | None = None
    for event in events:
        kind = event.get("type")
        if kind in ("error", "response.failed"):
            raise LlmResponseError(f"the stream reported an error: "
                                   f"{event.get('error') or event.get('response')}")
        if kind == "response.output_text.delta" and isinstance(event.get("delta"), str):
            deltas.append(event["delta"])
        elif kind in ("response.completed", "response.incomplete") and isinstance(
                event.get("response"), Mapping):
            final = event["response"]
    if final is not None and final.get("output"):
        return answer_text(final)
    if deltas:
        return "".join(deltas)
    if final is not None:
        return answer_text(final)
    raise LlmResponseError("the streamed response has no output text")
