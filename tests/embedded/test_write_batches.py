"""The embedded store's write path refuses what it cannot keep, whatever the batch, and a
refused write changes nothing a later write depends on (the write-path attack's finds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.errors import DimensionMismatchError


def memory(rid: str, embedding: list[float]) -> dict:
    return {"record_type": "memory", "id": rid, "content": rid, "embedding": embedding}


@pytest.mark.parametrize("how", ["write_records", "update_record"])
def test_an_empty_vector_never_becomes_the_stores_dimension(tmp_path: Path, how: str) -> None:
    # A store opened without a dimension takes the one of its first vectors; one of no
    # component is no vector (embedding_dimension=0 is refused at the opening) and must not
    # leave the file refusing every real vector after it.
    store = EmbeddedBackend(tmp_path / "s.db")
    if how == "write_records":
        with pytest.raises(DimensionMismatchError):
            store.write_records([memory("empty", [])])
    else:
        store.write_records([{"record_type": "memory", "id": "m", "content": "m"}])
        with pytest.raises(DimensionMismatchError):
            store.update_record("m", ["memory"], {"embedding": []})
    assert store.get_records({"ids": ["empty"]}) == []
    store.write_records([memory("real", [1.0, 0.0, 0.0])])
    assert store.describe()["embedding_dimension"] == 3
    store.close()
    reopened = EmbeddedBackend(tmp_path / "s.db")
    assert reopened.describe()["embedding_dimension"] == 3
    reopened.close()


def nested(depth: int) -> list:
    """A list ``depth`` levels deep (the value sits one more level down in the field)."""
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


BAD_JSON = {
    "nan": float("nan"),
    "a number past 1e126": 1e126,
    "41 significant digits": 10 ** 41 + 1,
    "a field name past 65,535 bytes": {"é" * 32_768: 1},
    "an unpaired surrogate": {"text": "a\ud800"},
    "a non-string key": {1: "x"},
    "nesting past the limit": nested(64),
    "a set": {1, 2},
}


def refusal(call) -> tuple[str, str]:
    with pytest.raises(ValueError) as refused:
        call()
    return type(refused.value).__name__, str(refused.value)


@pytest.mark.parametrize("field", ["config", "parts"])
@pytest.mark.parametrize("bad", BAD_JSON, ids=list(BAD_JSON))
def test_json_fields_are_refused_naming_the_field_as_the_guard_does(field, bad) -> None:
    # The Oracle backend (and a caller's own) gets its input limits from LimitsGuard, which
    # names records[i].config / records[i].parts (and changes.config / changes.parts); the
    # embedded store checks its own input and must refuse the same values with the same
    # error naming the same argument, at write and at update. A good field beside the bad
    # one must not shift what is named.
    from oracleagentmemory.stores.limits_guard import check_record

    value = {"a": [BAD_JSON[bad]]}
    other = "parts" if field == "config" else "config"
    record = {"record_type": "message", "id": "m", "content": "c", other: [{"ok": 1}],
              field: value}
    store = EmbeddedBackend(":memory:", embedding_dimension=2)
    assert refusal(lambda: store.write_records([record])) == refusal(
        lambda: check_record(record, "records[0]"))
    store.write_records([{"record_type": "message", "id": "m", "content": "c",
                          other: [{"ok": 1}]}])
    changes = {field: value}
    assert refusal(lambda: store.update_record("m", ["message"], changes)) == refusal(
        lambda: check_record(changes, "changes"))
    assert [record.get(field) for record in store.get_records({})] == [None]
    store.close()


@pytest.mark.parametrize("field", ["config", "parts"])
def test_json_fields_at_the_depth_limit_are_stored(field) -> None:
    # MAX_JSON_DEPTH bounds each field (the guard checks config and parts each alone); the
    # store keeps them together in one column, and that column's extra level is no level
    # of the caller's.
    from oracleagentmemory.stores.limits import MAX_JSON_DEPTH, nesting_depth

    value = [nested(MAX_JSON_DEPTH - 1)]
    assert nesting_depth(value) == MAX_JSON_DEPTH
    store = EmbeddedBackend(":memory:", embedding_dimension=2)
    store.write_records([{"record_type": "message", "id": "m", "content": "c", field: value}])
    store.write_records([{"record_type": "message", "id": "n", "content": "c"}])
    store.update_record("n", ["message"], {field: value})
    assert [record[field] for record in store.get_records({})] == [value, value]
    store.close()


@pytest.mark.parametrize("where", ["top", "nested"])
def test_a_mapping_json_cannot_encode_is_refused_naming_the_argument(where) -> None:
    # check_json walked any Mapping, and the encoder then refused a Mapping that is no dict
    # with a bare TypeError naming nothing ("Object of type mappingproxy is not JSON
    # serializable"); a value of a type JSON has not is an ArgumentTypeError naming it.
    from types import MappingProxyType

    from oracleagentmemory.errors import ArgumentTypeError

    inner = MappingProxyType({"a": 1})
    metadata = inner if where == "top" else {"x": [inner]}
    store = EmbeddedBackend(":memory:", embedding_dimension=2)
    with pytest.raises(ArgumentTypeError, match=r"records\[0\]\.metadata"):
        store.write_records([{"record_type": "memory", "id": "m", "metadata": metadata}])
    with pytest.raises(ArgumentTypeError, match=r"records\[0\]\.config"):
        store.write_records([{"record_type": "thread", "id": "t", "config": {"x": inner}}])
    assert store.get_records({}) == []
    store.close()


LINK_FIELDS = ["id", "source_id", "target_id", "thread_id", "relation_type",
               "opposite_relation_type"]


@pytest.mark.parametrize("field", LINK_FIELDS)
def test_a_link_field_no_database_can_store_is_refused_as_invalid(field) -> None:
    # The embedded store checks its own input (the client puts no LimitsGuard in front of
    # it): a link's ids were bound into the endpoint lookups before they were checked, and
    # its labels never were, so an unpaired surrogate came out of sqlite3 as a bare
    # UnicodeEncodeError instead of an InvalidArgumentError saying what is wrong.
    from oracleagentmemory.errors import AgentMemoryError

    store = EmbeddedBackend(":memory:", embedding_dimension=2)
    store.write_records([{"record_type": "memory", "id": "a"},
                         {"record_type": "memory", "id": "b"}])
    link = {"source_id": "a", "target_id": "b", "relation_type": "mine", field: "x\ud800"}
    with pytest.raises(ValueError, match="surrogate") as refused:
        store.write_records([], [link])
    assert isinstance(refused.value, AgentMemoryError)
    assert not isinstance(refused.value, UnicodeError)
    assert store.list_links({}) == []
    store.close()


@pytest.mark.parametrize("argument", ["relation_type", "opposite_relation_type"])
def test_link_records_refuses_a_label_with_a_surrogate_naming_it(argument) -> None:
    from oracleagentmemory.core import OracleAgentMemory
    from oracleagentmemory.errors import AgentMemoryError
    from tests.support.embedders import HashingEmbedder

    client = OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder())
    thread = client.create_thread(user_id="u")
    first, second = thread.add_memory("first"), thread.add_memory("second")
    labels = {"relation_type": "mine", argument: "label \ud800"}
    with pytest.raises(ValueError, match=argument) as refused:
        thread.link_records(first, "memory", second, "memory", **labels)
    assert isinstance(refused.value, AgentMemoryError)
    assert not isinstance(refused.value, UnicodeError)
    assert client.memory_service.backend.list_links({}) == []
    client.close()


@pytest.mark.parametrize("how", ["write_records", "update_record"])
def test_a_ttl_of_nan_days_is_refused_naming_it(how) -> None:
    # NaN passed "not negative" and reached timedelta: a bare "cannot convert float NaN to
    # integer" ValueError naming nothing.
    from oracleagentmemory.stores.errors import InvalidArgumentError

    store = EmbeddedBackend(":memory:", embedding_dimension=2)
    if how == "write_records":
        with pytest.raises(InvalidArgumentError, match=r"records\[0\]\.ttl_days"):
            store.write_records([{"record_type": "memory", "id": "m",
                                  "ttl_days": float("nan")}])
        assert store.get_records({}) == []
    else:
        store.write_records([{"record_type": "memory", "id": "m"}])
        with pytest.raises(InvalidArgumentError, match="ttl_days"):
            store.update_record("m", ["memory"], {"ttl_days": float("nan")})
        assert [record["expires_at"] for record in store.get_records({})] == [None]
    store.close()
