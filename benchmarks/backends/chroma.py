"""Chroma (persistent client, HNSW, cosine space) with the same vectors and metadata.

Scope and filter are Chroma ``where`` clauses on metadata. Chroma has no link graph and no
ranked keyword search in the open-source client, so hops2 and hybrid are not measured.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from benchmarks.backends.base import Adapter
from benchmarks.dataset import AGENTS, TOPICS, USERS, Query, ScaleData


class ChromaAdapter(Adapter):
    name = "chroma"
    supports = ("user", "user_filter", "unscoped")

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.collection: Any = None

    def _client(self) -> Any:
        import chromadb
        from chromadb.config import Settings

        return chromadb.PersistentClient(
            path=str(self.workdir), settings=Settings(anonymized_telemetry=False)
        )

    def ingest(self, data: ScaleData) -> dict[str, Any]:
        client = self._client()
        collection = client.get_or_create_collection(
            "bench", metadata={"hnsw:space": "cosine"}
        )
        batch = min(5000, client.get_max_batch_size())
        writing = 0.0
        for start in range(0, data.size, batch):
            rows = range(start, min(start + batch, data.size))
            ids = [data.record_id(r) for r in rows]
            metadatas = [
                {"user_id": USERS[data.user[r]], "agent_id": AGENTS[data.agent[r]],
                 "thread_id": data.thread_id(r), "topic": TOPICS[data.topic[r]],
                 "importance": int(data.importance[r]), "record_type": data.record_type(r)}
                for r in rows
            ]
            documents = [data.content(r) for r in rows]
            vectors = data.vectors[start : start + len(ids)]
            t0 = time.perf_counter()
            collection.add(ids=ids, embeddings=vectors, metadatas=metadatas, documents=documents)
            writing += time.perf_counter() - t0
        return {"store_seconds": writing, "batch": batch}

    def open(self) -> None:
        self.collection = self._client().get_collection("bench")

    def add_messages(self, user: str, ids: list[str], texts: list[str],
                     vectors: Any) -> None:
        self.collection.add(ids=ids, embeddings=vectors, documents=texts, metadatas=[
            {"user_id": user, "agent_id": "e2e-agent", "record_type": "message"}
            for _ in ids])

    def search(self, workload: str, query: Query, k: int = 10) -> list[str]:
        where: dict[str, Any] | None
        if workload == "unscoped":
            where = None
        elif workload == "user":
            where = {"user_id": query.user}
        elif workload == "user_filter":
            where = {"$and": [{"user_id": query.user}, {"topic": query.topic}]}
        else:
            raise NotImplementedError(workload)
        result = self.collection.query(
            query_embeddings=[query.vector], n_results=k, where=where
        )
        return list(result["ids"][0])
