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

ADAPTER_LACKS = frozenset({"keyword_search", "any_image_bytes", "cascade_counts", "expiry_times"})
"""What the public interface cannot carry, so a store reached through it does not give the
contract (docs/custom-store.md, "What the adapter gives")."""


HIDDEN_HERE = frozenset({"whole_metadata"})
"""What the store behind the adapter here lacks: our own ``OracleDBMemoryStore`` gives its
public records without the LangGraph store's bookkeeping (the LangGraph store reads the
contract records), so the adapter never sees it; a store of yours that keeps metadata as
given has it."""


@pytest.fixture
def store_capabilities() -> frozenset[str]:
    return frozenset(CAPABILITIES) - ADAPTER_LACKS - HIDDEN_HERE


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
