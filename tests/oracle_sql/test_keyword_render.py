"""The Oracle keyword text: the rendered <prefix>_KEYWORD package cuts text exactly as
stores/keyword_text.py does (checked by a step-by-step Python port of its PL/SQL, reading the
ranges from the rendered body), the record API stores it, the text index and the query
builder read it (ut_agent_memory_keyword runs the same cases on a database)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from oracleagentmemory.stores.keyword_text import BIGRAM_RANGES, keyword_text
from oracleagentmemory.stores.oracle_sql import render

ROOT = Path(__file__).resolve().parents[2]
FILES = dict(render.render_install())


def strip_comments(text: str) -> str:
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


def rendered_ranges() -> list[tuple[int, int]]:
    body = FILES["agent_memory_keyword.pkb"]
    return [(int(low), int(high))
            for low, high in re.findall(r"WHEN l_code BETWEEN (\d+) AND (\d+) THEN 1", body)]


def asciistr(char: str) -> str:
    """SQL ASCIISTR of one character: ASCII kept, else \\XXXX per UTF-16 code unit."""
    if char.isascii():
        return char
    units = char.encode("utf-16-be")
    return "".join(f"\\{int.from_bytes(units[i:i + 2], 'big'):04X}"
                   for i in range(0, len(units), 2))


def plsql_is_bigram_char(char: str, ranges: list[tuple[int, int]]) -> bool:
    if len(char.encode("utf-8")) == 1:  # LENGTHB(p_char) = 1
        return False
    escaped = asciistr(char)
    if len(escaped) != 5 or escaped[0] != "\\":
        return False
    code = int(escaped[1:], 16)
    return any(low <= code <= high for low, high in ranges)


def plsql_keyword_text(text: str, ranges: list[tuple[int, int]], piece: int = 8000) -> str:
    """The body of <prefix>_KEYWORD.keyword_text, step by step (pieces, runs, emit)."""
    if all(len(text[i:i + piece].encode()) == len(text[i:i + piece])
           for i in range(0, len(text), piece)):
        return text
    out: list[str] = []
    prev, run = None, 0

    def close_run() -> None:
        nonlocal prev, run
        if run == 1:
            out.append(" " + str(prev) + " ")
        elif run > 1:
            out.append(" ")
        prev, run = None, 0

    for offset in range(0, len(text), piece):
        for char in text[offset:offset + piece]:
            if plsql_is_bigram_char(char, ranges):
                if run > 0:
                    out.append(" " + str(prev) + char)
                prev, run = char, run + 1
            else:
                close_run()
                out.append(char)
    close_run()
    return "".join(out)


CASES = [
    "台北101於2004年落成，曾是世界最高的建築。",
    "台北101是哪一年落成的？",
    "임종석이 대통령 비서실장으로 임명되었다.",
    "임종석은 누구인가?",
    "iPhone 15는 2023년에 나왔다",
    "Quelle est la capitale de la France ?",
    "L'été où j'ai vu « Montréal »…",
    "What is my spouse's name?",
    "ＡＢＣ１２３，全形：字元！",
    "韓國한국 a 가 b 年",
    "𠀀 supplementary 𠀀漢",  # U+20000 (extension B) is outside the BMP ranges
    "back\\slash 漢字",
    "",
]


def test_the_package_renders_exactly_the_python_ranges():
    assert rendered_ranges() == list(BIGRAM_RANGES)


@pytest.mark.parametrize("text", CASES)
def test_the_plsql_port_cuts_like_the_python_function(text):
    assert plsql_keyword_text(text, rendered_ranges()) == keyword_text(text)


def test_runs_across_piece_boundaries_are_cut_as_one_run():
    text = "a" + "漢字" * 7 + "b"
    assert plsql_keyword_text(text, rendered_ranges(), piece=4) == keyword_text(text)


def test_the_spec_documents_the_function_and_its_semantics():
    spec = FILES["agent_memory_keyword.pks"]
    assert "FUNCTION keyword_text(p_text IN CLOB) RETURN CLOB;" in spec
    for promise in ("overlapping character", "run of one character stays",
                    "CHAR semantics", "ASCIISTR", "keyword_text.BIGRAM_RANGES",
                    "Text without a non-ASCII character is returned unchanged"):
        assert promise in spec, promise
    assert "ACCESSIBLE BY" not in spec.split(" AS\n", 1)[0]  # callable from SQL


def test_the_record_api_stores_the_keyword_text_with_every_content_write():
    body = strip_comments(FILES["agent_memory_record_api.pkb"])
    assert "l_row.keyword_text := AGENT_MEMORY_KEYWORD.keyword_text(l_row.content);" in body
    assert "p_change.keyword_text := AGENT_MEMORY_KEYWORD.keyword_text(p_change.content);" in body
    assert re.search(r"INSERT INTO AGENT_MEMORY_RECORDS \([^)]*\bcontent, keyword_text,", body)
    assert "p_rows(i).keyword_text" in body
    assert re.search(r"r\.keyword_text = CASE WHEN p_change\.f_content = 1 "
                     r"THEN p_change\.keyword_text", body)


def test_the_text_index_and_the_query_read_the_keyword_text():
    indexes = strip_comments(FILES["agent_memory_indexes.sql"])
    assert ("CREATE INDEX AGENT_MEMORY_RECORDS_TIX ON AGENT_MEMORY_RECORDS (keyword_text)"
            in indexes)
    assert "PARAMETERS (''LEXER AGENT_MEMORY_LEXER " in indexes
    assert "CTX_DDL.CREATE_PREFERENCE('AGENT_MEMORY_LEXER', 'BASIC_LEXER')" in indexes
    search = strip_comments(FILES["agent_memory_search.pkb"])
    assert "CONTAINS(r.keyword_text, :b_text, 1)" in search
    assert "CONTAINS(r.content" not in search
    assert "l_text  CLOB := LOWER(AGENT_MEMORY_KEYWORD.keyword_text(p_text));" in search
    tables = strip_comments(FILES["agent_memory_tables.sql"])
    assert re.search(r"^\s+keyword_text CLOB,$", tables, flags=re.M)


def test_uninstall_drops_the_package_and_the_lexer_preference():
    _, text = render.render_uninstall()
    assert "DROP PACKAGE IF EXISTS AGENT_MEMORY_KEYWORD;" in text
    assert "CTX_DDL.DROP_PREFERENCE('AGENT_MEMORY_LEXER');" in text
    assert text.index("DROP INDEX IF EXISTS AGENT_MEMORY_RECORDS_TIX") < text.index(
        "CTX_DDL.DROP_PREFERENCE")


def test_a_long_prefix_gets_a_lexer_name_oracle_text_accepts():
    name = render.lexer_name("A" * 30)
    assert len(name) <= render.MAX_PREFERENCE_NAME and name.endswith("_LEXER")
    assert render.lexer_name("A" * 30) != render.lexer_name("A" * 29 + "B")


def test_the_plsql_suite_covers_chinese_korean_and_french():
    spec = (ROOT / "tests" / "plsql" / "ut_agent_memory_keyword.pks").read_text()
    body = (ROOT / "tests" / "plsql" / "ut_agent_memory_keyword.pkb").read_text()
    assert "--%suite" in spec
    for text in ("台北101是哪一年落成的？", "임종석은 누구인가?",
                 "Quelle est la capitale de la France"):
        assert text in body
