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
    ("text", "expected"),
    [
        # Traditional Chinese: digits and full-width punctuation end a run
        ("台北101於2004年落成。", " 台北 101 於 2004 年落 落成 。"),
        ("台北101是哪一年落成的？", " 台北 101 是哪 哪一 一年 年落 落成 成的 ？"),
        # Korean: particles stay glued into the last bigram, the stem's bigrams match
        ("임종석이", " 임종 종석 석이 "),
        ("임종석은 누구인가?", " 임종 종석 석은   누구 구인 인가 ?"),
        # a run of one character stays one token
        ("iPhone 15는", "iPhone 15 는 "),
        ("A가B", "A 가 B"),
        # Han next to Hangul continues the run (one class of characters)
        ("韓國한국", " 韓國 國한 한국 "),
        # CJK compatibility ideograph and extension A
        ("\uf900\u3400", " \uf900\u3400 "),
        # full-width Latin letters and digits are not Han: kept as they are
        ("ＡＢＣ１２３", "ＡＢＣ１２３"),
    ],
)
def test_han_and_hangul_runs_become_overlapping_bigrams(text, expected):
    assert keyword_text(text) == expected


@pytest.mark.parametrize("text", [
    "What is my spouse's name?",
    "Quelle est la capitale de la France ?",
    "L'été où j'ai vu Montréal — « très » beau…",
    "",
    "Hiragana ひらがな and katakana カタカナ are not cut",
])
def test_text_without_han_or_hangul_is_unchanged(text):
    assert keyword_text(text) == text
    assert stored_keyword_text(text) is None


def test_stored_keyword_text_is_null_only_when_it_equals_the_content():
    assert stored_keyword_text("plain words") is None
    assert stored_keyword_text("台北") == " 台北 "


def test_the_ranges_are_han_and_hangul_only():
    assert all(is_bigram_char(c) for c in "台北於年임종석가ᄀㄱ\u3400\u9fff\uf900\ud7a3")
    assert not any(is_bigram_char(c) for c in "aZ09éœ，。？！ＡＢ１ひカ\u3000_-")
    assert all(high < 0x10000 for _, high in BIGRAM_RANGES)  # the PL/SQL port reads BMP only


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
