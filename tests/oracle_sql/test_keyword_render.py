"""The Oracle keyword text: the rendered <prefix>_KEYWORD package cuts text exactly as
stores/keyword_text.py does (checked by a step-by-step Python port of its PL/SQL, reading the
ranges from the rendered body), the record API stores it, the text index and the query
builder read it (ut_agent_memory_keyword runs the same cases on a database)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from oracleagentmemory.stores.keyword_text import HAN_RANGES, HANGUL_RANGES, keyword_text
from oracleagentmemory.stores.oracle_sql import render

ROOT = Path(__file__).resolve().parents[2]
FILES = dict(render.render_install())


def strip_comments(text: str) -> str:
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


def rendered_ranges() -> dict[int, list[tuple[int, int]]]:
    """The code point ranges of the rendered script_of: script (1 Han, 2 Hangul) -> ranges."""
    body = FILES["agent_memory_keyword.pkb"]
    out: dict[int, list[tuple[int, int]]] = {1: [], 2: []}
    for low, high, script in re.findall(
            r"WHEN p_code BETWEEN (\d+) AND (\d+) THEN ([12])", body):
        out[int(script)].append((int(low), int(high)))
    return out


def plsql_script_of(code: int, ranges: dict[int, list[tuple[int, int]]]) -> int:
    return next((script for script, spans in ranges.items()
                 if any(low <= code <= high for low, high in spans)), 0)


def plsql_continues(data: bytes, at: int) -> bool:
    """continues(p_bytes, p_pos): a UTF-8 continuation byte, or a character NFKC joins to
    the one before it (combining marks, Hangul vowel and final jamo, kana sound marks)."""
    lead = data[at]
    if 128 <= lead <= 191:
        return True
    width = 1 if lead < 192 else 2 if lead < 224 else 3 if lead < 240 else 4
    if at + width > len(data):
        return False
    code = ord(data[at:at + width].decode())
    return 0x300 <= code <= 0x36F or 0x1160 <= code <= 0x11FF or 0x3099 <= code <= 0x309A


def plsql_keyword_text(text: str, ranges: dict[int, list[tuple[int, int]]],
                       query: bool = False, piece: int = 1000) -> str:
    """The body of <prefix>_KEYWORD.keyword_text, step by step: UTF-8 bytes in pieces that
    end where a character starts, each NFKC-folded (COMPOSE(DECOMPOSE(.., 'COMPATIBILITY'))),
    then runs of one script and their tokens."""
    data = text.encode("utf-8")
    if len(data) == len(text.encode("utf-16-le")) // 2:  # bytes = UTF-16 code units: ASCII
        return text
    out: list[str] = []
    prev, run, run_script = "", 0, 0

    def close_run() -> None:
        nonlocal prev, run, run_script
        if run == 1 and query:
            out.append(" " + prev + " ")
        elif run > 0:
            out.append(" ")
        prev, run, run_script = "", 0, 0

    offset = 0
    while offset < len(data):
        amount = min(piece, len(data) - offset)
        while amount > 0 and offset + amount < len(data) and plsql_continues(
                data, offset + amount):
            amount -= 1
        if amount == 0:
            amount = min(piece, len(data) - offset)
            while offset + amount < len(data) and 128 <= data[offset + amount] <= 191:
                amount += 1
        chunk = unicodedata.normalize("NFKC", data[offset:offset + amount].decode())
        for char in chunk:
            script = plsql_script_of(ord(char), ranges)
            if script and script == run_script:
                out.append(" " + prev + char + ("" if query else " " + char))
                prev, run = char, run + 1
            else:
                close_run()
                if script:
                    if not query:
                        out.append(" " + char)
                    prev, run, run_script = char, 1, script
                else:
                    out.append(char)
        offset += amount
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
    "𠀀 supplementary 𠀀漢 𰀀",  # extensions B and G, beyond the BMP
    "emoji 😀 then 台北 and 😀😀 임종석",  # two UTF-16 code units each
    "１０１層 ＡＢＣ ﬁn",  # NFKC
    "韓國한국 漢한",  # Han next to Hangul
    "北", "집",  # one character
    "back\\slash 漢字",
    "",
]


def test_the_package_renders_exactly_the_python_ranges():
    assert rendered_ranges() == {1: list(HAN_RANGES), 2: list(HANGUL_RANGES)}


@pytest.mark.parametrize("query", [False, True])
@pytest.mark.parametrize("text", CASES)
def test_the_plsql_port_cuts_like_the_python_function(text, query):
    assert plsql_keyword_text(text, rendered_ranges(), query) == keyword_text(text, query=query)


@pytest.mark.parametrize("query", [False, True])
@pytest.mark.parametrize("piece", [4, 5, 7])
@pytest.mark.parametrize("text", [
    "a" + "漢字" * 7 + "b",
    "x😀台北😀임종석😀y" * 3,  # 4-byte characters across piece ends
    "cafe\u0301 e\u0301te\u0301",  # a combining mark never starts a piece
    "１０１ ＡＢ 台北",
])
def test_runs_across_piece_boundaries_are_cut_as_one_run(text, piece, query):
    assert plsql_keyword_text(text, rendered_ranges(), query, piece=piece) == keyword_text(
        text, query=query)


@pytest.mark.parametrize("piece", [9, 10, 11])
def test_conjoining_jamo_stay_in_one_piece_with_their_syllable(piece):
    text = "\u1100\u1161\u11a8\u1100\u1161 \u1100\u1161\u11a8"  # NFKC joins them: 각가 각
    assert plsql_keyword_text(text, rendered_ranges(), piece=piece) == keyword_text(text)


def test_the_text_is_appended_whole_and_read_as_utf8_bytes():
    body = strip_comments(FILES["agent_memory_keyword.pkb"])
    assert "WRITEAPPEND" not in body  # a CLOB counts UTF-16 code units, not characters
    assert "DBMS_LOB.APPEND(l_result, TO_CLOB(l_buffer))" in body
    assert "DBMS_LOB.CONVERTTOBLOB(l_bytes, p_text" in body
    assert "NLS_CHARSET_ID('AL32UTF8')" in body
    assert "SELECT COMPOSE(DECOMPOSE(l_piece, 'COMPATIBILITY')) INTO l_piece FROM dual" in body
    # every character is reached from the last one's byte position: no SUBSTR(.., i, 1)
    assert not re.search(r"SUBSTR\(l_piece, i, 1\)", body)


def test_the_query_builder_reads_the_query_once():
    body = strip_comments(FILES["agent_memory_search.pkb"])
    text_query = body[body.index("FUNCTION text_query"):body.index("END text_query;")]
    assert "REGEXP_SUBSTR" not in text_query  # the n-th occurrence rescans from the start
    assert "l_start := REGEXP_INSTR(l_text, '\\w+', l_start);" in text_query
    assert "l_end := REGEXP_INSTR(l_text, '\\w+', l_start, 1, 1);" in text_query
    assert "l_start := l_end;" in text_query


def test_the_spec_documents_the_function_and_its_semantics():
    spec = FILES["agent_memory_keyword.pks"]
    assert ("FUNCTION keyword_text(p_text IN CLOB, p_query IN NUMBER DEFAULT 0) RETURN CLOB;"
            in spec)
    for promise in ("overlapping character", "run of one character staying",
                    "NFKC", "HAN_RANGES and HANGUL_RANGES", "DBMS_LOB.APPEND",
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
    assert "PARAMETERS ('LEXER AGENT_MEMORY_LEXER " in indexes
    assert "CTX_DDL.CREATE_PREFERENCE('AGENT_MEMORY_LEXER', 'BASIC_LEXER')" in indexes
    search = strip_comments(FILES["agent_memory_search.pkb"])
    assert "CONTAINS(r.keyword_text, :b_text, 1)" in search
    assert "CONTAINS(r.content" not in search
    assert "l_text  CLOB := LOWER(AGENT_MEMORY_KEYWORD.keyword_text(p_text, 1));" in search
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
