"""Errors of the store contract.

Each error has a stable code shared with the Oracle packages (``RAISE_APPLICATION_ERROR``
numbers, see docs/store-contract.md) and subclasses the built-in exception the public API
documents, so callers can catch ``ValueError`` / ``KeyError`` without knowing the backend.
"""

from __future__ import annotations

from oracleagentmemory import errors


class StoreError(errors.AgentMemoryError):
    """Base of all store errors."""

    code: int = -20000


class InvalidArgumentError(StoreError, errors.InvalidArgumentError):
    """An argument is malformed or not allowed (-20001)."""

    code = -20001


class RecordNotFoundError(StoreError, errors.NotFoundError):
    """The record does not exist, is expired, or belongs to another owner (-20002)."""

    code = -20002


class DuplicateRecordError(InvalidArgumentError):
    """A record or relation with this id already exists (-20003)."""

    code = -20003


class InvalidFilterError(InvalidArgumentError):
    """The metadata filter is malformed (-20004)."""

    code = -20004


class InvalidLinkError(InvalidArgumentError):
    """A relation's endpoints or labels are not allowed (-20005)."""

    code = -20005


class DimensionMismatchError(InvalidArgumentError):
    """A vector does not have the store's dimension (-20006)."""

    code = -20006


class SchemaError(StoreError, RuntimeError):
    """The store schema is missing, of another version, or of another dimension (-20007)."""

    code = -20007


class AttachedImageError(InvalidArgumentError):
    """The image is attached to a message and must be changed through it (-20008)."""

    code = -20008


class AccessDeniedError(StoreError, errors.AccessDeniedError):
    """The end user of the security context may not do this, or a session that is not the
    store's owner administers deep data security (-20009). A ``PermissionError``."""

    code = -20009


class StorageError(StoreError, OSError):
    """The embedded store's file cannot be opened or written: a missing directory, no
    permission, a read-only file, a full disk. The message names the file. Embedded only
    (no PL/SQL code): the Oracle backend reports the database's own errors."""


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
    )
}
