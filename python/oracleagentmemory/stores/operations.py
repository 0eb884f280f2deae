"""The store contract as data: each operation declared once, as a value.

Why: the operations used to be written out in every layer between a caller and a backend
(observation, limits, end-user rules), with their traits kept in tables in parallel by hand
(the kind an observed event reports, how a PL/SQL result travels). Here each operation is a
frozen dataclass whose fields are its request (the ``StoreBackend`` method's parameters, by
the same names) and whose type parameter is its result; its class declares what it does.
Everything that lists the operations reads ``OPERATIONS``: the middleware
(``stores.middleware``) passes any operation on without knowing it, the observation layer
reads its kind, the Oracle backend its result type, and ``StoreCalls`` turns the typed
methods callers use into operations.

Adding an operation: its method on ``StoreBackend`` (``stores.protocol``), its class here
(and in ``OPERATIONS`` and ``StoreCalls``), its implementation in each backend
(``stores.embedded``, ``stores.oracle`` with its PL/SQL member, ``stores.interface_backend``)
and its section in docs/store-contract.md. A layer changes only when the operation needs its
rule: the end-user guard refuses, inside a security context, any operation touching rows
that it has no rule for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Concatenate, Generic, Literal, ParamSpec, Protocol, TypeVar

from oracleagentmemory.observability.operation_kind import OperationKind
from oracleagentmemory.stores.protocol import (
    CascadeResult,
    LinkChanges,
    LinkIn,
    LinkOut,
    LinkQuery,
    LinkSelector,
    MessageBatch,
    MessageBatchResult,
    OwnerType,
    RecordChanges,
    RecordIn,
    RecordOut,
    RecordQuery,
    SearchHit,
    SearchRequest,
    StoreBackend,
)

R = TypeVar("R")
P = ParamSpec("P")
Returns = Literal["json", "number", "nothing"]
"""How a result travels from the PL/SQL facade: a JSON document, a NUMBER, or nothing (no
member: the operation is the client's own, as ``close``)."""

CREATE, READ, UPDATE, DELETE = (OperationKind.CREATE, OperationKind.READ,
                                OperationKind.UPDATE, OperationKind.DELETE)


@dataclass(frozen=True)
class Operation(Generic[R]):
    """One call of the store contract: its arguments, and what the call is."""

    name: ClassVar[str]
    """The ``StoreBackend`` method (and, upper-case, the PL/SQL facade member)."""
    kind: ClassVar[OperationKind]
    """What it does to stored data (observed events report it)."""
    returns: ClassVar[Returns] = "json"
    touches_rows: ClassVar[bool] = True
    """It reads or changes stored records or links, so end-user rules apply to it."""

    @property
    def member(self) -> str:
        """The PL/SQL facade member that runs it on Oracle."""
        return self.name.upper()

    def arguments(self) -> dict[str, Any]:
        """The request, by parameter name (for observed events)."""
        return {field.name: getattr(self, field.name) for field in fields(self)}

    def send(self, backend: StoreBackend) -> R:
        """Call the backend method this operation stands for."""
        raise NotImplementedError


@dataclass(frozen=True)
class Describe(Operation[dict[str, Any]]):
    name = "describe"
    kind = READ
    touches_rows = False

    def send(self, backend: StoreBackend) -> dict[str, Any]:
        return backend.describe()


@dataclass(frozen=True)
class WriteRecords(Operation[list[str]]):
    name = "write_records"
    kind = CREATE
    records: Sequence[RecordIn]
    links: Sequence[LinkIn] = ()
    replace: bool = False
    thread_id: str | None = None

    def send(self, backend: StoreBackend) -> list[str]:
        return backend.write_records(self.records, self.links, self.replace, self.thread_id)


@dataclass(frozen=True)
class AppendMessages(Operation[MessageBatchResult]):
    name = "append_messages"
    kind = CREATE
    batch: MessageBatch

    def send(self, backend: StoreBackend) -> MessageBatchResult:
        return backend.append_messages(self.batch)


@dataclass(frozen=True)
class GetRecords(Operation[list[RecordOut]]):
    name = "get_records"
    kind = READ
    query: RecordQuery

    def send(self, backend: StoreBackend) -> list[RecordOut]:
        return backend.get_records(self.query)


@dataclass(frozen=True)
class ListMessages(Operation[list[RecordOut]]):
    name = "list_messages"
    kind = READ
    thread_id: str
    start: int | None
    end: int | None
    include_bytes: bool = False

    def send(self, backend: StoreBackend) -> list[RecordOut]:
        return backend.list_messages(self.thread_id, self.start, self.end, self.include_bytes)


@dataclass(frozen=True)
class UpdateRecord(Operation[RecordOut | None]):
    name = "update_record"
    kind = UPDATE
    record_id: str
    record_types: Sequence[str]
    changes: RecordChanges
    thread_id: str | None = None

    def send(self, backend: StoreBackend) -> RecordOut | None:
        return backend.update_record(self.record_id, self.record_types, self.changes,
                                     self.thread_id)


@dataclass(frozen=True)
class DeleteRecords(Operation[int]):
    name = "delete_records"
    kind = DELETE
    returns = "number"
    record_ids: Sequence[str]
    record_types: Sequence[str]
    thread_id: str | None = None

    def send(self, backend: StoreBackend) -> int:
        return backend.delete_records(self.record_ids, self.record_types, self.thread_id)


@dataclass(frozen=True)
class DeleteCascade(Operation[CascadeResult]):
    name = "delete_cascade"
    kind = DELETE
    owner_type: OwnerType
    owner_id: str

    def send(self, backend: StoreBackend) -> CascadeResult:
        return backend.delete_cascade(self.owner_type, self.owner_id)


@dataclass(frozen=True)
class Search(Operation[list[SearchHit]]):
    name = "search"
    kind = READ
    request: SearchRequest

    def send(self, backend: StoreBackend) -> list[SearchHit]:
        return backend.search(self.request)


@dataclass(frozen=True)
class UpdateLink(Operation[int]):
    name = "update_link"
    kind = UPDATE
    returns = "number"
    relation_id: str
    thread_id: str | None
    changes: LinkChanges

    def send(self, backend: StoreBackend) -> int:
        return backend.update_link(self.relation_id, self.thread_id, self.changes)


@dataclass(frozen=True)
class DeleteLinks(Operation[int]):
    name = "delete_links"
    kind = DELETE
    returns = "number"
    selector: LinkSelector
    thread_id: str | None

    def send(self, backend: StoreBackend) -> int:
        return backend.delete_links(self.selector, self.thread_id)


@dataclass(frozen=True)
class ListLinks(Operation[list[LinkOut]]):
    name = "list_links"
    kind = READ
    query: LinkQuery

    def send(self, backend: StoreBackend) -> list[LinkOut]:
        return backend.list_links(self.query)


@dataclass(frozen=True)
class PurgeExpired(Operation[int]):
    name = "purge_expired"
    kind = DELETE
    returns = "number"

    def send(self, backend: StoreBackend) -> int:
        return backend.purge_expired()


@dataclass(frozen=True)
class Close(Operation[None]):
    name = "close"
    kind = DELETE
    returns = "nothing"
    touches_rows = False

    def send(self, backend: StoreBackend) -> None:
        backend.close()


OPERATIONS: tuple[type[Operation[Any]], ...] = (
    Describe, WriteRecords, AppendMessages, GetRecords, ListMessages, UpdateRecord,
    DeleteRecords, DeleteCascade, Search, UpdateLink, DeleteLinks, ListLinks, PurgeExpired,
    Close,
)
"""Every operation of the contract, in the order docs/store-contract.md lists them."""

NUMBER_MEMBERS = frozenset(op.name.upper() for op in OPERATIONS if op.returns == "number")
"""The PL/SQL facade members of the contract that return a NUMBER (the others JSON)."""


class Runner(Protocol):
    """Anything that runs an operation: a middleware layer, or a backend's end."""

    def run(self, operation: Operation[R]) -> R:
        """The operation's result."""
        ...


def _method(make: Callable[P, Operation[R]]) -> Callable[Concatenate[StoreCalls, P], R]:
    """A ``StoreBackend`` method that builds its operation from its arguments and runs it."""
    def call(self: StoreCalls, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.runner.run(make(*args, **kwargs))

    call.__name__ = call.__qualname__ = getattr(make, "name", make.__name__)
    call.__doc__ = getattr(StoreBackend, call.__name__).__doc__
    return call


class StoreCalls:
    """The typed ``StoreBackend`` methods over a runner: each call becomes its operation.
    Its methods' signatures are the operations' fields (documented on ``StoreBackend``)."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    describe = _method(Describe)
    write_records = _method(WriteRecords)
    append_messages = _method(AppendMessages)
    get_records = _method(GetRecords)
    list_messages = _method(ListMessages)
    update_record = _method(UpdateRecord)
    delete_records = _method(DeleteRecords)
    delete_cascade = _method(DeleteCascade)
    search = _method(Search)
    update_link = _method(UpdateLink)
    delete_links = _method(DeleteLinks)
    list_links = _method(ListLinks)
    purge_expired = _method(PurgeExpired)
    close = _method(Close)
