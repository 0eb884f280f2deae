"""The transcript's cut of one message longer than its limit looks at each character a
bounded number of times: a message of many combining marks (a letter with thousands of
accents, "Zalgo" text anyone can paste) must not make a summary quadratic in its length."""

from __future__ import annotations

import pytest

from oracleagentmemory.apis.message import Message
from oracleagentmemory.core import tokens
from oracleagentmemory.core.summary_assembly import transcript


@pytest.mark.parametrize("mark", ["\u0301", "\u1161", "\u200d"])  # accent, Hangul vowel, ZWJ
def test_cutting_one_long_message_reads_each_character_a_few_times(monkeypatch, mark):
    looked_at = 0
    joins_previous = tokens._joins_previous

    def counted(char):
        nonlocal looked_at
        looked_at += 1
        return joins_previous(char)

    monkeypatch.setattr(tokens, "_joins_previous", counted)
    text = "a" + mark * 2000
    entry = transcript([Message(role="user", content=text)], limit=200)
    assert entry.startswith("user: ") and len(entry) <= 200
    assert looked_at <= 10 * len(text)  # linear, not one pass back per position tried
