"""The contract's input limits, checked in Python before a call reaches a backend.

The embedded store checks its input itself; the Oracle backend hands JSON to PL/SQL, which
checks sizes but neither the nesting depth nor Unicode validity the same way (Oracle allows
1,000 levels, and python-oracledb fails with a ``UnicodeEncodeError`` on an unpaired
surrogate). The client therefore puts this guard in front of every backend that does not
declare ``checks_input_limits`` (the Oracle backend, a caller's own store), so a Python
caller gets the same error, naming the same argument, from either backend, before anything
is sent. Only values of the right type are checked here; the backend still reports the
rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from oracleagentmemory.stores import limits
from oracleagentmemory.stores import metadata_filter as mf
from oracleagentmemory.stores.protocol import (
    CascadeResult,
    LinkChanges,
    LinkIn,
    LinkOut,
    LinkQuery,
    LinkSelector,
    OwnerType,
    RecordChanges,
    RecordIn,
    RecordOut,
    RecordQuery,
    SearchHit,
    SearchRequest,
    StoreBackend,
)

_ID_KEYS = ("id", "user_id", "agent_id", "thread_id", "message_id")
_TEXT_KEYS = ("role", "mime_type", "timestamp")
_JSON_KEYS = ("parts", "config")


def check_record(record: Mapping[str, Any], where: str) -> None:
    """The limits of one RecordIn (or the fields of a RecordChanges)."""
    content = record.get("content")
    if isinstance(content, str):
        limits.check_content(content, f"{where}.content")
    for key in (*_ID_KEYS, *_TEXT_KEYS):
        value = record.get(key)
        if isinstance(value, str):
            limits.check_text(value, f"{where}.{key}")
    metadata = record.get("metadata")
    if isinstance(metadata, Mapping):
        limits.json_text(metadata, f"{where}.metadata", limits.MAX_METADATA_CHARS)
    for key in _JSON_KEYS:
        value = record.get(key)
        if isinstance(value, (Mapping, list)):
            limits.json_text(value, f"{where}.{key}")


def check_link(link: Mapping[str, Any], where: str) -> None:
    for key in ("id", "thread_id", "source_id", "target_id", "relation_type",
                "opposite_relation_type", "timestamp"):
        value = link.get(key)
        if isinstance(value, str):
            limits.check_text(value, f"{where}.{key}")
    metadata = link.get("metadata")
    if isinstance(metadata, Mapping):
        limits.json_text(metadata, f"{where}.metadata", limits.MAX_METADATA_CHARS)


class LimitsGuard:
    """A contract backend that checks the input limits, then calls the inner backend."""

    def __init__(self, backend: StoreBackend) -> None:
        self.inner = backend

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    def close(self) -> None:
        self.inner.close()

    def purge_expired(self) -> int:
        return self.inner.purge_expired()

    def write_records(self, records: Sequence[RecordIn], links: Sequence[LinkIn] = (),
                      replace: bool = False, thread_id: str | None = None) -> list[str]:
        if isinstance(records, Sequence):
            for index, record in enumerate(records):
                if isinstance(record, Mapping):
                    check_record(record, f"records[{index}]")
        for index, link in enumerate(links or ()):
            if isinstance(link, Mapping):
                check_link(link, f"links[{index}]")
        if isinstance(thread_id, str):
            limits.check_text(thread_id, "thread_id")
        return self.inner.write_records(records, links, replace, thread_id)

    def update_record(self, record_id: str, record_types: Sequence[str],
                      changes: RecordChanges, thread_id: str | None = None) -> RecordOut | None:
        if isinstance(changes, Mapping):
            check_record(changes, "changes")
            for index, image in enumerate(changes.get("replace_images") or ()):
                if isinstance(image, Mapping):
                    check_record(image, f"replace_images[{index}]")
        return self.inner.update_record(record_id, record_types, changes, thread_id)

    def update_link(self, relation_id: str, thread_id: str | None,
                    changes: LinkChanges) -> int:
        if isinstance(changes, Mapping):
            check_link(changes, "changes")
        return self.inner.update_link(relation_id, thread_id, changes)

    def delete_records(self, record_ids: Sequence[str], record_types: Sequence[str],
                       thread_id: str | None = None) -> int:
        return self.inner.delete_records(record_ids, record_types, thread_id)

    def delete_cascade(self, owner_type: OwnerType, owner_id: str) -> CascadeResult:
        return self.inner.delete_cascade(owner_type, owner_id)

    def delete_links(self, selector: LinkSelector, thread_id: str | None) -> int:
        return self.inner.delete_links(selector, thread_id)

    def get_records(self, query: RecordQuery) -> list[RecordOut]:
        if isinstance(query, Mapping):
            mf.validate_filter(query.get("metadata_filter"))
        return self.inner.get_records(query)

    def list_messages(self, thread_id: str, start: int | None, end: int | None,
                      include_bytes: bool = False) -> list[RecordOut]:
        return self.inner.list_messages(thread_id, start, end, include_bytes)

    def list_links(self, query: LinkQuery) -> list[LinkOut]:
        if isinstance(query, Mapping):
            mf.validate_filter(query.get("metadata_filter"))
        return self.inner.list_links(query)

    def search(self, request: SearchRequest) -> list[SearchHit]:
        if isinstance(request, Mapping):
            mf.validate_filter(request.get("metadata_filter"))
            text = request.get("query_text")
            if isinstance(text, str):
                limits.check_text(text, "query")
        return self.inner.search(request)
