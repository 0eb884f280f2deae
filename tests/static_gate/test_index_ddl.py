"""Vector, hybrid vector and search index DDL against the documented 23ai grammar."""

from __future__ import annotations

import pytest

from oracleagentmemory_devtools.index_ddl import check_index_ddl
from oracleagentmemory_devtools.schema_catalog import build_catalog
from oracleagentmemory_devtools.sql_parsing import parse_source
from oracleagentmemory_devtools.sql_sources import SqlSource

TABLE = """CREATE TABLE docs (id NUMBER, body CLOB, meta JSON, emb VECTOR(8, FLOAT32));
"""


def _problems(statement: str) -> list[str]:
    parsed = [parse_source(SqlSource("sql/t.sql", TABLE + statement))]
    return [f"{f.line}:{f.col} {f.message}" for f in check_index_ddl(parsed,
                                                                     build_catalog(parsed))]


@pytest.mark.parametrize("statement", [
    "CREATE VECTOR INDEX v1 ON docs (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH",
    "CREATE VECTOR INDEX v1 ON docs (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE "
    "WITH TARGET ACCURACY 95 PARAMETERS (TYPE HNSW, NEIGHBORS 32, EFCONSTRUCTION 200)",
    "CREATE VECTOR INDEX v1 ON docs (emb) ORGANIZATION INMEMORY GRAPH WITH DISTANCE DOT "
    "PARAMETERS (TYPE HNSW, M 16, EFCONSTRUCTION 64) PARALLEL 4",
    "CREATE VECTOR INDEX v1 ON docs (emb) ORGANIZATION NEIGHBOR PARTITIONS DISTANCE EUCLIDEAN",
    "CREATE VECTOR INDEX v1 ON docs (emb) INCLUDE (id) GLOBAL ORGANIZATION PARTITIONS "
    "WITH TARGET ACCURACY 90 PARAMETERS (TYPE IVF, NEIGHBOR PARTITIONS 10, "
    "SAMPLES_PER_PARTITION 100, MIN_VECTORS_PER_PARTITION 5) LOCAL",
    "CREATE HYBRID VECTOR INDEX h1 ON docs (body) PARAMETERS ('MODEL doc_model')",
    "CREATE HYBRID VECTOR INDEX h1 ON docs (body) FILTER BY id ORDER BY id DESC "
    "PARAMETERS ('MODEL doc_model VECTOR_IDXTYPE IVF SYNC (EVERY \"FREQ=MINUTELY\")') PARALLEL 2",
    "CREATE HYBRID VECTOR INDEX h1 ON docs (body) PARAMETERS ('VECTORIZER my_pref "
    "MAINTENANCE MANUAL')",
    "CREATE SEARCH INDEX s1 ON docs (meta) FOR JSON",
    "CREATE SEARCH INDEX s1 ON docs (meta) FOR JSON PARAMETERS ('DATAGUIDE OFF SYNC (ON COMMIT)"
    " SEARCH_ON TEXT_VALUE')",
    "CREATE SEARCH INDEX s1 ON docs (body) FOR TEXT PARAMETERS ('MAINTENANCE AUTO')",
    "CREATE SEARCH INDEX s1 ON docs (body) PARAMETERS ('SYNC (MANUAL) LEXER my_lexer')",
])
def test_documented_statements_pass(statement: str) -> None:
    assert _problems(statement + ";") == []


@pytest.mark.parametrize(("statement", "expected"), [
    ("CREATE VECTOR INDEX v1 ON docs (emb) DISTANCE COSINE", "2:38 expected ORGANIZATION"),
    ("CREATE VECTOR INDEX v1 ON docs (emb) ORGANIZATION INMEMORY NEIGHBOR PARTITIONS",
     "expected GRAPH after ORGANIZATION INMEMORY"),
    ("CREATE VECTOR INDEX v1 ON docs (emb) ORGANIZATION NEIGHBOR GRAPH",
     "expected PARTITIONS"),
    ("CREATE VECTOR INDEX v1 ON docs (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH "
     "DISTANCE COSINUS", "unknown distance metric COSINUS"),
    ("CREATE VECTOR INDEX v1 ON docs (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH "
     "WITH TARGET ACCURACY 150", "TARGET ACCURACY 150 is outside 1..100"),
    ("CREATE VECTOR INDEX v1 ON docs (emb) ORGANIZATION NEIGHBOR PARTITIONS "
     "PARAMETERS (TYPE HNSW, NEIGHBORS 32, EFCONSTRUCTION 200)",
     "TYPE HNSW needs ORGANIZATION INMEMORY NEIGHBOR GRAPH"),
    ("CREATE VECTOR INDEX v1 ON docs (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH "
     "PARAMETERS (TYPE HNSW, NEIGHBOR PARTITIONS 10)", "unknown HNSW parameter NEIGHBOR"),
    ("CREATE VECTOR INDEX v1 ON docs (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH "
     "PARAMETERS (TYPE HNSW, NEIGHBORS 4096, EFCONSTRUCTION 200)",
     "NEIGHBORS 4096 is outside 2..2048"),
    ("CREATE VECTOR INDEX v1 ON docs (body) ORGANIZATION INMEMORY NEIGHBOR GRAPH",
     "DOCS.BODY is CLOB, not a VECTOR column"),
    ("CREATE VECTOR INDEX v1 ON docs (nope) ORGANIZATION INMEMORY NEIGHBOR GRAPH",
     "table DOCS has no column NOPE"),
    ("CREATE VECTOR INDEX v1 ON docs (emb, id) ORGANIZATION INMEMORY NEIGHBOR GRAPH",
     "exactly one column"),
    ("CREATE HYBRID VECTOR INDEX h1 ON docs (body)", "expected PARAMETERS"),
    ("CREATE HYBRID VECTOR INDEX h1 ON docs (body) PARAMETERS ('VECTOR_IDXTYPE HNSW')",
     "must name MODEL"),
    ("CREATE HYBRID VECTOR INDEX h1 ON docs (body) PARAMETERS ('MODEL m VECTOR_IDXTYPE FLAT')",
     "VECTOR_IDXTYPE is HNSW or IVF"),
    ("CREATE HYBRID VECTOR INDEX h1 ON docs (body) PARAMETERS ('MODEL m VECTORIZER p')",
     "do not combine it with MODEL"),
    ("CREATE HYBRID VECTOR INDEX h1 ON docs (body) PARAMETERS ('MODEL m SYNC ON COMMIT')",
     "SYNC takes a parenthesised mode"),
    ("CREATE SEARCH INDEX s1 ON docs (meta) FOR JSON PARAMETERS ('SYNC (SOMETIMES)')",
     "SYNC (SOMETIMES) is not MANUAL, ON COMMIT"),
    ("CREATE SEARCH INDEX s1 ON docs (meta) FOR YAML", "FOR takes JSON, TEXT or XML"),
    ("CREATE SEARCH INDEX s1 ON docs (meta) PARAMETERS ('MAINTENANCE SOON')",
     "MAINTENANCE is AUTO or MANUAL"),
    ("CREATE SEARCH INDEX s1 ON docs (meta) PARAMETERS ('SPEED FAST')",
     "unknown parameter 'SPEED'"),
    ("CREATE SEARCH INDEX s1 ON missing (meta)", "table MISSING is not created by the DDL"),
])
def test_broken_statements_are_reported(statement: str, expected: str) -> None:
    problems = _problems(statement + ";")
    assert any(expected in p for p in problems), problems
