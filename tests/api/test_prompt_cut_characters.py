"""A message cut to fit the prompt keeps whole characters: the model reads no half of a
flag, of an emoji sequence, of a Hangul syllable in jamo or of a letter and its accents."""

from __future__ import annotations

import pytest

from oracleagentmemory.core.extractors.prompts import (
    TRUNCATION_MARK,
    truncate_escaped,
    truncate_to_tokens,
)

# Each unit is one character to a reader and several code points to Python.
UNITS = {
    "flag": "\U0001F1EB\U0001F1F7",                       # FR: two regional indicators
    "family": "\U0001F468\u200d\U0001F469\u200d\U0001F467",  # joined by ZWJ
    "jamo": "\u1112\u1161\u11ab",                       # 한 written in conjoining jamo
    "accents": "e\u0301\u0302",                          # e with two combining accents
}


@pytest.mark.parametrize("name", sorted(UNITS))
@pytest.mark.parametrize("limit", [1, 5, 6, 7, 9, 12])
def test_a_cut_never_splits_a_character(name: str, limit: int) -> None:
    unit = UNITS[name]
    text = unit * 40
    for cut in (truncate_to_tokens(text, limit), truncate_escaped(text, limit)):
        kept = cut[: -len(TRUNCATION_MARK)] if cut.endswith(TRUNCATION_MARK) else cut
        assert len(kept) % len(unit) == 0, (name, limit, kept)
        assert kept == unit * (len(kept) // len(unit))


def test_text_that_fits_is_kept_whole() -> None:
    text = "서울에서 만나요. Rendez-vous à Paris. 我们在台北见。"
    assert truncate_to_tokens(text, 100) == text
