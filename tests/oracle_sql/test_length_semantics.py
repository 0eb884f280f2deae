"""Lengths in characters and DBMS_LOB.SUBSTR in SQL, on every rendering of the store.

Ids are checked in characters, but VARCHAR2(512) columns and variables held
bytes, so a valid non-ASCII id failed with ORA-12899/ORA-06502. And the in-database
embedding took DBMS_LOB.SUBSTR(p_text, 2000, 1) inside SQL, where the result is a SQL
VARCHAR2 of at most 4000 bytes: 2000 CJK characters failed. The static gate's length
checks (oracleagentmemory_devtools/length_semantics.py) must find nothing in any
rendering, and the PL/SQL that guards a timestamp must measure it before copying it into a
smaller variable.
(tests/plsql/ut_agent_memory_records runs the same cases on a database.)
"""

from __future__ import annotations

import re
from itertools import product

import pytest

from oracleagentmemory.stores.oracle_sql.render import (
    SEARCH_STRATEGIES,
    VECTOR_INDEXES,
    context_name,
    object_names,
    render_all,
    render_install,
)
from oracleagentmemory_devtools.length_semantics import check_length_semantics
from oracleagentmemory_devtools.sql_parsing import ParsedFile
from oracleagentmemory_devtools.sql_sources import SqlSource

RENDERINGS = [
    {"embedding_model": model, "search_strategy": strategy, "vector_index": index}
    for model, strategy, index in product((None, "DOC_MODEL"), SEARCH_STRATEGIES,
                                          VECTOR_INDEXES)
]


def _sources(scripts) -> list[ParsedFile]:
    return [ParsedFile(SqlSource(f"sql/{name}", text), [], []) for name, text in scripts]


@pytest.mark.parametrize("options", RENDERINGS, ids=lambda o: "-".join(map(str, o.values())))
def test_every_rendering_uses_character_lengths_and_no_long_lob_substr_in_sql(options):
    findings = check_length_semantics(_sources(render_install(**options)))
    assert [f.format() for f in findings] == []


def test_every_id_column_holds_512_characters():
    tables = dict(render_all())["agent_memory_tables.sql"]
    for column in ("id", "user_id", "agent_id", "thread_id", "message_id", "source_id",
                   "target_id"):
        declarations = re.findall(rf"^\s+{column}\s+(VARCHAR2\([^)]*\))", tables, re.MULTILINE)
        assert declarations and set(declarations) == {"VARCHAR2(512 CHAR)"}, column


def test_the_model_text_reaches_the_embedding_as_a_clob():
    body = dict(render_install(embedding_model="DOC_MODEL"))["agent_memory_record_api.pkb"]
    embed = body[body.index("FUNCTION embed_text"):body.index("END embed_text")]
    # the text (with the model's prefix, if any) stays a CLOB all the way
    assert re.search(r"^\s+l_text\s+CLOB;", embed, re.MULTILINE)
    assert "DBMS_VECTOR_CHAIN.UTL_TO_EMBEDDING(\n                           l_text," in embed
    assert "DBMS_LOB.SUBSTR" not in embed
    # chunks small enough for 4000 bytes in AL32UTF8 (at most 4 bytes a character)
    assert re.search(r'"by": "chars", "max": (\d+)', embed).group(1) == "1000"


def test_a_timestamp_is_measured_before_it_is_copied():
    codec = dict(render_all())["agent_memory_codec.pkb"]
    parse_iso = codec[codec.index("FUNCTION parse_iso"):codec.index("END parse_iso")]
    body = parse_iso[parse_iso.index("BEGIN"):]
    assert "l_text VARCHAR2(200 CHAR) :=" not in parse_iso  # no copy in the declarations
    assert body.index("LENGTH(p_text) > c_max_timestamp_length") < body.index("l_text := ")
    for name, text in render_install():
        # every timestamp member is read through opt_timestamp, which measures the CLOB
        assert not re.search(r"opt_string\([^)]*'(timestamp|created_at)'", text), name


@pytest.mark.parametrize("prefix", ["AGENT_MEMORY", "A" * 26, "B" * 27, "C" * 30,
                                    "C" * 29 + "D"])
def test_context_names_fit_30_bytes_and_stay_distinct(prefix):
    name = context_name(prefix)
    assert len(name.encode()) <= 30 and name.endswith("_CTX")
    assert object_names(prefix)["context"] == name
    assert context_name("C" * 30) != context_name("C" * 29 + "D")
