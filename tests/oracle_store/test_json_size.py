"""Every document crosses as one JSON bind, and a JSON type instance holds
at most 32 MB. A batch larger than that is refused before anything is sent, naming the
argument; a result larger than that (ORA-40604 in the database, as the double raises it)
says what to do."""

from __future__ import annotations

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.stores.errors import InvalidArgumentError, StoreError  # noqa: E402
from oracleagentmemory.stores.oracle_calls import MAX_JSON_BYTES  # noqa: E402
from tests.support.oracle import backend_on_double  # noqa: E402

MEGABYTE_TEXT = "x" * 1_000_000
RECORDS = MAX_JSON_BYTES // len(MEGABYTE_TEXT) + 2


def test_a_batch_larger_than_a_json_document_is_refused_before_it_is_sent():
    store, connection = backend_on_double()
    batch = [{"record_type": "memory", "content": MEGABYTE_TEXT, "user_id": "u1"}
             for _ in range(RECORDS)]
    with pytest.raises(InvalidArgumentError, match=r"records is \d+ bytes as JSON.*smaller"):
        store.write_records(batch)
    assert connection.calls == []


def test_one_large_record_fits():
    store, connection = backend_on_double(WRITE_RECORDS=["m1"])
    assert store.write_records([{"record_type": "memory", "content": MEGABYTE_TEXT * 4}]) \
        == ["m1"]
    assert len(connection.calls) == 1


def test_a_result_larger_than_a_json_document_says_to_ask_for_less():
    huge = [{"id": f"m{i}", "record_type": "memory", "content": MEGABYTE_TEXT}
            for i in range(RECORDS)]
    store, _ = backend_on_double(GET_RECORDS=huge)
    with pytest.raises(StoreError, match="ORA-40604.*32 MB.*fewer records"):
        store.get_records({"ids": ["m1"]})
