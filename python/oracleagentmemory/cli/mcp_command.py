"""``oracleagentmemory mcp``: the MCP server over stdio, configured by flags or the
``ORACLEAGENTMEMORY_MCP_*`` environment variables.

A host (an MCP client) starts the server with its standard input on a pipe; a wrong flag
then is not only one line on stderr (which hosts keep in a log few people read) but served:
the session starts and every tool call answers what is wrong. Run from a terminal, the
server reports it and exits like any other command.
"""

from __future__ import annotations

import argparse
import sys
from types import ModuleType

from oracleagentmemory._distribution import install_hint
from oracleagentmemory.cli.failures import CommandError, ExitCode


def _server_module() -> ModuleType:
    try:
        from oracleagentmemory.integrations import mcp_server
    except ImportError as error:
        raise CommandError(ExitCode.MISSING_COMPONENT,
                           f"the MCP server needs the mcp extra: {install_hint('mcp')}"
                           ) from error
    return mcp_server


def serve(arguments: argparse.Namespace) -> int:
    _server_module().serve(arguments)
    return 0


def served_by_a_host() -> bool:
    """True when standard input is not a terminal: an MCP client started the server."""
    return not sys.stdin.isatty()


def serve_usage_error(message: str) -> int:
    """Serve a wrong flag to the MCP client; the exit code is still the usage one."""
    _server_module().serve_failure(message)
    return int(ExitCode.USAGE)
