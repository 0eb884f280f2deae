"""Thread summaries. Without an LLM the summary is a transcript of the recent messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.apis.message import Message
from oracleagentmemory.core.derived_memory import llm_summary
from oracleagentmemory.core.summary import OracleSummary
from oracleagentmemory.core.tokens import chars_for_tokens, estimate_tokens

if TYPE_CHECKING:
    from oracleagentmemory.core.thread import OracleThread

TRANSCRIPT_CHAR_LIMIT = 4_000
"""The transcript fallback never exceeds this many characters."""
DEFAULT_SUMMARY_TOKEN_BUDGET = 1_000
SUMMARY_SOURCE_MESSAGES = 200
"""How many recent messages the transcript fallback reads at most."""


def check_count(value: Any, argument: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{argument} must be an int, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{argument} must not be negative, got {value}")
    return value


def transcript(messages: Sequence[Message], limit: int = TRANSCRIPT_CHAR_LIMIT) -> str:
    """``role: text`` lines, newest kept first when the limit forces dropping old ones."""
    lines: list[str] = []
    used = 0
    for message in reversed(messages):
        line = f"{message.role}: {message.text}"
        cost = len(line) + (1 if lines else 0)
        if used + cost > limit:
            if not lines:
                lines.append(line[-limit:])
            break
        lines.append(line)
        used += cost
    return "\n".join(reversed(lines))


def recent_messages(thread: OracleThread, count: int, except_last: int) -> list[Message]:
    """The ``count`` messages before the last ``except_last`` ones."""
    if count <= 0:
        return []
    # The store's plain slice semantics: get_messages() reads end=-1 as "to the end".
    end = -except_last if except_last else None
    return thread._to_messages(
        thread.store.list_messages(thread.thread_id, -(count + except_last), end)
    )


def thread_summary(thread: OracleThread, except_last: Any, token_budget: Any) -> OracleSummary:
    except_last = check_count(except_last, "except_last")
    budget = DEFAULT_SUMMARY_TOKEN_BUDGET if token_budget is NOT_SET_MARKER else token_budget
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int)):
        raise TypeError(f"token_budget must be an int, got {type(budget).__name__}")
    messages = recent_messages(thread, SUMMARY_SOURCE_MESSAGES, except_last)
    generated = llm_summary(thread, messages, except_last, budget)
    if generated is not None:
        return OracleSummary(content=generated)
    text = transcript(messages)
    if budget and budget > 0 and estimate_tokens(text) > budget:
        text = text[: chars_for_tokens(budget)]
    return OracleSummary(content=text)
