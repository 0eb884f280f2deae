"""The floor: a plain numpy brute-force scan over vectors already in memory.

Unscoped, it scans the whole matrix. Scoped, it scans a matrix pre-sliced to exactly the
user's (or user-and-topic's) rows, built before timing: no scope or filter evaluation at
all, so it is the time an exact search cannot beat.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.backends.base import Adapter
from benchmarks.dataset import TOPICS, USERS, Query, ScaleData


def top_k(matrix: np.ndarray, query: np.ndarray, k: int) -> np.ndarray:
    """Row indexes of the k largest dot products, best first."""
    scores = matrix @ query
    if scores.shape[0] <= k:
        return np.argsort(-scores)
    part = np.argpartition(-scores, k)[:k]
    return part[np.argsort(-scores[part])]


class NumpyFloorAdapter(Adapter):
    name = "numpy"
    supports = ("user", "user_filter", "unscoped")

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.slices: dict[Any, tuple[np.ndarray, np.ndarray]] = {}

    def ingest(self, data: ScaleData) -> dict[str, Any]:
        self.workdir.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        np.save(self.workdir / "vectors.npy", data.vectors)
        np.save(self.workdir / "user.npy", data.user)
        np.save(self.workdir / "topic.npy", data.topic)
        return {"store_seconds": time.perf_counter() - t0}

    def open(self) -> None:
        self.matrix = np.load(self.workdir / "vectors.npy")
        user = np.load(self.workdir / "user.npy")
        topic = np.load(self.workdir / "topic.npy")
        for u, name in enumerate(USERS):
            rows = np.flatnonzero(user == u)
            self.slices[name] = (rows, np.ascontiguousarray(self.matrix[rows]))
            for t, topic_name in enumerate(TOPICS):
                sub = rows[topic[rows] == t]
                self.slices[(name, topic_name)] = (sub, np.ascontiguousarray(self.matrix[sub]))

    def search(self, workload: str, query: Query, k: int = 10) -> list[str]:
        if workload == "unscoped":
            rows = top_k(self.matrix, query.vector, k)
        elif workload == "user":
            index, matrix = self.slices[query.user]
            rows = index[top_k(matrix, query.vector, k)]
        elif workload == "user_filter":
            index, matrix = self.slices[(query.user, query.topic)]
            rows = index[top_k(matrix, query.vector, k)]
        else:
            raise NotImplementedError(workload)
        return [f"rec-{int(r)}" for r in rows]
