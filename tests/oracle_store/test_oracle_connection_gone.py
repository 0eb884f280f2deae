"""A connection or pool closed under the store gives the store's own error.

python-oracledb raises DPY-1001 "not connected to database" for a closed connection and
DPY-1002 for a closed pool as ``InterfaceError`` (python-oracledb 26.1 errors.py: DPY-1xxx
codes are InterfaceError, which is no DatabaseError, per the DB API). The store translated
DatabaseError only, so callers catching ``StoreError`` (the contract's base for a refused
operation) missed these.
"""

from __future__ import annotations

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.stores.errors import StoreClosedError, StoreError  # noqa: E402
from oracleagentmemory.stores.oracle import OracleBackend  # noqa: E402
from tests.support.fake_oracledb import FakeConnection, FakePool  # noqa: E402
from tests.support.oracle import backend_on_double  # noqa: E402


def test_the_double_refuses_a_closed_connection_as_the_driver_does():
    connection = FakeConnection()
    connection.close()
    with pytest.raises(oracledb.InterfaceError, match="DPY-1001"):
        connection.cursor()


def test_a_connection_closed_by_the_application_is_a_store_error_naming_the_driver_code():
    store, connection = backend_on_double(DELETE_RECORDS=1)
    connection.close()
    with pytest.raises(StoreError, match="DPY-1001") as raised:
        store.delete_records(["m1"], ["memory"])
    assert not isinstance(raised.value, StoreClosedError)  # the store itself is open
    assert isinstance(raised.value.__cause__, oracledb.InterfaceError)


def test_a_closed_pool_is_a_store_error_naming_the_driver_code():
    pool = FakePool(DELETE_RECORDS=1)
    store = OracleBackend(pool, embedding_dimension=3)
    pool.close()
    with pytest.raises(StoreError, match="DPY-1002"):
        store.delete_records(["m1"], ["memory"])
