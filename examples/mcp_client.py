"""The MCP server driven by the MCP SDK's own client, in one process.

A host (Claude Desktop, VS Code...) starts ``oracleagentmemory mcp`` and talks to it over
stdio; here the same server object is reached in process, the SDK's documented way to test
a server. The server acts for Alice only: no tool takes a user or an agent.
"""

from __future__ import annotations

import asyncio
import json

from mcp import Client

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.integrations.mcp_config import McpServerConfig
from oracleagentmemory.integrations.mcp_server import build_server


async def main() -> None:
    config = McpServerConfig(db=":memory:", user_id="alice", agent_id="assistant",
                             session_thread=True)
    with OracleAgentMemory(connection=config.db) as memory:
        async with Client(build_server(memory, config)) as client:
            tools = (await client.list_tools()).tools
            print("tools:", ", ".join(tool.name for tool in tools))
            await client.call_tool("add_messages", {"messages": [
                {"role": "user", "content": "Book me a train to Rome, I hate flying."}]})
            await client.call_tool("add_memory", {
                "content": "Alice avoids flying.", "memory_type": "preference",
                "metadata": {"topic": "travel"}})
            found = await client.call_tool("search_memories", {
                "query": "how does Alice travel?", "metadata_filter": {"topic": "travel"}})
            print(json.dumps(found.structured_content, indent=2))
            card = await client.call_tool("get_context_card", {})
            print(card.structured_content["context_card"])
            refused = await client.call_tool("search_memories", {"query": "x",
                                                                 "user_id": "bob"})
            print("refused:", refused.is_error)


if __name__ == "__main__":
    asyncio.run(main())
