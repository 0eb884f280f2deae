"""Adapters that let agent frameworks use the memory: an MCP server and a LangGraph store.

Each adapter needs an optional dependency (``mcp`` or ``langgraph``); importing this
package needs neither, so the core stays dependency-light.
"""
