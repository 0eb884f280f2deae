"""LanceDB (embedded, Arrow on disk) with the same vectors and metadata.

Exact search (no vector index: an IVF index would trade recall for speed, and exact is what
we compare with), bitmap scalar indexes on ``user_id`` and ``topic``, scope and filter as
SQL prefilters, and its native full-text index for hybrid (RRF reranker, like ours).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from benchmarks.backends.base import Adapter
from benchmarks.dataset import AGENTS, TOPICS, USERS, Query, ScaleData

COLUMNS = ["id", "user_id", "topic", "content"]


class LanceAdapter(Adapter):
    name = "lancedb"
    supports = ("user", "user_filter", "unscoped", "hybrid_user")

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.table: Any = None

    def ingest(self, data: ScaleData) -> dict[str, Any]:
        import lancedb
        import pyarrow as pa

        db = lancedb.connect(str(self.workdir))
        batch = 100_000
        writing = 0.0
        table = None
        for start in range(0, data.size, batch):
            stop = min(start + batch, data.size)
            rows = range(start, stop)
            vectors = pa.FixedSizeListArray.from_arrays(
                pa.array(data.vectors[start:stop].reshape(-1)), data.vectors.shape[1]
            )
            arrow = pa.table({
                "id": [data.record_id(r) for r in rows],
                "user_id": [USERS[data.user[r]] for r in rows],
                "agent_id": [AGENTS[data.agent[r]] for r in rows],
                "thread_id": [data.thread_id(r) for r in rows],
                "topic": [TOPICS[data.topic[r]] for r in rows],
                "importance": data.importance[start:stop].astype("int32"),
                "content": [data.content(r) for r in rows],
                "vector": vectors,
            })
            t0 = time.perf_counter()
            if table is None:
                table = db.create_table("bench", arrow, mode="overwrite")
            else:
                table.add(arrow)
            writing += time.perf_counter() - t0
        t0 = time.perf_counter()
        table.create_scalar_index("user_id", index_type="BITMAP")
        table.create_scalar_index("topic", index_type="BITMAP")
        table.create_fts_index("content")
        index_seconds = time.perf_counter() - t0
        return {"store_seconds": writing + index_seconds, "index_seconds": index_seconds,
                "batch": batch}

    def open(self) -> None:
        import lancedb

        self.table = lancedb.connect(str(self.workdir)).open_table("bench")

    def add_messages(self, user: str, ids: list[str], texts: list[str],
                     vectors: Any) -> None:
        import pyarrow as pa

        self.table.add(pa.table({
            "id": ids, "user_id": [user] * len(ids), "agent_id": ["e2e-agent"] * len(ids),
            "thread_id": [f"e2e-{user}"] * len(ids), "topic": [TOPICS[0]] * len(ids),
            "importance": pa.array([0] * len(ids), type=pa.int32()), "content": texts,
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)),
                                                        vectors.shape[1]),
        }))

    def search(self, workload: str, query: Query, k: int = 10) -> list[str]:
        if workload == "hybrid_user":
            builder = (
                self.table.search(query_type="hybrid")
                .vector(query.vector)
                .text(query.text)
                .where(f"user_id = '{query.user}'", prefilter=True)
            )
        else:
            builder = self.table.search(query.vector).distance_type("cosine")
            if workload == "user":
                builder = builder.where(f"user_id = '{query.user}'", prefilter=True)
            elif workload == "user_filter":
                builder = builder.where(
                    f"user_id = '{query.user}' AND topic = '{query.topic}'", prefilter=True
                )
            elif workload != "unscoped":
                raise NotImplementedError(workload)
        rows = builder.select(COLUMNS).limit(k).to_list()
        return [row["id"] for row in rows]
