"""The Oracle store's marshalling, against a recording stand-in for an oracledb connection.

The conformance suite (tests/contract) runs against a real database when
AGENTMEMORY_TEST_DSN is set; these tests check, without one, what each contract call sends:
the PL/SQL block, the named binds and their JSON shapes, and how results and ORA errors
come back.
"""

from __future__ import annotations

import inspect

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.stores.errors import (  # noqa: E402
    DuplicateRecordError,
    InvalidFilterError,
    SchemaError,
)
from oracleagentmemory.stores.operations import OPERATIONS  # noqa: E402
from oracleagentmemory.stores.oracle import OracleBackend  # noqa: E402
from oracleagentmemory.stores.protocol import StoreBackend  # noqa: E402
from tests.support.fake_oracledb import FakeConnection, database_error  # noqa: E402
from tests.support.oracle import backend_on_double as store_with  # noqa: E402


def test_every_contract_operation_has_the_same_signature_on_oracle():
    names = [n for n, v in vars(StoreBackend).items() if callable(v) and not n.startswith("_")]
    assert sorted(names) == sorted(op.name for op in OPERATIONS)
    for name in names:
        assert list(inspect.signature(getattr(OracleBackend, name)).parameters) == list(
            inspect.signature(getattr(StoreBackend, name)).parameters), name


def test_append_messages_sends_one_call_with_the_batch_as_one_json_bind():
    answer = {"ids": ["m1"], "written": True, "last_message": None,
              "extraction_window": 1, "summary_window": 0,
              "messages": [{"id": "m1", "record_type": "message", "seq_no": 7}],
              "thread_summary": None}
    store, connection = store_with(APPEND_MESSAGES=answer)
    batch = {"thread_id": "t", "records": [{"record_type": "message", "id": "m1",
                                             "thread_id": "t", "embedding": [0.5, 1, 2]}],
             "after_message_id": None, "schedule": {"extraction_frequency": -1,
                                                    "extraction_window": -1,
                                                    "summary_frequency": None}}
    result = store.append_messages(batch)
    [(block, binds)] = connection.calls
    assert block == ("BEGIN :result := AGENT_MEMORY.APPEND_MESSAGES(p_batch => :p_batch, "
                     "p_commit => :p_commit); END;")
    assert binds["p_batch"]["records"][0]["embedding"] == [0.5, 1.0, 2.0]
    assert binds["p_batch"]["after_message_id"] is None
    assert binds["p_commit"] is True
    # JSON numbers come back as Decimal from the driver and leave as int
    assert result["extraction_window"] == 1 and type(result["extraction_window"]) is int
    assert result["messages"][0]["seq_no"] == 7 and result["written"] is True


def test_write_records_sends_one_call_with_json_binds():
    store, connection = store_with(WRITE_RECORDS=["m1"])
    ids = store.write_records(
        [{"record_type": "image", "id": "m1", "embedding": __import__("numpy").ones(3),
          "image_bytes": b"\x89PNG"}],
        links=[{"thread_id": "t", "source_id": "a"}], replace=True)
    assert ids == ["m1"]
    [(block, binds)] = connection.calls
    assert block == ("BEGIN :result := AGENT_MEMORY.WRITE_RECORDS(p_records => :p_records, "
                     "p_links => :p_links, p_replace => :p_replace, "
                     "p_thread_id => :p_thread_id, p_commit => :p_commit); END;")
    assert binds["p_thread_id"] is None
    assert binds["p_records"] == [{"record_type": "image", "id": "m1",
                                   "embedding": [1.0, 1.0, 1.0], "image_bytes": "iVBORw=="}]
    assert binds["p_links"] == [{"thread_id": "t", "source_id": "a"}]
    assert (binds["p_replace"], binds["p_commit"]) == (True, True)


@pytest.mark.parametrize(("call", "member", "answer", "expected"), [
    (lambda s: s.describe(), "DESCRIBE", {"backend": "oracle"}, {"backend": "oracle"}),
    (lambda s: s.get_records({"ids": ["a"], "include_bytes": True}), "GET_RECORDS",
     [{"id": "a", "image_bytes": "AAE="}], [{"id": "a", "image_bytes": b"\x00\x01"}]),
    (lambda s: s.list_messages("t", -2, None), "LIST_MESSAGES", [], []),
    (lambda s: s.update_record("a", ["memory"], {"content": "x"}, "t"), "UPDATE_RECORD",
     None, None),
    (lambda s: s.delete_records(["a"], ["memory"]), "DELETE_RECORDS", 1, 1),
    (lambda s: s.delete_cascade("user", "u"), "DELETE_CASCADE",
     {"owner": 1, "records": 3, "links": 0}, {"owner": 1, "records": 3, "links": 0}),
    (lambda s: s.search({"query_text": "x", "query_vector": [1, 0, 0]}), "SEARCH", [], []),
    (lambda s: s.update_link("l", "t", {"relation_type": "supports"}), "UPDATE_LINK", 1, 1),
    (lambda s: s.delete_links({"id": "l"}, "t"), "DELETE_LINKS", 0, 0),
    (lambda s: s.list_links({"thread_id": "t"}), "LIST_LINKS", [], []),
    (lambda s: s.purge_expired(), "PURGE_EXPIRED", 4, 4),
])
def test_each_operation_calls_its_member(call, member, answer, expected):
    store, connection = store_with(**{member: answer})
    assert call(store) == expected
    [(block, _)] = connection.calls
    assert f"AGENT_MEMORY.{member}(" in block


def test_search_request_vector_is_sent_as_floats():
    store, connection = store_with(SEARCH=[])
    store.search({"query_text": "x", "query_vector": [1, 0, 0], "scope": {}})
    assert connection.calls[0][1]["p_request"]["query_vector"] == [1.0, 0.0, 0.0]


def test_application_errors_map_to_contract_exceptions():
    store, _ = store_with(WRITE_RECORDS=database_error(20003, "id 'x' already exists"))
    with pytest.raises(DuplicateRecordError, match="already exists") as raised:
        store.write_records([{"record_type": "memory", "id": "x"}])
    assert isinstance(raised.value, ValueError)
    store, _ = store_with(SEARCH=database_error(20004, "unknown operator '$x'"))
    with pytest.raises(InvalidFilterError, match=r"\$x"):
        store.search({"query_text": "x"})


def test_require_existing_fails_clearly_without_the_schema():
    connection = FakeConnection(CHECK_SCHEMA=database_error(6550, "AGENT_MEMORY must be "
                                                                  "declared"))
    with pytest.raises(SchemaError, match="not installed"):
        OracleBackend(connection, embedding_dimension=3, schema_policy="REQUIRE_EXISTING")


def test_create_if_necessary_installs_and_warns_without_create_job():
    connection = FakeConnection(CHECK_SCHEMA=database_error(4043, "does not exist"),
                                ENSURE_PURGE_JOB=False)
    with pytest.warns(UserWarning, match="CREATE JOB"):
        OracleBackend(connection, embedding_dimension=3)
    statements = [block for block, _ in connection.calls]
    assert any(s.startswith("CREATE TABLE IF NOT EXISTS AGENT_MEMORY_RECORDS")
               for s in statements)
    assert any(s.startswith("CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY") for s in statements)
    assert not any(s.rstrip().endswith(";") and s.startswith("CREATE TABLE")
                   for s in statements)


def test_old_database_is_refused():
    connection = FakeConnection(CHECK_SCHEMA=database_error(4043, "does not exist"))
    connection.release = 19
    with pytest.raises(SchemaError, match="23ai"):
        OracleBackend(connection, embedding_dimension=3)


def test_recreate_resets_the_store():
    connection = FakeConnection()
    OracleBackend(connection, embedding_dimension=3, schema_policy="RECREATE")
    assert "AGENT_MEMORY.RESET_STORE(p_commit => :p_commit)" in connection.calls[-1][0]


def test_install_with_a_missing_model_fails_clearly():
    connection = FakeConnection(CHECK_SCHEMA=database_error(4043, "does not exist"))
    connection.models_loaded = 0
    with pytest.raises(SchemaError, match="DOC_MODEL is not loaded"):
        OracleBackend(connection, embedding_dimension=3, embedding_model="doc_model")


def test_oracle_cli_commands(monkeypatch):
    import contextlib
    import io

    from oracleagentmemory import cli
    from tests.support.cli_docs import EXIT

    def run(*argv: str) -> tuple[int, io.StringIO, io.StringIO]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main([*argv, "--dsn", "db/svc", "--user", "app"])
        return code, out, err

    connection = FakeConnection(DESCRIBE={"backend": "oracle", "schema_version": 1},
                                ENSURE_PURGE_JOB=True)

    def connect(**kwargs):
        connection.closed = False  # each command's own session on the same database
        return connection

    monkeypatch.setattr(oracledb, "connect", connect)
    monkeypatch.setenv("ORACLEAGENTMEMORY_PASSWORD", "secret")
    for command in ("install", "upgrade", "status"):
        code, out, err = run(command)
        assert code == 0, err.getvalue()
        assert '"schema_version": 1' in out.getvalue()
    code, out, err = run("uninstall")
    assert code == 0
    assert "removed" in out.getvalue()
    assert any("DROP" in block.upper() for block, _ in connection.calls)

    connection.answers["CHECK_SCHEMA"] = database_error(1031, "insufficient privileges")
    code, out, err = run("status")
    assert code == EXIT["permission denied"]
    assert "ORA-01031" in err.getvalue() and "grants_owner.sql" in err.getvalue()
    assert len(err.getvalue().splitlines()) == 1


def test_reading_commands_reach_an_oracle_store_with_dsn(monkeypatch):
    import contextlib
    import io
    import json

    from oracleagentmemory import cli

    thread = {"id": "trip", "record_type": "thread", "user_id": "alice", "agent_id": None,
              "created_at": "2026-05-01T10:00:00.000000Z", "metadata": None}
    connection = FakeConnection(DESCRIBE={"backend": "oracle", "store_id": "MEM"},
                                GET_RECORDS=[thread], LIST_MESSAGES=[])
    connected: list[dict] = []
    closed: list[bool] = []
    connection.close = lambda: closed.append(True)

    def connect(**kwargs):
        connected.append(kwargs)
        return connection

    monkeypatch.setattr(oracledb, "connect", connect)
    monkeypatch.setenv("APP_PASSWORD", "secret")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["threads", "--dsn", "db:1521/svc", "--user", "app",
                         "--password-env", "APP_PASSWORD", "--store-id", "MEM", "--json"])
    assert code == 0, err.getvalue()
    assert connected == [{"user": "app", "password": "secret", "dsn": "db:1521/svc"}]
    assert [t["id"] for t in json.loads(out.getvalue())] == ["trip"]
    assert any("MEM.GET_RECORDS" in block for block, _ in connection.calls)
    assert closed == [True]


# -- schema 2: the contract's link and record changes -------------------------------------


def test_list_links_sends_the_link_query_as_one_json_document():
    query = {"thread_id": None, "source_id": "a", "relation_type": "supports",
             "metadata_filter": {"tags": {"$array_contains": "x"}}, "limit": 2}
    store, connection = store_with(LIST_LINKS=[])
    assert store.list_links(query) == []
    [(block, binds)] = connection.calls
    assert block == "BEGIN :result := AGENT_MEMORY.LIST_LINKS(p_query => :p_query); END;"
    assert binds == {"p_query": query}  # a null thread_id is sent, not dropped


@pytest.mark.parametrize("thread_id", [None, "t1"])
def test_link_changes_and_deletes_send_the_thread_or_null_for_any(thread_id):
    store, connection = store_with(UPDATE_LINK=1, DELETE_LINKS=1)
    assert store.update_link("r1", thread_id, {"relation_type": "refines"}) == 1
    assert store.delete_links({"id": "r1"}, thread_id) == 1
    (_, update), (_, delete) = connection.calls
    assert update == {"p_relation_id": "r1", "p_thread_id": thread_id,
                      "p_changes": {"relation_type": "refines"}, "p_commit": True}
    assert delete == {"p_selector": {"id": "r1"}, "p_thread_id": thread_id, "p_commit": True}


def test_a_linked_hit_carries_the_whole_relation_with_driver_numbers_decoded():
    relation = {"id": "r1", "thread_id": None, "source_id": "a", "source_type": "memory",
                "target_id": "b", "target_type": "fact", "relation_type": "supports",
                "opposite_relation_type": "is_supported_by", "timestamp": None,
                "metadata": {"weight": 0.25, "votes": 3},
                "created_at": "2026-01-01T00:00:00.000000Z"}
    hit = {"record": {"id": "a", "record_type": "memory"}, "distance": 0,
           "linked": [{"record": {"id": "b", "record_type": "fact"}, "relation": relation,
                       "relation_id": "r1", "relation_type": "supports",
                       "via_record_id": "a", "hops": 1}]}
    store, _ = store_with(SEARCH=[hit])
    [got] = store.search({"query_vector": [1, 0, 0], "num_hops": 1})
    [linked] = got["linked"]
    assert linked["relation"] == relation
    assert type(linked["relation"]["metadata"]["weight"]) is float
    assert type(linked["relation"]["metadata"]["votes"]) is int
    assert type(linked["hops"]) is int and type(got["distance"]) is float


def test_message_seq_no_comes_back_as_an_int():
    store, _ = store_with(LIST_MESSAGES=[{"id": "m1", "record_type": "message", "seq_no": 41},
                                         {"id": "m2", "record_type": "message", "seq_no": 57}])
    messages = store.list_messages("t", None, None)
    assert [m["seq_no"] for m in messages] == [41, 57]
    assert all(type(m["seq_no"]) is int for m in messages)


def test_opening_checks_the_schema_version_this_library_needs():
    from oracleagentmemory.stores.oracle_sql.render import SCHEMA_VERSION

    connection = FakeConnection()
    OracleBackend(connection, embedding_dimension=3)
    [(block, binds)] = connection.calls
    assert block == ("BEGIN AGENT_MEMORY.CHECK_SCHEMA(p_dimension => :p_dimension, "
                     "p_version => :p_version); END;")
    assert binds == {"p_dimension": 3, "p_version": SCHEMA_VERSION}
    assert SCHEMA_VERSION == 5


def test_write_records_into_a_thread_binds_the_thread_id():
    store, connection = store_with(WRITE_RECORDS=["m1"])
    store.write_records([{"record_type": "memory", "id": "m1"}], thread_id="t1")
    [(_, binds)] = connection.calls
    assert binds["p_thread_id"] == "t1"
