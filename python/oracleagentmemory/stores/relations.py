"""Relation labels between memory-like records."""

from __future__ import annotations

from oracleagentmemory.stores import limits
from oracleagentmemory.stores.errors import InvalidLinkError

BUILTIN_OPPOSITES: dict[str, str] = {
    "supersedes": "is_superseded_by",
    "refines": "is_refined_by",
    "supports": "is_supported_by",
    "contradicts": "contradicts",
    "duplicates": "duplicates",
}
"""Built-in source-to-target labels and the label seen when walking target to source."""


def opposite_label(relation_type: str, opposite_relation_type: str | None) -> str:
    """The stored reverse label: fixed for built-in types, else given or the same label."""
    check_label("relation_type", relation_type)
    if relation_type in BUILTIN_OPPOSITES:
        return BUILTIN_OPPOSITES[relation_type]
    if opposite_relation_type is None:
        return relation_type
    check_label("opposite_relation_type", opposite_relation_type)
    return opposite_relation_type


def check_label(name: str, label: object) -> str:
    if not isinstance(label, str) or not label.strip():
        raise InvalidLinkError(f"{name} must be a non-empty string")
    if len(label) > 128:
        raise InvalidLinkError(f"{name} must be at most 128 characters")
    return limits.check_text(label, name)
