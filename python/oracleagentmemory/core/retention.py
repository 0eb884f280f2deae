"""Time to live: how long records are kept, and how TTL arguments resolve."""

from __future__ import annotations

import warnings
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.apis.ttl import TimeToLiveAnchor


class MemoryRetentionConfig(BaseModel):
    """Schema-wide retention: the default TTL of new records and the largest TTL allowed."""

    model_config = ConfigDict(extra="forbid")

    default_ttl_days: int | None = Field(default=None, ge=0)
    max_ttl_days: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _default_within_max(self) -> MemoryRetentionConfig:
        if (
            self.default_ttl_days is not None
            and self.max_ttl_days is not None
            and self.default_ttl_days > self.max_ttl_days
        ):
            raise ValueError("default_ttl_days must not exceed max_ttl_days")
        return self


def check_ttl_days(value: Any, argument: str = "ttl_days") -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{argument} must be an int or None, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{argument} must not be negative, got {value}")
    return value


def resolve_ttl_days(value: Any, retention: MemoryRetentionConfig, argument: str = "ttl_days"):
    """Days until expiry (None = never) for an omitted, None or explicit ``ttl_days``."""
    if value is NOT_SET_MARKER:
        return retention.default_ttl_days
    days = check_ttl_days(value, argument)
    if days is None:
        return retention.max_ttl_days
    if retention.max_ttl_days is not None and days > retention.max_ttl_days:
        warnings.warn(
            f"{argument}={days} exceeds max_ttl_days={retention.max_ttl_days}; clamped",
            UserWarning,
            stacklevel=4,
        )
        return retention.max_ttl_days
    return days


def resolve_ttl_anchor(value: Any, argument: str = "ttl_anchor") -> str:
    if value is NOT_SET_MARKER:
        return TimeToLiveAnchor.CREATED_AT.value
    try:
        return TimeToLiveAnchor(value).value
    except ValueError:
        raise ValueError(
            f"{argument} must be a TimeToLiveAnchor (CREATED_AT or TIMESTAMP), got {value!r}"
        ) from None


def ttl_fields(ttl_days: Any, ttl_anchor: Any, retention: MemoryRetentionConfig) -> dict:
    """The contract's ``ttl_days``/``ttl_anchor`` pair for a new record."""
    return {
        "ttl_days": resolve_ttl_days(ttl_days, retention),
        "ttl_anchor": resolve_ttl_anchor(ttl_anchor),
    }


def ttl_changes(ttl_days: Any, ttl_anchor: Any, retention: MemoryRetentionConfig) -> dict:
    """The contract's TTL change for an update: empty when both arguments were omitted."""
    if ttl_days is NOT_SET_MARKER and ttl_anchor is NOT_SET_MARKER:
        return {}
    return ttl_fields(ttl_days, ttl_anchor, retention)
