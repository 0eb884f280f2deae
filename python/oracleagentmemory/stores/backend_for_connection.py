"""Which backend a connection argument opens: an embedded location or an Oracle pool."""

from __future__ import annotations

import os
from typing import Any

from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError
from oracleagentmemory.stores.protocol import StoreBackend


def is_oracle_connection(connection: Any) -> bool:
    """An ``oracledb`` connection or pool (anything that acquires or opens cursors)."""
    return hasattr(connection, "acquire") or hasattr(connection, "cursor")


def open_backend(
    connection: Any,
    *,
    embedding_dimension: int | None,
    schema_policy: str,
    search_strategy: str | None,
    search_index_sync: str = "ON_COMMIT",
    store_id: str | None = None,
    schema_owner: str | None = None,
) -> StoreBackend:
    """The backend for a connection: a StoreBackend as is, an embedded file path or
    ``":memory:"``, or an ``oracledb`` connection or pool. Policy, strategy and sync mode
    use the contract's upper-case names (a strategy of None: the store's own on Oracle,
    HYBRID on the embedded file); ``schema_owner`` names the Oracle schema that holds
    the store when the connection's user is not its owner."""
    if schema_owner is not None and not is_oracle_connection(connection):
        raise InvalidArgumentError(
            "schema_owner names the Oracle schema of the store; it applies only to an "
            f"oracledb connection or pool, not to {type(connection).__name__}")
    if isinstance(connection, StoreBackend):
        return connection
    if isinstance(connection, (str, os.PathLike)):
        from oracleagentmemory.stores.embedded import EmbeddedBackend

        return EmbeddedBackend(connection, embedding_dimension=embedding_dimension,
                               schema_policy=schema_policy,
                               search_strategy=search_strategy or "HYBRID")
    if is_oracle_connection(connection):
        from oracleagentmemory.stores.oracle import OracleBackend

        options: dict[str, Any] = {} if store_id is None else {"store_id": store_id}
        if schema_owner is not None:
            options["schema_owner"] = schema_owner
        return OracleBackend(
            connection, embedding_dimension=embedding_dimension, schema_policy=schema_policy,
            search_strategy=search_strategy, sync_mode=search_index_sync, **options)
    raise ArgumentTypeError(
        "connection must be an oracledb connection or pool, a path to an embedded store file "
        f"or ':memory:'; got {type(connection).__name__}"
    )
