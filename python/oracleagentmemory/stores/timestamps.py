"""Timestamps as the stores keep them: UTC, ISO-8601, sortable as text."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from oracleagentmemory.stores.errors import InvalidArgumentError


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def parse_iso(value: object, argument: str = "timestamp") -> datetime:
    """Parse ISO-8601; a value without a zone is taken as UTC."""
    if not isinstance(value, str):
        raise InvalidArgumentError(
            f"{argument} must be an ISO-8601 string, got {type(value).__name__}"
        )
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidArgumentError(f"{argument} is not an ISO-8601 timestamp: {value!r}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
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
