"""The root of every error this library raises on purpose, and its typed families.

Each family also subclasses the built-in exception the reference documents for that case,
so ``except ValueError`` (or ``KeyError``, ``TypeError``, ``TimeoutError``) keeps working,
while ``except AgentMemoryError`` catches the library's own errors and nothing else. Store
errors (``stores.errors``) hang below the same root, and so do a model server's failures:
``LlmError`` (``core.llms.errors``, also a ``RuntimeError``), raised by an ``Llm`` or a
remote embedder, also through the client calls that use one (a search embeds its query).
"""

from __future__ import annotations

__all__ = [
    "AccessDeniedError",
    "AgentMemoryError",
    "ArgumentTypeError",
    "ClosedError",
    "InvalidArgumentError",
    "MissingFieldError",
    "ModelUnavailableError",
    "NotFoundError",
    "OperationTimeoutError",
]


class AgentMemoryError(Exception):
    """Base of every error the library raises on purpose.

    Raised only through its subclasses; catch it to handle any failure of ours (and no
    failure of other code). An ``Exception``, not one of the built-in kinds: each subclass
    adds the built-in exception of its case.
    """


class InvalidArgumentError(AgentMemoryError, ValueError):
    """An argument has a value that is not allowed; the message names the argument.

    Raised for an empty id, a negative count, an unknown enum value, a malformed filter or
    configuration. Also a ``ValueError``, so ``except ValueError`` works.
    """


class ArgumentTypeError(AgentMemoryError, TypeError, ValueError):
    """An argument has the wrong type, or a keyword argument is unknown.

    Raised before anything is done, naming the argument. Also a ``TypeError`` and a
    ``ValueError``: Python's habit is ``TypeError``, and code written for the reference
    product catches ``ValueError`` for the same mistakes (``search(123)``), so either
    ``except`` works.
    """


class NotFoundError(AgentMemoryError, KeyError):
    """A thread, message, memory or image that must exist does not (or is not visible).

    Raised by reads and changes of one named record; an expired record, or one the end
    user of the security context may not see, counts as missing. Also a ``KeyError``, so
    ``except KeyError`` works; ``str(error)`` is the message, not its ``repr``.
    """

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class MissingFieldError(AgentMemoryError, KeyError):
    """A required key is missing from a mapping argument (a message without ``role``).

    Also a ``KeyError``, so ``except KeyError`` works; ``str(error)`` is the message.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class OperationTimeoutError(AgentMemoryError, TimeoutError):
    """A wait ran out of time: background extraction not done within its timeout, or the
    embedded store's write lock held by another process past the busy timeout.

    Also a ``TimeoutError``, so ``except TimeoutError`` works.
    """


class ClosedError(AgentMemoryError, RuntimeError):
    """The client (or the store under it) was closed: nothing more can be done with it.

    Raised by every call of an ``OracleAgentMemory`` after ``close()``
    ("OracleAgentMemory is closed.", the reference's words), and by a store closed under a
    thread. Also a ``RuntimeError``, as the reference raises.
    """


class ModelUnavailableError(AgentMemoryError, RuntimeError):
    """A local embedding model's files are missing, incomplete or not the known ones; the
    message names the package to install or the variable to set.

    Also a ``RuntimeError``, as it was before it had a class of its own.
    """


class AccessDeniedError(AgentMemoryError, PermissionError):
    """The end user of the current security context may not see or change this.

    Raised when deep data security refuses a write, a cascade or a purge for the end user
    (reads just see fewer rows), and when a session that does not own an Oracle store
    administers its policies. Also a ``PermissionError``, so ``except PermissionError``
    works.
    """
