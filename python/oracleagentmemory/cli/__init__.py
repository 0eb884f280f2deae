"""The ``oracleagentmemory`` command line (docs/cli.md).

Every failure ends the program with one line on stderr and an exit code of its kind
(:class:`~oracleagentmemory.cli.failures.ExitCode`); ``--log-level DEBUG`` adds tracebacks.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import TextIO

from oracleagentmemory.cli.failures import PROGRAM, CommandError, ExitCode, classify, one_line

__all__ = ["main"]

logger = logging.getLogger("oracleagentmemory.cli")


class _OneLineFormatter(logging.Formatter):
    """``oracleagentmemory: warning: <message>``, one line; a traceback only at DEBUG."""

    def __init__(self, show_tracebacks: bool) -> None:
        super().__init__()
        self.show_tracebacks = show_tracebacks

    def format(self, record: logging.LogRecord) -> str:
        line = f"{PROGRAM}: {record.levelname.lower()}: {one_line(record.getMessage())}"
        if self.show_tracebacks and record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


@contextmanager
def _logging(level: str, err: TextIO) -> Iterator[None]:
    """The library's log records and Python warnings on ``err`` at ``level``, one line each,
    for the time of one command (the caller's own logging is left as it was)."""
    handler = logging.StreamHandler(err)
    handler.setFormatter(_OneLineFormatter(show_tracebacks=level == "DEBUG"))
    package = logging.getLogger("oracleagentmemory")
    saved = package.level, package.propagate
    package.addHandler(handler)
    package.setLevel(level)
    package.propagate = False

    def show_warning(message: Warning | str, category: type[Warning], filename: str,
                     lineno: int, file: TextIO | None = None, line: str | None = None) -> None:
        logging.getLogger("oracleagentmemory").warning("%s", message)

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show_warning
            yield
    finally:
        package.removeHandler(handler)
        package.setLevel(saved[0])
        package.propagate = saved[1]


def _fail(code: ExitCode, message: str, err: TextIO) -> int:
    print(f"{PROGRAM}: error: {message}", file=err)
    return int(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (docs/cli.md lists them)."""
    from oracleagentmemory.cli.arguments import build_parser

    out, err = sys.stdout, sys.stderr
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        arguments = build_parser().parse_args(words)
    except CommandError as error:
        if _command_of(words) == "mcp":
            from oracleagentmemory.cli import mcp_command

            if mcp_command.served_by_a_host():
                try:
                    return mcp_command.serve_usage_error(one_line(error.message))
                except CommandError as missing:  # the mcp extra is not installed
                    return _fail(missing.code, one_line(missing.message), err)
        return _fail(error.code, one_line(error.message), err)
    except SystemExit as done:  # --help and --version print and stop
        return done.code if isinstance(done.code, int) else 0
    with _logging(arguments.log_level, err):
        try:
            return _run(arguments, out, err)
        except BrokenPipeError:
            # The reader went away (`export --out - | head`): stop quietly, as other Unix
            # tools do. Python's advice: point stdout at devnull so the exit flush is quiet.
            with suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        except (Exception, KeyboardInterrupt) as error:
            code, message = classify(error)
            logger.debug("%s failed", arguments.command, exc_info=error)
            return _fail(code, message, err)


def _command_of(words: Sequence[str]) -> str | None:
    """The command word of a command line that did not parse (after global options)."""
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word == "--log-level":
            skip = True
        elif not word.startswith("-"):
            return word
    return None


def _run(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from oracleagentmemory.cli import store_commands
    from oracleagentmemory.cli.arguments import ORACLE_COMMANDS

    command: str = arguments.command
    if command in ORACLE_COMMANDS:
        from oracleagentmemory.cli import oracle_commands

        return oracle_commands.run(arguments, out, err)
    if command == "mcp":
        from oracleagentmemory.cli.mcp_command import serve

        return serve(arguments)
    run: dict[str, Callable[[argparse.Namespace], int]] = {
        "demo": lambda a: store_commands.demo(a, out),
        "onnx-model": lambda a: store_commands.onnx_model(a, out),
        "search": lambda a: store_commands.search(a, out),
        "threads": lambda a: store_commands.threads(a, out),
        "show": lambda a: store_commands.show(a, out),
        "purge": lambda a: store_commands.purge(a, out, err),
        "export": lambda a: store_commands.export(a, out, err),
        "import": lambda a: store_commands.import_(a, out, err),
    }
    return run[command](arguments)
