"""OracleDBEmbedder against a driver double that answers like python-oracledb.

The double parses the one bind it needs (the JSON array of texts) and answers one row per
text whose value is an ``array.array("f")``, the type python-oracledb fetches ``VECTOR``
columns as (python-oracledb user guide, "Using VECTOR Data").
"""

from __future__ import annotations

import array
import asyncio
import json

import numpy as np
import pytest

from oracleagentmemory.apis.embedders import IEmbedder
from oracleagentmemory.core.embedders import OracleDBEmbedder


class VectorCursor:
    def __init__(self, connection: VectorConnection) -> None:
        self.connection = connection
        self.rows: list[tuple] = []

    def __enter__(self) -> VectorCursor:
        return self

    def __exit__(self, *exc: object) -> bool:
        return False

    def execute(self, statement: str, binds: dict) -> VectorCursor:
        self.connection.statements.append((statement, dict(binds)))
        texts = json.loads(binds["texts"])
        self.rows = [(array.array("f", self.connection.vector_for(text)),) for text in texts]
        return self

    def fetchall(self) -> list[tuple]:
        return self.rows


class VectorConnection:
    def __init__(self, dimension: int = 3) -> None:
        self.dimension = dimension
        self.statements: list[tuple[str, dict]] = []

    def vector_for(self, text: str) -> list[float]:
        return [float(len(text))] + [1.0] * (self.dimension - 1)

    def cursor(self) -> VectorCursor:
        return VectorCursor(self)


class VectorPool:
    """Hands out the one connection, as ``pool.acquire()`` does (a context manager)."""

    def __init__(self, connection: VectorConnection) -> None:
        self.connection = connection

    def acquire(self) -> VectorPool:
        return self

    def __enter__(self) -> VectorConnection:
        return self.connection

    def __exit__(self, *exc: object) -> bool:
        return False


def test_the_in_database_model_embeds_with_bound_texts_in_order():
    connection = VectorConnection()
    embedder = OracleDBEmbedder(connection, "doc_model", normalize=False, batch_size=2)
    vectors = embedder.embed(["a", "bbb", "cc"])
    assert isinstance(embedder, IEmbedder)
    assert vectors.dtype == np.float32
    np.testing.assert_array_equal(vectors[:, 0], [1.0, 3.0, 2.0])
    (first_sql, first_binds), (_, second_binds) = connection.statements
    assert "VECTOR_EMBEDDING(DOC_MODEL USING jt.txt AS DATA)" in first_sql
    assert ":texts" in first_sql and "bbb" not in first_sql
    assert json.loads(first_binds["texts"]) == ["a", "bbb"]
    assert json.loads(second_binds["texts"]) == ["cc"]
    assert embedder.embedding_dimension == 3
    assert embedder.model == "DOC_MODEL"


def test_queries_get_the_prefix_and_vectors_are_normalized_by_default():
    connection = VectorConnection(dimension=2)
    embedder = OracleDBEmbedder(connection, "owner.doc_model", input_name="text",
                                query_prefix="query: ")
    vectors = embedder.embed(["abc"], is_query=True)
    sql, binds = connection.statements[0]
    assert "VECTOR_EMBEDDING(OWNER.DOC_MODEL USING jt.txt AS TEXT)" in sql
    assert json.loads(binds["texts"]) == ["query: abc"]
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), [1.0], rtol=1e-6)
    embedder.embed(["abc"])
    assert json.loads(connection.statements[1][1]["texts"]) == ["abc"]


def test_a_third_party_provider_goes_through_utl_to_embedding_with_bound_params():
    connection = VectorConnection()
    embedder = OracleDBEmbedder(
        VectorPool(connection), "cohere.embed-english-v3.0", provider="ocigenai",
        provider_options={"credential_name": "OCI_CRED",
                          "url": "https://inference.example/actions/embedText"})
    asyncio.run(embedder.embed_async(["hello"]))
    sql, binds = connection.statements[0]
    assert "DBMS_VECTOR.UTL_TO_EMBEDDING(jt.txt, JSON(:params))" in sql
    assert "cohere" not in sql  # the model travels in the bound params
    assert json.loads(binds["params"]) == {
        "provider": "ocigenai", "model": "cohere.embed-english-v3.0",
        "credential_name": "OCI_CRED", "url": "https://inference.example/actions/embedText"}
    assert json.loads(embedder.get_vectorizer_config_json()) == json.loads(binds["params"])


def test_the_vectorizer_config_of_the_in_database_model():
    embedder = OracleDBEmbedder(VectorConnection(), "doc_model")
    assert json.loads(embedder.get_vectorizer_config_json()) == {"provider": "database",
                                                                 "model": "DOC_MODEL"}


def test_long_texts_are_cut_to_the_column_and_the_token_limit():
    connection = VectorConnection()
    OracleDBEmbedder(connection, "m", max_input_tokens=10_000).embed(["é" * 5000])
    [sent] = json.loads(connection.statements[0][1]["texts"])
    assert len(sent.encode("utf-8")) <= 4000 and set(sent) == {"é"}
    OracleDBEmbedder(connection, "m", max_input_tokens=4).embed(["word " * 100])
    [short] = json.loads(connection.statements[1][1]["texts"])
    assert len(short) < 20


def test_a_declared_dimension_is_checked():
    with pytest.raises(ValueError, match="dimension 3, expected 5"):
        OracleDBEmbedder(VectorConnection(), "m", embedding_dimension=5).embed(["a"])


def test_no_texts_need_no_round_trip():
    connection = VectorConnection()
    assert OracleDBEmbedder(connection, "m", embedding_dimension=3).embed([]).shape == (0, 3)
    assert connection.statements == []


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"model": "doc model; drop table x"}, ValueError, "model must be an Oracle identifier"),
    ({"model": "m", "input_name": "da ta"}, ValueError, "input_name"),
    ({"model": "m", "input_name": 384}, ValueError, "input_name"),
    ({"model": "m", "provider_options": {"url": "x"}}, ValueError, "provider_options"),
    ({"model": "m", "provider": ""}, ValueError, "provider"),
    ({"model": "m", "batch_size": 0}, ValueError, "batch_size"),
    ({"model": "m", "normalize": 1}, TypeError, "normalize"),
])
def test_bad_arguments_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        OracleDBEmbedder(VectorConnection(), **kwargs)


def test_the_connection_must_be_an_oracledb_connection_or_pool():
    with pytest.raises(TypeError, match="connection"):
        OracleDBEmbedder("dsn-string", "m")
