"""Cold start of the embedded backend: the first search of a fresh process, with and
without the vector file, paired in one run.

    PYTHONPATH=python:. benchmarks/.venv/bin/python -m benchmarks.cold_start \\
        --size 1000000 --out benchmarks/results/cold_start.json

The targets read off it: the first search of a fresh process at most 2x the same
process's steady p50 at 100K (``first ÷ then p50``) and at most 2x sqlite-vec's first
search at 1M (``ours ÷ sqlite-vec``), and RSS after one user-scoped search at 1M at most
0.5 GB (``RSS after first``), all with the vector file and a warm page cache.

The store is the scale benchmark's (``benchmarks.worker ingest``, made once under
``--workdir`` if missing). Each measurement is a fresh child process that opens the store,
runs one user-scoped search (the first, timed), a second one for another user, one
unscoped search (which reads every vector), one with a metadata filter, then ~200
user-scoped searches (the steady state), and records resident memory after each (split
into anonymous memory and file pages mapped from the page cache). The two ways alternate
within each repeat: ``sqlite`` (``vector_file=False``: every searchable row read from
SQLite, as before the vector file) and ``vector file``. Each runs with the store's files in
the page cache (``warm``, a store reopened while the machine keeps them cached: its files
are dropped and read back first, so our vector file, rewritten at the start of the run, is
cached as the peer's files are; a file its writer just wrote maps faster than one read
back) and after ``posix_fadvise(DONTNEED)`` on the store's own files (``evicted``: read from
the disk again, as far as the virtual disk lets us see). The first search that builds the
file (every row read, then the file written) is measured once.

The peer, ``sqlite-vec`` (``benchmarks/backends/sqlite_vec.py``), alternates with them: a
fresh process opens its own file of the same records and vectors (copied from our store
once, under ``--workdir``), loads the extension (both timed as *open*) and runs the same
searches, each user-scoped one in the user's partition. It is left out, and the report
says so, when ``sqlite_vec`` is not installed.

``--strategy HYBRID`` runs every search as a client does with nothing set: each one also
scores its keyword half from the user's terms (``scope_keywords``), which the record cache
holds (mapped from the vector file in a fresh process), so a user's first search reads no
row for it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import machine

ROOT = Path(__file__).resolve().parent.parent
OURS = ("sqlite", "vector file")
PEER = "sqlite-vec"
MODES = (*OURS, PEER)
CACHES = ("warm", "evicted")
RAW_VECTOR_BYTES_PER_RECORD = 384 * 4


def _memory() -> dict[str, int]:
    """VmRSS, RssAnon and RssFile of this process, in bytes (Linux)."""
    out: dict[str, int] = {}
    with open("/proc/self/status") as handle:
        for line in handle:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                out[name] = int(value.split()[0]) * 1024
    return out


def _search_request(vector: np.ndarray, user: str | None, text: str = "",
                    strategy: str = "VECTOR") -> dict[str, Any]:
    request: dict[str, Any] = {"query_text": text, "query_vector": vector,
                               "strategy": strategy, "max_results": 10}
    if user is not None:
        request["scope"] = {"user_id": {"value": user, "exact": True}}
    return request


Search = Callable[[int, str | None, str | None], list[str]]
"""One search of the child: (query index, user or None, topic filter or None) -> top ids."""


def _fresh_process(out: dict[str, Any], opening: Callable[[], tuple[Search, Callable[[], None]]],
                   queries: Path) -> dict[str, Any]:
    """Time what a fresh process does: open, a user-scoped search (the first), another
    user's, an unscoped one, a user-scoped one with a metadata filter, then ~200
    user-scoped searches (the steady state); RSS after each of the first four."""
    items = json.loads(queries.with_suffix(".json").read_text())
    users = [item["user"] for item in items]
    out["memory_before"] = _memory()
    t0 = time.perf_counter()
    search, close = opening()
    out["open_ms"] = (time.perf_counter() - t0) * 1e3
    timings = []
    ids = []
    for index, user, topic in ((0, users[0], None), (1, users[1], None), (2, None, None),
                               (3, users[3], items[3]["topic"])):
        t0 = time.perf_counter()
        ids.append(search(index, user, topic))
        timings.append((time.perf_counter() - t0) * 1e3)
        out.setdefault("memory_after", []).append(_memory())
    steady = []
    for index in range(4, len(items)):
        t0 = time.perf_counter()
        search(index, users[index], None)
        steady.append((time.perf_counter() - t0) * 1e3)
    out["steady_p50_ms"] = float(np.percentile(steady, 50))
    out["steady_p95_ms"] = float(np.percentile(steady, 95))
    out["steady_count"] = len(steady)
    t0 = time.perf_counter()
    close()
    out["close_ms"] = (time.perf_counter() - t0) * 1e3
    out["first_ms"], out["second_ms"], out["unscoped_ms"], out["filtered_ms"] = timings
    out["ids"] = ids
    return out


def child(store_path: Path, queries: Path, mode: str, strategy: str = "VECTOR"
          ) -> dict[str, Any]:
    """One fresh process on our store, with (``vector file``) or without the vector file."""
    from oracleagentmemory.stores.embedded import EmbeddedBackend

    vectors = np.load(queries.with_suffix(".npy"))
    texts = [item["text"] for item in json.loads(queries.with_suffix(".json").read_text())]

    def opening() -> tuple[Search, Callable[[], None]]:
        store = EmbeddedBackend(store_path, embedding_dimension=384,
                                vector_file=mode != "sqlite")

        def search(index: int, user: str | None, topic: str | None) -> list[str]:
            request = _search_request(vectors[index], user, texts[index], strategy)
            if topic is not None:
                request["metadata_filter"] = {"topic": topic}
            return [hit["record"]["id"] for hit in store.search(request)]

        return search, store.close

    return _fresh_process({"mode": mode, "strategy": strategy}, opening, queries)


def peer_child(vec_path: Path, queries: Path) -> dict[str, Any]:
    """The same fresh process with sqlite-vec: connect and load the extension (*open*), the
    same searches, each user-scoped one in the user's partition (sqlite-vec has no keyword
    half: always a vector search)."""
    from benchmarks.backends import sqlite_vec

    vectors = np.load(queries.with_suffix(".npy"))

    def opening() -> tuple[Search, Callable[[], None]]:
        db = sqlite_vec.connect(vec_path)

        def search(index: int, user: str | None, topic: str | None) -> list[str]:
            return [hit[0] for hit in sqlite_vec.search(db, vectors[index], user, topic)]

        return search, db.close

    return _fresh_process({"mode": PEER, "strategy": "VECTOR"}, opening, queries)


def ours_over_peer(runs: list[dict[str, Any]], cache: str) -> dict[str, float]:
    """Ours (vector file) ÷ the peer for the first search, open + first search (what a
    fresh process waits for), the second search and the steady p50: each repeat's pair
    (measured back to back), then the median of the ratios."""
    pairs = [(run, next(other for other in runs if other["mode"] == PEER
                        and other["cache"] == cache and other["repeat"] == run["repeat"]))
             for run in runs if run["mode"] == "vector file" and run["cache"] == cache]
    ratios = {key: statistics.median(a[key] / b[key] for a, b in pairs)
              for key in ("first_ms", "second_ms", "steady_p50_ms")}
    ratios["open_and_first_ms"] = statistics.median(
        (a["open_ms"] + a["first_ms"]) / (b["open_ms"] + b["first_ms"]) for a, b in pairs)
    return ratios


def _overlap(ours: list[list[str]], theirs: list[list[str]]) -> list[float]:
    """Share of each of our top-10 lists that the peer's list for the same search holds."""
    return [len(set(a) & set(b)) / max(1, len(a)) for a, b in zip(ours, theirs, strict=True)]


def evict_from_page_cache(paths: list[Path]) -> None:
    """Drop this store's own files from the page cache (nothing else is touched)."""
    for path in paths:
        if path.exists():
            descriptor = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(descriptor)


def read_into_page_cache(paths: list[Path]) -> None:
    """Read the store's files once, so they are in the page cache."""
    for path in paths:
        if path.exists():
            with open(path, "rb") as handle:
                while handle.read(16 << 20):
                    pass


def _spawn(args: list[str]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)])}
    load = os.getloadavg()[0]
    done = subprocess.run([sys.executable, "-m", "benchmarks.cold_start", *args], env=env,
                          capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["load_average"] = [load, os.getloadavg()[0]]
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--workdir", type=Path, default=ROOT / "benchmarks" / ".work")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/cold_start.json")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", choices=MODES)
    parser.add_argument("--strategy", choices=("VECTOR", "HYBRID"), default="VECTOR",
                        help="HYBRID (the default a client searches with): each search also "
                        "has its keyword half; a user's first one reads the user's terms")
    args = parser.parse_args(argv)
    base = args.workdir / f"cold-start-{args.size}"
    store_path = base / "embedded" / "store.db"
    peer_path = base / "sqlite-vec" / "store.db"
    queries = base / "queries"
    if args.child == PEER:
        print(json.dumps(peer_child(peer_path, queries)))
        return
    if args.child:
        print(json.dumps(child(store_path, queries, args.child, args.strategy)))
        return
    command = f"PYTHONPATH=python:. {machine.interpreter()} -m benchmarks.cold_start " + (
        shlex.join(sys.argv[1:] if argv is None else argv))
    started = machine.describe()
    if not store_path.exists():
        base.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "benchmarks.worker", "ingest", "--size",
                        str(args.size), "--workdir", str(base / "embedded"), "--out",
                        str(base / "ingest.json")], check=True,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(
                           [str(ROOT / "python"), str(ROOT)])})
    modes = list(MODES)
    peer: dict[str, Any] = {}
    if importlib.util.find_spec("sqlite_vec") is None:
        modes.remove(PEER)
        peer["skipped"] = "sqlite-vec is not installed (benchmarks/requirements.txt)"
    else:
        from benchmarks.backends import sqlite_vec

        build_facts = Path(f"{peer_path}.json")
        if not peer_path.exists():
            build_facts.write_text(json.dumps(sqlite_vec.copy_from_store(store_path,
                                                                         peer_path)))
        db = sqlite_vec.connect(peer_path)
        peer = {"versions": sqlite_vec.versions(db), "schema": sqlite_vec.SCHEMA,
                "build": json.loads(build_facts.read_text())}
        db.close()
    vector_path = Path(f"{store_path}.vectors")
    files = {mode: [store_path, Path(f"{store_path}-wal"), vector_path] for mode in OURS}
    files[PEER] = [peer_path, Path(f"{peer_path}-wal")]
    vector_path.unlink(missing_ok=True)
    build = _spawn(["--size", str(args.size), "--workdir", str(args.workdir),
                    "--strategy", args.strategy, "--child", "vector file"])
    print(f"built the vector file: first search {build['first_ms']:,.0f} ms", flush=True)
    runs: list[dict[str, Any]] = []
    for repeat in range(args.repeats):
        for cache in CACHES:
            order = modes if repeat % 2 == 0 else modes[::-1]
            for mode in order:
                evict_from_page_cache(files[mode])
                if cache == "warm":  # read back, so no file is warm because it was just written
                    read_into_page_cache(files[mode])
                result = _spawn(["--size", str(args.size), "--workdir", str(args.workdir),
                                 "--strategy", args.strategy, "--child", mode])
                result.update({"repeat": repeat, "cache": cache})
                runs.append(result)
                print(f"{repeat} {cache:7} {mode:11} first {result['first_ms']:9,.1f} ms, "
                      f"p50 {result['steady_p50_ms']:6.2f} ms, "
                      f"RSS {result['memory_after'][0]['VmRSS'] / 2**20:,.0f} MB", flush=True)
    ours = [run for run in runs if run["mode"] in OURS]
    same = all(run["ids"] == ours[0]["ids"] for run in ours)
    if PEER in modes:
        theirs = next(run for run in runs if run["mode"] == PEER)
        peer["same_ids_every_run"] = all(
            run["ids"] == theirs["ids"] for run in runs if run["mode"] == PEER)
        peer["overlap_with_ours"] = dict(zip(
            ("first", "second", "unscoped", "filtered"), _overlap(ours[0]["ids"],
                                                                  theirs["ids"]), strict=True))
    summary = {}
    for cache in CACHES:
        for mode in modes:
            mine = [run for run in runs if run["cache"] == cache and run["mode"] == mode]
            summary[f"{cache}/{mode}"] = {
                key: statistics.median(run[key] for run in mine)
                for key in ("first_ms", "second_ms", "unscoped_ms", "filtered_ms", "open_ms",
                            "steady_p50_ms", "steady_p95_ms")
            } | {
                "first_over_steady_p50": statistics.median(
                    run["first_ms"] / run["steady_p50_ms"] for run in mine),
                "load_average": statistics.median(max(run["load_average"]) for run in mine),
            } | {
                f"{what}_after_{when}_mb": statistics.median(
                    run["memory_after"][index][what] / 2**20 for run in mine)
                for index, when in ((0, "first"), (2, "unscoped"))
                for what in ("VmRSS", "RssAnon", "RssFile")
            } | {"rss_before_mb": statistics.median(
                run["memory_before"]["VmRSS"] / 2**20 for run in mine)}
    if PEER in modes:
        for cache in CACHES:
            peer[f"{cache}/ours_over_peer"] = ours_over_peer(runs, cache)
    result = {
        "command": command, "machine": machine.finish(started), "records": args.size,
        "strategy": args.strategy,
        "cpu_flags": machine.cpu_flags(),
        "raw_vector_mb": args.size * RAW_VECTOR_BYTES_PER_RECORD / 2**20,
        "vector_file_bytes": vector_path.stat().st_size,
        "vector_file_disk_bytes": vector_path.stat().st_blocks * 512,
        "store_file_bytes": store_path.stat().st_size,
        "build": {key: build[key] for key in ("first_ms", "close_ms")},
        "same_results": same, "peer": peer, "summary": summary,
        "runs": [{key: value for key, value in run.items() if key != "ids"} for run in runs],
    }
    args.out.write_text(json.dumps(result, indent=1))
    print(json.dumps(summary, indent=1))


def report_section(run: dict[str, Any]) -> list[str]:
    """The report's section for a cold-start run (``benchmarks.report`` side runs)."""

    lines: list[str] = []
    add = lines.append
    raw = run["raw_vector_mb"]
    peer = run.get("peer") or {}
    peer_cells = [key for key in run["summary"] if key.endswith(f"/{PEER}")]
    strategy = run.get("strategy", "VECTOR")
    add(f"## Cold start with the vector file, {run['records']:,} records"
        + ("" if strategy == "VECTOR" else f" ({strategy})"))
    add("")
    add("```bash")
    add(run["command"])
    add("```")
    add("")
    add(machine.ran_on(run["machine"]) + " CPU vector flags: "
        + (", ".join(run.get("cpu_flags", [])) or "unknown") + ".")
    add("")
    add(f"{run['records']:,} records of the scale data set (384-dimensional: {raw:,.0f} MB of "
        "raw float32 vectors). Every row is a fresh process opening the store and running a "
        "user-scoped search (*first*), a second one for another user, an unscoped one "
        "(it reads every vector), a user-scoped one with a metadata filter (*first "
        "filtered*, see below), then ~200 user-scoped searches "
        "(*then*: the steady state); MB are MiB; medians of "
        f"{len(run['runs']) // len(run['summary'])} runs per cell, the ways alternating in "
        "one run. *sqlite* reads every searchable row from SQLite on the first search (as "
        "before the vector file); *vector file* maps `<file>.vectors`"
        + (f"; *{PEER}* is the peer (below), always a vector search" if peer_cells else "")
        + ". *warm*: the store's files are in "
        "the page cache; *evicted*: dropped from it first with `posix_fadvise(DONTNEED)` "
        "(this virtual machine's disk may still be cached by its host). RSS splits into "
        "anonymous memory and file pages mapped from the page cache (shared, reclaimable).")
    add("")
    add("| page cache | way | first search ms | second ms | unscoped ms | first filtered ms "
        "| then p50 / p95 ms | first ÷ then p50 | RSS after first MB (anon + file) | "
        "RSS after unscoped MB (anon + file) | RSS / raw vectors | load |")
    add("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for key, cell in run["summary"].items():
        cache, mode = key.split("/")
        add(f"| {cache} | {mode} | {cell['first_ms']:,.1f} | {cell['second_ms']:,.1f} | "
            f"{cell['unscoped_ms']:,.1f} | {cell['filtered_ms']:,.0f} | "
            f"{cell['steady_p50_ms']:.2f} / {cell['steady_p95_ms']:.2f} | "
            f"{cell.get('first_over_steady_p50', float('nan')):.1f}x | "
            f"{cell['VmRSS_after_first_mb']:,.0f} "
            f"({cell['RssAnon_after_first_mb']:,.0f} + {cell['RssFile_after_first_mb']:,.0f}) | "
            f"{cell['VmRSS_after_unscoped_mb']:,.0f} ({cell['RssAnon_after_unscoped_mb']:,.0f} + "
            f"{cell['RssFile_after_unscoped_mb']:,.0f}) | "
            f"{cell['VmRSS_after_unscoped_mb'] / raw:.2f}x | "
            f"{cell.get('load_average', float('nan')):.1f} |")
    add("")
    summary = run["summary"]
    for cache in CACHES:
        old, new = summary[f"{cache}/sqlite"], summary[f"{cache}/vector file"]
        add(f"- {cache}: the first search takes {new['first_ms'] / old['first_ms']:.3f}x the "
            f"time of reading SQLite ({new['first_ms']:,.1f} vs {old['first_ms']:,.1f} ms).")
    add(f"- Both ways return the same hits: {'yes' if run['same_results'] else 'NO'}.")
    if peer_cells:
        lines.extend(_peer_lines(run, peer))
    elif peer.get("skipped"):
        add(f"- {PEER}: skipped ({peer['skipped']}).")
    add("- First filtered search: *sqlite* builds the filter key's column from every "
        "record's metadata; *vector file* maps the column from the file (the run that built "
        "the file used the same filter key, and the file was rewritten with its column when "
        "that process closed). A key no process used yet costs what *sqlite* shows, once.")
    add(f"- The file: {run['vector_file_bytes'] / 2**20:,.0f} MB long, "
        f"{run['vector_file_disk_bytes'] / 2**20:,.0f} MB on disk (room for new records is a "
        f"sparse tail); the SQLite file is {run['store_file_bytes'] / 2**20:,.0f} MB. The "
        f"first search that builds it (every row read, then the file written and fsynced) "
        f"took {run['build']['first_ms']:,.0f} ms, once; closing that process (the file "
        f"written again with the filter column) took {run['build']['close_ms']:,.0f} ms.")
    add("")
    return lines



def _peer_lines(run: dict[str, Any], peer: dict[str, Any]) -> list[str]:
    """The report's lines comparing the vector file with sqlite-vec, per page-cache state."""
    lines: list[str] = []
    add = lines.append
    summary = run["summary"]
    ours = "HYBRID" if run.get("strategy", "VECTOR") == "HYBRID" else "VECTOR"
    for cache in CACHES:
        mine, theirs = summary[f"{cache}/vector file"], summary[f"{cache}/{PEER}"]
        ratio = peer[f"{cache}/ours_over_peer"]
        both = (f", open + first {ratio['open_and_first_ms']:.2f}x"
                if "open_and_first_ms" in ratio else "")
        add(f"- {cache}, ours ({ours}, vector file) ÷ {PEER}: first search "
            f"**{ratio['first_ms']:.2f}x** ({mine['first_ms']:,.1f} vs "
            f"{theirs['first_ms']:,.1f} ms){both}, second {ratio['second_ms']:.2f}x, then "
            f"p50 {ratio['steady_p50_ms']:.2f}x ({mine['steady_p50_ms']:.2f} vs "
            f"{theirs['steady_p50_ms']:.2f} ms); medians of each repeat's pair.")
    overlap = ", ".join(f"{name} {share:.0%}"
                        for name, share in peer.get("overlap_with_ours", {}).items())
    build = peer["build"]
    versions = peer["versions"]
    add(f"- {PEER} {versions['sqlite-vec']} (SQLite {versions['sqlite (its driver)']} "
        f"through its Python driver; ours runs on SQLite {versions['sqlite (ours)']}): the "
        "same records and vectors copied from our store into a `vec0` table with the user "
        "as its partition key (the way its documentation gives for a selective search), the "
        "topic a metadata column, id and content auxiliary columns returned with the hits, "
        "cosine distance; each search is `embedding MATCH ? AND k = 10 AND user_id = ?`. "
        f"Share of our top 10 in its top 10: {overlap}"
        + (" (ours is HYBRID here: keyword matches enter its list by design)"
           if ours == "HYBRID" else "")
        + f". Its file: {build['file_bytes'] / 2**20:,.0f} MB, built in "
        f"{build['seconds']:,.0f} s ({build['records_per_second']:,.0f} records/s, rows "
        "grouped by user).")
    return lines


if __name__ == "__main__":
    main()
