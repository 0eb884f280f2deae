"""The guards every path to a store passes, put on a backend where it is opened.

Why: the end-user rules (row security the database has on Oracle, applied to the embedded
backend) and the contract's input limits must hold for every caller of a backend: the
client and its threads, ``client.store``, a standalone ``OracleDBMemoryStore``, the CLI,
MCP and LangGraph. Assembled inside the client's service, they were skipped by the
others. The chain (``stores.middleware``), outermost first: observation, the limits guard
(unless the backend declares ``checks_input_limits``), the end-user guard (when the backend
has no row security of its own: it keeps ``security_settings`` for the guard), the backend
(a caller's own ``IMemoryStore`` through ``InterfaceBackend``).
"""

from __future__ import annotations

from oracleagentmemory.stores.end_user_guard import EndUserGuard
from oracleagentmemory.stores.limits_guard import LimitsGuard
from oracleagentmemory.stores.middleware import BackendEnd, GuardedStore, ObservationLayer
from oracleagentmemory.stores.operations import Runner
from oracleagentmemory.stores.protocol import StoreBackend


def guarded(backend: StoreBackend) -> GuardedStore:
    """``backend`` behind the chain every path to a store passes. A backend already
    guarded is returned as it is."""
    if isinstance(backend, GuardedStore):
        return backend
    runner: Runner = BackendEnd(backend)
    settings = getattr(backend, "security_settings", None)
    if callable(settings):
        runner = EndUserGuard(runner, settings)
    if getattr(backend, "checks_input_limits", False) is not True:
        runner = LimitsGuard(runner)
    return GuardedStore(backend, ObservationLayer(runner, type(backend).__name__))
