"""Lists bound into SQLite statements, split to fit the connection's parameter limit.

Why: SQLite refuses a statement with more bound parameters than
``SQLITE_LIMIT_VARIABLE_NUMBER`` ("too many SQL variables"): 32,766 on many builds, 999
before 3.32. A user with ~125K memories could then never be erased (``delete_cascade``
bound every id twice in one statement) and expired rows never purged. Every statement of
the embedded store that binds a list of ids, seqs or pairs takes its list through
:func:`runs`, which reads the limit from the connection at each call (so a test can lower it
with ``Connection.setlimit`` and prove the splitting with real statements).
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from oracleagentmemory.stores.limits import SQLITE_VARIABLES_FALLBACK

T = TypeVar("T")

MAX_RUN = 500
"""Items per statement even when the limit allows more: long enough that per-statement
overhead is negligible, short enough that no statement text grows large."""


def variable_limit(conn: Any) -> int:
    """Bound parameters one statement of ``conn`` may have."""
    if sys.version_info < (3, 11):  # no Connection.getlimit
        return SQLITE_VARIABLES_FALLBACK
    return int(conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER))


def run_length(conn: Any, per_item: int = 1, reserved: int = 0) -> int:
    """Items of a list per statement when each binds ``per_item`` parameters and the
    statement binds ``reserved`` others."""
    room = variable_limit(conn) - reserved
    if room < per_item:
        raise RuntimeError(f"SQLite allows {variable_limit(conn)} parameters per statement; "
                           f"this statement needs at least {reserved + per_item}")
    return min(MAX_RUN, room // per_item)


def runs(conn: Any, items: Sequence[T], per_item: int = 1,
         reserved: int = 0) -> Iterator[Sequence[T]]:
    """``items`` in consecutive runs that each fit one statement (see :func:`run_length`)."""
    size = run_length(conn, per_item, reserved)
    for start in range(0, len(items), size):
        yield items[start : start + size]


def marks(values: Sequence[Any]) -> str:
    """``?, ?, ...``: one placeholder per value."""
    return ", ".join("?" for _ in values)
