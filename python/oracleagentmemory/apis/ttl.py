"""Which moment a record's time to live counts from."""

from __future__ import annotations

from enum import Enum


class TimeToLiveAnchor(str, Enum):
    """The moment a time to live counts from."""

    CREATED_AT = "CREATED_AT"
    """The time the store created the record."""
    TIMESTAMP = "TIMESTAMP"
    """The record's own event timestamp (which must then be given)."""
