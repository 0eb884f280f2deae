"""The Oracle store records the model of its vectors (schema version 5), so the default
embedder on Oracle is multilingual-e5-small for a new store and stays all-MiniLM-L6-v2 for a
store made with it; and a store rendered with an in-database form of one of the project's
models embeds in SQL as the client does (the model's text prefixes).

The double answers each facade member as the database would: ``RECORDED_EMBEDDING_MODEL``
returns a VARCHAR2 or NULL, and packages older than version 5 have no such member
(PLS-00302 inside ORA-06550).
"""

from __future__ import annotations

import re

import pytest

oracledb = pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.core.embedders import default_embedder, settle_default_embedder  # noqa: E402
from oracleagentmemory.stores.embedded import EmbeddedBackend  # noqa: E402
from oracleagentmemory.stores.oracle import OracleBackend  # noqa: E402
from oracleagentmemory.stores.oracle_sql.render import render_install  # noqa: E402
from oracleagentmemory.stores.protocol import RecordsEmbeddingModel  # noqa: E402
from tests.support.embedders import HashingEmbedder  # noqa: E402
from tests.support.fake_oracledb import FakeConnection, database_error  # noqa: E402

E5, MINILM = "multilingual-e5-small", "all-MiniLM-L6-v2"
NO_MEMBER = database_error(6550, "line 1, column 20:\nPLS-00302: component "
                                 "'RECORDED_EMBEDDING_MODEL' must be declared")


def opened(**answers: object) -> tuple[OracleBackend, FakeConnection]:
    connection = FakeConnection(**answers)
    return OracleBackend(connection, embedding_dimension=384), connection


def recorded_names(connection: FakeConnection) -> list[object]:
    return [binds["p_name"] for statement, binds in connection.calls
            if "RECORD_EMBEDDING_MODEL(" in statement]


def test_both_backends_implement_the_protocol(tmp_path) -> None:
    backend, _ = opened()
    assert isinstance(backend, RecordsEmbeddingModel)
    assert isinstance(EmbeddedBackend(str(tmp_path / "m.db"), embedding_dimension=384,
                                      schema_policy="CREATE_IF_NECESSARY",
                                      search_strategy="HYBRID"), RecordsEmbeddingModel)


def test_a_new_oracle_store_gets_the_multilingual_default_and_records_it() -> None:
    backend, connection = opened(RECORDED_EMBEDDING_MODEL=None)
    embedder = settle_default_embedder(backend, default_embedder())
    assert embedder is not None and embedder.model_name == E5
    assert recorded_names(connection) == [E5]
    [(block, binds)] = [(s, b) for s, b in connection.calls if "RECORD_EMBEDDING_MODEL(" in s]
    assert block == ("BEGIN AGENT_MEMORY.RECORD_EMBEDDING_MODEL(p_name => :p_name, "
                     "p_commit => :p_commit); END;")
    assert binds == {"p_name": E5, "p_commit": True}


def test_an_oracle_store_made_with_minilm_keeps_minilm() -> None:
    backend, connection = opened(RECORDED_EMBEDDING_MODEL=MINILM)
    embedder = settle_default_embedder(backend, default_embedder())
    assert embedder is not None and embedder.model_name == MINILM
    assert type(embedder).__name__ == "LocalMiniLMEmbedder"
    assert recorded_names(connection) == [MINILM]  # the database keeps the first name


def test_a_store_whose_packages_predate_the_record_keeps_the_old_default() -> None:
    backend, connection = opened(RECORDED_EMBEDDING_MODEL=NO_MEMBER,
                                 RECORD_EMBEDDING_MODEL=NO_MEMBER)
    assert backend.recorded_embedding_model() == MINILM
    embedder = settle_default_embedder(backend, default_embedder())
    assert embedder is not None and embedder.model_name == MINILM
    assert recorded_names(connection) == [MINILM]  # tried, refused, nothing raised


class NamedEmbedder(HashingEmbedder):
    model_name = "my-remote-model"


def test_a_callers_own_embedder_is_kept_and_recorded() -> None:
    backend, connection = opened(RECORDED_EMBEDDING_MODEL=None)
    mine = NamedEmbedder()
    assert settle_default_embedder(backend, mine) is mine
    assert recorded_names(connection) == ["my-remote-model"]


def test_the_recorded_name_is_read_as_a_varchar2() -> None:
    backend, connection = opened(RECORDED_EMBEDDING_MODEL=E5)
    assert backend.recorded_embedding_model() == E5
    [(block, binds)] = [(s, b) for s, b in connection.calls if "RECORDED_EMBEDDING_MODEL" in s]
    assert block == "BEGIN :result := AGENT_MEMORY.RECORDED_EMBEDDING_MODEL(); END;"
    assert binds == {}


# --- what the packages say, per in-database model ---------------------------------------


def _member(body: str, name: str) -> str:
    start = body.index(f"FUNCTION {name}")
    return body[start:body.index(f"END {name};", start)]


def test_a_store_rendered_with_the_e5_form_prefixes_what_sql_embeds() -> None:
    scripts = dict(render_install(embedding_model="MULTILINGUAL_E5_SMALL"))
    embed = _member(scripts["agent_memory_record_api.pkb"], "embed_text")
    assert ("l_text := CASE WHEN p_is_query THEN 'query: ' ELSE 'passage: ' END || p_text;"
            in embed)
    search = scripts["agent_memory_search.pkb"]
    assert "embed_text(l_req.query_text, p_is_query => TRUE)" in search
    recorded = _member(scripts["agent_memory_admin.pkb"], "recorded_embedding_model")
    assert f"RETURN '{E5}';" in recorded


@pytest.mark.parametrize("model", ["ALL_MINILM_L6_V2", "ALL_MINILM_L12_V2", None])
def test_other_models_read_their_text_as_it_is(model: str | None) -> None:
    scripts = dict(render_install(embedding_model=model))
    body = scripts["agent_memory_record_api.pkb"]
    assert "'query: '" not in body and "'passage: '" not in body
    recorded = _member(scripts["agent_memory_admin.pkb"], "recorded_embedding_model")
    if model == "ALL_MINILM_L6_V2":
        assert f"RETURN '{MINILM}';" in recorded
    else:  # not a form of ours: the old default when the store holds vectors
        assert re.search(rf"WHEN l_vectors > 0 THEN '{MINILM}' END", recorded)


def test_recording_keeps_the_first_name() -> None:
    body = dict(render_install())["agent_memory_admin.pkb"]
    record = body[body.index("PROCEDURE record_embedding_model"):
                  body.index("END record_embedding_model;")]
    assert "WHEN NOT MATCHED THEN INSERT" in record and "WHEN MATCHED" not in record
    assert "USING (SELECT 'vector_model' AS k, p_name AS v FROM dual) s" in record
