"""Typed relations between stored records, and the built-in memory link labels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from oracleagentmemory import _vocabulary
from oracleagentmemory.errors import InvalidArgumentError

__all__ = [
    "MemoryLink",
    "MemoryLinkOppositeType",
    "MemoryLinkType",
    "RecordRelation",
    "RelationType",
    "memory_link_type_opposite_mapping",
]

RelationType = str
"""A relation label: one of the built-in memory link types or any label of the caller's."""

MemoryLinkType: TypeAlias = Literal["supersedes", "contradicts", "refines", "supports",
                                    "duplicates"]
MemoryLinkOppositeType: TypeAlias = Literal["is_superseded_by", "contradicts",
                                            "is_refined_by", "is_supported_by", "duplicates"]

memory_link_type_opposite_mapping: dict[str, str] = {
    "supersedes": "is_superseded_by",
    "contradicts": "contradicts",
    "refines": "is_refined_by",
    "supports": "is_supported_by",
    "duplicates": "duplicates",
}
"""Each built-in label and the label seen when the relation is walked target to source."""

INVALID_MEMORY_LINK_TYPE = "Invalid memory link type."
"""The reference's words for a memory link that is not one of the built-in labels between
two memory-like records (code written for it may match them)."""


def check_memory_link_type(link_type: object) -> str:
    """A built-in memory link label (``"supports"``...), else InvalidArgumentError."""
    if not isinstance(link_type, str) or link_type not in memory_link_type_opposite_mapping:
        raise InvalidArgumentError(INVALID_MEMORY_LINK_TYPE)
    return link_type


@dataclass(frozen=True, slots=True)
class RecordRelation:
    """A directed, labelled relation between two stored records.

    ``opposite_relation_type`` is the label read when walking from target to source;
    ``timestamp`` is the caller's event time, ``created_at`` the store's.

    Attributes:
        id: The relation's id.
        source_record_id: The record it starts from.
        source_record_type: That record's type.
        target_record_id: The record it points to.
        target_record_type: That record's type.
        relation_type: The label read from source to target.
        opposite_relation_type: The label read from target to source.
        timestamp: The caller's event time, or None.
        metadata: A JSON object stored with it, or None.
        created_at: When the store created it, ISO-8601.
    """

    id: str
    source_record_id: str
    source_record_type: str
    target_record_id: str
    target_record_type: str
    relation_type: str
    opposite_relation_type: str
    timestamp: str | None
    metadata: dict[str, Any] | None
    created_at: str


@dataclass(frozen=True, slots=True)
class MemoryLink(RecordRelation):
    """A relation between two memory-like records (memory, fact, guideline, preference)
    with a built-in label (``MemoryLinkType``).

    Raises:
        InvalidArgumentError: Another label, or an end that is not memory-like (a
            message...): "Invalid memory link type." (a ``ValueError``).
    """

    def __post_init__(self) -> None:
        check_memory_link_type(self.relation_type)
        if not {self.source_record_type, self.target_record_type} <= set(
                _vocabulary.MEMORY_TYPES):
            raise InvalidArgumentError(INVALID_MEMORY_LINK_TYPE)

    @property
    def link_type(self) -> str:
        """The reference's name of ``relation_type``."""
        return self.relation_type

    @property
    def source_memory_id(self) -> str:
        """The reference's name of ``source_record_id``."""
        return self.source_record_id

    @property
    def target_memory_id(self) -> str:
        """The reference's name of ``target_record_id``."""
        return self.target_record_id
