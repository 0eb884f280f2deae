"""Relation arguments of the public API turned into the store contract's link shapes."""

from __future__ import annotations

from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER, value_or
from oracleagentmemory.core.arguments import check_id
from oracleagentmemory.core.memory_service import new_record_id
from oracleagentmemory.stores.protocol import LinkChanges, LinkIn, LinkSelector


def new_link(thread_id: str | None, *, source: tuple[Any, Any] | None,
             target: tuple[Any, Any], relation_type: Any,
             relation_id: Any = NOT_SET_MARKER, opposite_relation_type: Any = NOT_SET_MARKER,
             timestamp: str | None = None, metadata: Any = None) -> LinkIn:
    """A link to write; ``source`` None means the memory written in the same batch."""
    link: LinkIn = {
        "id": check_id(value_or(relation_id, None) or new_record_id(), "relation_id"),
        "thread_id": thread_id,
        "target_id": target[0], "target_type": target[1],
        "relation_type": relation_type,
        "opposite_relation_type": value_or(opposite_relation_type, None),  # type: ignore[typeddict-item]
        "timestamp": timestamp, "metadata": metadata,
    }
    if source is not None:
        link["source_id"], link["source_type"] = source
    return link


def link_changes(relation_type: Any, opposite_relation_type: Any, timestamp: Any,
                 metadata: Any) -> LinkChanges:
    """The fields an update replaces: the ones given (NOT_SET_MARKER keeps the stored)."""
    return {name: value  # type: ignore[return-value]
            for name, value in (("relation_type", relation_type),
                                ("opposite_relation_type", opposite_relation_type),
                                ("timestamp", timestamp), ("metadata", metadata))
            if value is not NOT_SET_MARKER}


def link_selector(source_record_id: Any, source_record_type: Any, target_record_id: Any,
                  target_record_type: Any, relation_type: Any,
                  relation_id: Any) -> LinkSelector:
    """A relation id alone, or the stored-direction endpoint tuple (the store checks which)."""
    return {name: value  # type: ignore[return-value]
            for name, value in (("id", relation_id), ("source_id", source_record_id),
                                ("source_type", source_record_type),
                                ("target_id", target_record_id),
                                ("target_type", target_record_type),
                                ("relation_type", relation_type))
            if value is not NOT_SET_MARKER}
