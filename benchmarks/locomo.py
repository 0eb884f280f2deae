"""Reading LoCoMo conversations, and the retrieval measures the LoCoMo benchmarks share.

LoCoMo (Maharana et al., ACL 2024) is not part of the project: the benchmarks take the
folder of its conversation JSON files as an argument. Each file is one conversation between
two people over dated sessions of turns (``dia_id``, ``speaker``, ``text``, and for a shared
photo its ``blip_caption``); its ``qa`` items list the ``dia_id``s of the evidence turns.
Category 5 questions are adversarial (no answer in the dialogue) and are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path


@dataclass(frozen=True)
class Turn:
    user: str
    """The conversation, used as the user id (``conv-<file stem>``)."""
    session: str
    date: str
    """The session's date and time as LoCoMo writes it ("9:30 am on 14 March, 2024")."""
    speaker: str
    dia_id: str
    text: str
    """The turn's words, with a shared photo's caption appended (see ``turn_text``)."""

    @property
    def id(self) -> str:
        return f"{self.user}/{self.dia_id}"

    @property
    def timestamp(self) -> str:
        """The session date as ISO-8601 (what a message's ``timestamp`` holds)."""
        return iso_date(self.date)


@dataclass(frozen=True)
class Question:
    user: str
    text: str
    evidence: frozenset[str]
    category: int


def turn_text(turn: dict) -> str:
    """A turn's words, and the caption of a photo it shares (the caption is all a text
    memory can keep of the photo; some questions are answered by it)."""
    caption = turn.get("blip_caption")
    return f"{turn['text']} [shares a photo: {caption}]" if caption else turn["text"]


def iso_date(locomo_date: str) -> str:
    """"9:30 am on 14 March, 2024" as "2024-03-14T09:30:00"."""
    return datetime.strptime(locomo_date.strip(), "%I:%M %p on %d %B, %Y").isoformat()


def load(folder: Path) -> tuple[dict[str, list[Turn]], list[Question]]:
    """Every conversation's turns in order (sessions in order), and the answerable
    questions (categories 1-4, with evidence)."""
    conversations: dict[str, list[Turn]] = {}
    questions: list[Question] = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        user = f"conv-{path.stem}"
        numbers = sorted(int(key.split("_")[1]) for key, value in data.items()
                         if key.startswith("session_") and key.count("_") == 1
                         and isinstance(value, list))
        conversations[user] = [
            Turn(user, f"session_{n}", data[f"session_{n}_date_time"], turn["speaker"],
                 turn["dia_id"], turn_text(turn))
            for n in numbers for turn in data[f"session_{n}"]]
        for qa in data["qa"]:
            evidence = frozenset(f"{user}/{item.strip()}" for item in qa.get("evidence", []))
            if qa["category"] != 5 and evidence:
                questions.append(Question(user, qa["question"], evidence, qa["category"]))
    return conversations, questions


def sessions(turns: Sequence[Turn]) -> list[list[Turn]]:
    """The turns grouped by session, in order."""
    grouped: dict[str, list[Turn]] = {}
    for turn in turns:
        grouped.setdefault(turn.session, []).append(turn)
    return list(grouped.values())


def recall(found: Sequence[str], evidence: frozenset[str], k: int) -> float:
    """Share of the evidence turns among the first ``k`` found."""
    return len(evidence & set(found[:k])) / len(evidence)


def reciprocal_rank(found: Sequence[str], evidence: frozenset[str], k: int = 10) -> float:
    """1 / rank of the first evidence turn among the first ``k`` found (0 when none)."""
    for rank, record_id in enumerate(found[:k], start=1):
        if record_id in evidence:
            return 1.0 / rank
    return 0.0


def scores(found: Sequence[Sequence[str]], questions: Sequence[Question]) -> dict[str, float]:
    """recall@5, recall@10 and MRR@10 averaged over the questions."""
    pairs = list(zip(found, questions, strict=True))
    count = len(pairs) or 1
    return {"recall@5": sum(recall(f, q.evidence, 5) for f, q in pairs) / count,
            "recall@10": sum(recall(f, q.evidence, 10) for f, q in pairs) / count,
            "mrr": sum(reciprocal_rank(f, q.evidence) for f, q in pairs) / count}
