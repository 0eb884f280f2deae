"""Which search the store runs, and when its keyword index catches up with writes."""

from __future__ import annotations

from enum import Enum

from oracleagentmemory._enums import case_insensitive_lookup

__all__ = ["SearchIndexSyncMode", "SearchStrategy"]


class SearchStrategy(Enum):
    """How records are ranked against a query."""

    VECTOR = "vector"
    """Cosine distance between the query's embedding and each record's."""
    KEYWORD = "keyword"
    """Full-text match of the query's content words."""
    HYBRID = "hybrid"
    """Fusion of the vector and keyword rankings' scores, each ranking weighted by how far
    its best score stands out (docs/store-contract.md)."""

    _missing_ = classmethod(case_insensitive_lookup)


class SearchIndexSyncMode(Enum):
    """When the keyword/hybrid index catches up with writes (Oracle backend)."""

    ON_COMMIT = "on_commit"
    MANUAL = "manual"
    AUTO = "auto"

    _missing_ = classmethod(case_insensitive_lookup)
