"""The demo of the main job: remember a conversation, search it, build a context card."""

from __future__ import annotations

from typing import Any, TextIO

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.apis.llms.llm import ILlm, JsonSchema, LlmResponse, Prompt
from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.core.llms import LlmError, llm_from_env
from oracleagentmemory.core.llms.http_client import shown_url


class _TalliedLlm(ILlm):
    """The demo's LLM, with its calls and failures counted: the library falls back when a
    call fails (and logs it), so only a tally tells the demo what the LLM really did."""

    def __init__(self, inner: ILlm) -> None:
        self.inner = inner
        self.calls = 0
        self.failures: list[LlmError] = []

    @property
    def supports_vision(self) -> bool:
        return bool(getattr(self.inner, "supports_vision", True))

    def generate(self, prompt: Prompt, *, response_json_schema: JsonSchema | None = None,
                 **kwargs: Any) -> LlmResponse:
        self.calls += 1
        try:
            return self.inner.generate(prompt, response_json_schema=response_json_schema,
                                       **kwargs)
        except LlmError as error:
            self.failures.append(error)
            raise

    async def generate_async(self, prompt: Prompt, *,
                             response_json_schema: JsonSchema | None = None,
                             **kwargs: Any) -> LlmResponse:
        self.calls += 1
        try:
            return await self.inner.generate_async(
                prompt, response_json_schema=response_json_schema, **kwargs)
        except LlmError as error:
            self.failures.append(error)
            raise


def run_demo(location: str, out: TextIO, embedder: IEmbedder | None = None) -> None:
    """Without ``ORACLEAGENTMEMORY_LLM_BASE_URL`` the demo runs offline, with no LLM;
    ``embedder`` None is the library's default model."""
    def say(text: str = "") -> None:
        print(text, file=out)

    configured = llm_from_env()
    llm = None if configured is None else _TalliedLlm(configured)
    if configured is not None:
        say(f"Using the LLM at {shown_url(configured.http.base_url)} "
            f"(model {configured.model}) for extraction, summaries and topics.")
    model: IEmbedder | _NotSetMarker = NOT_SET_MARKER if embedder is None else embedder
    with OracleAgentMemory(connection=location, llm=llm, embedder=model) as client:
        client.add_user("alice", "Alice, a software engineer based in Lyon.")
        thread = client.create_thread(user_id="alice", agent_id="travel-agent")
        thread.add_messages([
            {"role": "user", "content": "I'm planning a trip to Rome in May."},
            {"role": "assistant", "content": "Great! Do you prefer trains or flights?"},
            {"role": "user", "content": "Trains, always. And I'm vegetarian."},
        ])
        added = {
            thread.add_memory("Alice prefers trains over flights.", memory_type="preference",
                              metadata={"topic": "travel", "tags": ["transport"]}),
            thread.add_memory("Alice is vegetarian.", memory_type="fact",
                              metadata={"topic": "food", "tags": ["diet"]}),
            thread.add_memory("Alice is planning a trip to Rome in May.",
                              metadata={"topic": "travel", "tags": ["trip", "rome"]}),
        }
        say(f"Stored 3 messages and 3 memories in thread {thread.thread_id[:8]}…")

        say()
        say('Search "how should Alice travel?" among travel memories:')
        for result in thread.search("how should Alice travel?",
                                    record_types=["memory", "preference", "fact"],
                                    metadata_filter={"topic": "travel"}):
            say(f"  {result.distance:.3f}  [{result.record.record_type}] {result.content}")

        say()
        say('Search "what does Alice eat?" for records tagged "diet":')
        for result in client.search("what does Alice eat?", user_id="alice",
                                    metadata_filter={"tags": {"$array_contains": "diet"}}):
            say(f"  {result.distance:.3f}  [{result.record.record_type}] {result.content}")

        say()
        say("Context card for the next prompt:")
        say(thread.get_context_card(max_recent_messages=0).content)

        if llm is not None:
            memories = client.memory_service.backend.get_records(
                {"thread_id": thread.thread_id, "record_types": list(MEMORY_TYPES)})
            say()
            say(_llm_report(llm, [m for m in memories if m["id"] not in added]))


def _llm_report(llm: _TalliedLlm, extracted: list[Any]) -> str:
    """What the LLM did: the memories it extracted, or why it did nothing."""
    failed = ""
    if llm.failures:
        first = " ".join(str(llm.failures[0]).split())
        if len(llm.failures) == llm.calls:
            return (f"The LLM could not be used: all {llm.calls} calls failed (first: "
                    f"{first}); the demo went on without it (no memories extracted, the "
                    "summary made from the transcript).")
        failed = f" ({len(llm.failures)} failed, first: {first})"
    return (f"The LLM answered {llm.calls - len(llm.failures)} of {llm.calls} calls{failed} "
            f"and extracted {len(extracted)} memories from the conversation, besides the 3 "
            "added by hand.")
