"""Keyword text: how KEYWORD and HYBRID search cut text into words, the same in both backends.

Why: Chinese is written without spaces and Korean glues particles to its nouns (임종석이,
임종석은), so a word index that splits on spaces keeps a whole Chinese clause, or a noun with
its particle, as one token, and a question never matches the memory that answers it.
Overlapping character bigrams are the classic dictionary-free answer.

The text is first NFKC-folded (full-width ``１０１`` and ``ＡＢ`` become ``101`` and ``AB``,
compatibility ideographs their unified form), then every run of Han characters and every
run of Hangul characters (a run holds one script only: a Han character next to a Hangul
one ends the run) is replaced by tokens, each between spaces:

- a record's text (``query=False``, what the index holds): each character and each
  overlapping pair, in reading order (``台北市`` -> `` 台 台北 北 北市 市 ``), so a query of
  one character (``北``, ``집``) finds every record that holds it;
- a query (``query=True``): the overlapping pairs only (``台北市`` -> `` 台北 北市 ``), a
  run of one character that character, so a longer query keeps the precision of pairs.

Everything else (Latin, digits, punctuation) is kept as it is, cut into words as before.
The Oracle backend does the same in PL/SQL (``<prefix>_KEYWORD.keyword_text``), rendered
from ``HAN_RANGES`` and ``HANGUL_RANGES`` here, the one list of character ranges.
"""

from __future__ import annotations

import re
import unicodedata

HAN_RANGES: tuple[tuple[int, int], ...] = (
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0x20000, 0x2A6DF),  # Extension B
    (0x2A700, 0x2EE5F),  # Extensions C, D, E, F and I
    (0x2F800, 0x2FA1F),  # CJK Compatibility Ideographs Supplement
    (0x30000, 0x323AF),  # Extensions G and H
)
HANGUL_RANGES: tuple[tuple[int, int], ...] = (
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x3130, 0x318F),  # Hangul Compatibility Jamo
    (0xA960, 0xA97F),  # Hangul Jamo Extended-A
    (0xAC00, 0xD7AF),  # Hangul Syllables
    (0xD7B0, 0xD7FF),  # Hangul Jamo Extended-B
)
BIGRAM_RANGES: tuple[tuple[int, int], ...] = tuple(sorted(HAN_RANGES + HANGUL_RANGES))
"""Code point ranges (inclusive) whose runs are cut into bigrams, Han and Hangul together."""


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in ranges) + "]+"


_RUN = re.compile(f"{_class(HAN_RANGES)}|{_class(HANGUL_RANGES)}")


def _index_tokens(match: re.Match[str]) -> str:
    run = match.group()
    tokens = [run[0]]
    for i in range(1, len(run)):
        tokens += (run[i - 1:i + 1], run[i])
    return " " + " ".join(tokens) + " "


def _query_tokens(match: re.Match[str]) -> str:
    run = match.group()
    if len(run) == 1:
        return f" {run} "
    return " " + " ".join(run[i:i + 2] for i in range(len(run) - 1)) + " "


def keyword_text(text: str, *, query: bool = False) -> str:
    """``text`` NFKC-folded, each Han or Hangul run replaced by its tokens (see above),
    separated and surrounded by single spaces; ASCII text is returned unchanged (the same
    object)."""
    if text.isascii():
        return text
    return _RUN.sub(_query_tokens if query else _index_tokens,
                    unicodedata.normalize("NFKC", text))


def stored_keyword_text(content: str) -> str | None:
    """What the embedded backend stores in ``records.keyword_text``: None when the keyword
    text is the content itself (the index then reads the content)."""
    segmented = keyword_text(content)
    return None if segmented == content else segmented


def is_bigram_char(char: str) -> bool:
    """Is ``char`` a Han or Hangul character (one that keyword_text cuts into bigrams)?"""
    code = ord(char)
    return any(low <= code <= high for low, high in BIGRAM_RANGES)
