"""The store contract's conformance kit: the contract suite, runnable against any store.

The project's own backends run it (``tests/contract/``); a store of yours runs it the same
way (docs/custom-store.md): a pytest module that imports the suite and gives a
``make_store`` fixture, a factory of fresh, empty stores of a given vector dimension::

    import pytest
    from oracleagentmemory.conformance.contract import *  # noqa: F403 (the suite)
    from oracleagentmemory.stores.interface_backend import InterfaceBackend

    @pytest.fixture
    def make_store():
        return lambda dimension=4: InterfaceBackend(MyStore(dimension))

A test that needs more than every store promises names what it needs (``CAPABILITIES``);
override the ``store_capabilities`` fixture with what your store has, and the suite skips
the rest, saying which capability each skip lacks. The kit needs pytest, which the library
itself does not.
"""

from __future__ import annotations

CAPABILITIES: dict[str, str] = {
    "atomic_writes": "a failed batch writes nothing (records, links, replaced records)",
    "utc_timestamps": "event timestamps come back in UTC with microseconds, "
                      "'2026-01-02T01:04:05.000000Z'",
    "keyword_search": "KEYWORD and HYBRID search over the records' words",
    "any_image_bytes": "image records keep any bytes, with the mime_type they were given",
    "cascade_counts": "delete_cascade counts the records and links it deleted",
    "expiry": "ttl_days hides expired records from every read, update and search",
    "expiry_times": "records report created_at and expires_at, and purge_expired removes "
                    "expired records",
    "link_graph": "typed links with their stored direction, walked by search",
    "extraction_counters": "append_messages keeps a thread's extraction counters, and "
                           "update_record layers its settings over the stored ones",
    "scoped_replace": "a replace never replaces a record of another scope",
    "contract_messages": "errors name the contract's own arguments (max_results, ...)",
    "whole_metadata": "metadata reads back whole, the LangGraph store's bookkeeping "
                      "('langgraph') included",
}
"""What a test may need beyond the operations every store offers, by name."""

__all__ = ["CAPABILITIES"]
