"""Time to live: how long records are kept, and how TTL arguments resolve."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker, value_or
from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError
from oracleagentmemory.stores.protocol import RecordChanges, RecordIn, TtlAnchor
from oracleagentmemory.stores.timestamps import add_days, parse_iso, utc_now

_CONTRACT_ANCHORS: dict[TimeToLiveAnchor, TtlAnchor] = {
    TimeToLiveAnchor.CREATED_AT: "CREATED_AT", TimeToLiveAnchor.TIMESTAMP: "TIMESTAMP"}


class TtlFields(TypedDict):
    """The contract's TTL fields of a record."""

    ttl_days: int | None
    ttl_anchor: TtlAnchor


@dataclass(frozen=True, slots=True)
class MemoryRetentionConfig:
    """Schema-wide retention: the default TTL of new records and the largest TTL allowed.

    ``default_ttl_days`` applies when a write omits ``ttl_days``; ``max_ttl_days`` caps any
    TTL (larger values are clamped with a warning) and is what ``ttl_days=None`` means when
    set. Omitted or None: records never expire by default, and there is no cap.
    """

    default_ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER
    max_ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER

    def __post_init__(self) -> None:
        default = check_ttl_days(value_or(self.default_ttl_days, None), "default_ttl_days")
        maximum = check_ttl_days(value_or(self.max_ttl_days, None), "max_ttl_days")
        if default is not None and maximum is not None and default > maximum:
            raise InvalidArgumentError("default_ttl_days must not exceed max_ttl_days")


def _default_days(retention: MemoryRetentionConfig) -> int | None:
    return value_or(retention.default_ttl_days, None)


def _max_days(retention: MemoryRetentionConfig) -> int | None:
    return value_or(retention.max_ttl_days, None)


def check_ttl_days(value: Any, argument: str = "ttl_days") -> int | None:
    """Whole days, or None. A float with no fraction (``2.0``) counts as its int, as the
    reference accepts it; a fraction is refused, since TTLs are kept in whole days."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, float):
        raise InvalidArgumentError(f"{argument} must be a whole number of days, got {value}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"{argument} must be an int or None, got {type(value).__name__}")
    if value < 0:
        raise InvalidArgumentError(f"{argument} must not be negative, got {value}")
    return value


def resolve_ttl_days(value: Any, retention: MemoryRetentionConfig,
                     argument: str = "ttl_days") -> int | None:
    """Days until expiry (None = never) for an omitted, None or explicit ``ttl_days``."""
    if value is NOT_SET_MARKER:
        return _default_days(retention)
    days = check_ttl_days(value, argument)
    if days is None:
        return _max_days(retention)
    return int(capped_days(days, retention, f"{argument}={days}"))


def capped_days(days: float, retention: MemoryRetentionConfig, asked: str,
                callers_of: Sequence[str] = ()) -> float:
    """``days`` held to ``max_ttl_days``: a longer TTL is clamped with a warning naming what
    was ``asked`` (``ttl_days=99``, ``ttl=43200 minutes``), whatever asked for it. The
    warning names the first line outside this package and the ``callers_of`` directories
    (a framework calling the library, e.g. LangGraph's store base)."""
    maximum = _max_days(retention)
    if maximum is not None and days > maximum:
        warnings.warn(f"{asked} exceeds max_ttl_days={maximum}; clamped", UserWarning,
                      stacklevel=_caller_level((_PACKAGE, *callers_of)))
        return maximum
    return days


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _caller_level(inside: tuple[str, ...]) -> int:
    """The ``stacklevel`` that attributes a warning of the function calling this to the
    first frame outside the ``inside`` directories: the application's line, however many
    layers (thread, service, instrumentation) lie between (a fixed level named a library
    line)."""
    level, frame = 1, sys._getframe(1)  # level 1: the function that calls warnings.warn
    while frame.f_back is not None and frame.f_code.co_filename.startswith(inside):
        level, frame = level + 1, frame.f_back
    return level


def resolve_ttl_anchor(value: Any, argument: str = "ttl_anchor") -> TtlAnchor:
    """The contract's anchor name (CREATED_AT or TIMESTAMP) for a TimeToLiveAnchor."""
    if value is NOT_SET_MARKER:
        return "CREATED_AT"
    try:
        return _CONTRACT_ANCHORS[TimeToLiveAnchor(value)]
    except ValueError:
        raise InvalidArgumentError(
            f"{argument} must be a TimeToLiveAnchor (created_at or timestamp), got {value!r}"
        ) from None


def ttl_fields(ttl_days: Any, ttl_anchor: Any, retention: MemoryRetentionConfig) -> TtlFields:
    """The contract's ``ttl_days``/``ttl_anchor`` pair for a new record."""
    return {
        "ttl_days": resolve_ttl_days(ttl_days, retention),
        "ttl_anchor": resolve_ttl_anchor(ttl_anchor),
    }


def expired_when_written(record: RecordIn) -> bool:
    """Whether a store finds ``record`` expired as it writes it (docs/store-contract.md: it
    expires ``ttl_days`` after its anchor, its ``timestamp`` or the moment it is written):
    such a record is no link end. Used to say so when a link to it is refused."""
    days = record.get("ttl_days")
    if days is None:
        return False
    timestamp = record.get("timestamp")
    if record.get("ttl_anchor") == "TIMESTAMP" and isinstance(timestamp, str):
        return parse_iso(add_days(timestamp, days)) <= utc_now()
    return days == 0


def ttl_changes(ttl_days: Any, ttl_anchor: Any,
                retention: MemoryRetentionConfig) -> RecordChanges:
    """The contract's TTL change for an update: empty when both arguments were omitted."""
    if ttl_days is NOT_SET_MARKER and ttl_anchor is NOT_SET_MARKER:
        return {}
    return {**ttl_fields(ttl_days, ttl_anchor, retention)}
