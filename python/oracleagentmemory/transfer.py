"""Export and import of a whole store as JSON Lines, to move it between backends.

One JSON object per line: ``{"kind": "record", "record": RecordOut}`` (image bytes in
base64) for every visible record, then ``{"kind": "link", "link": LinkOut}`` for every
relation. Import writes records in batches with their original ids, scope, timestamps,
creation and expiry times (vectors are recomputed by the target client's embedder), then
the links, so the target holds the same records, links and bytes.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import IO, Any, Literal

from oracleagentmemory._vocabulary import SEARCHABLE_TYPES
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.errors import InvalidArgumentError
from oracleagentmemory.stores.protocol import LinkIn, RecordIn

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
    thread_ids: list[str] = []
    records = client.memory_service.backend.get_records({"include_bytes": True})
    for count, record in enumerate(records, start=1):
        if record["record_type"] == "thread":
            thread_ids.append(record["id"])
        exported: dict[str, Any] = dict(record)
        image = record.get("image_bytes")
        if image is not None:
            exported["image_bytes"] = base64.b64encode(image).decode()
        yield json.dumps({"kind": "record", "record": exported}, ensure_ascii=False)
        progress("records", count)
    links = 0
    for thread_id in thread_ids:
        for link in client.memory_service.backend.list_links({"thread_id": thread_id}):
            links += 1
            yield json.dumps({"kind": "link", "link": link}, ensure_ascii=False)
            progress("links", links)


def export_store(client: OracleAgentMemory, out: IO[str], progress: Progress = _quiet) -> None:
    for line in export_lines(client, progress):
        out.write(line + "\n")


def import_store(client: OracleAgentMemory, lines: Iterable[str],
                 progress: Progress = _quiet) -> dict[str, int]:
    """Write an export into ``client``'s store; returns how many records and links."""
    batch: list[RecordIn] = []
    links: list[LinkIn] = []
    counts = {"records": 0, "links": 0}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        item = json.loads(line)
        kind = item.get("kind")
        if kind == "header":
            if item.get("version") != FORMAT_VERSION:
                raise InvalidArgumentError(
                    f"line {number}: unsupported export version {item.get('version')}")
        elif kind == "record":
            batch.append(_restorable(item["record"]))
            if len(batch) >= BATCH_SIZE:
                counts["records"] += _write(client, batch)
                progress("records", counts["records"])
                batch = []
        elif kind == "link":
            links.append(item["link"])
        else:
            raise InvalidArgumentError(f"line {number}: unknown kind {kind!r}")
    counts["records"] += _write(client, batch)
    progress("records", counts["records"])
    for start in range(0, len(links), BATCH_SIZE):
        chunk = links[start:start + BATCH_SIZE]
        client.memory_service.backend.write_records([], links=chunk)
        counts["links"] += len(chunk)
        progress("links", counts["links"])
    return counts


def _restorable(record: Mapping[str, Any]) -> RecordIn:
    """An exported record as a record to write (the backend checks every field)."""
    restored: RecordIn = {}
    for key in _RESTORED:
        if key in record:
            restored[key] = record[key]
    if record.get("image_bytes") is not None:
        restored["image_bytes"] = base64.b64decode(record["image_bytes"])
    return restored


def _write(client: OracleAgentMemory, batch: list[RecordIn]) -> int:
    if not batch:
        return 0
    texts = [r.get("content") or "" for r in batch if _embedded(r)]
    vectors = iter(client.memory_service.embed(texts))
    for record in batch:
        if _embedded(record):
            record["embedding"] = next(vectors)
    client.memory_service.backend.write_records(batch)
    return len(batch)


def _embedded(record: RecordIn) -> bool:
    """Searchable records get a vector; an image only when it has a description."""
    if record["record_type"] == "image":
        return bool(record.get("content"))
    return record["record_type"] in SEARCHABLE_TYPES
