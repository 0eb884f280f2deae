"""How the command line fails: one line on stderr and an exit code per kind of failure.

Every failure a user can cause or meet (a typo in an option, a missing store, a thread that
does not exist, a model or extra that is not installed, a database that cannot be reached)
is an expected failure: it is reported as ``oracleagentmemory: error: <message>``, on one
line, with the exit code of its kind (docs/cli.md lists them). Anything else is a bug: it
is reported the same way with exit code 1, and ``--log-level DEBUG`` adds the traceback.
"""

from __future__ import annotations

import re
from enum import IntEnum

from oracleagentmemory import errors
from oracleagentmemory.core.llms.errors import LlmError
from oracleagentmemory.stores.errors import SchemaError, StorageError, StoreError

PROGRAM = "oracleagentmemory"


class ExitCode(IntEnum):
    """The exit status of the command line, one per kind of failure (docs/cli.md)."""

    OK = 0
    UNEXPECTED = 1
    """Not an expected failure: a bug to report (``--log-level DEBUG`` shows the traceback)."""
    USAGE = 2
    """An unknown command or option, a missing option, a value that is not allowed."""
    NOT_FOUND = 3
    """No store at ``--db``, no such thread or record, no such input file."""
    UNAVAILABLE = 4
    """The store, the database or the LLM server cannot be used (opened, written, reached),
    or the store is not an agent-memory store of this version."""
    MISSING_COMPONENT = 5
    """An optional extra (``mcp``, ``oracle``...) or the embedding model is not installed."""
    PERMISSION = 6
    """The user, file or database account may not do this."""
    BAD_INPUT = 7
    """A line of an import file cannot be imported (the message names the line)."""
    INTERRUPTED = 130
    """Stopped with Ctrl-C (128 + SIGINT, as shells report it)."""


class CommandError(Exception):
    """An expected failure of a command, with the exit code it ends the program with."""

    def __init__(self, code: ExitCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


_ORACLE_PERMISSION = re.compile(r"ORA-01031|ORA-01017|ORA-01045|insufficient privileges",
                                re.IGNORECASE)


def one_line(text: str) -> str:
    """The text on one line: line breaks (and the blanks around them) become one space."""
    return re.sub(r"\s*[\r\n]+\s*", " ", text).strip()


def error_text(error: BaseException) -> str:
    """An exception's message (a KeyError's without the quotes ``str`` adds)."""
    if isinstance(error, KeyError) and not isinstance(error, errors.AgentMemoryError):
        return str(error.args[0]) if error.args else type(error).__name__
    return str(error) or type(error).__name__


def _from_oracledb(error: BaseException) -> bool:
    return type(error).__module__.split(".")[0] == "oracledb"


def classify(error: BaseException) -> tuple[ExitCode, str]:
    """The exit code and the one-line message for an exception that ended a command."""
    text = one_line(error_text(error))
    if isinstance(error, CommandError):
        return error.code, one_line(error.message)
    if isinstance(error, KeyboardInterrupt):
        return ExitCode.INTERRUPTED, "interrupted"
    if isinstance(error, ImportError | errors.ModelUnavailableError):
        return ExitCode.MISSING_COMPONENT, text
    if _from_oracledb(error) or isinstance(error, SchemaError):
        if _ORACLE_PERMISSION.search(text):
            return ExitCode.PERMISSION, text
        return ExitCode.UNAVAILABLE, text
    if isinstance(error, StorageError | errors.OperationTimeoutError | LlmError):
        return ExitCode.UNAVAILABLE, text
    if isinstance(error, PermissionError):  # AccessDeniedError too
        return ExitCode.PERMISSION, text
    if isinstance(error, FileNotFoundError | errors.NotFoundError):
        return ExitCode.NOT_FOUND, text
    if isinstance(error, OSError):
        return ExitCode.UNAVAILABLE, text
    if isinstance(error, ValueError | errors.ArgumentTypeError | errors.MissingFieldError):
        return ExitCode.USAGE, text
    if isinstance(error, StoreError):  # a database error the contract has no code for
        if _ORACLE_PERMISSION.search(text):
            return ExitCode.PERMISSION, text
        return ExitCode.UNAVAILABLE, text
    return ExitCode.UNEXPECTED, (
        f"unexpected {type(error).__name__}: {text} (this is a bug; run again with "
        f"--log-level DEBUG for the traceback and report it)")
