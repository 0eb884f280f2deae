"""The demo of the main job: remember a conversation, search it, build a context card."""

from __future__ import annotations

from typing import TextIO

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.core.llms import llm_from_env


def run_demo(location: str, out: TextIO, embedder: IEmbedder | None = None) -> None:
    """Without ``ORACLEAGENTMEMORY_LLM_BASE_URL`` the demo runs offline, with no LLM;
    ``embedder`` None is the library's default model."""
    def say(text: str = "") -> None:
        print(text, file=out)

    llm = llm_from_env()
    if llm is not None:
        say(f"Using the LLM at {llm.http.base_url} (model {llm.model}) for extraction, "
            "summaries and topics.")
    model: IEmbedder | _NotSetMarker = NOT_SET_MARKER if embedder is None else embedder
    with OracleAgentMemory(connection=location, llm=llm, embedder=model) as client:
        client.add_user("alice", "Alice, a software engineer based in Lyon.")
        thread = client.create_thread(user_id="alice", agent_id="travel-agent")
        thread.add_messages([
            {"role": "user", "content": "I'm planning a trip to Rome in May."},
            {"role": "assistant", "content": "Great! Do you prefer trains or flights?"},
            {"role": "user", "content": "Trains, always. And I'm vegetarian."},
        ])
        thread.add_memory("Alice prefers trains over flights.", memory_type="preference",
                          metadata={"topic": "travel", "tags": ["transport"]})
        thread.add_memory("Alice is vegetarian.", memory_type="fact",
                          metadata={"topic": "food", "tags": ["diet"]})
        thread.add_memory("Alice is planning a trip to Rome in May.",
                          metadata={"topic": "travel", "tags": ["trip", "rome"]})
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

        if llm is not None:
            extracted = client.memory_service.backend.get_records({"thread_id": thread.thread_id,
                                                  "record_types": list(MEMORY_TYPES)})
            say(f"The LLM extracted or kept {len(extracted)} memories for this thread.")

        say()
        say("Context card for the next prompt:")
        say(thread.get_context_card(max_recent_messages=0).content)
