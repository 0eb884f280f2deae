"""Opening the Oracle backend for the test suites (needs AGENTMEMORY_TEST_DSN).

The conformance suite and the API tests run against a real database when
AGENTMEMORY_TEST_DSN, AGENTMEMORY_TEST_USER and AGENTMEMORY_TEST_PASSWORD are set (see
docs/oracle.md); otherwise their Oracle variants are skipped with that reason.
"""

from __future__ import annotations

import os


def oracle_pool():  # pragma: no cover - needs a database
    """A small pool on the test database, for OracleAgentMemory(connection=pool)."""
    import oracledb

    return oracledb.create_pool(
        user=os.environ["AGENTMEMORY_TEST_USER"],
        password=os.environ["AGENTMEMORY_TEST_PASSWORD"],
        dsn=os.environ["AGENTMEMORY_TEST_DSN"],
        min=1, max=4,
    )


def open_oracle_test_store(dimension: int):  # pragma: no cover - needs a database
    from oracleagentmemory.stores.oracle import OracleBackend

    return OracleBackend(oracle_pool(), embedding_dimension=dimension,
                             schema_policy="RECREATE")


def backend_on_double(**answers):
    """An OracleBackend over a fresh FakeConnection answering ``answers`` (member -> value
    or exception), with the opening calls cleared from its log: (store, connection)."""
    from oracleagentmemory.stores.oracle import OracleBackend
    from tests.support.fake_oracledb import FakeConnection

    connection = FakeConnection(**answers)
    store = OracleBackend(connection, embedding_dimension=3)
    connection.log.clear()
    return store, connection
