"""Retrieval quality on the generated conversations: recall@5, recall@10 and MRR.

Every system gets the same messages, the same vectors (the default local embedder,
all-MiniLM-L6-v2, run once; vectors cached in the work directory) and the same questions,
each searched within its user (exact user scope / user filter), top 10. Ours is driven
through the public client API (``OracleAgentMemory``, threads, ``client.search``) with the
client's search strategy set to VECTOR, KEYWORD or HYBRID.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.conversations import Conversations, generate
from benchmarks.timing_embedder import TimingEmbedder

K = 10
Searcher = Callable[[str, str, np.ndarray], list[str]]


def embed_all(conv: Conversations, workdir: Path) -> dict[str, np.ndarray]:
    """Vectors of every message and question, computed once with the local embedder."""
    texts = sorted({m.text for m in conv.messages} | {q.text for q in conv.questions})
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    path = workdir / f"vectors-{digest}.npy"
    if path.exists():
        vectors = np.load(path)
    else:
        from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder

        vectors = LocalMiniLMEmbedder().embed(texts)
        np.save(path, vectors)
    return dict(zip(texts, vectors, strict=True))


def score(conv: Conversations, search: Searcher, vectors: dict[str, np.ndarray],
          hits: list[bool] | None = None) -> dict:
    """Recall and MRR over the questions; ``hits`` collects, per question, whether the
    evidence made the top K."""
    recall5 = recall10 = mrr = 0.0
    latencies = []
    for q in conv.questions:
        t0 = time.perf_counter()
        found = search(q.user, q.text, vectors[q.text])[:K]
        latencies.append(time.perf_counter() - t0)
        if hits is not None:
            hits.append(bool(set(q.evidence) & set(found)))
        evidence = set(q.evidence)
        recall5 += len(evidence & set(found[:5])) / len(evidence)
        recall10 += len(evidence & set(found[:10])) / len(evidence)
        rank = next((i for i, rid in enumerate(found, 1) if rid in evidence), None)
        mrr += 1.0 / rank if rank else 0.0
    n = len(conv.questions)
    return {"recall@5": recall5 / n, "recall@10": recall10 / n, "mrr": mrr / n,
            "p50_ms": float(np.percentile(np.array(latencies) * 1e3, 50))}


def ours(conv: Conversations, vectors: dict[str, np.ndarray], workdir: Path) -> dict:
    """The public API: one client writes, three clients (one per strategy) search."""
    from oracleagentmemory.core import OracleAgentMemory, SearchStrategy
    from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder

    path = workdir / "quality.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    embedder = TimingEmbedder(LocalMiniLMEmbedder(), cache=dict(vectors))
    writer = OracleAgentMemory(connection=str(path), embedder=embedder)
    sessions: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for m in conv.messages:
        sessions.setdefault((m.user, m.session), []).append(
            {"role": m.role, "content": m.text, "id": m.id}
        )
    for (user, _), messages in sessions.items():
        writer.create_thread(user_id=user, agent_id="assistant").add_messages(messages)
    results: dict[str, Any] = {}
    hits: dict[str, list[bool]] = {}
    for strategy in ("VECTOR", "KEYWORD", "HYBRID"):
        client = OracleAgentMemory(connection=str(path), embedder=embedder,
                                   search_strategy=SearchStrategy(strategy))

        def search(user: str, text: str, _: np.ndarray, client: Any = client) -> list[str]:
            return [r.id for r in client.search(text, user_id=user, max_results=K)]

        hits[strategy] = []
        results[f"embedded {strategy.lower()}"] = score(conv, search, vectors, hits[strategy])
        client.close()
    writer.close()
    # What the keyword half can add to fusion: questions keyword search answers in its top K
    # that vector search does not.
    results["keyword_diagnostic"] = {
        "keyword_top10": sum(hits["KEYWORD"]),
        "keyword_only_top10": sum(k and not v for k, v in zip(hits["KEYWORD"], hits["VECTOR"],
                                                             strict=True)),
        "vector_top10_lost_by_hybrid": sum(v and not h for v, h in zip(
            hits["VECTOR"], hits["HYBRID"], strict=True)),
    }
    return results


def numpy_exact(conv: Conversations, vectors: dict[str, np.ndarray]) -> dict:
    by_user: dict[str, tuple[list[str], np.ndarray]] = {}
    for user in {m.user for m in conv.messages}:
        rows = [m for m in conv.messages if m.user == user]
        by_user[user] = ([m.id for m in rows], np.stack([vectors[m.text] for m in rows]))

    def search(user: str, _: str, vector: np.ndarray) -> list[str]:
        ids, matrix = by_user[user]
        order = np.argsort(-(matrix @ vector), kind="stable")[:K]
        return [ids[i] for i in order]

    return {"numpy exact vector": score(conv, search, vectors)}


def chroma(conv: Conversations, vectors: dict[str, np.ndarray], workdir: Path) -> dict:
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(
        path=str(workdir / "quality-chroma"), settings=Settings(anonymized_telemetry=False)
    )
    with contextlib.suppress(Exception):  # absent on the first run
        client.delete_collection("quality")
    collection = client.create_collection("quality", metadata={"hnsw:space": "cosine"})
    for start in range(0, len(conv.messages), 5000):
        part = conv.messages[start : start + 5000]
        collection.add(
            ids=[m.id for m in part], documents=[m.text for m in part],
            embeddings=np.stack([vectors[m.text] for m in part]),
            metadatas=[{"user_id": m.user, "role": m.role} for m in part],
        )

    def search(user: str, _: str, vector: np.ndarray) -> list[str]:
        result = collection.query(query_embeddings=[vector], n_results=K,
                                  where={"user_id": user})
        return list(result["ids"][0])

    return {"chroma vector": score(conv, search, vectors)}


def lance(conv: Conversations, vectors: dict[str, np.ndarray], workdir: Path) -> dict:
    import lancedb
    import pyarrow as pa

    db = lancedb.connect(str(workdir / "quality-lance"))
    matrix = np.stack([vectors[m.text] for m in conv.messages])
    table = db.create_table("quality", pa.table({
        "id": [m.id for m in conv.messages],
        "user_id": [m.user for m in conv.messages],
        "content": [m.text for m in conv.messages],
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), 384),
    }), mode="overwrite")
    table.create_fts_index("content", replace=True)
    out = {}

    def run(kind: str) -> Searcher:
        def search(user: str, text: str, vector: np.ndarray) -> list[str]:
            where = f"user_id = '{user}'"
            if kind == "vector":
                builder = table.search(vector).distance_type("cosine")
            elif kind == "keyword":
                builder = table.search(text, query_type="fts")
            else:
                builder = table.search(query_type="hybrid").vector(vector).text(text)
            rows = builder.where(where, prefilter=True).select(["id"]).limit(K).to_list()
            return [row["id"] for row in rows]

        return search

    for kind in ("vector", "keyword", "hybrid"):
        out[f"lancedb {kind}"] = score(conv, run(kind), vectors)
    return out


def mem0(conv: Conversations, vectors: dict[str, np.ndarray], workdir: Path) -> dict:
    from benchmarks.backends.mem0 import open_memory

    memory = open_memory(workdir / "quality-mem0", vectors)
    mem0_to_ours: dict[str, str] = {}
    for m in conv.messages:
        added = memory.add([{"role": m.role, "content": m.text}], user_id=m.user,
                           metadata={"mid": m.id}, infer=False)
        for item in added["results"]:
            mem0_to_ours[item["id"]] = m.id

    def search(user: str, text: str, _: np.ndarray) -> list[str]:
        found = memory.search(text, filters={"user_id": user}, top_k=K, threshold=0.0)
        return [mem0_to_ours.get(r["id"], r["id"]) for r in found["results"]]

    return {"mem0 (infer=False)": score(conv, search, vectors)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--systems", default="embedded,numpy,chroma,lancedb,mem0")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    conv = generate()
    vectors = embed_all(conv, args.workdir)
    results: dict[str, Any] = {}
    errors: dict[str, str] = {}
    systems = args.systems.split(",")
    runners = {
        "embedded": lambda: ours(conv, vectors, args.workdir),
        "numpy": lambda: numpy_exact(conv, vectors),
        "chroma": lambda: chroma(conv, vectors, args.workdir),
        "lancedb": lambda: lance(conv, vectors, args.workdir),
        "mem0": lambda: mem0(conv, vectors, args.workdir),
    }
    for name in systems:
        try:
            results.update(runners[name]())
        except Exception as exc:  # noqa: BLE001 - a peer that fails is reported, not fatal
            errors[name] = f"{type(exc).__name__}: {exc}"[:300]
    diagnostic = results.pop("keyword_diagnostic", None)
    args.out.write_text(json.dumps({
        "messages": len(conv.messages), "questions": len(conv.questions),
        "users": len({m.user for m in conv.messages}), "results": results, "errors": errors,
        "keyword_diagnostic": diagnostic,
        "blas": os.environ.get("OPENBLAS_CORETYPE", "unset"),
    }))


if __name__ == "__main__":
    main()
