"""Errors of the store contract.

Each error has a stable code shared with the Oracle packages (``RAISE_APPLICATION_ERROR``
numbers, see docs/store-contract.md) and subclasses the built-in exception the public API
documents, so callers can catch ``ValueError`` / ``KeyError`` without knowing the backend.
"""

from __future__ import annotations

from oracleagentmemory import errors


class StoreError(errors.AgentMemoryError):
    """Base of all store errors: a store operation was refused.

    Raised through its subclasses by both backends (the embedded store, and the Oracle
    packages' ``RAISE_APPLICATION_ERROR`` codes mapped back by the Oracle backend). An
    ``AgentMemoryError``; ``code`` is the shared error code.
    """

    code: int = -20000


class InvalidArgumentError(StoreError, errors.InvalidArgumentError):
    """An argument is malformed or not allowed (-20001); the message names it.

    Also :class:`oracleagentmemory.errors.InvalidArgumentError` and so a ``ValueError``.
    """

    code = -20001


class RecordNotFoundError(StoreError, errors.NotFoundError):
    """The record does not exist, is expired, or belongs to another owner (-20002).

    Also :class:`oracleagentmemory.errors.NotFoundError` and so a ``KeyError``.
    """

    code = -20002


class DuplicateRecordError(InvalidArgumentError):
    """A record or relation with this id already exists (-20003).

    Raised by a write of a taken id (with ``replace``, one held by a record of another
    type, scope or message), and by a second relation between the same two records. A
    ``ValueError``.
    """

    code = -20003


class InvalidFilterError(InvalidArgumentError):
    """The metadata filter is malformed (-20004): an unknown ``$`` operator, a wrong
    operand or a filter nested too deep. The message names the key. A ``ValueError``."""

    code = -20004


class InvalidLinkError(InvalidArgumentError):
    """A relation's endpoints or labels are not allowed (-20005): an end that is missing,
    expired, not memory-like or outside the link's thread, a link to itself, or an empty or
    over-long label. A ``ValueError``."""

    code = -20005


class LinkEndNotFoundError(InvalidLinkError, RecordNotFoundError):
    """A relation's end does not exist, is expired, or is not in the link's thread (-20010).

    Both a ``ValueError`` (an ``InvalidLinkError``, as every refused link) and a
    ``KeyError`` (a ``RecordNotFoundError``, as the reference product raises for an unknown
    id), so either ``except`` works."""

    code = -20010


class DimensionMismatchError(InvalidArgumentError):
    """A vector does not have the store's dimension (-20006), usually an embedder other
    than the one the store was made with. A ``ValueError``."""

    code = -20006


class SchemaError(StoreError, RuntimeError):
    """The store schema is missing, of another version, or of another dimension (-20007).

    Raised when a store is opened. Also a ``RuntimeError``.
    """

    code = -20007


class AttachedImageError(InvalidArgumentError):
    """The image is attached to a message and must be changed through it (-20008).

    Raised by deleting or updating an attached image directly. A ``ValueError``.
    """

    code = -20008


class AccessDeniedError(StoreError, errors.AccessDeniedError):
    """The end user of the security context may not do this, or a session that is not the
    store's owner administers deep data security (-20009).

    Also :class:`oracleagentmemory.errors.AccessDeniedError` and so a ``PermissionError``.
    """

    code = -20009


class MessageContextChangedError(StoreError, RuntimeError):
    """The message before the one being updated is not the one its new vector was made
    against any more (-20011): another client wrote, edited or deleted a message of the
    thread meanwhile. Nothing changed; the caller embeds again and retries. A
    ``RuntimeError``."""

    code = -20011


class StoreClosedError(StoreError, errors.ClosedError):
    """The store was closed (by ``close()`` of the client that opened it). No PL/SQL code:
    raised by the Python side of either backend before it reaches the database. Also a
    ``RuntimeError``."""


class StorageError(StoreError, OSError):
    """The embedded store's file cannot be opened or written: a missing directory, no
    permission, a read-only file, a full disk. The message names the file. Embedded only
    (no PL/SQL code): the Oracle backend reports the database's own errors. Also an
    ``OSError``."""


ERRORS_BY_CODE: dict[int, type[StoreError]] = {
    cls.code: cls
    for cls in (
        InvalidArgumentError,
        RecordNotFoundError,
        DuplicateRecordError,
        InvalidFilterError,
        InvalidLinkError,
        DimensionMismatchError,
        SchemaError,
        AttachedImageError,
        AccessDeniedError,
        LinkEndNotFoundError,
        MessageContextChangedError,
    )
}
