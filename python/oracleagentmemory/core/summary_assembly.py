"""Thread summaries. Without an LLM the summary is a transcript of the recent messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.apis.message import Message
from oracleagentmemory.core.arguments import check_count, check_optional_int
from oracleagentmemory.core.derived_memory import llm_summary
from oracleagentmemory.core.extractors.summarizer import apply_summary_budget
from oracleagentmemory.core.rendering import prompt_time
from oracleagentmemory.core.summary import OracleSummary
from oracleagentmemory.core.thread_context import ThreadContext
from oracleagentmemory.core.tokens import character_boundary, next_character_boundary

TRANSCRIPT_CHAR_LIMIT = 4_000
"""The transcript fallback never exceeds this many characters."""
DEFAULT_SUMMARY_TOKEN_BUDGET = 1_000
SUMMARY_SOURCE_MESSAGES = 200
"""How many recent messages the transcript fallback reads at most."""


LINE_BREAK = "\n- "
"""What separates the transcript's lines: each line after the first starts with ``- `` (the
first has none), as the reference writes its transcript."""


def transcript_entry(message: Message, limit: int | None = None) -> str:
    """``role (timestamp): text``, the transcript's entry for one message; with ``limit``,
    at most that many characters: the entry's beginning and the end of its text, cut where
    no character is split."""
    when = f" ({prompt_time(message.timestamp)})" if message.timestamp else ""
    start, text = f"{message.role}{when}: ", message.text
    if limit is None or len(start) + len(text) <= limit:
        return start + text
    if len(start) >= limit:
        return start[:character_boundary(start, limit)]
    return start + text[next_character_boundary(text, len(text) - (limit - len(start))):]


def transcript(messages: Sequence[Message], limit: int = TRANSCRIPT_CHAR_LIMIT) -> str:
    """One entry per message, oldest first, joined by :data:`LINE_BREAK`; when the limit
    forces dropping entries, the oldest go first."""
    entries: list[str] = []
    used = 0
    for message in reversed(messages):
        entry = transcript_entry(message)
        cost = len(entry) + (len(LINE_BREAK) if entries else 0)
        if used + cost > limit:
            if not entries:
                entries.append(transcript_entry(message, limit))
            break
        entries.append(entry)
        used += cost
    return LINE_BREAK.join(reversed(entries))


def thread_summary(ctx: ThreadContext, except_last: Any, token_budget: Any) -> OracleSummary:
    except_last = check_count(0 if except_last is NOT_SET_MARKER else except_last,
                              "except_last")
    budget = check_optional_int(
        DEFAULT_SUMMARY_TOKEN_BUDGET if token_budget is NOT_SET_MARKER else token_budget,
        "token_budget")
    messages = ctx.recent_messages(SUMMARY_SOURCE_MESSAGES, except_last)
    generated = llm_summary(ctx, messages, except_last, budget)
    if generated is not None:
        return OracleSummary(content=generated)
    return OracleSummary(content=apply_summary_budget(transcript(messages), budget))
