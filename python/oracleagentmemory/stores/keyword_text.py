"""Keyword text: how KEYWORD and HYBRID search cut text into words, the same in both backends.

Why: Chinese is written without spaces and Korean glues particles to its nouns (임종석이,
임종석은), so a word index that splits on spaces keeps a whole Chinese clause, or a noun with
its particle, as one token, and a question never matches the memory that answers it.
Overlapping character bigrams are the classic dictionary-free answer: every run of Han or
Hangul characters is replaced by its overlapping pairs of characters (``台北101於`` ->
``台北 101 於``, ``임종석이`` -> ``임종 종석 석이``), a run of one character stays one token,
and everything else (Latin, digits, punctuation) is left as it is, cut into words as before.

The same function runs when a record is written (its keyword text is indexed instead of its
content; the embedded backend stores it only when it differs from the content) and on a
query's text, so a query asks for exactly the tokens the index holds. The Oracle backend
does the same in PL/SQL (``<prefix>_SEARCH.keyword_text``), rendered from
``BIGRAM_RANGES`` here, the one list of character ranges.
"""

from __future__ import annotations

import re

HAN_RANGES: tuple[tuple[int, int], ...] = (
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
)
HANGUL_RANGES: tuple[tuple[int, int], ...] = (
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x3130, 0x318F),  # Hangul Compatibility Jamo
    (0xA960, 0xA97F),  # Hangul Jamo Extended-A
    (0xAC00, 0xD7AF),  # Hangul Syllables
    (0xD7B0, 0xD7FF),  # Hangul Jamo Extended-B
)
BIGRAM_RANGES: tuple[tuple[int, int], ...] = tuple(sorted(HAN_RANGES + HANGUL_RANGES))
"""Code point ranges (inclusive, all in the Basic Multilingual Plane) whose runs are cut into
bigrams. A run is a maximal sequence of characters in any of these ranges (a Han character
next to a Hangul one continues the run)."""

_RUN = re.compile("[" + "".join(f"\\u{low:04x}-\\u{high:04x}" for low, high in BIGRAM_RANGES)
                  + "]+")


def _bigrams(match: re.Match[str]) -> str:
    run = match.group()
    if len(run) == 1:
        return f" {run} "
    return " " + " ".join(run[i:i + 2] for i in range(len(run) - 1)) + " "


def keyword_text(text: str) -> str:
    """``text`` with each Han/Hangul run replaced by its overlapping character bigrams,
    separated and surrounded by single spaces; text without such a character is returned
    unchanged (the same object)."""
    if text.isascii():
        return text
    return _RUN.sub(_bigrams, text)


def stored_keyword_text(content: str) -> str | None:
    """What the embedded backend stores in ``records.keyword_text``: None when the keyword
    text is the content itself (the index then reads the content)."""
    segmented = keyword_text(content)
    return None if segmented == content else segmented


def is_bigram_char(char: str) -> bool:
    """Is ``char`` a Han or Hangul character (one that keyword_text cuts into bigrams)?"""
    code = ord(char)
    return any(low <= code <= high for low, high in BIGRAM_RANGES)
