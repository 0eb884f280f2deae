"""SQLite's file errors as the library's own, naming the store file.

Why: a missing directory, a read-only file or a full disk reached callers as a bare
``sqlite3.OperationalError`` ("unable to open database file") that said neither which file
nor that it is the storage, not the call, that failed. The embedded store translates the
SQLite result codes of storage failures (``sqlite_errorcode``, Python 3.11+; the message
text before) into a ``StorageError`` (an ``OSError``) and a write lock held past the busy
timeout into an ``OperationTimeoutError`` (a ``TimeoutError``). Anything else is a bug and
stays as raised.
"""

from __future__ import annotations

import sqlite3

from oracleagentmemory.errors import AgentMemoryError, OperationTimeoutError
from oracleagentmemory.stores.errors import StorageError

# SQLite primary result codes (docs/reliability.md, "Pages the code rests on")
_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = (
    3, 5, 6, 8, 10, 11, 13, 14, 26)
_BY_MESSAGE = {
    "unable to open database file": _CANTOPEN,
    "attempt to write a readonly database": _READONLY,
    "database or disk is full": _FULL,
    "disk i/o error": _IOERR,
    "database is locked": _BUSY,
    "database table is locked": _LOCKED,
    "file is not a database": _NOTADB,
    "database disk image is malformed": _CORRUPT,
}
_WHAT = {
    _PERM: "cannot be accessed (permission denied)",
    _READONLY: "is read-only: nothing can be written to it",
    _IOERR: "could not be read or written (disk I/O error)",
    _CORRUPT: "is damaged (the database disk image is malformed)",
    _FULL: "is full: the disk (or the file's size limit) has no room left; nothing of the "
           "operation was written",
    _CANTOPEN: "cannot be opened: does its directory exist, and may this process create "
               "and write files there?",
    _NOTADB: "is not an agent-memory store (not an SQLite database)",
}


def _code(error: sqlite3.Error) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF  # the primary code of an extended one
    return _BY_MESSAGE.get(str(error).lower())


def translated(error: sqlite3.Error, location: str) -> AgentMemoryError | None:
    """The library's error for a storage failure of the store at ``location``; None for
    any other SQLite error."""
    code = _code(error)
    if code in (_BUSY, _LOCKED):
        return OperationTimeoutError(
            f"the store file {location!r} stayed locked by another writer past the busy "
            f"timeout ({error})")
    what = _WHAT.get(code) if code is not None else None
    if what is None:
        return None
    return StorageError(f"the store file {location!r} {what} ({error})")
