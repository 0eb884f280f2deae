"""The contract's input limits reach the Oracle backend too.

The client checks them in Python before anything is sent (stores/limits_guard.py), so a
Python caller gets the embedded store's error, naming the same argument, and the database
is never called; the packages check the sizes again for PL/SQL callers.
"""

from __future__ import annotations

import pytest

pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.core.memory_service import MemoryService  # noqa: E402
from oracleagentmemory.stores.errors import (  # noqa: E402
    InvalidArgumentError,
    InvalidFilterError,
)
from tests.support.oracle import backend_on_double  # noqa: E402


def deep(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = {"k": value}
    return value


@pytest.mark.parametrize(("call", "error", "argument"), [
    (lambda b: b.write_records([{"record_type": "memory", "metadata": deep(10_000)}]),
     InvalidArgumentError, r"records\[0\]\.metadata nests"),
    (lambda b: b.write_records([{"record_type": "memory", "content": "x" * 1_000_001}]),
     InvalidArgumentError, r"records\[0\]\.content has 1000001 characters"),
    (lambda b: b.write_records([{"record_type": "memory", "content": "\ud800"}]),
     InvalidArgumentError, r"records\[0\]\.content contains an unpaired surrogate"),
    (lambda b: b.update_record("m", ["memory"], {"metadata": {"k": "v" * 300_000}}),
     InvalidArgumentError, r"changes\.metadata has \d+ characters as JSON"),
    (lambda b: b.search({"query_text": "x", "strategy": "KEYWORD",
                         "metadata_filter": {f"k{i}": {"$not": i} for i in range(200)}}),
     InvalidFilterError, "more than 64 field names and operators"),
    (lambda b: b.get_records({"metadata_filter": deep(10_000)}),
     InvalidFilterError, "levels deep"),
])
def test_the_client_checks_limits_before_calling_the_database(call, error, argument):
    store, connection = backend_on_double()
    service = MemoryService(store, embedder=None)
    with pytest.raises(error, match=argument):
        call(service.backend)
    assert connection.calls == []
