"""A thread, its messages and memories, a filtered search and a context card.

Offline: the embedded backend and the local embedding model, no LLM.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from oracleagentmemory.core import OracleAgentMemory


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, \
            OracleAgentMemory(connection=str(Path(folder) / "memory.db")) as client:
        client.add_user("alice", "Alice, a software engineer in Lyon.")
        thread = client.create_thread(user_id="alice", agent_id="travel-agent")
        thread.add_messages([
            {"role": "user", "content": "I'm planning a trip to Rome in May."},
            {"role": "assistant", "content": "Trains or flights?"},
            {"role": "user", "content": "Trains, always. And I'm vegetarian."},
        ])
        thread.add_memory("Alice prefers trains over flights.", memory_type="preference",
                          metadata={"topic": "travel"})
        thread.add_memory("Alice is vegetarian.", memory_type="fact",
                          metadata={"topic": "food", "tags": ["diet"]})

        print("Travel memories for 'how should Alice travel?':")
        for result in thread.search("how should Alice travel?",
                                    metadata_filter={"topic": "travel"}):
            print(f"  {result.distance:.3f} [{result.record.record_type}] {result.content}")

        print("Records tagged 'diet':")
        for result in client.search("what does Alice eat?", user_id="alice",
                                    metadata_filter={"tags": {"$array_contains": "diet"}}):
            print(f"  {result.content}")

        print(thread.get_context_card().content)


if __name__ == "__main__":
    main()
