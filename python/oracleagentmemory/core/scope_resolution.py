"""Resolution of search scopes per API layer (thread, client, store).

Each dimension resolves to ``{"value": id-or-None, "exact": bool}``; a dimension left out
of the result is unconstrained. The layer defaults are the table in docs/concepts.md:

* thread: user and agent of the thread, exact; the thread's own id, not exact;
* client: ``user_id`` must be given and exact; agent and thread stay broad when omitted;
* store: every omitted dimension is unconstrained.
"""

from __future__ import annotations

from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.apis.searchscope import SearchScope
from oracleagentmemory.core.arguments import scope_id
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError
from oracleagentmemory.stores.protocol import ScopeDimension

Scope = dict[str, ScopeDimension]
"""Resolved search scope: dimension name -> {"value", "exact"}; absent = unconstrained."""

DIMENSIONS = (("user_id", "exact_user_match"), ("agent_id", "exact_agent_match"),
              ("thread_id", "exact_thread_match"))
OMITTED: dict[str, Any] = {name: NOT_SET_MARKER for pair in DIMENSIONS for name in pair}
"""Scope arguments with every id and flag omitted."""


def scope_arguments(scope: Any, explicit: dict[str, Any]) -> dict[str, Any]:
    """Merge a prebuilt SearchScope with explicit arguments; giving both is a ValueError."""
    given = {name: value for name, value in explicit.items() if value is not NOT_SET_MARKER}
    if scope is NOT_SET_MARKER or scope is None:
        values = dict(explicit)
    else:
        if not isinstance(scope, SearchScope):
            raise ArgumentTypeError(f"scope must be a SearchScope, got {type(scope).__name__}")
        if given:
            raise InvalidArgumentError(
                "pass either scope or explicit ids and exact-match flags, not both "
                f"(got scope and {', '.join(sorted(given))})"
            )
        values = {name: getattr(scope, name) for name in explicit}
    for id_name, _ in DIMENSIONS:  # integer ids as their text, as everywhere in scope
        if values[id_name] is not NOT_SET_MARKER:
            values[id_name] = scope_id(values[id_name], id_name)
    # Validate the flags through SearchScope's own checks.
    SearchScope(**values)
    return values


def _flag(values: dict[str, Any], name: str, default: bool) -> bool:
    value = values[name]
    return default if value is NOT_SET_MARKER else value


def thread_scope(values: dict[str, Any], user_id: str | None, agent_id: str | None,
                 thread_id: str) -> Scope:
    defaults: dict[str, tuple[str | None, bool]] = {
        "user_id": (user_id, True), "agent_id": (agent_id, True),
        "thread_id": (thread_id, False)}
    return _resolve(values, defaults)


def client_scope(values: dict[str, Any]) -> Scope:
    if values["user_id"] is NOT_SET_MARKER:
        raise InvalidArgumentError(
            "user_id is required for client searches: pass a user id, or None with "
            "exact_user_match=True to target records without a user"
        )
    if values["exact_user_match"] is False:
        raise InvalidArgumentError(
            "exact_user_match=False is not allowed for client searches: client searches "
            "need an exact user scope"
        )
    resolved: Scope = {
        "user_id": {"value": values["user_id"], "exact": True}
    }
    for id_name, flag_name in DIMENSIONS[1:]:
        value = values[id_name]
        if value is NOT_SET_MARKER:
            if values[flag_name] is True:
                raise InvalidArgumentError(
                    f"{flag_name}=True needs an explicit {id_name} (an id or None)")
            continue
        resolved[id_name] = {"value": value, "exact": _flag(values, flag_name, True)}
    return resolved


def store_scope(values: dict[str, Any]) -> Scope:
    defaults: dict[str, tuple[str | None, bool]] = {
        id_name: (None, False) for id_name, _ in DIMENSIONS}
    return _resolve(values, defaults)


def _resolve(values: dict[str, Any], defaults: dict[str, tuple[str | None, bool]]) -> Scope:
    resolved: Scope = {}
    for id_name, flag_name in DIMENSIONS:
        default_value, default_exact = defaults[id_name]
        value = values[id_name]
        resolved[id_name] = {
            "value": default_value if value is NOT_SET_MARKER else value,
            "exact": _flag(values, flag_name, default_exact),
        }
    return resolved
