"""The slots of each user, so a user-scoped search does not compare every record's user.

Why: finding a user's records compared the user code of every cached record on every
search, O(records) however small the user (0.6 ms at a million records, and a fresh
process's first search faulted the whole column in first). A vector file holds each user's
slots, ascending, as they were when it was written (``covered`` slots); records the cache
appended since are found by comparing only theirs. The cache drops the index when a slot it
covers changes user or slots are renumbered, and compares every code again, as before.

The file's index is checked where it is read: a range outside the slots, or slots not
ascending inside the covered ones, raise ``DamagedFile`` (SQLite is read again)."""

from __future__ import annotations

import numpy as np

from oracleagentmemory.stores.embedded.record_terms import DamagedFile

_NO_SLOTS = np.zeros(0, dtype=np.int64)


def index_arrays(users: np.ndarray, codes: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, slots) of the user codes ``users`` (one per slot, each below ``codes``):
    the slots of code c, ascending, are ``slots[offsets[c]:offsets[c + 1]]``."""
    slots = np.argsort(users, kind="stable").astype("<i4")
    offsets = np.zeros(codes + 1, dtype="<i8")
    np.cumsum(np.bincount(users, minlength=codes), out=offsets[1:])
    return offsets, slots


class UserSlots:
    """Each user's slots among the first ``covered`` slots (``index_arrays``' form)."""

    def __init__(self, offsets: np.ndarray, slots: np.ndarray, covered: int) -> None:
        self.offsets, self.slots, self.covered = offsets, slots, covered

    def of(self, code: int, user_codes: np.ndarray, size: int) -> np.ndarray:
        """Ascending slots below ``size`` whose code in ``user_codes`` is ``code``."""
        found = _NO_SLOTS
        if code + 1 < self.offsets.shape[0]:
            low, high = int(self.offsets[code]), int(self.offsets[code + 1])
            if not 0 <= low <= high <= self.slots.shape[0]:
                raise DamagedFile("a user's slots lie outside the index")
            found = self.slots[low:high].astype(np.int64)
            if found.shape[0] and (int(found[0]) < 0 or int(found[-1]) >= self.covered
                                   or bool((found[1:] <= found[:-1]).any())):
                raise DamagedFile("a user's slots are not ascending slots of the file")
        if size <= self.covered:
            return found
        tail = np.flatnonzero(user_codes[self.covered:size] == code) + self.covered
        return np.concatenate((found, tail)) if found.shape[0] else tail
