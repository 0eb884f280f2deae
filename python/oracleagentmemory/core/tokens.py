"""Token estimates and budgets (a cheap, model-independent estimate: 3.5 characters each)."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Sequence
from typing import TypeVar

CHARS_PER_TOKEN = 3.5
T = TypeVar("T")


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def chars_for_tokens(token_budget: int) -> int:
    return int(token_budget * CHARS_PER_TOKEN)


def apply_token_budgets(
    items: Sequence[T],
    render: Callable[[T], str],
    token_budget: int | None,
    soft_token_budget: int | None,
) -> list[T]:
    """Keep whole items in rank order.

    A positive ``token_budget`` is a hard cap: stop before the first item that would exceed
    it (so nothing is kept when the first one does not fit). A positive
    ``soft_token_budget`` is a target: stop after the item that reaches it.
    """
    hard = token_budget if token_budget and token_budget > 0 else None
    soft = soft_token_budget if soft_token_budget and soft_token_budget > 0 else None
    if hard is None and soft is None:
        return list(items)  # no budget: nothing to render and count
    kept: list[T] = []
    total = 0
    for item in items:
        cost = estimate_tokens(render(item))
        if hard is not None and total + cost > hard:
            break
        kept.append(item)
        total += cost
        if soft is not None and total >= soft:
            break
    return kept


_ZWJ = "\u200d"


def _regional_indicator(char: str) -> bool:
    return "\U0001F1E6" <= char <= "\U0001F1FF"


def _joins_previous(char: str) -> bool:
    """Does ``char`` extend the character before it (a combining mark, ZWJ, variation
    selector, emoji modifier or tag, a Hangul medial vowel or final consonant)?"""
    code = ord(char)
    return (unicodedata.category(char) in ("Mn", "Mc", "Me") or char == _ZWJ
            or 0xFE00 <= code <= 0xFE0F or 0x1F3FB <= code <= 0x1F3FF
            or 0xE0020 <= code <= 0xE007F
            or 0x1160 <= code <= 0x11FF or 0xD7B0 <= code <= 0xD7FF)


def _hangul_leading(char: str) -> bool:
    code = ord(char)
    return 0x1100 <= code <= 0x115F or 0xA960 <= code <= 0xA97F


def _splits(text: str, index: int) -> bool:
    """Would a cut at ``index`` (0 < index < len(text)) split what a reader sees as one
    character?"""
    prev, char = text[index - 1], text[index]
    if (_joins_previous(char) or prev == _ZWJ or (prev == "\r" and char == "\n")
            or (_hangul_leading(prev) and (_hangul_leading(char) or _joins_previous(char)
                                           or "\uac00" <= char <= "\ud7a3"))):
        return True
    if _regional_indicator(prev) and _regional_indicator(char):
        run = 0
        while run < index and _regional_indicator(text[index - 1 - run]):
            run += 1
        return run % 2 == 1  # an odd run before: ``prev`` is the first half of a flag
    return False


def character_boundary(text: str, index: int) -> int:
    """The largest position ``<= index`` where ``text`` may be cut without splitting what a
    reader sees as one character: a letter and its combining accents, an emoji sequence
    joined by ZWJ or with its modifier, a flag's two regional indicators, a Hangul
    syllable written in conjoining jamo, CR LF (a simplification of Unicode's extended
    grapheme clusters, UAX #29)."""
    index = max(0, min(index, len(text)))
    while 0 < index < len(text) and _splits(text, index):
        index -= 1
    return index


def next_character_boundary(text: str, index: int) -> int:
    """The smallest position ``>= index`` where ``text`` may be cut (see
    ``character_boundary``): one pass forward, however long the sequence it is inside."""
    index = max(0, min(index, len(text)))
    while 0 < index < len(text) and _splits(text, index):
        index += 1
    return index
