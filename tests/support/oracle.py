"""Opening the Oracle backend for the conformance suite (needs AGENTMEMORY_TEST_DSN)."""

from __future__ import annotations

import os


def open_oracle_test_store(dimension: int):  # pragma: no cover - needs a database
    import oracledb

    from oracleagentmemory.stores.oracle import OracleMemoryStore

    connection = oracledb.connect(
        user=os.environ["AGENTMEMORY_TEST_USER"],
        password=os.environ["AGENTMEMORY_TEST_PASSWORD"],
        dsn=os.environ["AGENTMEMORY_TEST_DSN"],
    )
    return OracleMemoryStore(connection, embedding_dimension=dimension,
                             schema_policy="RECREATE")
