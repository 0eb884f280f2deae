"""Input limits of the store contract, in one place, and the checks that enforce them.

Every limit here is documented in docs/reliability.md ("Limits") with the reason for its
value and the test that holds it. Both backends enforce the same values: the embedded
store calls these checks itself, the Python layer runs them before a call reaches the
Oracle backend (``stores.limits_guard``), and the Oracle packages check the sizes again for
callers that use PL/SQL directly. A value over a limit is an ``InvalidArgumentError`` (an
``InvalidFilterError`` for a filter), a ``ValueError`` naming the argument, raised before
anything is written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from oracleagentmemory.errors import ArgumentTypeError
from oracleagentmemory.stores.errors import InvalidArgumentError, InvalidFilterError

MAX_ID_LENGTH = 512
"""Characters of an id (a record's, its user, agent, thread and message ids, a relation's):
the width of the Oracle tables' VARCHAR2(512 CHAR) id columns, so an id one backend takes
fits the other."""

MAX_CONTENT_CHARS = 1_000_000
"""Characters of one record's ``content`` (a message, a memory, an image description, a
profile). A million characters is a long book chapter: far more than any message or memory
an agent keeps, while a 10 MB message (the attack) is refused before it is embedded,
indexed or stored. Characters are counted as Oracle counts them in a CLOB (UTF-16 code
units: a character outside the Basic Multilingual Plane, an emoji, counts two), so both
backends refuse exactly the same texts."""

MAX_KEYWORD_QUERY_CHARS = 4_000
"""Characters of a search query the keyword side reads (the vector side reads what its model
reads). A question is a sentence; a context card without an LLM searches with its last
messages, which may be long. Past this the words are not looked up: the full-text match grew
faster than the query (a 4.7 MB query took 76 s), and Oracle reads the same first 4,000
characters (its text query is built in a VARCHAR2)."""

MAX_HOPS = 5
"""Link hops a search may expand from each hit (``num_hops`` 0..5): each hop is one query
over the relations of the frontier, and five reach far beyond what a context card shows."""

MAX_JSON_DEPTH = 64
"""Nesting levels of objects and arrays in ``metadata``, ``config``, ``parts``, link
metadata and metadata filters (a scalar at the top level is depth 0, ``{"a": 1}`` depth 1).
Real metadata nests a handful of levels; 64 keeps every reader and the filter evaluator far
from Python's recursion limit (about 1,000 frames, hit near depth 987 before this limit)
and well inside Oracle's own JSON limit of 1,000 levels."""

NUMBER_DIGITS = 40
NUMBER_LIMITS = (1e-130, 1e126)
"""A JSON number both backends hold: Oracle stores one as a NUMBER, which python-oracledb
writes from ``str()`` and refuses (DPY-4003) past 40 significant digits or outside these
magnitudes (https://python-oracledb.readthedocs.io/en/stable/user_guide/json_data_type.html,
"IN Bind Type Mapping"; ``write_oracle_number`` in its buffer.pyx)."""

MAX_JSON_KEY_BYTES = 65_535
"""UTF-8 bytes of one JSON field name: OSON's limit (DPY-3020 beyond it; 255 in thick mode
with Oracle Client libraries older than 23)."""

MAX_METADATA_CHARS = 262_144
"""Characters of one ``metadata`` object serialised as compact JSON (record or link).
Metadata holds attributes to filter on (tags, sources, ids); 256 Ki characters leaves room
for the LangGraph store, which keeps each item's value in metadata, while a filtered search
parses a bounded amount per record. Long text belongs in ``content``."""

MAX_FILTER_KEYS = 64
"""Field names plus operators in one metadata filter, counted at every depth. Each top-level
one is a column the embedded store may build over every record, each one a predicate on
Oracle; the attack used 200 ``$not`` keys. As many as MAX_JSON_DEPTH, so a filter can
still name the path to the deepest value a record may store; more than any real query."""

MAX_FILTER_VALUES = 1_000
"""List items in one metadata filter (membership operands and exact lists, counted at every
depth): an ``$array_contains_any`` over a thousand tags is still one predicate per record,
more would be a scan per item."""

MAX_CACHED_FILTER_KEYS = 128
"""Metadata keys the embedded store keeps a filter column for (least recently used is
evicted first). Twice ``MAX_FILTER_KEYS``, so one filter never evicts its own columns."""

SQLITE_VARIABLES_FALLBACK = 999
"""Bound parameters per SQLite statement when the connection cannot say (Python 3.10 has no
``Connection.getlimit``): SQLite's limit before 3.32. Every statement of the embedded store
that binds a list splits it into runs that fit the connection's limit."""


def check_text(value: str, argument: str) -> str:
    """``value`` unchanged when it is valid Unicode; an unpaired surrogate (which no UTF-8
    database can store) is an InvalidArgumentError naming the argument and the position."""
    text_length(value, argument)
    return value


def valid_unicode(value: str) -> bool:
    """Whether ``value`` holds no unpaired surrogate (any UTF-8 database can store it)."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def text_length(value: str, argument: str) -> int:
    """Length of valid Unicode text in UTF-16 code units (what Oracle's ``DBMS_LOB.GETLENGTH``
    reports for a CLOB); an unpaired surrogate is an InvalidArgumentError."""
    if value.isascii():
        return len(value)
    try:
        return len(value.encode("utf-16-le")) // 2
    except UnicodeEncodeError as error:
        raise InvalidArgumentError(
            f"{argument} contains an unpaired surrogate {value[error.start]!r} at "
            f"position {error.start}; text must be valid Unicode"
        ) from None


def check_length(value: str, argument: str, max_chars: int, what: str = "") -> str:
    """Valid Unicode text of at most ``max_chars`` characters (UTF-16 code units)."""
    length = text_length(value, argument)
    if length > max_chars:
        raise InvalidArgumentError(
            f"{argument} has {length} characters{what}, more than the maximum of {max_chars}")
    return value


def check_content(value: str, argument: str) -> str:
    """A record's content: at most MAX_CONTENT_CHARS characters of valid Unicode."""
    return check_length(value, argument, MAX_CONTENT_CHARS)


_COMPACT_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
"""One encoder for every call (``json.dumps`` with options builds a new one each time)."""


def json_text(value: Any, argument: str, max_chars: int | None = None) -> str:
    """Compact JSON of an object argument (metadata, config, parts) after checking it holds
    only JSON (string keys, finite numbers), nests at most MAX_JSON_DEPTH levels, is valid
    Unicode and, with ``max_chars``, serialises to at most that many characters."""
    check_json(value, argument)
    text = _COMPACT_JSON.encode(value)
    if max_chars is None:
        return check_text(text, argument)
    return check_length(text, argument, max_chars, " as JSON")


_PLAIN_SCALARS = frozenset((str, bool, type(None)))
_SMALL_INT = 10 ** NUMBER_DIGITS


def _plain_scalar(item: Any) -> bool:
    kind = type(item)
    return (kind in _PLAIN_SCALARS or (kind is int and -_SMALL_INT < item < _SMALL_INT)
            or (kind is float and (item == 0.0 or NUMBER_LIMITS[0] <= abs(item)
                                   < NUMBER_LIMITS[1])))


def _number_fits(number: int) -> bool:
    """At most NUMBER_DIGITS significant digits and below 1e126 in magnitude."""
    if -_SMALL_INT < number < _SMALL_INT:
        return True
    if abs(number).bit_length() > 419:  # 2 ** 419 > 1e126 (and str() stays short)
        return False
    digits = str(abs(number))
    return len(digits) <= 126 and len(digits.rstrip("0")) <= NUMBER_DIGITS


def _key_fits(key: str) -> bool:
    return len(key) * 4 <= MAX_JSON_KEY_BYTES or len(key.encode("utf-8", "surrogatepass")) \
        <= MAX_JSON_KEY_BYTES


def _shown(number: int) -> str:
    try:
        text = str(number)
    except ValueError:
        return "(of more than 4,300 digits)"
    return text if len(text) <= 50 else f"{text[:20]}...({len(text)} digits)"


def _flat(value: Any) -> bool:
    """A dict of string keys whose values are JSON scalars or lists of them: the common
    metadata, accepted without the general walk (ingestion checks one per record)."""
    if type(value) is not dict:
        return False
    for key, item in value.items():
        if type(key) is not str or len(key) * 4 > MAX_JSON_KEY_BYTES:
            return False
        if type(item) is list:
            if not all(_plain_scalar(part) for part in item):
                return False
        elif not _plain_scalar(item):
            return False
    return True


def check_json(value: Any, argument: str) -> None:
    """Reject what JSON cannot hold exactly (non-string keys, NaN, other Python types) and
    nesting deeper than MAX_JSON_DEPTH. A loop over a work list, not recursion: it must
    answer with a ValueError for a value nested 10,000 levels deep. A value of a type JSON
    has not is an ArgumentTypeError (a TypeError and a ValueError)."""
    if _flat(value):
        return
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int or (isinstance(item, int) and not isinstance(item, bool)):
            if not _number_fits(int(item)):
                raise InvalidArgumentError(
                    f"{argument} holds the integer {_shown(item)}, which has more than "
                    f"{NUMBER_DIGITS} significant digits or is 1e126 or more")
            continue
        if kind is float or isinstance(item, float):
            if not math.isfinite(item):
                raise InvalidArgumentError(f"{argument} contains a NaN or infinite number")
            if item and not NUMBER_LIMITS[0] <= abs(item) < NUMBER_LIMITS[1]:
                raise InvalidArgumentError(
                    f"{argument} holds the number {item!r}, outside the magnitudes a stored "
                    "number may have (1e-130 to 1e126, or 0)")
            continue
        if isinstance(item, (dict, list, tuple)):  # what the encoder writes (no other Mapping)
            if depth >= MAX_JSON_DEPTH:
                raise InvalidArgumentError(
                    f"{argument} nests objects and arrays more than {MAX_JSON_DEPTH} levels "
                    "deep"
                )
            if isinstance(item, dict):
                for key in item:
                    if not isinstance(key, str):
                        raise ArgumentTypeError(
                            f"{argument} keys must be strings, got {key!r}")
                    if not _key_fits(key):
                        raise InvalidArgumentError(
                            f"{argument} has a key of more than {MAX_JSON_KEY_BYTES:,} bytes "
                            "as UTF-8")
                pending.extend((child, depth + 1) for child in item.values())
            else:
                pending.extend((child, depth + 1) for child in item)
        elif not isinstance(item, (str, int)):
            # A TypeError (json.dumps says the same) and a ValueError, as the reference.
            raise ArgumentTypeError(
                f"{argument} holds a value of type {type(item).__name__}, which is not JSON"
            )


class FilterBudget:
    """Counts the keys and list items of one metadata filter while it is validated."""

    def __init__(self) -> None:
        self.keys = 0
        self.values = 0

    def key(self, path: str) -> None:
        self.keys += 1
        if self.keys > MAX_FILTER_KEYS:
            raise InvalidFilterError(
                f"metadata_filter has more than {MAX_FILTER_KEYS} field names and operators "
                f"(at {path!r})"
            )

    def items(self, count: int, path: str) -> None:
        self.values += count
        if self.values > MAX_FILTER_VALUES:
            raise InvalidFilterError(
                f"metadata_filter has more than {MAX_FILTER_VALUES} list items (at {path!r})"
            )


def nesting_depth(value: Any, stop_after: int = MAX_JSON_DEPTH) -> int:
    """Levels of objects and arrays in ``value`` (0 for a scalar), counted without recursion
    and no further than ``stop_after + 1``."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > stop_after:
            return deepest
        pending.extend((child, depth + 1) for child in children)
    return deepest
