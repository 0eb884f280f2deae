"""Numbers in JSON documents cross python-oracledb as Oracle NUMBERs.

The driver writes every Python int and float of a JSON bind with ``str()`` as an Oracle
NUMBER (``OsonTreeSegment.encode_node`` in src/oracledb/impl/base/oson.pyx; "IN Bind Type
Mapping": int, float and decimal.Decimal -> NUMBER,
https://python-oracledb.readthedocs.io/en/stable/user_guide/json_data_type.html), and
``Buffer.write_oracle_number`` (src/oracledb/impl/base/buffer.pyx) refuses more than 40
significant digits and magnitudes outside 1e-130 .. 1e126 with DPY-4003 "value cannot be
represented as an Oracle number"; a JSON field name is at most 65535 UTF-8 bytes (DPY-3020,
``OsonFieldName.create`` in oson.pyx; 255 in thick mode with pre-23 client libraries). The
contract accepts any finite number and any key in metadata within MAX_METADATA_CHARS
(``limits.check_json``), and the client's LimitsGuard promises the embedded store's error,
naming the argument, before anything is sent (stores/limits_guard.py); today such a value
reaches the driver and comes back as a StoreError carrying the DPY code.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.core.memory_service import MemoryService  # noqa: E402
from oracleagentmemory.stores.errors import InvalidArgumentError  # noqa: E402
from tests.support.fake_oracledb import FakeConnection, FakeVar, through_oson  # noqa: E402
from tests.support.oracle import backend_on_double  # noqa: E402


@pytest.mark.parametrize("value", [1e300, -1e200, 5e-324, 2 ** 200,
                                   Decimal("1." + "1" * 40)])
def test_the_double_refuses_numbers_an_oracle_number_cannot_hold(value):
    with pytest.raises(oracledb.DatabaseError, match="DPY-4003"):
        through_oson({"v": value})


@pytest.mark.parametrize("value", [1e125, 1e-129, 10 ** 60, 0.1, 1 / 3, -2.5e-7,
                                   2 ** 120, Decimal("1." + "1" * 39)])
def test_the_double_keeps_numbers_an_oracle_number_holds(value):
    assert through_oson(value) == Decimal(str(value))


def test_a_json_bind_is_encoded_when_the_statement_runs_as_in_thin_mode():
    cursor = FakeConnection().cursor()
    variable = cursor.var(oracledb.DB_TYPE_JSON)
    variable.setvalue(0, {"v": 1e300})  # accepted here by the thin driver
    with pytest.raises(oracledb.DatabaseError, match="DPY-4003"):
        cursor.execute("BEGIN X.Y(:p); END;", {"p": variable})


def test_a_number_variable_of_db_type_number_reads_back_as_float():
    variable = FakeVar(oracledb.DB_TYPE_NUMBER)
    variable.set_result(3)
    assert type(variable.getvalue()) is float and variable.getvalue() == 3.0
    variable = FakeVar(int)
    variable.set_result(3)
    assert type(variable.getvalue()) is int


def test_counts_stay_ints_with_the_drivers_float_number_variables():
    store, _ = backend_on_double(DELETE_RECORDS=2, PURGE_EXPIRED=0)
    deleted = store.delete_records(["m1", "m2"], ["memory"])
    assert type(deleted) is int and deleted == 2
    assert type(store.purge_expired()) is int


def test_the_double_refuses_field_names_longer_than_the_driver_encodes():
    with pytest.raises(oracledb.DatabaseError, match="DPY-3020"):
        through_oson({"k" * 65536: 1})
    assert through_oson({"k" * 65535: 1}) == {"k" * 65535: Decimal(1)}


@pytest.mark.parametrize("metadata", [
    {"reading": 1e300},            # a finite float beyond 1e126
    {"reading": 2 ** 200},         # 61 significant digits
    {"k" * 70_000: 1},             # a key over 65535 bytes, within MAX_METADATA_CHARS
])
def test_metadata_oson_cannot_carry_is_an_argument_error_before_anything_is_sent(metadata):
    store, connection = backend_on_double(WRITE_RECORDS=["m1"])
    service = MemoryService(store, embedder=None)
    with pytest.raises(InvalidArgumentError, match=r"records\[0\]\.metadata"):
        service.backend.write_records([{"record_type": "memory", "id": "m1",
                                        "content": "c", "metadata": metadata}])
    assert connection.calls == []


def test_the_double_returns_the_cursor_for_queries_only_like_the_driver():
    cursor = FakeConnection().cursor()
    assert cursor.execute("SELECT meta_key, meta_value FROM agent_memory_meta") is cursor
    assert cursor.execute("BEGIN X.Y; END;") is None
    with pytest.raises(oracledb.InterfaceError, match="DPY-1003"):
        cursor.fetchall()
