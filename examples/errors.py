"""Which errors to catch.

Every error the library raises on purpose is an ``AgentMemoryError`` and also the built-in
exception the case calls for, so ``except ValueError`` keeps working:

* ``InvalidArgumentError`` (a ``ValueError``): a value that is not allowed; the store's
  ``InvalidFilterError``, ``DuplicateRecordError``... are kinds of it.
* ``ArgumentTypeError`` (a ``TypeError``): a value of the wrong type, an unknown keyword.
* ``NotFoundError`` (a ``KeyError``): a thread, message or memory that does not exist.
* ``AccessDeniedError`` (a ``PermissionError``): the end user may not see or change it.
* ``OperationTimeoutError`` (a ``TimeoutError``): a wait ran out of time.
* ``StorageError`` (an ``OSError``) and ``SchemaError`` (a ``RuntimeError``): the store
  cannot be opened or written, or is not an agent-memory store of this version.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.errors import (
    AgentMemoryError,
    ArgumentTypeError,
    InvalidArgumentError,
    NotFoundError,
)
from oracleagentmemory.stores.errors import InvalidFilterError, StorageError


def main() -> None:
    with OracleAgentMemory(connection=":memory:") as client:
        try:
            client.get_thread("no-such-thread")
        except NotFoundError as error:
            print(f"NotFoundError (a KeyError): {error}")

        try:
            client.search("trains", user_id="alice", metadata_filter={"tags": {"$has": "x"}})
        except InvalidFilterError as error:
            assert isinstance(error, InvalidArgumentError) and isinstance(error, ValueError)
            print(f"InvalidFilterError (a ValueError): {error}")

        try:
            client.create_thread(user_id="alice", max_message_token_length="long")
        except (ArgumentTypeError, InvalidArgumentError) as error:
            print(f"{type(error).__name__}: {error}")

    with tempfile.TemporaryDirectory() as folder:
        try:
            OracleAgentMemory(connection=str(Path(folder) / "missing" / "memory.db"))
        except StorageError as error:
            assert isinstance(error, OSError) and isinstance(error, AgentMemoryError)
            print(f"StorageError (an OSError): {error}")


if __name__ == "__main__":
    main()
