"""A store clock a test sets (nothing sleeps), and a client on an in-memory store using it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.stores.embedded import EmbeddedBackend
from tests.support.embedders import HashingEmbedder

START = datetime(2026, 5, 1, 12, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, minutes: float) -> None:
        self.now += timedelta(minutes=minutes)


@contextmanager
def clocked_client(clock: Clock) -> Iterator[OracleAgentMemory]:
    """A client on an in-memory embedded store whose clock is ``clock``."""
    embedder = HashingEmbedder()
    backend = EmbeddedBackend(":memory:", embedding_dimension=embedder.embedding_dimension,
                              clock=clock)
    with OracleAgentMemory(connection=backend, embedder=embedder) as opened:
        yield opened
