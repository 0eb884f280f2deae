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
    """Full-text match of the query's content words; distance ``1 / (1 + |bm25|)``."""
    HYBRID = "hybrid"
    """The cosine distance, less a pull toward the query for records that match its words
    (larger when the keyword ranking's best stands out more than the vector ranking's);
    the distance reported is that one, never below 0 (docs/store-contract.md)."""

    _missing_ = classmethod(case_insensitive_lookup)


class SearchIndexSyncMode(Enum):
    """When the keyword/hybrid index catches up with writes (Oracle backend)."""

    ON_COMMIT = "on_commit"
    MANUAL = "manual"
    AUTO = "auto"

    _missing_ = classmethod(case_insensitive_lookup)
