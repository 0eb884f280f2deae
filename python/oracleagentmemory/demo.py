"""The demo of the main job: remember a conversation, search it, build a context card."""

from __future__ import annotations

from typing import TextIO

from oracleagentmemory.core import OracleAgentMemory


def run_demo(location: str, out: TextIO) -> None:
    def say(text: str = "") -> None:
        print(text, file=out)

    with OracleAgentMemory(connection=location) as client:
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

        say()
        say("Context card for the next prompt:")
        say(thread.get_context_card(max_recent_messages=0).content)
