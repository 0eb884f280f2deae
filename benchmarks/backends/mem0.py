"""mem0 open source (``Memory``, local Qdrant on disk, ``infer=False``: no LLM involved).

mem0 embeds every text itself; here its embedder is replaced by a lookup of the same
precomputed vectors every other system gets, so only mem0's own storage and search are
timed. It adds one message per call (its API has no batch insert without the LLM), so it is
measured at the smallest size only. Telemetry is switched off before import.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.backends.base import Adapter
from benchmarks.dataset import AGENTS, TOPICS, USERS, Query, ScaleData


class LookupEmbedding:
    """mem0's embedder interface answered from a text -> vector table."""

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    def embed(self, text: Any, memory_action: str | None = None) -> list[float]:
        return self.vectors[text].tolist()

    def embed_batch(self, texts: list[str], memory_action: str | None = None) -> list:
        return [self.embed(t) for t in texts]


def open_memory(path: Path, vectors: dict[str, np.ndarray]) -> Any:
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("OPENAI_API_KEY", "unused-infer-is-false")
    os.environ["MEM0_DIR"] = str(path / "home")
    from mem0 import Memory

    path.mkdir(parents=True, exist_ok=True)
    memory = Memory.from_config({
        "vector_store": {"provider": "qdrant", "config": {
            "collection_name": "bench", "embedding_model_dims": 384,
            "path": str(path / "qdrant"), "on_disk": True}},
        "embedder": {"provider": "openai", "config": {"embedding_dims": 384}},
        "history_db_path": str(path / "history.db"),
    })
    memory.embedding_model = LookupEmbedding(vectors)
    return memory


class Mem0Adapter(Adapter):
    name = "mem0"
    supports = ("user", "user_filter")

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.memory: Any = None
        self.vectors: dict[str, np.ndarray] = {}

    def ingest(self, data: ScaleData) -> dict[str, Any]:
        vectors = {data.content(r): data.vectors[r] for r in range(data.size)}
        memory = open_memory(self.workdir, vectors)
        writing = 0.0
        for row in range(data.size):
            text = data.content(row)
            meta = {"rid": data.record_id(row), "topic": TOPICS[data.topic[row]]}
            t0 = time.perf_counter()
            memory.add([{"role": "user", "content": text}], user_id=USERS[data.user[row]],
                       agent_id=AGENTS[data.agent[row]], metadata=meta, infer=False)
            writing += time.perf_counter() - t0
        return {"store_seconds": writing, "batch": 1}

    def open(self) -> None:
        self.memory = open_memory(self.workdir, self.vectors)

    def add_messages(self, user: str, ids: list[str], texts: list[str],
                     vectors: Any) -> None:
        # mem0 takes one message per add here, as in ingest; it looks each text's vector up.
        for record_id, text, vector in zip(ids, texts, vectors, strict=True):
            self.vectors[text] = vector
            self.memory.add([{"role": "user", "content": text}], user_id=user,
                            agent_id="e2e-agent", metadata={"rid": record_id}, infer=False)

    def search(self, workload: str, query: Query, k: int = 10) -> list[str]:
        # Queries carry their vector; mem0 looks the text up, so register it first.
        key = f"query {id(query)}"
        self.vectors[key] = query.vector
        filters: dict[str, Any] = {"user_id": query.user}
        if workload == "user_filter":
            filters["topic"] = query.topic
        elif workload != "user":
            raise NotImplementedError(workload)
        found = self.memory.search(key, filters=filters, top_k=k, threshold=0.0)
        return [r.get("metadata", {}).get("rid", r["id"]) for r in found["results"]]
