"""Which moment a record's time to live counts from."""

from __future__ import annotations

from enum import Enum

from oracleagentmemory._enums import case_insensitive_lookup


class TimeToLiveAnchor(Enum):
    """The moment a time to live counts from."""

    CREATED_AT = "created_at"
    """The time the store created the record."""
    TIMESTAMP = "timestamp"
    """The record's own event timestamp (which must then be given)."""

    _missing_ = classmethod(case_insensitive_lookup)
