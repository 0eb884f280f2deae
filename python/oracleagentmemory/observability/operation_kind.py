"""What an operation does to stored data: the one part of the events every operation names.

Why a module of its own: the client's modules name an operation's kind where they are
defined, and importing the event classes (pydantic models) cost a third of the client's
import. The class is documented, pickled and compared as
``oracleagentmemory.observability.event.OperationKind``, where the event module re-exports it.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["OperationKind"]


class OperationKind(str, Enum):
    """What an operation does to stored data (for dashboards and sampling rules)."""

    CREATE = "create"
    READ = "read"
    UPDATE = "update"
    DELETE = "delete"
    UNKNOWN = "unknown"


OperationKind.__module__ = "oracleagentmemory.observability.event"
