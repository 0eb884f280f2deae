"""Export and import of a whole store as JSON Lines, to move it between backends.

One JSON object per line: ``{"kind": "record", "record": RecordOut}`` (image bytes in
base64) for every visible record, then ``{"kind": "link", "link": LinkOut}`` for every
relation. Import writes records in batches with their original ids, scope, timestamps,
creation and expiry times (vectors are recomputed by the target client's embedder, from the
text ``thread.add_messages`` embeds for a message), then
the links, so the target holds the same records, links and bytes. An import that stopped
on an error (which names the input line) is resumed with ``skip_existing``.

A record whose ``expires_at`` has passed by the time it is imported is not written (every
read would hide it and the next purge remove it), nor are the links to it; the counts say
how many. So a resumed import does not stumble on a record that expired since the first
run: the store still holds it, hidden, and writing it again would be a duplicate.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import IO, Any, Literal

from oracleagentmemory._vocabulary import MEMORY_TYPES, SEARCHABLE_TYPES
from oracleagentmemory.core.index_text import Turn, message_index_text, record_turn
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.errors import AgentMemoryError, InvalidArgumentError
from oracleagentmemory.stores.limits import check_text
from oracleagentmemory.stores.protocol import LinkIn, RecordIn
from oracleagentmemory.stores.timestamps import parse_iso, utc_now

FORMAT_VERSION = 1
BATCH_SIZE = 256
_RestoredKey = Literal["id", "record_type", "user_id", "agent_id", "thread_id", "role",
                       "content", "metadata", "timestamp", "status", "parts", "mime_type",
                       "message_id", "config", "created_at", "updated_at", "expires_at"]
_RESTORED: tuple[_RestoredKey, ...] = (
    "id", "record_type", "user_id", "agent_id", "thread_id", "role", "content", "metadata",
    "timestamp", "status", "parts", "mime_type", "message_id", "config", "created_at",
    "updated_at", "expires_at")

Progress = Callable[[str, int], None]


def _quiet(_: str, __: int) -> None:
    return None


def export_lines(client: OracleAgentMemory, progress: Progress = _quiet) -> Iterator[str]:
    """The store as JSON Lines, header first."""
    yield json.dumps({"kind": "header", "format": "oracleagentmemory-export",
                      "version": FORMAT_VERSION})
    backend = client.memory_service.backend
    linkable: set[Any] = set()
    for count, record in enumerate(backend.get_records({"include_bytes": True}), start=1):
        if record.get("record_type") in MEMORY_TYPES:
            linkable.add(record.get("id"))
        exported: dict[str, Any] = dict(record)
        image = record.get("image_bytes")
        if image is not None:
            exported["image_bytes"] = base64.b64encode(image).decode()
        yield json.dumps({"kind": "record", "record": exported}, ensure_ascii=False)
        progress("records", count)
    # One query for every link: a link between records of no thread (the client's
    # link_records) belongs to no thread, so asking thread by thread would miss it.
    # Only the links whose two ends (memory-like records) were exported: an end that has
    # expired (not purged yet) is not among the records, nor is one another client wrote
    # after they were read (the links are read in a later transaction); the import would
    # stop on such a link.
    ended = (link for link in backend.list_links({})
             if link.get("source_id") in linkable and link.get("target_id") in linkable)
    for count, link in enumerate(ended, start=1):
        yield json.dumps({"kind": "link", "link": link}, ensure_ascii=False)
        progress("links", count)


def export_store(client: OracleAgentMemory, out: IO[str], progress: Progress = _quiet) -> None:
    for line in export_lines(client, progress):
        out.write(line + "\n")


def import_store(client: OracleAgentMemory, lines: Iterable[str],
                 progress: Progress = _quiet, *, skip_existing: bool = False,
                 counts: dict[str, int] | None = None) -> dict[str, int]:
    """Write an export into ``client``'s store; returns how many records and links were
    written, how many were left out because they had expired (``expired_records``, and
    ``expired_links`` to them) and, with ``skip_existing``, how many were already there.

    Records are written in batches of BATCH_SIZE, each in one transaction, then the links.
    An error names the line of the input it comes from (``line 281: ...``); the records of
    the batches before it stay written, so after fixing the line the same import is run
    again with ``skip_existing=True``: records and links whose id the store already holds
    are skipped (not compared, not replaced) and the rest is written. ``counts``, when
    given, is filled as the import goes, so a caller sees how far an interrupted one got.
    """
    batch: list[tuple[int, RecordIn]] = []
    links: list[tuple[int, LinkIn]] = []
    counts = {} if counts is None else counts
    counts.update(records=0, links=0, skipped_records=0, skipped_links=0, expired_records=0,
                  expired_links=0)
    last_turns: dict[str, Turn] = {}
    expired: set[Any] = set()
    now = utc_now()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        kind, value = _parse_line(line, number)
        if kind == "record" and _has_expired(value, now):
            expired.add(value.get("id"))
            counts["expired_records"] += 1
        elif kind == "record":
            batch.append((number, value))
            if len(batch) >= BATCH_SIZE:
                _write(client, batch, counts, skip_existing, last_turns)
                progress("records", counts["records"])
                batch = []
        elif kind == "link" and {value.get("source_id"), value.get("target_id")} & expired:
            counts["expired_links"] += 1
        elif kind == "link":
            links.append((number, value))
    _write(client, batch, counts, skip_existing, last_turns)
    progress("records", counts["records"])
    for start in range(0, len(links), BATCH_SIZE):
        _write_links(client, links[start:start + BATCH_SIZE], counts, skip_existing)
        progress("links", counts["links"])
    return counts


def is_export_header(line: str) -> bool:
    """True for the first line of an export (of any version: a version this library does
    not read is reported by the import, naming the line)."""
    try:
        item = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: nested too deep
        return False
    return isinstance(item, dict) and item.get("kind") == "header" \
        and item.get("format") == "oracleagentmemory-export"


def _parse_line(line: str, number: int) -> tuple[str, Any]:
    """(kind, restorable value) of one line; an InvalidArgumentError naming the line for
    anything that is not a line of a version-FORMAT_VERSION export."""
    try:
        item = json.loads(line)
    except ValueError as error:
        raise InvalidArgumentError(f"line {number}: not JSON ({error})") from None
    except RecursionError:  # json.loads raises it past Python's recursion limit
        raise InvalidArgumentError(f"line {number}: JSON nested too deep to read") from None
    if not isinstance(item, dict):
        raise InvalidArgumentError(f"line {number}: expected a JSON object")
    kind = item.get("kind")
    if kind == "header":
        if item.get("version") != FORMAT_VERSION:
            raise InvalidArgumentError(
                f"line {number}: unsupported export version {item.get('version')}")
        return kind, None
    if kind not in ("record", "link"):
        raise InvalidArgumentError(f"line {number}: unknown kind {kind!r}")
    value = item.get(kind)
    if not isinstance(value, dict):
        raise InvalidArgumentError(f"line {number}: {kind!r} must be a JSON object")
    # Ids are set members below (expired ends, ids already stored): a list or an object
    # there is refused here, naming the line, instead of failing as "unhashable".
    for key in ("id", "source_id", "target_id") if kind == "link" else ("id",):
        if value.get(key) is not None and not isinstance(value[key], str):
            raise InvalidArgumentError(f"line {number}: the {kind}.{key} must be a string, "
                                       f"got {type(value[key]).__name__}")
    if kind == "link":
        return kind, value
    if not isinstance(value.get("record_type"), str):
        raise InvalidArgumentError(f"line {number}: a record needs a record_type (a string)")
    try:
        return kind, _restorable(value)
    except (ValueError, TypeError) as error:
        raise InvalidArgumentError(f"line {number}: {error}") from None


def _has_expired(record: RecordIn, now: datetime) -> bool:
    """True when the record's expiry is a valid time that has passed (a malformed one is
    left for the store to refuse, naming the line)."""
    expires_at = record.get("expires_at")
    if expires_at is None:
        return False
    try:
        return parse_iso(expires_at, "expires_at") <= now
    except ValueError:
        return False


def _restorable(record: Mapping[str, Any]) -> RecordIn:
    """An exported record as a record to write (the backend checks every field)."""
    restored: RecordIn = {}
    for key in _RESTORED:
        if key in record:
            restored[key] = record[key]
    if isinstance(restored.get("content"), str):  # embedded before the store checks it
        check_text(restored["content"], "the record.content")
    if record.get("image_bytes") is not None:
        # validate: without it, characters outside the alphabet are dropped, not refused
        restored["image_bytes"] = base64.b64decode(record["image_bytes"], validate=True)
    return restored


def _write(client: OracleAgentMemory, numbered: list[tuple[int, RecordIn]],
           counts: dict[str, int], skip_existing: bool, last_turns: dict[str, Turn]) -> None:
    """Write one batch of records (embedded here) in one transaction. A message is embedded
    with the text ``thread.add_messages`` gives it (``core/index_text.py``): the message
    before it is the last one of its thread met earlier in the export."""
    backend = client.memory_service.backend
    index_texts = {id(record): _index_text(record, last_turns) for _, record in numbered}
    if skip_existing and numbered:
        held = {(_id_space(r.get("record_type")), r["id"]) for r in backend.get_records(
            {"ids": [r["id"] for _, r in numbered if isinstance(r.get("id"), str)]})}
        kept = [(n, r) for n, r in numbered if (_id_space(r.get("record_type")), r.get("id"))
                not in held]
        counts["skipped_records"] += len(numbered) - len(kept)
        numbered = kept
    if not numbered:
        return
    batch = [record for _, record in numbered]
    with _at_line([n for n, _ in numbered], batch):
        texts = [index_texts[id(r)] for r in batch if _embedded(r)]
        vectors = iter(client.memory_service.embed(texts))
        for record in batch:
            if _embedded(record):
                record["embedding"] = next(vectors)
        backend.write_records(batch)
    counts["records"] += len(batch)


def _write_links(client: OracleAgentMemory, numbered: list[tuple[int, LinkIn]],
                 counts: dict[str, int], skip_existing: bool) -> None:
    backend = client.memory_service.backend
    if skip_existing:
        held = {link["id"] for link in backend.list_links(
            {"ids": [link["id"] for _, link in numbered if isinstance(link.get("id"), str)]})}
        kept = [(n, link) for n, link in numbered if link.get("id") not in held]
        counts["skipped_links"] += len(numbered) - len(kept)
        numbered = kept
    if not numbered:
        return
    links = [link for _, link in numbered]
    with _at_line([n for n, _ in numbered], links):
        backend.write_records([], links=links)
    counts["links"] += len(links)


@contextmanager
def _at_line(numbers: list[int], items: list[Any]) -> Iterator[None]:
    """Re-raise an error of one batch naming the input line it comes from: the item the
    store's message points at (``records[i]``, ``links[i]``, or an id it quotes), else the
    batch's range of lines."""
    try:
        yield
    except AgentMemoryError as error:
        message = str(error)
        where = f"lines {numbers[0]}-{numbers[-1]}"
        position = re.search(r"\b(?:records|links)\[(\d+)\]", message)
        if position is not None and int(position.group(1)) < len(numbers):
            where = f"line {numbers[int(position.group(1))]}"
            message = message.replace(position.group(0), "the " + (
                "record" if position.group(0).startswith("records") else "link"))
        else:
            for number, item in zip(numbers, items, strict=True):
                quoted = [repr(item.get(key)) for key in ("id", "source_id", "target_id")
                          if isinstance(item.get(key), str)]
                if any(text in message for text in quoted):
                    where = f"line {number}"
                    break
        try:
            located = type(error)(f"{where}: {message}")
        except TypeError:  # an error class that needs more than a message
            located = InvalidArgumentError(f"{where}: {message}")
        raise located from error


def _id_space(record_type: Any) -> Any:
    """Memory-like types share one id space (docs/store-contract.md)."""
    return "memory" if record_type in MEMORY_TYPES else record_type


def _index_text(record: RecordIn, last_turns: dict[str, Turn]) -> str:
    """The text a record is embedded with; a message's also becomes its thread's last."""
    content = record.get("content")
    text = content if isinstance(content, str) else ""
    thread_id = record.get("thread_id")
    if record.get("record_type") != "message" or not isinstance(thread_id, str):
        return text
    turn = record_turn(record, text)
    indexed = message_index_text(turn, last_turns.get(thread_id))
    last_turns[thread_id] = turn
    return indexed


def _embedded(record: RecordIn) -> bool:
    """Searchable records get a vector; an image only when it has a description."""
    if record["record_type"] == "image":
        return bool(record.get("content"))
    return record["record_type"] in SEARCHABLE_TYPES
