"""The ids of a written record are checked as before the short path for plain ASCII ids.

Ingestion checks five ids a record and names an argument only when one is refused; these
cases hold the short path and the full check to the same answers, in Chinese, Korean and
French as well as ASCII.
"""

from __future__ import annotations

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.errors import InvalidArgumentError
from oracleagentmemory.stores.limits import MAX_ID_LENGTH

FIELDS = ("id", "user_id", "agent_id", "thread_id", "message_id")


class Text(str):
    """A str subclass: not a plain str, so it takes the full check, which accepts it."""


@pytest.fixture
def backend():
    store = EmbeddedBackend(":memory:", embedding_dimension=4)
    yield store
    store.close()


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize(("value", "message"), [
    (42, "must be a string, got int"),
    ("x" * (MAX_ID_LENGTH + 1), f"must have 1 to {MAX_ID_LENGTH} characters"),
    ("用户\ud800", "contains an unpaired surrogate"),
    (b"bytes", "must be a string, got bytes"),
])
def test_a_refused_id_names_its_record_and_field(backend, field, value, message):
    records = [{"record_type": "memory", "content": "ok"},
               {"record_type": "memory", "content": "bad", field: value}]
    with pytest.raises(InvalidArgumentError, match=rf"^records\[1\]\.{field} {message}"):
        backend.write_records(records)
    assert backend.get_records({"record_types": ["memory"]}) == []


@pytest.mark.parametrize("field", ("user_id", "agent_id", "thread_id", "message_id"))
def test_an_empty_scope_id_is_refused(backend, field):
    with pytest.raises(InvalidArgumentError,
                       match=rf"records\[0\]\.{field} must have 1 to {MAX_ID_LENGTH}"):
        backend.write_records([{"record_type": "memory", "content": "c", field: ""}])


@pytest.mark.parametrize("falsy", ["", 0, False, None])
def test_a_falsy_record_id_gets_a_new_one(backend, falsy):
    [made] = backend.write_records([{"record_type": "memory", "content": "c", "id": falsy}])
    [stored] = backend.get_records({"record_types": ["memory"]})
    assert isinstance(made, str) and len(made) == 36 and stored["id"] == made


@pytest.mark.parametrize("value", [
    "x" * MAX_ID_LENGTH, "用户-張三", "사용자-김", "utilisateur-é", Text("plain"), "🙂" * 10,
])
def test_accepted_ids_are_stored_as_given(backend, value):
    backend.write_records([{"record_type": "memory", "content": "c", "id": value,
                            "user_id": value, "agent_id": value}])
    [record] = backend.get_records({"record_types": ["memory"]})
    assert (record["id"], record["user_id"], record["agent_id"]) == (value, value, value)
