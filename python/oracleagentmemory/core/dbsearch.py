"""Which search the store runs, and when its keyword index catches up with writes."""

from __future__ import annotations

from enum import Enum


class SearchStrategy(str, Enum):
    """How records are ranked against a query."""

    VECTOR = "VECTOR"
    KEYWORD = "KEYWORD"
    HYBRID = "HYBRID"


class SearchIndexSyncMode(str, Enum):
    """When the keyword/hybrid index catches up with writes (Oracle backend)."""

    ON_COMMIT = "ON_COMMIT"
    MANUAL = "MANUAL"
    AUTO = "AUTO"
