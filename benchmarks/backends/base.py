"""What every adapter offers the worker: ingest, reopen, search by workload, close."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.dataset import Query, ScaleData

WORKLOADS = ("user", "user_filter", "unscoped", "hops2", "hybrid_user")
"""user: exact user scope; user_filter: plus {"topic": t}; unscoped: no scope at all;
hops2: user scope with num_hops=2 link expansion; hybrid_user: user scope, hybrid ranking."""


class Adapter:
    """Base adapter; a workload the system cannot express raises NotImplementedError."""

    name = "base"
    supports: tuple[str, ...] = ()

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir

    def ingest(self, data: ScaleData) -> dict[str, Any]:
        """Store every record of ``data``; returns extra facts to report."""
        raise NotImplementedError

    def open(self) -> None:
        """Open what ``ingest`` wrote, in a fresh process, ready to search."""
        raise NotImplementedError

    def search(self, workload: str, query: Query, k: int = 10) -> list[str]:
        """Ids of the top ``k`` records for ``query`` under ``workload``."""
        raise NotImplementedError

    def add_messages(self, user: str, ids: list[str], texts: list[str],
                     vectors: Any) -> None:
        """Append chat messages with their vectors to the opened store (end-to-end runs)."""
        raise NotImplementedError

    def disk_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.workdir.rglob("*") if p.is_file())

    def close(self) -> None:
        pass
