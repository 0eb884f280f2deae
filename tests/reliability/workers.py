"""Worker processes for the reliability tests (run with ``python -m``)."""

from __future__ import annotations

import sys

from oracleagentmemory.stores.embedded import EmbeddedBackend

DIMENSION = 4


def vector(i: int) -> list[float]:
    return [1.0, float(i % 7), float(i % 5), 1.0]


def batch_writer(location: str, worker: int, batches: int, batch_size: int) -> None:
    """Writes batches forever-ish, printing each committed batch number (for the killer).

    Every four batches share a thread; the fourth cascades the previous group's thread away,
    so whenever the killer strikes some batches remain to check (the current group's)."""
    store = EmbeddedBackend(location, embedding_dimension=DIMENSION)
    for batch in range(batches):
        thread = f"t{worker}-{batch // 4}"
        records = [
            {"record_type": "memory", "id": f"w{worker}-b{batch}-r{i}", "thread_id": thread,
             "content": f"batch {batch}", "metadata": {"batch": f"w{worker}-b{batch}"},
             "embedding": vector(i), "ttl_days": 0 if batch % 3 == 2 else None}
            for i in range(batch_size)
        ]
        store.write_records(records)
        if batch % 3 == 0:
            store.purge_expired()
        if batch % 4 == 3 and batch > 3:
            store.delete_cascade("thread", f"t{worker}-{batch // 4 - 1}")
        print(batch, flush=True)


def mixed_worker(location: str, worker: int, operations: int) -> None:
    """Adds, updates, deletes and searches; prints the ids it leaves behind."""
    store = EmbeddedBackend(location, embedding_dimension=DIMENSION)
    kept = []
    for i in range(operations):
        rid = f"p{worker}-{i}"
        store.write_records([{"record_type": "memory", "id": rid, "user_id": f"u{worker}",
                              "content": f"note {i}", "embedding": vector(i)}])
        if i % 3 == 0:
            assert store.update_record(rid, ["memory"], {"content": f"edited {i}"}) is not None
        if i % 5 == 0:
            assert store.delete_records([rid], ["memory"]) == 1
        else:
            kept.append(rid)
        hits = store.search({"query_vector": vector(i), "max_results": 5,
                             "scope": {"user_id": {"value": f"u{worker}", "exact": True}}})
        assert all(hit["record"]["user_id"] == f"u{worker}" for hit in hits)
    print(" ".join(kept), flush=True)
    store.close()


def message_writer(location: str, thread_id: str, batches: int) -> None:
    """Adds ``batches`` one-message batches to a thread with an LLM whose extraction is
    never due, so every batch only counts (the LLM is never called)."""
    from oracleagentmemory.core import MemoryExtractionConfig, OracleAgentMemory
    from tests.support.embedders import HashingEmbedder
    from tests.support.llms import NeverCalledLlm

    with OracleAgentMemory(connection=location, embedder=HashingEmbedder(),
                           llm=NeverCalledLlm()) as client:
        thread = client.get_thread(thread_id, memory_extraction_config=MemoryExtractionConfig(
            memory_extraction_frequency=1_000_000, enable_context_summary=False))
        for batch in range(batches):
            thread.add_messages([{"role": "user", "content": f"message {batch}"}])
    print("done", flush=True)


if __name__ == "__main__":
    kind, location, worker, *rest = sys.argv[1:]
    if kind == "batch":
        batch_writer(location, int(worker), int(rest[0]), int(rest[1]))
    elif kind == "messages":
        message_writer(location, worker, int(rest[0]))
    else:
        mixed_worker(location, int(worker), int(rest[0]))
