"""The text a message is embedded with: who said it, when, and the turn it answers.

Why: a question about a person ("Which class did Priya sign up for?") names the speaker, and
the turn that answers it ("I finally signed up for that pottery class") does not: the
speaker is only the message's ``role``. A short reply ("Yes, last Saturday!") means little
without the turn before it, and a question asking "when" matches a dated text better. So a
message is embedded as::

    Priya (14 March 2024): I finally signed up for that pottery class
    Tom: What did you do this weekend?

the first line its role (when it names a speaker), its date (when it has a timestamp) and
its content, the second line the thread's message before it when another speaker (another
role) said it: a reply's context is the turn it answers, while a speaker's own previous
message is usually another subject and only blurs the vector (measured: on the generated
set, whose consecutive messages are often unrelated, vector recall@10 is 0.993 without the
turn before, 0.887 with every turn before, 0.960 with another speaker's only; on LoCoMo
hybrid recall@10 is 0.677 against 0.680 with every turn before). The stored content stays
exactly what the caller wrote: only the vector is made from this text. It is computed
above the store contract, so both backends store the same vector (the keyword index still
indexes the content). Measured on LoCoMo by ``benchmarks/locomo_recall.py``; every variant
tried is listed in ``benchmarks/results/locomo_recall.json``.

A message's vector is made when the message is written (or its content updated):
editing or deleting a message does not re-embed the message after it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

GENERIC_ROLES = frozenset({
    "user", "assistant", "system", "tool", "function", "developer", "human", "ai", "model",
    "bot",
})
"""Roles that name a kind of participant rather than a person: never written as a speaker."""

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")


@dataclass(frozen=True)
class Turn:
    """What the index text of one message is made of."""

    role: str
    text: str
    timestamp: str | None = None


def record_turn(record: Mapping[str, Any], text: str | None = None) -> Turn:
    """A stored (or exported) message record as a ``Turn``; ``text`` stands for its content
    (an update's new content, or content already checked)."""
    return Turn(str(record.get("role") or ""),
                str(record.get("content") or "") if text is None else text,
                record.get("timestamp"))


def speaker(role: str | None) -> str | None:
    """The speaker's name a role gives, or None for a generic chat role."""
    name = (role or "").strip()
    return None if not name or name.lower() in GENERIC_ROLES else name


def spoken_date(timestamp: str | None) -> str | None:
    """An ISO-8601 timestamp's date as words ("14 March 2024"), None when there is none or it
    is not ISO-8601."""
    if not timestamp:
        return None
    try:
        moment = datetime.fromisoformat(timestamp.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return f"{moment.day} {_MONTHS[moment.month - 1]} {moment.year}"


def message_index_text(turn: Turn, previous: Turn | None = None) -> str:
    """The text one message is embedded with (see the module's description). A message
    without text (an image alone) keeps its empty text."""
    if not turn.text:
        return turn.text
    name, date = speaker(turn.role), spoken_date(turn.timestamp)
    head = f"{name} ({date})" if name and date else name or date
    text = f"{head}: {turn.text}" if head else turn.text
    if previous is not None and previous.text and previous.role != turn.role:
        before = speaker(previous.role)
        text += "\n" + (f"{before}: {previous.text}" if before else previous.text)
    return text


def message_index_texts(turns: Sequence[Turn], previous: Turn | None = None) -> list[str]:
    """The index text of each message of a batch, in order; ``previous`` is the thread's
    message before the batch (None for a new thread)."""
    texts = []
    for turn in turns:
        texts.append(message_index_text(turn, previous))
        previous = turn
    return texts
