"""The guards every path to a store passes, put on a backend where it is opened.

Why: the end-user rules (row security the database has on Oracle, applied to the embedded
backend) and the contract's input limits must hold for every caller of a backend: the
client and its threads, ``client.store``, a standalone ``OracleDBMemoryStore``, the CLI,
MCP and LangGraph. Assembled inside the client's service, they were skipped by the
others (issue 28, item 9).
"""

from __future__ import annotations

from oracleagentmemory.stores.end_user_guard import EndUserGuard
from oracleagentmemory.stores.limits_guard import LimitsGuard
from oracleagentmemory.stores.protocol import StoreBackend


def guarded(backend: StoreBackend) -> StoreBackend:
    """``backend`` behind the end-user guard (when it has no row security of its own, that
    is when it keeps ``security_settings`` for the guard) and the limits guard (unless it
    declares ``checks_input_limits``). A backend already guarded is returned as it is."""
    if isinstance(backend, (EndUserGuard, LimitsGuard)):
        return backend
    checks_limits = getattr(backend, "checks_input_limits", False) is True
    settings = getattr(backend, "security_settings", None)
    wrapped: StoreBackend = backend
    if callable(settings):
        wrapped = EndUserGuard(wrapped, settings)
    if not checks_limits:
        wrapped = LimitsGuard(wrapped)
    return wrapped
