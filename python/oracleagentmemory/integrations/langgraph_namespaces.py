"""How LangGraph namespaces map to memory scopes and to filterable record metadata.

A LangGraph item lives at ``(namespace, key)``. Stored as a memory record, it needs:

- **scope** (``user_id``, ``agent_id``, ``thread_id``), so the rest of the memory system
  (thread searches, context cards, ``delete_user`` / ``delete_thread`` cascades) sees it.
  The default mapper reads labels in pairs: the label after ``"users"`` is the user id,
  after ``"agents"`` the agent id, after ``"threads"`` the thread id; other labels only
  organise. ``("users", "alice", "memories")`` is user ``alice``;
  ``("users", "alice", "agents", "travel")`` is user ``alice`` with agent ``travel``;
  ``("docs",)`` has no scope. Pass any callable for a different mapping.
- **identity and prefixes** in metadata: the namespace, the key, and every prefix of the
  namespace joined with ``"."`` (LangGraph forbids periods in labels, so the join is
  unambiguous), which turns a prefix search into one ``$array_contains`` filter.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any, NamedTuple

from oracleagentmemory._vocabulary import LANGGRAPH_ENVELOPE, LANGGRAPH_ITEM_KIND

ENVELOPE = LANGGRAPH_ENVELOPE
"""Metadata key holding an item's identity; the item's value sits under ``"value"``. Only
the LangGraph view sees it: every other reader gets the metadata without it."""
VALUE = "value"
KIND = LANGGRAPH_ITEM_KIND


class NamespaceScope(NamedTuple):
    """The memory scope an item's namespace stands for.

    Args:
        user_id: The user the item belongs to. None (the default): not scoped on users.
        agent_id: The agent the item belongs to. None (the default): not scoped on agents.
        thread_id: The thread the item belongs to. None (the default): not scoped on
            threads.
    """

    user_id: str | None = None
    agent_id: str | None = None
    thread_id: str | None = None


NamespaceMapper = Callable[[tuple[str, ...]], NamespaceScope]

_PAIR_LABELS = {"users": "user_id", "agents": "agent_id", "threads": "thread_id"}


def default_namespace_mapper(namespace: tuple[str, ...]) -> NamespaceScope:
    """The scope of a namespace read in pairs: the label after ``"users"`` is the user id,
    after ``"agents"`` the agent id, after ``"threads"`` the thread id; other labels only
    organise, and the first pair of each kind wins.

    Args:
        namespace: The item's namespace, such as ``("users", "alice", "memories")``.

    Returns:
        The scope (``NamespaceScope(user_id="alice")`` for the example); a dimension
        without its pair is None.
    """
    found: dict[str, str] = {}
    index = 0
    while index < len(namespace) - 1:
        field = _PAIR_LABELS.get(namespace[index])
        if field is not None and field not in found:
            found[field] = namespace[index + 1]
            index += 2
        else:
            index += 1
    return NamespaceScope(**found)


def namespace_path(namespace: tuple[str, ...]) -> str:
    """The namespace as LangGraph's own stores spell it: labels joined with '.'."""
    return ".".join(namespace)


def namespace_prefixes(namespace: tuple[str, ...]) -> list[str]:
    """Every non-empty prefix of the namespace, as paths (the last is the namespace)."""
    return [namespace_path(namespace[:length]) for length in range(1, len(namespace) + 1)]


def item_id(namespace: tuple[str, ...], key: str) -> str:
    """A stable record id for ``(namespace, key)``: fixed length, whatever the labels."""
    digest = hashlib.sha256(json.dumps([list(namespace), key]).encode()).hexdigest()
    return f"lg-{digest[:48]}"


def part_id(primary_id: str, part: int) -> str:
    """Record id of an item's extra vector (one per indexed text after the first)."""
    return primary_id if part == 0 else f"{primary_id}-{part}"


def envelope(namespace: tuple[str, ...], key: str, part: int, parts: int,
             indexed: bool) -> dict[str, Any]:
    """The identity metadata every record of an item carries."""
    return {
        "kind": KIND, "namespace": list(namespace), "key": key,
        "prefixes": namespace_prefixes(namespace), "part": part, "parts": parts,
        "indexed": indexed,
    }


def prefix_filter(namespace_prefix: tuple[str, ...], **fields: Any) -> dict[str, Any]:
    """A metadata filter selecting items under a namespace prefix (``()``: every item)."""
    selector: dict[str, Any] = {"kind": KIND, **fields}
    if namespace_prefix:
        selector["prefixes"] = {"$array_contains": namespace_path(namespace_prefix)}
    return {ENVELOPE: selector}
