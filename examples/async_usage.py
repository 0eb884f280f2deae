"""The asynchronous twins: every blocking method ``name`` has ``name_async``.

Each twin runs its method in the event loop's default thread pool, so the loop stays free
while SQLite, the embedder or an LLM works; the twins take the same arguments and raise the
same errors.
"""

from __future__ import annotations

import asyncio

from oracleagentmemory.core import OracleAgentMemory


async def main() -> None:
    with OracleAgentMemory(connection=":memory:") as client:
        thread = await client.create_thread_async(user_id="bob", agent_id="coach")
        await thread.add_messages_async([
            {"role": "user", "content": "I run 10 km every Sunday."},
            {"role": "user", "content": "My knee hurts after long runs."},
        ])
        # independent calls run concurrently
        ids = await asyncio.gather(
            thread.add_memory_async("Bob runs 10 km on Sundays.", memory_type="fact"),
            thread.add_memory_async("Bob's knee hurts after long runs.", memory_type="fact"),
        )
        print(f"stored {len(ids)} memories")
        results = await client.search_async("does Bob have an injury?", user_id="bob")
        print(f"best match: {results[0].content}")
        card = await thread.get_context_card_async()
        print(card.content)


if __name__ == "__main__":
    asyncio.run(main())
