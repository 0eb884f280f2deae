"""The ``oracleagentmemory`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="oracleagentmemory",
        description="Long-term memory for AI agents (embedded SQLite or Oracle AI Database).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="store a conversation and memories, search, "
                                            "print a context card")
    demo.add_argument("--db", default=":memory:",
                      help="embedded store file to use (default: a throwaway in-memory store)")
    arguments = parser.parse_args(argv)
    if arguments.command == "demo":
        from oracleagentmemory.demo import run_demo

        run_demo(arguments.db, out=sys.stdout)
    return 0
