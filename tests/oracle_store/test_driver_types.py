"""The values python-oracledb really returns reach the contract as
plain Python values.

The driver maps every JSON NUMBER of a JSON OUT bind to ``decimal.Decimal``
(https://python-oracledb.readthedocs.io/en/stable/user_guide/json_data_type.html, "Query
and OUT Bind Type Mapping"); tests/support/fake_oracledb.py reproduces that. Before the
fix the Decimals went straight to callers: ``json.dumps`` failed in the CLI and in export,
and distances were not floats.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal

import numpy as np
import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from tests.support.fake_oracledb import (  # noqa: E402
    FakeVar,
    database_error,
    through_oson,
)
from tests.support.oracle import backend_on_double as store_with  # noqa: E402

HIT = {"record": {"id": "m1", "record_type": "memory", "metadata": {"score": 0.25, "n": 3,
                                                                     "big": 1e21}},
       "distance": 0.0, "linked": [{"record": {"id": "m2"}, "hops": 1}]}


def test_the_double_returns_json_numbers_as_decimal_like_the_driver():
    variable = FakeVar(oracledb.DB_TYPE_JSON)
    variable.set_result(HIT)
    value = variable.getvalue()
    assert isinstance(value["distance"], Decimal)
    assert value["record"]["metadata"]["score"] == Decimal("0.25")
    assert value["linked"][0]["hops"] == Decimal(1)


def test_search_hits_come_back_as_floats_and_ints():
    store, _ = store_with(SEARCH=[HIT])
    [hit] = store.search({"query_text": "x", "query_vector": [1, 0, 0]})
    assert type(hit["distance"]) is float and hit["distance"] == 0.0
    metadata = hit["record"]["metadata"]
    assert type(metadata["score"]) is float and metadata["score"] == 0.25
    assert type(metadata["n"]) is int and metadata["n"] == 3
    assert metadata["big"] == 1e21
    assert type(hit["linked"][0]["hops"]) is int
    assert not _decimals(hit)


def test_describe_and_records_are_json_serialisable():
    describe = {"backend": "oracle", "schema_version": 1, "embedding_dimension": 384,
                "purge_job": True}
    store, _ = store_with(DESCRIBE=describe, GET_RECORDS=[HIT["record"]])
    assert json.loads(json.dumps(store.describe())) == describe
    records = store.get_records({})
    assert json.loads(json.dumps(records)) == [HIT["record"]]


def test_float_metadata_round_trips_exactly():
    values = [0.1, 1 / 3, math.pi, -2.5e-7, 123456.789]
    store, _ = store_with(GET_RECORDS=[{"id": "a", "metadata": {"v": values}}])
    [record] = store.get_records({})
    assert record["metadata"]["v"] == values


def test_numpy_scalars_are_refused_by_the_driver_and_never_sent():
    # the real OSON encoder accepts int, float and Decimal only (numpy.float32 is not a
    # float), so the store must hand the driver plain floats
    with pytest.raises(oracledb.NotSupportedError, match="DPY-3003"):
        through_oson({"v": np.float32(0.5)})
    store, connection = store_with(WRITE_RECORDS=["m1"])
    store.write_records([{"record_type": "memory", "id": "m1",
                          "embedding": np.array([0.5, 0.25, 1], dtype=np.float32),
                          "metadata": {"w": 1.5}}])
    sent = connection.calls[0][1]["p_records"][0]
    assert sent["embedding"] == [Decimal("0.5"), Decimal("0.25"), Decimal(1)]


def test_ora_errors_have_the_drivers_classes_and_codes():
    error = database_error(1, "unique constraint (X) violated")
    assert isinstance(error, oracledb.IntegrityError)
    assert error.args[0].code == 1 and error.args[0].full_code == "ORA-00001"
    error = database_error(20003, "id 'x' already exists")
    assert type(error) is oracledb.DatabaseError
    assert error.args[0].full_code == "ORA-20003"


def _decimals(value) -> bool:
    if isinstance(value, dict):
        return any(_decimals(item) for item in value.values())
    if isinstance(value, list):
        return any(_decimals(item) for item in value)
    return isinstance(value, Decimal)


def test_the_double_checks_bind_names_against_placeholders_like_the_thin_driver():
    from tests.support.fake_oracledb import FakeConnection

    cursor = FakeConnection().cursor()
    with pytest.raises(oracledb.DatabaseError, match="DPY-4008"):  # a bind nobody uses
        cursor.execute("BEGIN AGENT_MEMORY.CLEAR_END_USER; END;", {"am_end_user": "u"})
    with pytest.raises(oracledb.DatabaseError, match="DPY-4010"):  # a placeholder unbound
        cursor.execute("SELECT :a, :b FROM dual", {"a": 1})
    # comments, literals, quoted names and the PL/SQL assignment hold no placeholder
    cursor.execute("SELECT :a FROM dual -- :b\n WHERE ':c' = \"D:E\" /* :f */", {"a": 1})
    cursor.execute("BEGIN :v := 1; END;", {"V": cursor.var(int)})
