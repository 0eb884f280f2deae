"""A fresh process's first searches, this checkout against another, interleaved in one run.

    PYTHONPATH=python:. python -m benchmarks.first_search --baseline PATH_TO_A_CHECKOUT \\
        --size 100000 --strategy HYBRID --rounds 12 --out benchmarks/results/first_search.json

Where the cold-start benchmark (``benchmarks.cold_start``) compares ways of one checkout,
this compares two checkouts on the same data, and splits the first search into its parts.
Each measurement is a fresh process running one checkout's library (its ``python/`` first
on the path) on its own copy of the cold-start store (``<workdir>/first-search-<size>/<label>``,
copied once from ``cold-start-<size>``, so the two checkouts never rewrite each other's vector
file): open the store, search user 0 (*first*), user 0 again, user 1 (a scope the process has
not touched: *new scope*), user 1 again, then the cold-start query set's steady searches
(*p50*). The checkouts alternate within each round. Before each process the store's files
are dropped from the page cache and read back once, so both checkouts' files are cached
the same way: a file its writer just wrote sits in the page cache otherwise than one read
back (measured: the same code on two copies of one store, one file just written, differed
1.6x on the first search at 1M).

``--evicted`` drops the files from the page cache before each process and does not read
them back: the first search after a reboot, its data read from the disk (the column
*first KiB read* is what the process read from the disk during it, ``ru_inblock``).

``--warm-elsewhere`` first runs one search on a small in-memory store in the child (timed as
its own column): what remains of *first* above *new scope* after that is the process's
first-call cost of the search code (numpy kernels, SQLite, Python), not this store's data.
``--warm-elsewhere file`` runs it on a small store file with its own vector file instead
(10,000 records, made once per checkout beside the copy), so the code that reads a mapped
file (the user's slots, the read-ahead, the mapped columns) has run once too: what remains
of *first* above *new scope* is what this store's first search does for the first time.

``--own-time`` (no baseline) profiles, in each fresh process, the first search and a later
user's first search (the sixth query's; files read back as above) with cProfile, and prints
the medians of their summed own time and the functions whose own time differs most: where
a first search's time above a later one goes, function by function.
"""

from __future__ import annotations

import argparse
import json
import resource
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import checkouts, machine
from benchmarks.cold_start import evict_from_page_cache, read_into_page_cache

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ("open", "elsewhere", "first", "first again", "new scope", "new scope again", "p50")
READ = "first KiB read"
HUGE = "KiB in huge pages"
"""The vector file's bytes the process maps with 2 MiB page-table entries after its first
search (``FilePmdMapped`` in ``/proc/self/smaps``; NaN where there is none): a kernel whose
page cache holds the file in 2 MiB folios maps a scope's run of vectors in a few faults
instead of one per 64 KiB."""


ELSEWHERE_RECORDS = 10_000
"""Records of the ``--warm-elsewhere file`` store: enough for a vector file to be written."""


def _elsewhere(store_dir: Path, warm_elsewhere: str | None, dimension: int,
               texts: list[str]) -> Any:
    """The small store ``--warm-elsewhere`` searches first (None: no such search). The file
    one is made on its first use (its vector file by the setup process's search)."""
    from oracleagentmemory.stores.embedded import EmbeddedBackend

    if warm_elsewhere is None:
        return None
    path = ":memory:" if warm_elsewhere == "memory" else store_dir / "elsewhere" / "store.db"
    count = 50 if warm_elsewhere == "memory" else ELSEWHERE_RECORDS
    if path != ":memory:" and path.exists():
        return EmbeddedBackend(path, embedding_dimension=dimension)
    if path != ":memory:":
        path.parent.mkdir(parents=True, exist_ok=True)
    other = EmbeddedBackend(path, embedding_dimension=dimension)
    rng = np.random.default_rng(0)
    for start in range(0, count, 1_000):
        other.write_records([
            {"record_type": "memory", "id": f"w{i}", "user_id": f"elsewhere-{i % 5}",
             "content": f"{texts[i % len(texts)]} {i}",
             "embedding": rng.standard_normal(dimension).tolist()}
            for i in range(start, min(start + 1_000, count))])
    return other


def child(store_dir: Path, strategy: str, warm_elsewhere: str | None) -> dict[str, float]:
    """One fresh process: the timed steps (ms) of ``COLUMNS``."""
    from oracleagentmemory.stores.embedded import EmbeddedBackend

    vectors = np.load(store_dir / "queries.npy")
    items = json.loads((store_dir / "queries.json").read_text())

    def request(index: int, user: str | None = None) -> Any:  # (a SearchRequest)
        return {"query_text": items[index]["text"], "query_vector": vectors[index],
                "strategy": strategy, "max_results": 10,
                "scope": {"user_id": {"value": user or items[index]["user"], "exact": True}}}

    out: dict[str, float] = {}
    other = _elsewhere(store_dir, warm_elsewhere, vectors.shape[1],
                       [item["text"] for item in items])
    if other is not None:
        started = time.perf_counter()
        other.search(request(5, "elsewhere-0"))
        out["elsewhere"] = (time.perf_counter() - started) * 1e3
        other.close()
    started = time.perf_counter()
    store = EmbeddedBackend(store_dir / "embedded" / "store.db",
                            embedding_dimension=vectors.shape[1])
    out["open"] = (time.perf_counter() - started) * 1e3
    for name, index in (("first", 0), ("first again", 0), ("new scope", 1),
                        ("new scope again", 1)):
        blocks = resource.getrusage(resource.RUSAGE_SELF).ru_inblock
        started = time.perf_counter()
        store.search(request(index))
        out[name] = (time.perf_counter() - started) * 1e3
        if name == "first":  # (512-byte blocks)
            out[READ] = (resource.getrusage(resource.RUSAGE_SELF).ru_inblock - blocks) / 2
            out[HUGE] = _huge_mapped(f"{store_dir / 'embedded' / 'store.db'}.vectors")
    steady = []
    for index in range(4, len(items)):
        started = time.perf_counter()
        store.search(request(index))
        steady.append((time.perf_counter() - started) * 1e3)
    out["p50"] = float(np.percentile(steady, 50))
    store.close()
    return out


def _huge_mapped(path: str) -> float:
    """``FilePmdMapped`` KiB of this process's maps of ``path`` (NaN: no smaps to read)."""
    try:
        return pmd_mapped_kib(Path("/proc/self/smaps").read_text(), path)
    except OSError:
        return float("nan")


def pmd_mapped_kib(smaps: str, path: str) -> float:
    """The ``FilePmdMapped`` KiB of the maps of ``path`` in an ``smaps`` text (each map: a
    first line ending with the mapped file's path, then ``Name: value`` fields); NaN when no
    map of it has that field (a kernel without it)."""
    total: float = float("nan")
    inside = False
    for line in smaps.splitlines():
        words = line.split(maxsplit=1)
        if not words:
            continue
        if not words[0].endswith(":"):  # a map's first line, not a field
            inside = line.endswith(path)
        elif inside and words[0] == "FilePmdMapped:":
            total = (0.0 if total != total else total) + int(line.split()[1])
    return total


def own_time_child(store_dir: Path, strategy: str) -> dict[str, float]:
    """One fresh process: own time (µs, cProfile) of the first search and of a later user's
    first search, in total and by function (``first - later``, keyed by function)."""
    import cProfile
    import pstats

    from oracleagentmemory.stores.embedded import EmbeddedBackend

    vectors = np.load(store_dir / "queries.npy")
    items = json.loads((store_dir / "queries.json").read_text())
    store = EmbeddedBackend(store_dir / "embedded" / "store.db",
                            embedding_dimension=vectors.shape[1])
    own: dict[str, dict[str, float]] = {}
    for name, index in (("first", 0), ("new scope", 1), ("later", 5)):
        request: Any = {"query_text": items[index]["text"], "query_vector": vectors[index],
                        "strategy": strategy, "max_results": 10,
                        "scope": {"user_id": {"value": items[index]["user"], "exact": True}}}
        profile = cProfile.Profile()
        profile.enable()
        store.search(request)
        profile.disable()
        own[name] = {f"{Path(where).parent.name}/{Path(where).name}:{line}({function})":
                     total * 1e6
                     for (where, line, function), (_, _, total, _, _)
                     in pstats.Stats(profile).stats.items()}  # type: ignore[attr-defined]
    store.close()
    out = {"first own µs": sum(own["first"].values()),
           "later own µs": sum(own["later"].values())}
    for key, first in own["first"].items():
        out[key] = first - own["later"].get(key, 0.0)
    return out


def _own_time(store_dir: Path, strategy: str, rounds: int, out: Path | None) -> None:
    """Print medians over ``rounds`` processes: total own time, then the 15 functions whose
    own time in the first search exceeds the later one's most (all of them in ``out``)."""
    files = [store_dir / "embedded" / "store.db", store_dir / "embedded" / "store.db-wal",
             store_dir / "embedded" / "store.db.vectors"]
    started = machine.describe()
    runs = []
    for _ in range(rounds):
        evict_from_page_cache(files)
        read_into_page_cache(files)
        runs.append(checkouts.child_result(ROOT, "benchmarks.first_search",
                                           ["--child", str(store_dir), "--strategy", strategy,
                                            "--own-time"]))
    totals = ("first own µs", "later own µs")
    print(f"{strategy}, medians of {rounds} fresh processes (cProfile's own time, µs): "
          + ", ".join(f"{name} {np.median([run[name] for run in runs]):.0f}"
                      for name in totals))
    keys = {key for run in runs for key in run} - set(totals)
    above = {key: float(np.median([run.get(key, 0.0) for run in runs])) for key in keys}
    ranked = sorted(above.items(), key=lambda item: -item[1])
    for key, value in ranked[:15]:
        print(f"{value:8.1f}  {key}")
    if out:
        out.write_text(json.dumps({
            "command": f"PYTHONPATH=python:. {machine.interpreter()} -m benchmarks.first_search "
                       + shlex.join(sys.argv[1:]),
            "machine": machine.finish(started), "numpy": np.__version__,
            "medians": {name: float(np.median([run[name] for run in runs])) for name in totals},
            "first minus later, medians by function (µs)": dict(ranked), "runs": runs},
            indent=1))


def _copy(source: Path, target: Path) -> None:
    """The cold-start store's SQLite file and queries (not its vector file: each checkout
    writes its own on its first search, which is not measured)."""
    if (target / "embedded" / "store.db").exists():
        return
    (target / "embedded").mkdir(parents=True, exist_ok=True)
    for name in ("queries.json", "queries.npy"):
        shutil.copy2(source / name, target / name)
    shutil.copy2(source / "embedded" / "store.db", target / "embedded" / "store.db")


def _spawn(checkout: Path, store_dir: Path, strategy: str, warm: str | None,
           evicted: bool = False) -> dict[str, float]:
    store = store_dir / "embedded" / "store.db"
    files = [store, Path(f"{store}-wal"), Path(f"{store}.vectors")]
    evict_from_page_cache(files)
    if not evicted:
        read_into_page_cache(files)
    return checkouts.child_result(
        checkout, "benchmarks.first_search",
        ["--child", str(store_dir), "--strategy", strategy]
        + (["--warm-elsewhere", warm] if warm else []))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout of this repository")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--strategy", choices=("VECTOR", "HYBRID"), default="HYBRID")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--warm-elsewhere", nargs="?", const="memory",
                        choices=("memory", "file"),
                        help="one search on a small in-memory store (or store file) first")
    parser.add_argument("--evicted", action="store_true",
                        help="the store's files not in the page cache")
    parser.add_argument("--workdir", type=Path, default=ROOT / "benchmarks" / ".work")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--own-time", action="store_true",
                        help="profile the first search against a later one (no baseline)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(own_time_child(args.child, args.strategy) if args.own_time
                         else child(args.child, args.strategy, args.warm_elsewhere)))
        return
    source = args.workdir / f"cold-start-{args.size}"
    if not (source / "embedded" / "store.db").exists():
        raise SystemExit(f"no cold-start store at {source}: run benchmarks.cold_start first")
    if args.own_time:
        store = args.workdir / f"first-search-{args.size}" / "this"
        _copy(source, store)
        _spawn(ROOT, store, args.strategy, None)  # writes its vector file if it has none
        _own_time(store, args.strategy, args.rounds, args.out)
        return
    if args.baseline is None:
        parser.error("--baseline is required")
    labels = {"this": ROOT, "baseline": args.baseline.resolve()}
    stores = {label: args.workdir / f"first-search-{args.size}" / label for label in labels}
    started = machine.describe()
    for label, checkout in labels.items():
        _copy(source, stores[label])
        # writes its vector file (and the file store --warm-elsewhere file searches, with its)
        _spawn(checkout, stores[label], args.strategy, args.warm_elsewhere)
    runs, loads = checkouts.alternating(
        list(labels), args.rounds, lambda label: _spawn(
            labels[label], stores[label], args.strategy, args.warm_elsewhere, args.evicted))
    columns = [c for c in COLUMNS if c != "elsewhere" or args.warm_elsewhere] + [READ, HUGE]
    summary = checkouts.medians(runs, columns)
    for cell in summary.values():
        cell["first / p50"] = cell["first"] / cell["p50"]
        cell["new scope / p50"] = cell["new scope"] / cell["p50"]
    print(f"{args.size:,} records, {args.strategy}, "
          f"{'evicted' if args.evicted else 'files in the page cache'}, medians of "
          f"{args.rounds} fresh processes each (ms); load {min(loads):.1f}-{max(loads):.1f}")
    print("| checkout | " + " | ".join(columns) + " | first / p50 | new scope / p50 |")
    for label, cell in summary.items():
        print(f"| {label} | " + " | ".join(f"{cell[c]:.2f}" for c in columns)
              + f" | {cell['first / p50']:.2f} | {cell['new scope / p50']:.2f} |")
    if args.out:
        args.out.write_text(json.dumps({
            "command": f"PYTHONPATH=python:. {machine.interpreter()} -m benchmarks.first_search "
                       + shlex.join(sys.argv[1:] if argv is None else argv),
            "machine": machine.finish(started), "numpy": np.__version__,
            "load": [min(loads), max(loads)],
            "summary": summary, "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
