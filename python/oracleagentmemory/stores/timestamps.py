"""Timestamps as the stores keep them: UTC, ISO-8601, sortable as text."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from oracleagentmemory.stores.errors import InvalidArgumentError


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


ISO_PATTERN = (r"^([0-9]{4})-([0-9]{2})-([0-9]{2})([T ]([0-9]{2}):([0-9]{2})"
               r"(:([0-9]{2})(\.([0-9]{1,9}))?)?)?(([+-][0-9]{2}):?([0-9]{2}))?$")
"""The timestamps both backends accept, the pattern of the PL/SQL ``parse_iso``
(``codec.pkb.j2``, checked by a test): a date, optionally a time to the minute, second or
fraction, optionally an offset; ``Z`` stands for ``+00:00``, surrounding blanks are dropped.
Python's ``fromisoformat`` accepts more (week dates, an hour alone), which Oracle refuses."""
_ISO = re.compile(ISO_PATTERN)


def parse_iso(value: object, argument: str = "timestamp") -> datetime:
    """Parse an ISO-8601 timestamp of ``ISO_PATTERN``; a value without a zone is UTC."""
    if not isinstance(value, str):
        raise InvalidArgumentError(
            f"{argument} must be an ISO-8601 string, got {type(value).__name__}"
        )
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    match = _ISO.match(text)
    if match is None:
        raise InvalidArgumentError(f"{argument} is not an ISO-8601 timestamp: {value!r}")
    year, month, day, _, hour, minute, _, second, _, fraction, _, zone_hours, zone_minutes = (
        match.groups())
    try:
        sign = -1 if (zone_hours or "+").startswith("-") else 1
        offset = sign * timedelta(hours=abs(int(zone_hours or 0)),
                                  minutes=int(zone_minutes or 0))
        parsed = datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0),
                          int(second or 0), int((fraction or "0").ljust(6, "0")[:6]),
                          tzinfo=timezone(offset))
    except ValueError:
        raise InvalidArgumentError(f"{argument} is not an ISO-8601 timestamp: {value!r}") from None
    try:
        return parsed.astimezone(timezone.utc)
    except OverflowError:
        raise InvalidArgumentError(f"{argument} is out of range: {value!r}") from None


def to_text(moment: datetime) -> str:
    """The canonical stored form: UTC with microseconds and a Z suffix, sortable as text.

    Built by hand because ``strftime("%Y")`` does not zero-pad years before 1000 on every
    platform, which would break the text ordering expiry checks rely on.
    """
    m = moment.astimezone(timezone.utc)
    return (f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:"
            f"{m.second:02d}.{m.microsecond:06d}Z")


def shown(text: str | None) -> str | None:
    """A stored time as records show it: without a zero fraction (``...:05Z``, not
    ``...:05.000000Z``), so a time given to the second reads back as given."""
    if text is not None and text.endswith(".000000Z"):
        return text[:-8] + "Z"
    return text


def normalize(value: str | None, argument: str = "timestamp") -> str | None:
    """Validate and canonicalise an optional ISO-8601 value."""
    return None if value is None else to_text(parse_iso(value, argument))


def add_days(moment_text: str, days: float) -> str:
    """The moment ``days`` later; an expiry past year 9999 is out of range."""
    try:
        return to_text(parse_iso(moment_text) + timedelta(days=days))
    except OverflowError:
        raise InvalidArgumentError(
            f"ttl_days={days} from {moment_text} ends after the year 9999"
        ) from None
