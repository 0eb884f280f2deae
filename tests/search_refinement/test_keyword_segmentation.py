"""Keyword text: Han and Hangul runs become overlapping character bigrams, the rest is kept,
and a query's content words are the words of its keyword text minus the shared stoplist."""

from __future__ import annotations

import pytest

from oracleagentmemory.stores.keyword_text import (
    BIGRAM_RANGES,
    is_bigram_char,
    keyword_text,
    stored_keyword_text,
)
from oracleagentmemory.stores.stoplist import STOP_WORDS, content_words


@pytest.mark.parametrize(
    ("text", "query"),
    [
        # Traditional Chinese: digits and full-width punctuation end a run
        ("台北101於2004年落成。", " 台北 101 於 2004 年落 落成 。"),
        ("台北101是哪一年落成的？", " 台北 101 是哪 哪一 一年 年落 落成 成的 ?"),
        # Korean: particles stay glued into the last bigram, the stem's bigrams match
        ("임종석이", " 임종 종석 석이 "),
        ("임종석은 누구인가?", " 임종 종석 석은   누구 구인 인가 ?"),
        # a run of one character stays one token
        ("iPhone 15는", "iPhone 15 는 "),
        ("A가B", "A 가 B"),
        # a Han character next to a Hangul one ends the run: no mixed pair
        ("韓國한국", " 韓國  한국 "),
        ("漢한", " 漢  한 "),
        # CJK compatibility ideograph (NFKC: its unified form) and extension A
        ("\uf900\u3400", " \u8c48\u3400 "),
        # Han beyond the Basic Multilingual Plane (extensions B and G)
        ("\U00020000\U00020001\U00030000", " \U00020000\U00020001 \U00020001\U00030000 "),
        # full-width Latin letters and digits are NFKC-folded to ASCII
        ("ＡＢＣ１２３", "ABC123"),
        ("台北１０１", " 台北 101"),
    ],
)
def test_a_query_cuts_han_and_hangul_runs_into_overlapping_bigrams(text, query):
    assert keyword_text(text, query=True) == query


@pytest.mark.parametrize(
    ("text", "index"),
    [
        # a record holds every character and every pair, in reading order
        ("台北市", " 台 台北 北 北市 市 "),
        ("台北101於2004年落成。", " 台 台北 北 101 於 2004 年 年落 落 落成 成 。"),
        ("임종석이", " 임 임종 종 종석 석 석이 이 "),
        ("집에 갔다", " 집 집에 에   갔 갔다 다 "),
        ("韓國한국", " 韓 韓國 國  한 한국 국 "),
        ("１０１층", "101 층 "),
        ("\U00020000\U00020001", " \U00020000 \U00020000\U00020001 \U00020001 "),
    ],
)
def test_a_record_holds_each_han_and_hangul_character_and_pair(text, index):
    assert keyword_text(text) == index


@pytest.mark.parametrize("text", [
    "What is my spouse's name?",
    "Quelle est la capitale de la France ?",
    "L'été où j'ai vu Montréal — « très » beau.",
    "",
    "Hiragana ひらがな and katakana カタカナ are not cut",
])
def test_text_without_han_or_hangul_is_unchanged(text):
    assert keyword_text(text) == text
    assert stored_keyword_text(text) is None


def test_stored_keyword_text_is_null_only_when_it_equals_the_content():
    assert stored_keyword_text("plain words") is None
    assert stored_keyword_text("台北") == " 台 台北 北 "
    assert stored_keyword_text("café ＡＢ") == "café AB"


def test_the_ranges_are_han_and_hangul_only():
    assert all(is_bigram_char(c) for c in
               "台北於年임종석가ᄀㄱ\u3400\u9fff\uf900\ud7a3\U00020000\U0002a700\U00031350")
    assert not any(is_bigram_char(c) for c in "aZ09éœ，。？！ＡＢ１ひカ\u3000_-😀\U0001f600")
    assert any(high >= 0x10000 for _, high in BIGRAM_RANGES)


def test_one_character_query_finds_the_records_that_hold_it():
    # the query's one-character run is one token, and a record holds each character
    assert content_words("北") == ["北"]
    assert "北" in keyword_text("我住在台北市").split()
    assert content_words("집") == ["집"]
    assert "집" in keyword_text("우리 집에 왔다").split()


def test_query_content_words_in_each_language():
    assert content_words("台北101是哪一年落成的？") == [
        "台北", "101", "是哪", "哪一", "一年", "年落", "落成", "成的"]
    assert content_words("임종석은 누구인가?") == ["임종", "종석", "석은", "누구", "구인", "인가"]
    assert content_words("Quelle est la capitale de la France ?") == ["capitale", "france"]
    assert content_words("Où est né l'auteur d'« Astérix » ?") == ["né", "auteur", "astérix"]
    assert content_words("What is my spouse's name?") == ["spouse", "name"]
    assert content_words("iPhone 15는 언제 나왔나?") == [
        "iphone", "15", "는", "언제", "나왔", "왔나"]


def test_french_function_words_are_stopwords_but_english_content_words_are_not():
    assert {"le", "la", "les", "des", "du", "à", "où", "est", "été", "être", "qu", "quelle",
            "pourquoi"} <= STOP_WORDS
    # French function words that are English content words stay searchable
    assert not {"son", "car", "comment", "ton"} & STOP_WORDS
    assert content_words("my son's car") == ["son", "car"]
