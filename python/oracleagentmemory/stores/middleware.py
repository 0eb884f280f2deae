"""The middleware chain every path to a backend passes, assembled where it is opened.

Why: the guards (the contract's input limits, an end user's row rules) and observation
must hold for every caller of a backend (the client and its threads, ``client.store``, a
standalone ``OracleDBMemoryStore``, the CLI, MCP and LangGraph), and each used to be a full
copy of the contract that passed every operation through by hand. Here a layer is a
``Runner`` of operations (``stores.operations``) that passes on every operation except
those it has a handler for, a method named ``on_<operation name>``; so a layer is only the
rules it adds, and an operation added to the contract passes every layer unchanged, unless
a layer says otherwise for operations it does not know (the end-user guard refuses them).

``stores.guarded`` assembles the chain once, where a backend is opened; its result, a
``GuardedStore``, is a ``StoreBackend``: callers keep calling typed methods.
"""

from __future__ import annotations

from typing import Any, cast

from oracleagentmemory.observability.instrumentation import observe_operation
from oracleagentmemory.stores.operations import Operation, R, Runner, StoreCalls
from oracleagentmemory.stores.protocol import StoreBackend


class BackendEnd:
    """The end of a chain: runs each operation on the backend's own method."""

    def __init__(self, backend: StoreBackend) -> None:
        self.backend = backend

    def run(self, operation: Operation[R]) -> R:
        return operation.send(self.backend)


class Layer:
    """One middleware layer. An operation goes to the layer's ``on_<name>`` handler when it
    has one, else to ``passed`` (which runs it on the next layer). ``below`` calls the next
    layer with typed methods, for a handler that needs other operations."""

    def __init__(self, inner: Runner) -> None:
        self.inner = inner
        self.below = StoreCalls(inner)

    def run(self, operation: Operation[R]) -> R:
        handler = getattr(self, f"on_{operation.name}", None)
        if handler is None:
            return self.passed(operation)
        return cast(R, handler(operation))

    def passed(self, operation: Operation[R]) -> R:
        """An operation this layer has no handler for."""
        return self.inner.run(operation)


class ObservationLayer(Layer):
    """Every operation emits its memory-store started and completed events."""

    def __init__(self, inner: Runner, concrete_class: str) -> None:
        super().__init__(inner)
        self.concrete_class = concrete_class

    def run(self, operation: Operation[R]) -> R:
        with observe_operation("memory_store", operation.name, operation_kind=operation.kind,
                               concrete_class=self.concrete_class,
                               arguments=operation.arguments()) as observed:
            result = self.inner.run(operation)
            observed.set_result(result)
            return result


class GuardedStore(StoreCalls):
    """A backend behind its middleware chain: the ``StoreBackend`` every caller uses.

    ``inner`` is the backend itself (for what is not part of the contract, such as its
    description attributes)."""

    def __init__(self, backend: StoreBackend, runner: Runner) -> None:
        super().__init__(runner)
        self.inner = backend

    @property
    def embedding_dimension(self) -> Any:
        return getattr(self.inner, "embedding_dimension", None)
