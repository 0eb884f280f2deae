"""The synthetic scale data set every backend ingests and searches, identical for all.

Why synthetic: latency and memory depend on the number of records, the dimension, the share
of records a scope or filter keeps and the link graph, not on the meaning of the vectors.
The vectors are clustered (records of one topic cluster around a few centroids) so that
approximate indexes see realistic neighbourhoods, and every query is a perturbed copy of a
stored record of the user it is scoped to, so scoped searches have real near neighbours.

Shape (``N`` records): 50 users, 5 agents, threads of about 200 records per user, 70 %
messages and 30 % memory-like records, metadata ``{"topic", "importance", "tags"}`` with 10
topics, and a ``supports``/``refines`` link from about half of the memory-like records to
the previous memory-like record of the same thread.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DIMENSION = 384
USERS = [f"user-{i:02d}" for i in range(50)]
AGENTS = [f"agent-{i}" for i in range(5)]
TOPICS = ["travel", "food", "work", "health", "family", "money", "music", "sport", "home", "pets"]
TAGS = [f"tag{i:02d}" for i in range(20)]
MEMORY_KINDS = ["memory", "fact", "preference", "guideline"]
THREAD_SIZE = 200
VOCABULARY_SIZE = 3000
WORDS_PER_RECORD = 12
CENTROIDS_PER_TOPIC = 20
SEED = 20260101


@dataclass
class ScaleData:
    """Columns of the data set; row ``i`` is record ``rec-{i}``."""

    vectors: np.ndarray  # (n, 384) float32, unit length
    user: np.ndarray  # int16 index into USERS
    agent: np.ndarray  # int8 index into AGENTS
    thread: np.ndarray  # int32 thread number within its user
    kind: np.ndarray  # int8: -1 message, else index into MEMORY_KINDS
    topic: np.ndarray  # int8 index into TOPICS
    importance: np.ndarray  # int8 1..5
    tags: np.ndarray  # (n, 2) int8 indexes into TAGS
    words: np.ndarray  # (n, WORDS_PER_RECORD) int16 indexes into the vocabulary
    link_to: np.ndarray  # int64 row this memory links to, or -1

    @property
    def size(self) -> int:
        return int(self.vectors.shape[0])

    def record_id(self, row: int) -> str:
        return f"rec-{row}"

    def thread_id(self, row: int) -> str:
        return f"{USERS[self.user[row]]}-t{self.thread[row]}"

    def content(self, row: int) -> str:
        return " ".join(vocabulary()[w] for w in self.words[row])

    def record_type(self, row: int) -> str:
        kind = int(self.kind[row])
        return "message" if kind < 0 else MEMORY_KINDS[kind]

    def metadata(self, row: int) -> dict:
        return {
            "topic": TOPICS[self.topic[row]],
            "importance": int(self.importance[row]),
            "tags": [TAGS[t] for t in self.tags[row]],
        }


_VOCABULARY: list[str] = []


def vocabulary() -> list[str]:
    """Pronounceable pseudo-words, so the keyword index sees a Zipf-like vocabulary."""
    if not _VOCABULARY:
        rng = np.random.default_rng(SEED + 1)
        consonants, vowels = "bcdfghjklmnprstvz", "aeiou"
        seen: set[str] = set()
        while len(_VOCABULARY) < VOCABULARY_SIZE:
            length = int(rng.integers(2, 5))
            word = "".join(
                consonants[rng.integers(len(consonants))] + vowels[rng.integers(len(vowels))]
                for _ in range(length)
            )
            if word not in seen:
                seen.add(word)
                _VOCABULARY.append(word)
    return _VOCABULARY


def generate(size: int, seed: int = SEED) -> ScaleData:
    """Build the data set of ``size`` records deterministically (same seed, same data)."""
    rng = np.random.default_rng(seed)
    user = rng.integers(0, len(USERS), size=size).astype(np.int16)
    agent = rng.integers(0, len(AGENTS), size=size).astype(np.int8)
    # Records of a user are numbered in arrival order; every THREAD_SIZE form a thread.
    order_in_user = np.zeros(size, dtype=np.int64)
    counts = np.zeros(len(USERS), dtype=np.int64)
    for u in range(len(USERS)):
        rows = np.flatnonzero(user == u)
        order_in_user[rows] = np.arange(rows.shape[0])
        counts[u] = rows.shape[0]
    thread = (order_in_user // THREAD_SIZE).astype(np.int32)
    kind = np.where(
        rng.random(size) < 0.7, -1, rng.integers(0, len(MEMORY_KINDS), size=size)
    ).astype(np.int8)
    topic = rng.integers(0, len(TOPICS), size=size).astype(np.int8)
    importance = rng.integers(1, 6, size=size).astype(np.int8)
    tags = rng.integers(0, len(TAGS), size=(size, 2)).astype(np.int8)
    # Zipf-ish word choice: low word indexes are frequent.
    words = np.minimum(
        rng.zipf(1.3, size=(size, WORDS_PER_RECORD)) - 1, VOCABULARY_SIZE - 1
    ).astype(np.int16)
    centroids = rng.standard_normal((len(TOPICS) * CENTROIDS_PER_TOPIC, DIMENSION)).astype(
        np.float32
    )
    which = topic.astype(np.int64) * CENTROIDS_PER_TOPIC + rng.integers(
        0, CENTROIDS_PER_TOPIC, size=size
    )
    vectors = np.empty((size, DIMENSION), dtype=np.float32)
    step = 100_000
    for start in range(0, size, step):
        stop = min(start + step, size)
        block = centroids[which[start:stop]] + 0.9 * rng.standard_normal(
            (stop - start, DIMENSION), dtype=np.float32
        )
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        vectors[start:stop] = block
    link_to = _links(user, thread, kind, rng)
    return ScaleData(vectors, user, agent, thread, kind, topic, importance, tags, words, link_to)


def _links(
    user: np.ndarray, thread: np.ndarray, kind: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """About half of the memory-like records link to the previous one of their thread."""
    link_to = np.full(user.shape[0], -1, dtype=np.int64)
    last: dict[tuple[int, int], int] = {}
    coin = rng.random(user.shape[0])
    for row in np.flatnonzero(kind >= 0):
        key = (int(user[row]), int(thread[row]))
        previous = last.get(key)
        if previous is not None and coin[row] < 0.5:
            link_to[row] = previous
        last[key] = int(row)
    return link_to


@dataclass
class Query:
    """One search: a vector near a stored record of ``user``, and a topic for the filter."""

    vector: np.ndarray
    user: str
    topic: str
    text: str


def queries(data: ScaleData, count: int, seed: int = SEED + 7) -> list[Query]:
    """Queries spread over the 50 users; each is a noisy copy of one of the user's records."""
    rng = np.random.default_rng(seed)
    out: list[Query] = []
    for i in range(count):
        u = i % len(USERS)
        rows = np.flatnonzero(data.user == u)
        row = int(rows[rng.integers(rows.shape[0])])
        vector = data.vectors[row] + 0.5 * rng.standard_normal(DIMENSION).astype(np.float32) / (
            DIMENSION**0.5
        )
        vector /= np.linalg.norm(vector)
        words = data.content(row).split()[:3]
        out.append(Query(vector.astype(np.float32), USERS[u], TOPICS[data.topic[row]],
                         " ".join(words)))
    return out


def save_queries(path: Path, items: list[Query]) -> None:
    np.save(path.with_suffix(".npy"), np.stack([q.vector for q in items]))
    path.with_suffix(".json").write_text(
        json.dumps([{"user": q.user, "topic": q.topic, "text": q.text} for q in items])
    )


def load_queries(path: Path) -> list[Query]:
    vectors = np.load(path.with_suffix(".npy"))
    meta = json.loads(path.with_suffix(".json").read_text())
    return [Query(vectors[i], m["user"], m["topic"], m["text"]) for i, m in enumerate(meta)]
