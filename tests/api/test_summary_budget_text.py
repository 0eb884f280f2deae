"""Summary token budgets on text that is not English: the cut keeps what fits.

The documented rule (docs/concepts.md, the reference's get_summary pages): a positive
``token_budget`` truncates the summary to ``int(token_budget * 3.5)`` characters when its
estimate exceeds the budget. Chinese has no spaces between words and ends its sentences
with ``。`` directly followed by the next sentence.
"""

from __future__ import annotations

import unicodedata

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.core.extractors.summarizer import apply_summary_budget

T0 = "2026-01-01T00:00:00Z"
PREFIX = "user (2026-01-01T00:00:00+00:00): "
FRENCH_REST = " Puis le train est arrivé en retard, personne ne sait pourquoi."
GERMAN_REST = " Dann kam der Zug zu spät, und niemand wusste warum."
SENTENCE = "我今天早上在台北市的咖啡店喝了一杯很好喝的烏龍茶。"  # 25 characters


@pytest.fixture
def thread(embedder):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    yield client.create_thread(thread_id="t", user_id="u", agent_id="a")
    client.close()


def test_default_summary_of_a_long_chinese_message_keeps_its_text(thread):
    # 3,480 characters: the transcript line is longer than the default budget's
    # 3,500 characters, so the summary is cut; what fits of the message must remain.
    message = (SENTENCE * 200)[:3480]
    thread.add_messages([{"role": "user", "content": message, "timestamp": T0}])
    summary = thread.get_summary().content
    assert summary.startswith(PREFIX + SENTENCE)
    assert len(summary) <= 3500


def test_budgeted_chinese_summary_keeps_whole_sentences(thread):
    thread.add_messages([{"role": "user", "content": SENTENCE * 20, "timestamp": T0}])
    summary = thread.get_summary(token_budget=40).content  # 140 characters
    assert len(summary) <= 140
    # 140 - 34 (prefix) = 106 characters of the message fit: four whole sentences.
    assert summary == PREFIX + SENTENCE * 4


def test_chinese_llm_summary_is_cut_after_its_last_full_stop():
    text = "用戶住在台北市。用戶喜歡喝烏龍茶。用戶每天早上跑步。用戶的妹妹叫小美。" * 3
    cut = apply_summary_budget(text, 12)  # 42 characters
    assert cut == "用戶住在台北市。用戶喜歡喝烏龍茶。用戶每天早上跑步。用戶的妹妹叫小美。"


@pytest.mark.parametrize("unit", [
    "e\u0301",  # e + combining acute (decomposed French é)
    "\U0001F468\u200D\U0001F469\u200D\U0001F467",  # family emoji, a ZWJ sequence
    "\U0001F1EB\U0001F1F7",  # the French flag, two regional indicators
    "\u1112\u1161\u11ab",  # 한 in conjoining jamo
])
@pytest.mark.parametrize("lead", range(4))
def test_a_hard_cut_never_splits_a_character_sequence(unit, lead):
    text = "x" * lead + unit * 40
    for budget in range(3, 12):
        cut = apply_summary_budget(text, budget)
        assert len(cut) <= int(budget * 3.5)
        body = cut[lead:]
        assert body == unit * (len(body) // len(unit)), (budget, [
            unicodedata.name(c, hex(ord(c))) for c in cut[-3:]])


@pytest.mark.parametrize("kept, rest", [
    ('She said "we leave at nine."', " Then the train came late and nobody knew why."),
    ("She said “we leave at nine.”", " Then the train came late and nobody knew why."),
    ("(We left at nine.)", " Then the train came late and nobody knew why at all."),
    ("Il a dit « on part à neuf heures. »", FRENCH_REST),
    ("Il a dit « on part à neuf heures.\u00a0»", FRENCH_REST),
    ("그녀는 “아홉 시에 떠나요.”라고 말했다.",
     " 그런데 기차가 늦게 왔고 아무도 이유를 몰랐다 정말로."),
    ("她說：「我們九點出發。」", "然後火車遲到了，沒有人知道為什麼會這樣子。"),
    # German closes with “ (U+201C), ‘ (U+2018) or, in books, « (»…«)
    ("Sie sagte „wir fahren um neun.“", GERMAN_REST),
    ("Sie sagte ‚wir fahren um neun.‘", GERMAN_REST),
    ("Sie sagte »wir fahren um neun.«", GERMAN_REST),
])
def test_a_sentence_cut_keeps_its_closing_quote(kept, rest):
    # The cut at a sentence's end dropped the quote or bracket that closes it.
    text = kept + rest
    budget = (len(kept) + 8) * 2 // 7  # room for the sentence and a few characters more
    assert apply_summary_budget(text, budget) == kept


def test_a_sentence_end_followed_by_a_combining_mark_is_not_split():
    text = "我們九點出發。\u0301" + "然後火車遲到了" * 10
    cut = apply_summary_budget(text, 4)
    assert not cut.endswith("。") or not text[len(cut)].startswith("\u0301")
    assert unicodedata.category(text[len(cut)]) != "Mn"
