"""One measurement in its own process, so RSS and caches belong to one system alone.

Phases: ``ingest`` (build the data set, store it, time the store calls), ``search`` (open
what was stored in a fresh process, time every workload, record RSS), ``e2e`` (the local
embedder included: messages added to the stored data and searches embedding their query).
The result is one JSON object written to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import machine
from benchmarks.backends.base import WORKLOADS, Adapter
from benchmarks.dataset import generate, load_queries, queries, save_queries


def adapter_for(name: str, workdir: Path) -> Adapter:
    if name == "embedded":
        from benchmarks.backends.embedded import EmbeddedAdapter

        return EmbeddedAdapter(workdir)
    if name == "numpy":
        from benchmarks.backends.numpy_floor import NumpyFloorAdapter

        return NumpyFloorAdapter(workdir)
    if name == "chroma":
        from benchmarks.backends.chroma import ChromaAdapter

        return ChromaAdapter(workdir)
    if name == "lancedb":
        from benchmarks.backends.lance import LanceAdapter

        return LanceAdapter(workdir)
    if name == "mem0":
        from benchmarks.backends.mem0 import Mem0Adapter

        return Mem0Adapter(workdir)
    raise SystemExit(f"unknown backend {name}")


def rss_bytes() -> int:
    """Current resident set size (Linux /proc), not the peak."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class Phase:
    """The load average at the start and end of a timed phase and the CPU time it used, so
    every row of the report says what else the machine was doing and how busy we were."""

    def __init__(self) -> None:
        self.load_start = os.getloadavg()[0]
        self.cpu_start = machine.cpu_seconds()

    def facts(self) -> dict[str, Any]:
        return {"load_average": [self.load_start, os.getloadavg()[0]],
                "cpu_seconds": machine.cpu_seconds() - self.cpu_start}


def blas_info() -> str:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown"
    return ", ".join(
        f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')}"
        f" x{i.get('num_threads')}"
        for i in threadpool_info()
    ) or "none"


def run_ingest(args: argparse.Namespace) -> dict[str, Any]:
    t0 = time.perf_counter()
    data = generate(args.size)
    generate_seconds = time.perf_counter() - t0
    args.workdir.mkdir(parents=True, exist_ok=True)
    save_queries(args.workdir.parent / "queries", queries(data, args.queries))
    adapter = adapter_for(args.backend, args.workdir)
    phase = Phase()
    t0 = time.perf_counter()
    facts = adapter.ingest(data)
    wall = time.perf_counter() - t0
    adapter.close()
    facts.update(phase.facts())
    store_seconds = facts.pop("store_seconds", wall)
    return {
        "records": data.size,
        "links": int((data.link_to >= 0).sum()),
        "generate_seconds": generate_seconds,
        "wall_seconds": wall,
        "store_seconds": store_seconds,
        "records_per_second": data.size / store_seconds,
        "disk_bytes": adapter.disk_bytes(),
        "peak_rss_bytes": peak_rss_bytes(),
        **facts,
    }


def run_search(args: argparse.Namespace) -> dict[str, Any]:
    items = load_queries(args.workdir.parent / "queries")
    adapter = adapter_for(args.backend, args.workdir)
    rss_before = rss_bytes()
    t0 = time.perf_counter()
    adapter.open()
    open_seconds = time.perf_counter() - t0
    out: dict[str, Any] = {"open_seconds": open_seconds, "workloads": {}, "blas": blas_info()}
    workloads = [w for w in WORKLOADS if w in adapter.supports and w in args.workloads]
    for workload in workloads:
        phase = Phase()
        t0 = time.perf_counter()
        adapter.search(workload, items[0])
        first = time.perf_counter() - t0
        for query in items[1:6]:
            adapter.search(workload, query)
        latencies: list[float] = []
        ids: list[list[str]] = []
        started = time.perf_counter()
        for query in items:
            t0 = time.perf_counter()
            found = adapter.search(workload, query)
            latencies.append(time.perf_counter() - t0)
            ids.append(found)
            if len(latencies) >= 20 and time.perf_counter() - started > args.seconds:
                break
        ms = np.array(latencies) * 1e3
        out["workloads"][workload] = {
            "first_ms": first * 1e3,
            "count": len(latencies),
            "p50_ms": float(np.percentile(ms, 50)),
            "p95_ms": float(np.percentile(ms, 95)),
            "p99_ms": float(np.percentile(ms, 99)),
            "mean_ms": float(ms.mean()),
            "ids": ids,
            **phase.facts(),
        }
    if "hops2" in out["workloads"]:
        out["workloads"]["hops2"]["linked_per_query"] = getattr(adapter, "linked_total", 0) / max(
            1, out["workloads"]["hops2"]["count"] + 6
        )
    out["rss_before_open_bytes"] = rss_before
    out["rss_after_bytes"] = rss_bytes()
    out["peak_rss_bytes"] = peak_rss_bytes()
    adapter.close()
    return out


E2E_QUERIES = 100
"""Searches timed end to end (each embeds its query: the query cache is off)."""
E2E_BATCH = 32
"""Messages per ``add_messages`` call (and per peer batch)."""


def conversation_batches(turns_from: Path | None, sample: int
                         ) -> tuple[list[tuple[str, list[dict[str, str]]]], str]:
    """About ``sample`` messages as (thread key, messages) batches of at most E2E_BATCH, and
    where they came from. With a LoCoMo folder: its conversations in order, one thread per
    session, the first speaker of each conversation as ``user`` and the other as
    ``assistant`` (so a message has the turn before it, as in a real chat); without one:
    generated one-role messages (``benchmarks.conversations``)."""
    batches: list[tuple[str, list[dict[str, str]]]] = []
    if turns_from is None:
        from benchmarks.conversations import sample_messages

        texts = sample_messages(sample)
        for start in range(0, len(texts), E2E_BATCH):
            batches.append((f"generated-{start}", [
                {"role": "user", "content": text} for text in texts[start:start + E2E_BATCH]]))
        return batches, "generated one-role messages (benchmarks/conversations.py)"
    from benchmarks.locomo import load, sessions

    conversations, _ = load(turns_from)
    taken = 0
    for user, turns in conversations.items():
        first = turns[0].speaker if turns else ""
        for session in sessions(turns):
            messages = [{"role": "user" if turn.speaker == first else "assistant",
                         "content": turn.text} for turn in session]
            for start in range(0, len(messages), E2E_BATCH):
                if taken >= sample:
                    return batches, f"LoCoMo turns from {turns_from.name}/, alternating roles"
                part = messages[start:start + E2E_BATCH][:sample - taken]
                batches.append((f"{user}-{session[0].session}", part))
                taken += len(part)
    return batches, f"LoCoMo turns from {turns_from.name}/, alternating roles"


def run_e2e(args: argparse.Namespace) -> dict[str, Any]:
    """The default local embedder included: ours through the public client (create_thread,
    add_messages, search), a peer through its own API with vectors from the same model, on
    the data stored at this size. Only the embedder's own time is split out."""
    from benchmarks.dataset import Query
    from benchmarks.timing_embedder import TimingEmbedder
    from oracleagentmemory.core import OracleAgentMemory
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    batches, source = conversation_batches(args.turns_from, args.sample)
    asked = load_queries(args.workdir.parent / "queries")[:E2E_QUERIES]
    embedder = TimingEmbedder(LocalE5Embedder(query_cache_size=0))
    embedder.inner.load()
    embedder.embed(["warm up the model"])
    embedder.seconds = 0.0
    if args.backend == "embedded":
        client = OracleAgentMemory(connection=str(args.workdir / "store.db"), embedder=embedder)
        threads: dict[str, Any] = {}

        def add(start: int, key: str, messages: list[dict[str, str]]) -> None:
            if key not in threads:
                threads[key] = client.create_thread(user_id=f"e2e-user-{len(threads) % 50}",
                                                    agent_id="e2e-agent")
            threads[key].add_messages(messages)

        def search(query: Query) -> None:
            client.search(query.text, user_id=query.user, max_results=10)

        close = client.close
    else:
        adapter = adapter_for(args.backend, args.workdir)
        adapter.open()

        def add(start: int, key: str, messages: list[dict[str, str]]) -> None:
            texts = [message["content"] for message in messages]
            ids = [f"e2e-{start + i}" for i in range(len(texts))]
            adapter.add_messages(f"e2e-user-{start % 50}", ids, texts, embedder.embed(texts))

        def search(query: Query) -> None:
            vector = embedder.embed([query.text], is_query=True)[0]
            adapter.search("user", Query(vector, query.user, query.topic, query.text))

        close = adapter.close
    count = sum(len(messages) for _, messages in batches)
    adding = Phase()
    t0 = time.perf_counter()
    start = 0
    for key, messages in batches:
        add(start, key, messages)
        start += len(messages)
    wall = time.perf_counter() - t0
    added = adding.facts()
    embed_seconds = embedder.seconds
    search(asked[0])  # the first search opens caches: not timed
    embedder.seconds = 0.0
    latencies = []
    searching = Phase()
    for query in asked[1:]:
        t0 = time.perf_counter()
        search(query)
        latencies.append(time.perf_counter() - t0)
    ms = np.array(latencies) * 1e3
    close()
    return {
        "messages": count,
        "source": source,
        "batch": E2E_BATCH,
        "wall_seconds": wall,
        "embed_seconds": embed_seconds,
        "messages_per_second": count / wall,
        "embedder_sentences_per_second": count / embed_seconds,
        "non_embedding_share": (wall - embed_seconds) / wall,
        **added,
        "search": {"count": len(latencies), "p50_ms": float(np.percentile(ms, 50)),
                   "p95_ms": float(np.percentile(ms, 95)),
                   "embedding_share": embedder.seconds / float(np.sum(latencies)),
                   **searching.facts()},
        "blas": blas_info(),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("phase", choices=("ingest", "search", "e2e"))
    parser.add_argument("--backend", default="embedded")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--sample", type=int, default=512)
    parser.add_argument("--turns-from", type=Path, default=None,
                        help="LoCoMo folder: the e2e phase adds its real turns")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    args = parser.parse_args(argv)
    args.workloads = args.workloads.split(",")
    phase = {"ingest": run_ingest, "search": run_search, "e2e": run_e2e}[args.phase]
    result = phase(args)
    result.update({"phase": args.phase, "backend": args.backend, "size": args.size})
    args.out.write_text(json.dumps(result))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
