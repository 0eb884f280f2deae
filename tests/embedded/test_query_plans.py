"""Writes and lookups by id search an index; none reads every record or every relation.

Why: a batch with links looked its endpoint pairs up with ``(pair_low, pair_high) IN
(VALUES ...)``, which SQLite answers by scanning the relations table, so each batch cost
more as the store grew (ingestion slowed with size). Lookups by id that named record types
but not the id space (an update, a delete, a read by ids) searched every record of those
types. Costs are read off SQLite's query plans, never timed: every statement an operation
runs (the trace callback gives each with its values) is explained after it ran.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend

SKIPPED = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "PRAGMA", "--")


@contextmanager
def statements(store: EmbeddedBackend) -> Iterator[list[str]]:
    """The statements run on the store's one connection (``:memory:``) meanwhile."""
    seen: list[str] = []
    store._conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        store._conn.set_trace_callback(None)


def plans(store: EmbeddedBackend, operation: Callable[[], Any]) -> list[tuple[str, str]]:
    """(statement, plan step) of every statement ``operation`` runs."""
    with statements(store) as seen:
        operation()
    steps = []
    for sql in seen:
        if sql.lstrip().upper().startswith(SKIPPED):
            continue
        for row in store._conn.execute("EXPLAIN QUERY PLAN " + sql):
            steps.append((sql, row[3]))
    return steps


def full_scans(steps: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(sql, step) for sql, step in steps
            if step.startswith(("SCAN records", "SCAN relations", "SCAN r"))]


def by_type_only(steps: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Lookups naming ids that search an index by record type alone."""
    return [(sql, step) for sql, step in steps
            if " id = " in sql or " id IN " in sql
            if step.startswith("SEARCH") and "(record_type=?)" in step]


def memory(index: int, user: str = "u1") -> dict[str, Any]:
    return {"record_type": "memory", "id": f"m{index}", "user_id": user, "thread_id": "t1",
            "content": f"note {index}", "embedding": [1.0, float(index)]}


@pytest.fixture
def store() -> Iterator[EmbeddedBackend]:
    opened = EmbeddedBackend(":memory:", embedding_dimension=2)
    opened.write_records([memory(index) for index in range(40)], links=[
        {"source_id": f"m{index}", "source_type": "memory", "target_id": f"m{index + 1}",
         "target_type": "memory", "relation_type": "supports"} for index in range(0, 38, 2)])
    yield opened
    opened.close()


def test_a_batch_with_links_reads_no_table_whole(store: EmbeddedBackend) -> None:
    links = [{"source_id": f"m{index}", "source_type": "memory", "target_id": f"m{index - 40}",
              "target_type": "memory", "relation_type": "refines"} for index in range(40, 60)]
    steps = plans(store, lambda: store.write_records(
        [memory(index) for index in range(40, 60)], links=links))
    assert any("relations" in sql and "pair_low" in sql for sql, _ in steps)
    assert full_scans(steps) == []
    assert len(store.list_links({})) == 19 + 20


def test_lookups_by_id_search_the_id_index(store: EmbeddedBackend) -> None:
    operations: list[Callable[[], Any]] = [
        lambda: store.update_record("m3", ["memory", "fact"], {"content": "changed"}),
        lambda: store.get_records({"ids": ["m4", "m5"], "record_types": ["memory"]}),
        lambda: store.get_records({"ids": ["m4", "m5"]}),
        lambda: store.delete_records(["m6"], ["memory", "fact"]),
    ]
    for operation in operations:
        steps = plans(store, operation)
        assert steps
        assert full_scans(steps) == [] and by_type_only(steps) == []
    assert [record["content"] for record in store.get_records({"ids": ["m3"]})] == ["changed"]
    assert store.get_records({"ids": ["m6"]}) == []
