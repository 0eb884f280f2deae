"""Metadata filters evaluated over cached per-key columns instead of parsing JSON per row.

Why: a filtered search used to ``json.loads`` the metadata of every candidate and walk the
filter in Python. Here, the first filter on a top-level key builds a column for that key:
one integer code per cached record (interned scalar value, or "missing", or "not an
object", or "complex" with the value kept aside). The common forms, equality with a scalar
and ``$not`` of a scalar, become numpy comparisons; any other expression runs the reference
evaluator (``stores.metadata_filter``) on the surviving candidates only, with the already
parsed value. Semantics are the reference evaluator's, case by case.

Bounded cost: the columns a filter lacks are built together in one pass over the metadata
(each record parsed once, whatever the number of keys), and at most MAX_CACHED_FILTER_KEYS
columns are kept, the least recently used evicted first.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from oracleagentmemory.stores import metadata_filter as mf
from oracleagentmemory.stores.embedded.record_terms import DamagedFile
from oracleagentmemory.stores.limits import MAX_CACHED_FILTER_KEYS

NOT_OBJECT = 0
"""The record's metadata is NULL (or not an object): no filter entry matches it."""
MISSING = 1
"""The metadata object lacks the key."""
COMPLEX = 2
"""The value is a list or an object, kept as parsed JSON in ``KeyColumn.complex``."""
FIRST_SCALAR = 3

_NO_VALUE = object()


def scalar_key(value: Any) -> tuple | None:
    """Hashable identity of a JSON scalar under JSON equality (1 == 1.0, True is not 1)."""
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("num", value)
    if isinstance(value, float):
        return ("num", int(value)) if value.is_integer() else ("num", value)
    if isinstance(value, str):
        return ("str", value)
    return None


class KeyColumn:
    """Codes of one top-level metadata key for every cached slot."""

    def __init__(self, key: str, capacity: int) -> None:
        self.key = key
        self.codes = np.full(capacity, NOT_OBJECT, dtype=np.int32)
        self.complex: dict[int, Any] = {}
        self._codes: dict[tuple, int] = {}
        self._values: list[Any] = []
        self._unchecked = 0
        """How many first slots hold codes read back from a vector file, not checked yet."""

    def code_of(self, value: Any) -> int | None:
        """The code of a scalar already seen, else None (no stored record holds it)."""
        key = scalar_key(value)
        return None if key is None else self._codes.get(key)

    def set(self, slot: int, metadata: Any) -> None:
        self.complex.pop(slot, None)
        if not isinstance(metadata, Mapping):  # no metadata: every key is missing
            self.codes[slot] = MISSING
            return
        value = metadata.get(self.key, _NO_VALUE)
        if value is _NO_VALUE:
            self.codes[slot] = MISSING
            return
        key = scalar_key(value)
        if key is None:
            self.codes[slot] = COMPLEX
            self.complex[slot] = value
            return
        code = self._codes.get(key)
        if code is None:
            code = FIRST_SCALAR + len(self._values)
            self._codes[key] = code
            self._values.append(value)
        self.codes[slot] = code

    @classmethod
    def restored(cls, key: str, codes: np.ndarray, values: list[Any],
                 complex_values: dict[int, Any], size: int) -> KeyColumn:
        """A column as ``values`` and ``complex`` left it (read back from a vector file);
        the codes of its first ``size`` slots (the file's records) are checked when a filter
        first reads them (``check``), not here: a whole column read when the store opens
        cost 0.5 ms at a million records, 9 ms from a file out of the page cache."""
        column = cls(key, 0)
        column.codes, column.complex, column._values = codes, complex_values, list(values)
        column._unchecked = size
        for index, value in enumerate(column._values):
            scalar = scalar_key(value)
            if scalar is None or scalar in column._codes:
                raise ValueError(f"not a scalar column value: {value!r}")
            column._codes[scalar] = FIRST_SCALAR + index
        return column

    def check(self) -> None:
        """Raise ``DamagedFile`` when a code read back from a file stands for no value (a
        damaged file: SQLite is read again); each column's once, in one pass (a negative
        code reads as a huge unsigned one)."""
        used = self.codes[: self._unchecked]
        if used.shape[0] and int(used.view(np.uint32).max()) >= FIRST_SCALAR + len(self._values):
            raise DamagedFile(f"the column of {self.key!r} has codes that stand for nothing")
        self._unchecked = 0

    @property
    def values(self) -> list[Any]:
        """The scalar values, code ``FIRST_SCALAR + i`` standing for ``values[i]``."""
        return self._values

    def token(self, slot: int) -> tuple:
        """What the column holds for ``slot``, as a comparable value."""
        code = int(self.codes[slot])
        if code == NOT_OBJECT:
            return ("not an object",)
        if code == MISSING:
            return ("missing",)
        if code == COMPLEX:
            return ("complex", json.dumps(self.complex.get(slot), sort_keys=True))
        if not FIRST_SCALAR <= code < FIRST_SCALAR + len(self._values):
            return ("no such code", code)
        return ("scalar", scalar_key(self._values[code - FIRST_SCALAR]))

    def grow(self, capacity: int) -> None:
        if capacity > self.codes.shape[0]:
            codes = np.full(capacity, NOT_OBJECT, dtype=np.int32)
            codes[: self.codes.shape[0]] = self.codes
            self.codes = codes

    def matches(self, expression: Any, slot: int) -> bool:
        """The reference evaluator on one slot's stored value."""
        code = int(self.codes[slot])
        if code == NOT_OBJECT:
            return False
        if code == MISSING:
            stored: dict[str, Any] = {}
        elif code == COMPLEX:
            stored = {self.key: self.complex[slot]}
        else:
            stored = {self.key: self._values[code - FIRST_SCALAR]}
        return mf.matches({self.key: expression}, stored)


MetadataLoader = Callable[[], Iterable[tuple[int, str | None]]]
"""Yields (slot, metadata JSON text) for every live cached slot."""


def _parsed(text: str | None) -> Any:
    """A stored metadata text as JSON; a row that cannot be parsed (nested deeper than
    Python's recursion allows, written before the depth limit existed) matches no filter
    instead of failing every filtered search."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except (RecursionError, ValueError):
        return None


class MetadataColumns:
    """Lazily built key columns, kept in step by the record cache."""

    def __init__(self, max_columns: int = MAX_CACHED_FILTER_KEYS) -> None:
        self._columns: OrderedDict[str, KeyColumn] = OrderedDict()
        self._max_columns = max_columns
        self.capacity = 0

    def clear(self, capacity: int) -> None:
        self._columns.clear()
        self.capacity = capacity

    @property
    def active(self) -> bool:
        return bool(self._columns)

    @property
    def columns(self) -> list[KeyColumn]:
        """The built columns, least recently used first."""
        return list(self._columns.values())

    def restore(self, columns: Iterable[KeyColumn]) -> None:
        """Take columns built earlier (read back from a vector file) as built."""
        for column in columns:
            self._columns[column.key] = column

    def grow(self, capacity: int) -> None:
        self.capacity = capacity
        for column in self._columns.values():
            column.grow(capacity)

    def update(self, slot: int, metadata_text: str | None) -> None:
        """A cached slot was (re)written: refresh it in every built column."""
        if not self._columns:
            return
        metadata = _parsed(metadata_text)
        for column in self._columns.values():
            column.set(slot, metadata)

    def forget(self, slot: int) -> None:
        for column in self._columns.values():
            column.codes[slot] = NOT_OBJECT
            column.complex.pop(slot, None)

    def _prepare(self, keys: Iterable[str], load: MetadataLoader) -> dict[str, KeyColumn]:
        """The columns of ``keys``: the missing ones built in one pass over the metadata,
        all of them marked recently used, then the least recently used beyond the bound
        evicted (never one of ``keys``)."""
        wanted = list(dict.fromkeys(keys))
        missing = [KeyColumn(key, self.capacity) for key in wanted if key not in self._columns]
        if missing:
            for slot, text in load():
                metadata = _parsed(text)
                for column in missing:
                    column.set(slot, metadata)
            for column in missing:
                self._columns[column.key] = column
        for key in wanted:
            self._columns.move_to_end(key)
        while len(self._columns) > max(self._max_columns, len(wanted)):
            self._columns.popitem(last=False)
        return {key: self._columns[key] for key in wanted}

    def filter(self, spec: Mapping[str, Any], slots: np.ndarray, load: MetadataLoader
               ) -> np.ndarray:
        """The subset of ``slots`` whose metadata satisfies a validated filter."""
        columns = self._prepare(spec, load) if slots.shape[0] else {}
        for key, expression in spec.items():
            if slots.shape[0] == 0:
                break
            column = columns[key]
            column.check()
            codes = column.codes[slots]
            if scalar_key(expression) is not None:
                code = column.code_of(expression)
                slots = slots[codes == code] if code is not None else slots[:0]
            elif _is_not_scalar(expression):
                code = column.code_of(expression["$not"])
                keep = codes != NOT_OBJECT
                if code is not None:
                    keep &= codes != code
                slots = slots[keep]
            else:
                keep = np.fromiter(
                    (column.matches(expression, int(slot)) for slot in slots),
                    dtype=bool, count=slots.shape[0],
                )
                slots = slots[keep]
        return slots


def _is_not_scalar(expression: Any) -> bool:
    return (
        isinstance(expression, Mapping)
        and len(expression) == 1
        and "$not" in expression
        and scalar_key(expression["$not"]) is not None
    )
