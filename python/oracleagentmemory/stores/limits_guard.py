"""The contract's input limits, checked in Python before a call reaches a backend.

The embedded store checks its input itself; the Oracle backend hands JSON to PL/SQL, which
checks sizes but neither the nesting depth nor Unicode validity the same way (Oracle allows
1,000 levels, and python-oracledb fails with a ``UnicodeEncodeError`` on an unpaired
surrogate). The chain every path to a store passes (``stores.guarded``) therefore has this
layer for every backend that does not declare ``checks_input_limits`` (the Oracle backend,
a caller's own store), so a Python
caller gets the same error, naming the same argument, from either backend, before anything
is sent. Only values of the right type are checked here; the backend still reports the
rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from oracleagentmemory.stores import limits
from oracleagentmemory.stores import metadata_filter as mf
from oracleagentmemory.stores.middleware import Layer
from oracleagentmemory.stores.operations import (
    AppendMessages,
    GetRecords,
    ListLinks,
    Search,
    UpdateLink,
    UpdateRecord,
    WriteRecords,
)
from oracleagentmemory.stores.protocol import LinkOut, MessageBatchResult, RecordOut, SearchHit

_ID_KEYS = ("id", "user_id", "agent_id", "thread_id", "message_id")
_TEXT_KEYS = ("role", "mime_type", "timestamp")
_JSON_KEYS = ("parts", "config", "settings")


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


class LimitsGuard(Layer):
    """Checks the input limits of the operations that carry input, then passes them on."""

    def on_write_records(self, op: WriteRecords) -> list[str]:
        if isinstance(op.records, Sequence):
            for index, record in enumerate(op.records):
                if isinstance(record, Mapping):
                    check_record(record, f"records[{index}]")
        for index, link in enumerate(op.links or ()):
            if isinstance(link, Mapping):
                check_link(link, f"links[{index}]")
        if isinstance(op.thread_id, str):
            limits.check_text(op.thread_id, "thread_id")
        return self.inner.run(op)

    def on_append_messages(self, op: AppendMessages) -> MessageBatchResult:
        if isinstance(op.batch, Mapping):
            records = op.batch.get("records")
            if isinstance(records, list):
                for index, record in enumerate(records):
                    if isinstance(record, Mapping):
                        check_record(record, f"records[{index}]")
            for key in ("thread_id", "after_message_id"):
                value = op.batch.get(key)
                if isinstance(value, str):
                    limits.check_text(value, key)
        return self.inner.run(op)

    def on_update_record(self, op: UpdateRecord) -> RecordOut | None:
        if isinstance(op.changes, Mapping):
            check_record(op.changes, "changes")
            for index, image in enumerate(op.changes.get("replace_images") or ()):
                if isinstance(image, Mapping):
                    check_record(image, f"replace_images[{index}]")
        return self.inner.run(op)

    def on_update_link(self, op: UpdateLink) -> int:
        if isinstance(op.changes, Mapping):
            check_link(op.changes, "changes")
        return self.inner.run(op)

    def on_get_records(self, op: GetRecords) -> list[RecordOut]:
        if isinstance(op.query, Mapping):
            mf.validate_filter(op.query.get("metadata_filter"))
        return self.inner.run(op)

    def on_list_links(self, op: ListLinks) -> list[LinkOut]:
        if isinstance(op.query, Mapping):
            mf.validate_filter(op.query.get("metadata_filter"))
        return self.inner.run(op)

    def on_search(self, op: Search) -> list[SearchHit]:
        if isinstance(op.request, Mapping):
            mf.validate_filter(op.request.get("metadata_filter"))
            text = op.request.get("query_text")
            if isinstance(text, str):
                limits.check_text(text, "query")
        return self.inner.run(op)
