"""``oracleagentmemory mcp``: the MCP server over stdio, configured by flags or the
``ORACLEAGENTMEMORY_MCP_*`` environment variables."""

from __future__ import annotations

import argparse

from oracleagentmemory._distribution import install_hint
from oracleagentmemory.cli.failures import CommandError, ExitCode


def serve(arguments: argparse.Namespace) -> int:
    try:
        from oracleagentmemory.integrations import mcp_server
    except ImportError as error:
        raise CommandError(ExitCode.MISSING_COMPONENT,
                           f"the MCP server needs the mcp extra: {install_hint('mcp')}"
                           ) from error
    mcp_server.serve(arguments)
    return 0
