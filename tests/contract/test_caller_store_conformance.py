"""The conformance kit run the way a caller runs it on a store of their own: the embedded
backend behind the public store interface (``OracleDBMemoryStore``), used through the
caller-store adapter (``InterfaceBackend``), with the capabilities that path offers."""

from __future__ import annotations

import pytest

from oracleagentmemory.conformance import CAPABILITIES
from oracleagentmemory.conformance.contract import *  # noqa: F403 (the suite and its fixtures)
from oracleagentmemory.core.dbschemapolicy import SchemaPolicy
from oracleagentmemory.core.oracledbmemorystore import OracleDBMemoryStore
from oracleagentmemory.stores.interface_backend import InterfaceBackend

ADAPTER_LACKS = frozenset({
    "atomic_writes", "utc_timestamps", "keyword_search", "images", "cascades", "expiry",
    "link_graph", "extraction_counters", "scoped_replace", "contract_messages",
    "whole_metadata"})
"""What a store reached through the public interface does not give the contract
(docs/custom-store.md, "What the conformance kit checks")."""


@pytest.fixture
def store_capabilities() -> frozenset[str]:
    return frozenset(CAPABILITIES) - ADAPTER_LACKS


@pytest.fixture
def make_store():
    opened = []

    def factory(dimension: int = 4) -> InterfaceBackend:
        public = OracleDBMemoryStore(None, ":memory:", vector_dim=dimension,
                                     schema_policy=SchemaPolicy.CREATE_IF_NECESSARY)
        opened.append(public)
        return InterfaceBackend(public)

    yield factory
    for public in opened:
        public.close()
