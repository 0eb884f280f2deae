"""The slots of each user, so a user-scoped search does not compare every record's user.

Why: finding a user's records compared the user code of every cached record on every
search, O(records) however small the user (0.6 ms at a million records, and a fresh
process's first search faulted the whole column in first). A vector file holds each user's
slots, ascending, as they were when it was written (``covered`` slots); records the cache
appended since are found by comparing only theirs. The cache drops the index when a slot it
covers changes user or slots are renumbered, and compares every code again, as before.

The index is checked so that damage to it never hides a record: its offsets carry a CRC
(a file whose offsets fail it is not used), and where a user's slots are read, a range
outside the slots, slots not ascending inside the covered ones, or a slot holding another
user's code raise ``DamagedFile`` (SQLite is read again). With each user's count right, a
slot missing from the user's list means another user's slot in its place, which the last
check finds (it reads the codes of the user's slots only, as the search reads their other
columns)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from oracleagentmemory.stores.embedded.record_terms import DamagedFile

_NO_SLOTS = np.zeros(0, dtype=np.int64)

ReadAhead = Callable[[int, int], None]
"""Asked to read entries or slots ``[first, stop)`` from the file at once, before they are
read (``vector_file.Prefetch``)."""


def index_arrays(users: np.ndarray, codes: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, slots) of the user codes ``users`` (one per slot, each below ``codes``):
    the slots of code c, ascending, are ``slots[offsets[c]:offsets[c + 1]]``."""
    slots = np.argsort(users, kind="stable").astype("<i4")
    offsets = np.zeros(codes + 1, dtype="<i8")
    np.cumsum(np.bincount(users, minlength=codes), out=offsets[1:])
    return offsets, slots


class UserSlots:
    """Each user's slots among the first ``covered`` slots (``index_arrays``' form)."""

    def __init__(self, offsets: np.ndarray, slots: np.ndarray, covered: int,
                 read_ahead: ReadAhead | None = None) -> None:
        self.offsets, self.slots, self.covered = offsets, slots, covered
        self._read_ahead = read_ahead
        """For entries ``[first, stop)`` of ``slots`` (a mapped file's)."""
        self._checked: set[int] = set()
        """Codes whose slots were checked: neither they nor the codes of covered slots
        change while the cache holds this index, so each user's are checked once."""

    def of(self, code: int, user_codes: np.ndarray, size: int,
           reading: ReadAhead | None = None) -> np.ndarray:
        """Ascending slots below ``size`` whose code in ``user_codes`` is ``code``;
        ``reading`` is told the span ``[first, last + 1)`` of the covered ones before their
        codes or any other per-slot column is read there."""
        found = _NO_SLOTS
        if code + 1 < self.offsets.shape[0]:
            low, high = int(self.offsets[code]), int(self.offsets[code + 1])
            if not 0 <= low <= high <= self.slots.shape[0]:
                raise DamagedFile("a user's slots lie outside the index")
            if self._read_ahead is not None:
                self._read_ahead(low, high)
            found = self.slots[low:high].astype(np.int64)
            checked = code in self._checked
            if not checked:
                self._check_order(found)
            if reading is not None and found.shape[0]:
                reading(int(found[0]), int(found[-1]) + 1)
            if not checked:
                self._check_codes(found, code, user_codes)
        if size <= self.covered:
            return found
        tail = np.flatnonzero(user_codes[self.covered:size] == code) + self.covered
        return np.concatenate((found, tail)) if found.shape[0] else tail

    def _check_order(self, found: np.ndarray) -> None:
        if found.shape[0] and (int(found[0]) < 0 or int(found[-1]) >= self.covered
                               or bool((found[1:] <= found[:-1]).any())):
            raise DamagedFile("a user's slots are not ascending slots of the file")

    def _check_codes(self, found: np.ndarray, code: int, user_codes: np.ndarray) -> None:
        if bool((user_codes[found] != code).any()):
            raise DamagedFile("a user's slots hold another user's record")
        self._checked.add(code)
