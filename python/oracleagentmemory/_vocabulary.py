"""The record-type vocabulary of the store contract, defined once.

The public types (``apis.records``), both backends and the rendered PL/SQL take their
names from here. The contract calls a thread's rolling summary ``summary``; the public API
calls the same record ``thread_summary``.
"""

from __future__ import annotations

MEMORY_TYPES: tuple[str, ...] = ("memory", "fact", "guideline", "preference")
"""Memory-like record types: extracted or added knowledge, linkable to each other."""

SEARCHABLE_TYPES: tuple[str, ...] = (
    *MEMORY_TYPES, "message", "image", "user_profile", "agent_profile",
)
"""Record types that carry a vector and can be returned by a search."""

SUMMARY_TYPE = "summary"
"""The record type of a thread's rolling summary (its id is the thread's)."""
ALL_TYPES: tuple[str, ...] = (*SEARCHABLE_TYPES, "thread", SUMMARY_TYPE)
"""Every record type a store keeps (contract names)."""

STATUSES: tuple[str, ...] = ("VALID", "INVALID")
"""Lifecycle statuses as the contract stores them."""

TTL_ANCHORS: tuple[str, ...] = ("CREATED_AT", "TIMESTAMP")
"""What a time to live counts from, as the contract names it."""

SECURITY_POLICIES: tuple[str, ...] = ("user_own_rows", "global_memories")
"""Deep data security policies a store can register (``core.deepsec``): an end user's own
rows, and read access to the memories of no user. The Oracle tables store them upper-case."""

PRINCIPAL_KINDS: tuple[str, ...] = ("local_user", "group")
"""Whom a deep data security policy is granted to: one end user, or every end user in a
group. The Oracle tables store them upper-case."""

PUBLIC_RECORD_TYPES: dict[str, str] = {"summary": "thread_summary"}
"""Contract record type -> public record type, where the names differ."""
CONTRACT_RECORD_TYPES: dict[str, str] = {v: k for k, v in PUBLIC_RECORD_TYPES.items()}
"""Public record type -> contract record type, where the names differ."""

LANGGRAPH_ENVELOPE = "langgraph"
"""Metadata key under which the LangGraph store keeps an item's bookkeeping (namespace, key,
prefixes, parts, TTL): read by the LangGraph view only, hidden from every other reader
(``core.records.public_metadata``) and kept through their metadata updates."""
LANGGRAPH_ITEM_KIND = "langgraph_store_item"
"""The ``kind`` of that bookkeeping: a ``langgraph`` key without it is ordinary metadata."""
