"""Relation arguments of the public API turned into the store contract's link shapes."""

from __future__ import annotations

from typing import Any

from oracleagentmemory._ids import new_id
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker, value_or
from oracleagentmemory.apis.message import MetadataValue
from oracleagentmemory.core.arguments import check_id_argument
from oracleagentmemory.stores.protocol import (
    ENDPOINT_KEYS,
    LinkChanges,
    LinkIn,
    LinkQuery,
    LinkSelector,
)


def new_link(thread_id: str | None, *, source: tuple[Any, Any] | None,
             target: tuple[Any, Any], relation_type: Any,
             relation_id: Any = NOT_SET_MARKER, opposite_relation_type: Any = NOT_SET_MARKER,
             timestamp: str | None = None, metadata: Any = None) -> LinkIn:
    """A link to write; ``source`` None means the memory written in the same batch, a
    target type None the target's stored type."""
    link: LinkIn = {
        "id": check_id_argument(  # None: a new id; "" is refused, not replaced
            new_id() if value_or(relation_id, None) is None else relation_id, "relation_id"),
        "thread_id": thread_id,
        "target_id": target[0],
        "relation_type": relation_type,
        "opposite_relation_type": value_or(opposite_relation_type, None),
        "timestamp": timestamp, "metadata": metadata,
    }
    if target[1] is not None:
        link["target_type"] = target[1]
    if source is not None:
        link["source_id"], link["source_type"] = source
    return link


def link_changes(relation_type: str | _NotSetMarker,
                 opposite_relation_type: str | _NotSetMarker,
                 timestamp: str | None | _NotSetMarker,
                 metadata: MetadataValue | _NotSetMarker) -> LinkChanges:
    """The fields an update replaces: the ones given (NOT_SET_MARKER keeps the stored)."""
    changes: LinkChanges = {}
    if not isinstance(relation_type, _NotSetMarker):
        changes["relation_type"] = relation_type
    if not isinstance(opposite_relation_type, _NotSetMarker):
        changes["opposite_relation_type"] = opposite_relation_type
    if not isinstance(timestamp, _NotSetMarker):
        changes["timestamp"] = timestamp
    if not isinstance(metadata, _NotSetMarker):
        changes["metadata"] = metadata
    return changes


def link_selector(source_record_id: str | _NotSetMarker,
                  source_record_type: str | _NotSetMarker,
                  target_record_id: str | _NotSetMarker,
                  target_record_type: str | _NotSetMarker,
                  relation_type: str | _NotSetMarker,
                  relation_id: str | _NotSetMarker) -> LinkSelector:
    """A relation id alone, or the stored-direction endpoint tuple (the store checks which)."""
    selector: LinkSelector = {}
    if not isinstance(relation_id, _NotSetMarker):
        selector["id"] = relation_id
    if not isinstance(source_record_id, _NotSetMarker):
        selector["source_id"] = source_record_id
    if not isinstance(source_record_type, _NotSetMarker):
        selector["source_type"] = source_record_type
    if not isinstance(target_record_id, _NotSetMarker):
        selector["target_id"] = target_record_id
    if not isinstance(target_record_type, _NotSetMarker):
        selector["target_type"] = target_record_type
    if not isinstance(relation_type, _NotSetMarker):
        selector["relation_type"] = relation_type
    return selector


def endpoint_query(selector: LinkSelector) -> LinkQuery:
    """A ``list_links`` query matching the endpoint fields of a selector (not its id)."""
    query: LinkQuery = {}
    for key in ENDPOINT_KEYS:
        if key in selector:
            query[key] = selector[key]
    return query
