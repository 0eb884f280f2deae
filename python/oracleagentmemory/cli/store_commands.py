"""The commands that work on a store (demo, search, threads, show, purge, export, import)
and on the model (onnx-model)."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import secrets
import stat
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any, TextIO, TypedDict

from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.cli.client_for_command import load_embedder, opened_client
from oracleagentmemory.cli.failures import CommandError, ExitCode, error_text, one_line
from oracleagentmemory.cli.progress import Elapsed, Progress
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.core.records import public_metadata
from oracleagentmemory.errors import AgentMemoryError, ModelUnavailableError
from oracleagentmemory.stores.embedding_models import LEGACY_EMBEDDING_MODEL
from oracleagentmemory.stores.errors import DuplicateRecordError
from oracleagentmemory.stores.protocol import RecordQuery


class _SearchScope(TypedDict, total=False):
    """The scope arguments of ``OracleAgentMemory.search`` the command line sets."""

    user_id: str | None
    agent_id: str | None
    thread_id: str | None
    exact_thread_match: bool


def _print_json(value: Any, out: TextIO) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2, default=str), file=out)


def demo(arguments: argparse.Namespace, out: TextIO) -> int:
    from oracleagentmemory.demo import run_demo

    run_demo(arguments.db, out=out, embedder=load_embedder())
    return 0


def onnx_model(arguments: argparse.Namespace, out: TextIO) -> int:
    """Build (once) the ONNX model file of the given model and form and print its path, or
    print the metadata ``DBMS_VECTOR.LOAD_ONNX_MODEL`` takes (the same for both models), or
    remove the cache files no current build uses (``--prune``, ``model_cache``)."""
    from oracleagentmemory.core.embedders.onnx_model_file import oracle_metadata_json

    if arguments.metadata:
        print(oracle_metadata_json(), file=out)
        return 0
    try:
        if arguments.prune:
            return _prune_model_cache(arguments, out)
        path = (_minilm_onnx_file(arguments) if arguments.model == LEGACY_EMBEDDING_MODEL
                else _e5_onnx_file(arguments))
    except ModelUnavailableError as error:  # the weights are not installed or not readable
        raise CommandError(ExitCode.MISSING_COMPONENT,
                           f"the embedding model cannot be found: {one_line(error_text(error))}"
                           ) from error
    print(path, file=out)
    return 0


def _prune_model_cache(arguments: argparse.Namespace, out: TextIO) -> int:
    from oracleagentmemory.core.embedders.model_cache import prune

    removed = prune(arguments.cache_dir, model_dir=arguments.model_dir,
                    model_file=arguments.model_file)
    for path, size in removed:
        print(f"{size}\t{path}", file=out)
    print(f"removed {len(removed)} file(s), {sum(size for _, size in removed)} bytes",
          file=out)
    return 0


def _minilm_onnx_file(arguments: argparse.Namespace) -> Path:
    from oracleagentmemory.core.embedders.local import find_model_dir, max_seq_length
    from oracleagentmemory.core.embedders.minilm_numpy import BertConfig
    from oracleagentmemory.core.embedders.onnx_model_file import model_file

    try:
        model_dir = find_model_dir(arguments.model_dir)
    except ModelUnavailableError:
        raise
    except Exception as error:  # not readable
        raise ModelUnavailableError(str(error)) from error
    config = BertConfig.from_json(model_dir / "config.json")
    return model_file(arguments.form, model_dir=model_dir,
                      max_seq_length=max_seq_length(model_dir, config),
                      directory=arguments.cache_dir)


def _e5_onnx_file(arguments: argparse.Namespace) -> Path:
    from oracleagentmemory.core.embedders.local_e5 import find_e5_model_file, model_reader
    from oracleagentmemory.core.embedders.onnx_model_file import e5_model_file

    model_path = find_e5_model_file(arguments.model_file)
    return e5_model_file(arguments.form, model_path=model_path,
                         model=model_reader(model_path), directory=arguments.cache_dir)


def search(arguments: argparse.Namespace, out: TextIO) -> int:
    scope: _SearchScope = {"user_id": arguments.user_id or None}
    if arguments.agent_id is not None:
        scope["agent_id"] = arguments.agent_id
    if arguments.thread_id is not None:
        scope["thread_id"] = arguments.thread_id
        scope["exact_thread_match"] = True
    with opened_client(arguments, embeds=True) as client:
        results = client.search(arguments.query, record_types=arguments.record_types,
                                metadata_filter=arguments.metadata_filter,
                                max_results=arguments.max_results, **scope)
    if arguments.json:
        _print_json([{
            "id": result.id, "record_type": result.record.record_type,
            "distance": result.distance, "content": result.content,
            "user_id": getattr(result.record, "user_id", None),
            "agent_id": getattr(result.record, "agent_id", None),
            "thread_id": getattr(result.record, "thread_id", None), "metadata": result.metadata,
            "timestamp": result.timestamp,
        } for result in results], out)
        return 0
    for result in results:
        print(f"{result.distance:.4f}  {result.record.record_type:<13} {result.id}  "
              f"{result.content}", file=out)
    print(f"{len(results)} result(s)", file=out)
    return 0


def threads(arguments: argparse.Namespace, out: TextIO) -> int:
    query: RecordQuery = {"record_types": ["thread"]}
    if arguments.user_id is not None:
        query["user_id"] = arguments.user_id
    with opened_client(arguments, embeds=False) as client:
        backend = client.memory_service.backend
        found = [{"id": thread["id"], "user_id": thread.get("user_id"),
                  "agent_id": thread.get("agent_id"),
                  "messages": len(backend.list_messages(thread["id"], None, None)),
                  "created_at": thread.get("created_at"), "metadata": thread.get("metadata")}
                 for thread in backend.get_records(query)]
    if arguments.json:
        _print_json(found, out)
        return 0
    for thread in found:
        print(f"{thread['id']}  user={thread['user_id']}  agent={thread['agent_id']}  "
              f"messages={thread['messages']}  created={thread['created_at']}", file=out)
    print(f"{len(found)} thread(s)", file=out)
    return 0


def show(arguments: argparse.Namespace, out: TextIO) -> int:
    thread_id = arguments.thread_id
    with opened_client(arguments, embeds=False) as client:
        thread = client.get_thread(thread_id)
        backend = client.memory_service.backend
        messages = thread.get_messages(start=0, end=None)
        memories = backend.get_records({"thread_id": thread_id,
                                        "record_types": list(MEMORY_TYPES)})
        links = backend.list_links({"thread_id": thread_id})
        summary = thread.get_summary().content
    if arguments.json:
        _print_json({
            "thread": {"id": thread.thread_id, "user_id": thread.user_id,
                       "agent_id": thread.agent_id, "metadata": thread.metadata},
            "messages": [{"id": message.id, "role": message.role, "content": message.text,
                          "timestamp": message.timestamp, "metadata": message.metadata}
                         for message in messages],
            "memories": [{"id": memory["id"], "memory_type": memory["record_type"],
                          "content": memory.get("content"),
                          "metadata": public_metadata(memory.get("metadata"))}
                         for memory in memories],
            "links": [{"id": link["id"], "source_id": link["source_id"],
                       "relation_type": link["relation_type"], "target_id": link["target_id"]}
                      for link in links],
            "summary": summary,
        }, out)
        return 0
    print(f"thread {thread.thread_id}  user={thread.user_id}  agent={thread.agent_id}", file=out)
    if thread.metadata:
        print(f"metadata: {json.dumps(thread.metadata, ensure_ascii=False)}", file=out)
    print(f"\nmessages ({len(messages)}):", file=out)
    for message in messages:
        print(f"  [{message.timestamp}] {message.role}: {message.text}", file=out)
    print(f"\nmemories ({len(memories)}):", file=out)
    for memory in memories:
        print(f"  {memory['id']}  [{memory['record_type']}] {memory['content']}", file=out)
    print(f"\nlinks ({len(links)}):", file=out)
    for link in links:
        print(f"  {link['source_id']} -{link['relation_type']}-> {link['target_id']}", file=out)
    print(f"\nsummary:\n{summary}", file=out)
    return 0


def purge(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    with opened_client(arguments, embeds=False) as client, \
            Elapsed("purging expired records", err):
        purged = client.purge_expired()
    if arguments.json:
        _print_json({"purged": purged}, out)
    else:
        print(f"purged {purged} expired records", file=out)
    return 0


def export(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from oracleagentmemory.transfer import export_store

    if arguments.out != "-":
        _refuse_the_store_as_output(arguments)
    with opened_client(arguments, embeds=False) as client:
        progress = Progress("exported", err)
        try:
            if arguments.out == "-":
                export_store(client, out, progress)
            else:
                with _output_file(arguments.out, _store_mode(arguments)) as handle:
                    export_store(client, handle, progress)
        finally:
            progress.close()
    if arguments.out != "-":
        print(f"exported to {arguments.out}", file=err)
    return 0


def _store_mode(arguments: argparse.Namespace) -> int:
    """The permission bits a new export file is created with: the store file's (an export
    holds every user's records, so it is readable by no more people than the store, as the
    vector file beside it) and the owner's read and write (a read-only store must not give
    an export its owner cannot write again), else 0o666; the umask applies to both."""
    if getattr(arguments, "dsn", None) is None and arguments.db not in (None, ":memory:"):
        with suppress(OSError):
            return os.stat(arguments.db).st_mode & 0o666 | 0o600
    return 0o666


def _refuse_the_store_as_output(arguments: argparse.Namespace) -> None:
    """``--out`` must not be the store's file (or its journal or vector file), whatever
    the path or link it is reached by: writing the export there destroys the store."""
    if getattr(arguments, "dsn", None) is not None or arguments.db in (None, ":memory:"):
        return
    from oracleagentmemory.stores.embedded import vector_file

    store_files = [arguments.db, arguments.db + "-wal", arguments.db + "-shm",
                   vector_file.path_for(arguments.db)]
    for store_file in store_files:
        with suppress(OSError):
            if store_file is not None and os.path.samefile(arguments.out, store_file):
                raise CommandError(ExitCode.USAGE,
                                   f"--out {arguments.out!r} is the store's own file "
                                   f"{store_file!r}: export to another file")


@contextmanager
def _output_file(path: str, mode: int = 0o666) -> Iterator[IO[str]]:
    """The export file; a failed export leaves what was at ``path`` as it was.

    A regular file (new, or an existing one, through symbolic links too) is written to a
    new file beside it, which replaces it only once the export is complete (``os.replace``
    is atomic, POSIX rename(2)): a new file is created with ``mode`` less the umask, an
    existing one keeps its permission bits. A special file (``/dev/null``, ``/dev/stdout``,
    a named pipe), or an existing file in a directory the user may not write, is written in
    place and never removed."""
    target = os.path.realpath(path)
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    except OSError:
        existing = None  # let the open below report it
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        if stat.S_ISDIR(existing.st_mode):
            raise CommandError(ExitCode.USAGE, f"--out {path!r} is a directory, not a file")
        with open(path, "w", encoding="utf-8") as handle:
            yield handle
        return
    directory, name = os.path.split(target)
    if not os.path.isdir(directory or "."):
        raise CommandError(ExitCode.NOT_FOUND,
                           f"cannot write {path!r}: its directory does not exist")
    partial = os.path.join(directory, f".{name}.{secrets.token_hex(8)}.partial")
    try:
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except PermissionError:
        if existing is None:
            raise
        # A file the user may write in a directory it may not: written in place, as a
        # shell redirection does (a failed export then leaves it part written).
        with open(path, "w", encoding="utf-8") as handle:
            yield handle
        return
    try:
        if existing is not None:  # the file replaced keeps its bits and, where allowed, owner
            # os.chmod of the path: Windows has no os.fchmod before Python 3.13, and no
            # os.fchown (where it has no owner to keep)
            os.chmod(partial, stat.S_IMODE(existing.st_mode))
            if hasattr(os, "fchown"):
                with suppress(OSError):
                    os.fchown(descriptor, existing.st_uid, existing.st_gid)
        with open(descriptor, "w", encoding="utf-8") as handle:
            yield handle
        os.replace(partial, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(partial)
        raise


def _plural(count: int, noun: str) -> str:
    """``1 record``, ``2,560 records``."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


_RECORD_LINE = b'{"kind": "record"'
"""How every record line of an export starts (``transfer.export_lines``): the import's
total counts these, not the header or the links."""


def _input_lines(source: str) -> tuple[IO[str], int | None]:
    """The import input and its number of records (None for stdin: not known in advance)."""
    if source == "-":
        return sys.stdin, None
    try:
        with open(source, "rb") as counting:
            total = sum(1 for line in counting if line.startswith(_RECORD_LINE))
        # utf-8-sig: an export an editor saved with a byte order mark reads as one
        return open(source, encoding="utf-8-sig"), total  # noqa: SIM115 - closed by caller
    except FileNotFoundError:
        raise CommandError(ExitCode.NOT_FOUND, f"no input file {source!r} (check --in)") \
            from None
    except IsADirectoryError:
        raise CommandError(ExitCode.USAGE, f"--in {source!r} is a directory, not an export "
                                           "file") from None


def _export_lines(handle: IO[str], source: str) -> Iterator[str]:
    """The input's lines, once its first line is known to be an export header: a file of
    anything else is refused before a store is created for it."""
    from oracleagentmemory.transfer import is_export_header

    name = "standard input" if source == "-" else repr(source)
    lines = iter(handle)
    try:
        first = next((line for line in lines if line.strip()), "")
    except UnicodeDecodeError:
        first = ""
    if not is_export_header(first):
        raise CommandError(ExitCode.BAD_INPUT,
                           f"{name} is not an oracleagentmemory export: its first line is not "
                           "the export header (make one with 'oracleagentmemory export')")
    return itertools.chain([first], lines)


def import_(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    handle, total = _input_lines(arguments.source)
    try:
        lines = _export_lines(handle, arguments.source)
        with opened_client(arguments, embeds=True, must_exist=False) as client:
            counts = _import(client, lines, total, arguments.skip_existing, err)
    finally:
        if handle is not sys.stdin:
            handle.close()
    if arguments.json:
        _print_json(counts, out)
        return 0
    report = (f"imported {_plural(counts['records'], 'record')} and "
              f"{_plural(counts['links'], 'link')}")
    if arguments.skip_existing:
        report += (f" (skipped {_plural(counts['skipped_records'], 'record')} and "
                   f"{_plural(counts['skipped_links'], 'link')} already stored)")
    if counts["expired_records"]:
        report += (f"; left out {_plural(counts['expired_records'], 'record')} that had "
                   f"expired already (and {_plural(counts['expired_links'], 'link')} to them)")
    print(report, file=out)
    return 0


def _import(client: OracleAgentMemory, lines: Iterable[str], total: int | None,
            skip_existing: bool, err: TextIO) -> dict[str, int]:
    """``import_store`` with progress; an error of the input is exit code 7, on one line
    that also says how to resume, and so is Ctrl-C (exit code 130)."""
    from oracleagentmemory.transfer import import_store

    progress = Progress("imported", err, total=total)
    resume = "run the same import again with --skip-existing"
    counts: dict[str, int] = {}
    try:
        return import_store(client, lines, progress, skip_existing=skip_existing,
                            counts=counts)
    except KeyboardInterrupt:
        done = counts.get("records", 0)
        raise CommandError(ExitCode.INTERRUPTED,
                           f"interrupted after importing {_plural(done, 'record')}, which "
                           f"stay stored; to finish, {resume}") from None
    except AgentMemoryError as error:
        if not isinstance(error, ValueError | KeyError | TypeError):
            raise
        message = one_line(error_text(error))
        if isinstance(error, DuplicateRecordError) and not skip_existing:
            message += f"; to resume an import that stopped, {resume}"
        elif not skip_existing and not counts.get("records") and not counts.get("links"):
            message += "; nothing was stored: fix this line and run the same import again"
        elif not skip_existing:
            message += (f"; {_plural(counts.get('records', 0), 'record')} and "
                        f"{_plural(counts.get('links', 0), 'link')} before it are stored: "
                        f"fix this line and {resume}")
        raise CommandError(ExitCode.BAD_INPUT, message) from error
    finally:
        progress.close()
