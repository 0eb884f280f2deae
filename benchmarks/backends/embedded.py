"""Our embedded backend, measured through the store contract (``EmbeddedBackend``).

The contract is what is measured here: ingestion with precomputed vectors is
``write_records`` in batches, searches are ``search`` requests with a precomputed query
vector (query embedding excluded, as the targets say). The public client API on top is
measured separately (end-to-end ingestion with the local embedder, and retrieval quality).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from benchmarks.backends.base import Adapter
from benchmarks.dataset import AGENTS, USERS, Query, ScaleData
from oracleagentmemory.stores.embedded import EmbeddedBackend

BATCH = 1000
STORE_FILE = "store.db"


def records_of(data: ScaleData, start: int, stop: int) -> tuple[list[dict], list[dict]]:
    """Contract records (and links) for rows ``start..stop`` of the data set."""
    records: list[dict[str, Any]] = []
    links: list[dict[str, Any]] = []
    for row in range(start, stop):
        record_type = data.record_type(row)
        records.append({
            "record_type": record_type,
            "id": data.record_id(row),
            "user_id": USERS[data.user[row]],
            "agent_id": AGENTS[data.agent[row]],
            "thread_id": data.thread_id(row),
            "role": "user" if record_type == "message" else None,
            "content": data.content(row),
            "metadata": data.metadata(row),
            "embedding": data.vectors[row],
        })
        target = int(data.link_to[row])
        if target >= 0:
            links.append({
                "thread_id": data.thread_id(row),
                "source_id": data.record_id(row),
                "source_type": record_type,
                "target_id": data.record_id(target),
                "target_type": data.record_type(target),
                "relation_type": "supports" if row % 2 else "refines",
            })
    return records, links


def request(workload: str, query: Query, k: int) -> dict[str, Any]:
    """The contract search request of one workload."""
    user_scope = {"user_id": {"value": query.user, "exact": True}}
    base: dict[str, Any] = {
        "query_text": query.text,
        "query_vector": query.vector,
        "strategy": "VECTOR",
        "max_results": k,
    }
    if workload == "user":
        return {**base, "scope": user_scope}
    if workload == "user_filter":
        return {**base, "scope": user_scope, "metadata_filter": {"topic": query.topic}}
    if workload == "unscoped":
        return base
    if workload == "hops2":
        return {**base, "scope": user_scope, "num_hops": 2}
    if workload == "hybrid_user":
        return {**base, "scope": user_scope, "strategy": "HYBRID"}
    raise NotImplementedError(workload)


class EmbeddedAdapter(Adapter):
    name = "embedded"
    supports = ("user", "user_filter", "unscoped", "hops2", "hybrid_user")

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.store: EmbeddedBackend | None = None
        self.linked_total = 0

    def ingest(self, data: ScaleData) -> dict[str, Any]:
        self.workdir.mkdir(parents=True, exist_ok=True)
        store = EmbeddedBackend(self.workdir / STORE_FILE, embedding_dimension=384)
        writing = 0.0
        for start in range(0, data.size, BATCH):
            records, links = records_of(data, start, min(start + BATCH, data.size))
            t0 = time.perf_counter()
            store.write_records(records, links)
            writing += time.perf_counter() - t0
        # The first search reads every row and writes the vector file beside the store, as
        # a user's first search after ingesting would; timed apart from the writes.
        t0 = time.perf_counter()
        store.search({"query_vector": data.vectors[0], "max_results": 1})
        vector_file_seconds = time.perf_counter() - t0
        store.close()
        return {"store_seconds": writing, "batch": BATCH,
                "vector_file_seconds": vector_file_seconds}

    def open(self) -> None:
        self.store = EmbeddedBackend(self.workdir / STORE_FILE, embedding_dimension=384)

    def search(self, workload: str, query: Query, k: int = 10) -> list[str]:
        assert self.store is not None
        hits = self.store.search(request(workload, query, k))
        self.linked_total += sum(len(hit["linked"]) for hit in hits)
        return [hit["record"]["id"] for hit in hits]

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
