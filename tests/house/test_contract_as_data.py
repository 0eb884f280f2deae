"""The store contract declared once (stores.operations) and the chain built from it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from oracleagentmemory.core.deepsec import OracleMemoryEndUserSecurityContext
from oracleagentmemory.observability.event import OperationKind
from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.end_user_guard import SecuritySettings
from oracleagentmemory.stores.guarded import guarded
from oracleagentmemory.stores.operations import OPERATIONS, Operation, StoreCalls
from oracleagentmemory.stores.protocol import SearchRequest, StoreBackend
from oracleagentmemory.stores.search_request import CheckedRequest


def test_every_protocol_method_is_one_declared_operation_and_one_typed_call():
    methods = {name for name in vars(StoreBackend) if not name.startswith("_")}
    assert {op.name for op in OPERATIONS} == methods
    assert all(callable(getattr(StoreCalls, op.name)) for op in OPERATIONS)


@dataclass(frozen=True)
class Unruled(Operation[int]):
    """An operation no layer has a rule for (as a newly added one would be)."""

    name = "count_everything"
    kind = OperationKind.READ

    def send(self, backend: StoreBackend) -> int:
        return len(backend.get_records({}))


def test_an_operation_without_an_end_user_rule_passes_outside_a_context_only(tmp_path):
    backend = EmbeddedBackend(tmp_path / "s.db", embedding_dimension=2)
    backend.write_records([{"record_type": "memory", "id": "m", "user_id": "bob",
                            "content": "bob's", "embedding": [1, 0]}])
    backend.save_security_settings(SecuritySettings(
        frozenset({"user_own_rows"}), frozenset({("local_user", "alice", "user_own_rows")})))
    store = guarded(backend)
    try:
        assert store.runner.run(Unruled()) == 1
        with OracleMemoryEndUserSecurityContext("alice"), \
                pytest.raises(PermissionError, match="count_everything"):
            store.runner.run(Unruled())
    finally:
        store.close()


def test_a_checked_search_request_has_exactly_the_requests_fields_all_present():
    # CheckedRequest is SearchRequest's total twin, written twice (a TypedDict cannot derive
    # one from the other): a field added to one must be added to the other
    assert set(CheckedRequest.__annotations__) == set(SearchRequest.__annotations__)
    assert CheckedRequest.__required_keys__ == frozenset(SearchRequest.__annotations__)
    assert SearchRequest.__required_keys__ == frozenset()
