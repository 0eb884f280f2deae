"""Numbers in JSON documents cross python-oracledb as Oracle NUMBERs.

The driver writes every Python int and float of a JSON bind with ``str()`` as an Oracle
NUMBER (``OsonTreeSegment.encode_node`` in src/oracledb/impl/base/oson.pyx; "IN Bind Type
Mapping": int, float and decimal.Decimal -> NUMBER,
https://python-oracledb.readthedocs.io/en/stable/user_guide/json_data_type.html), and
``Buffer.write_oracle_number`` (src/oracledb/impl/base/buffer.pyx) refuses more than 40
significant digits and magnitudes outside 1e-130 .. 1e126 with DPY-4003 "value cannot be
represented as an Oracle number". The store contract accepts any finite number in
metadata (``limits.check_json``) and the embedded backend stores it; on Oracle such a value
must come back as the contract's argument error, naming the argument, as the 32 MB check
does, not as a driver failure.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

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


@pytest.mark.parametrize("value", [1e300, 2 ** 200])
def test_metadata_numbers_oracle_cannot_hold_are_an_argument_error(value):
    store, _ = backend_on_double(WRITE_RECORDS=["m1"])
    with pytest.raises(InvalidArgumentError, match="records"):
        store.write_records([{"record_type": "memory", "id": "m1", "content": "c",
                              "metadata": {"reading": value}}])
