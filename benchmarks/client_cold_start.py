"""A process as a user starts one: import, open, the first search through the client with the
default embedder, this checkout against another, interleaved in one run.

    PYTHONPATH=python:. python -m benchmarks.client_cold_start --baseline PATH_TO_A_CHECKOUT \\
        --rounds 8 --out benchmarks/results/client_cold_start.json

``benchmarks.cold_start`` and ``benchmarks.first_search`` time the store alone, with the
query's vector given. What a user waits for in a new process (a command, a notebook, an MCP
server's first tool call) also holds the import of ``oracleagentmemory.core``, the client's
opening, and, on the first search, loading the embedding model and embedding the query.
Each measurement is a fresh process running one checkout's library (its ``python/`` first
on the path): *import* ``OracleAgentMemory``, *open* it on a store file of ``--messages``
messages (made once per checkout by that checkout's client, with its default embedder), a
user-scoped *first search* (the model loads), a *second search* of another text, and the
process's peak RSS. Each checkout has its own ONNX cache directory under ``--workdir``, built
by the run that made its store, so no timed process builds a model file; the files stay
in the page cache, as on a machine where the library ran before, and each checkout's
modules are compiled once (``PYTHONDONTWRITEBYTECODE`` is dropped for the children), as an
installed package's are. The checkouts alternate
within each round; the load average is recorded at each start.
"""

from __future__ import annotations

import argparse
import json
import resource
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import checkouts, machine

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ("import", "open", "first search", "second search")
USER = "user-0"
FIRST_QUERY = "Which trips did she plan for the summer?"
SECOND_QUERY = "Où est-ce qu'il a appris à cuisiner ?"


def _messages(count: int) -> list[dict[str, str]]:
    """Short chat turns in four languages, alternating roles (what the store holds)."""
    turns = ["I booked a night train to Vienna for the summer.",
             "我每天早上在公園跑步，然後喝一杯咖啡。",
             "주말마다 할머니 댁에서 김치 담그는 법을 배웠어요.",
             "Il a appris à cuisiner avec sa tante à Lyon.",
             "We could hike the coastal path if the weather holds.",
             "她下個月要去台南看朋友。"]
    return [{"role": "user" if index % 2 == 0 else "assistant",
             "content": f"{turns[index % len(turns)]} ({index})"} for index in range(count)]


def child(store: Path, make: int) -> dict[str, float]:
    """One fresh process: the timed steps (ms) of ``COLUMNS`` (``make``: fill the store with
    that many messages first, untimed)."""
    started = time.perf_counter()
    from oracleagentmemory.core import OracleAgentMemory

    out = {"import": (time.perf_counter() - started) * 1e3}
    started = time.perf_counter()
    client = OracleAgentMemory(connection=str(store))
    out["open"] = (time.perf_counter() - started) * 1e3
    if make:
        thread = client.create_thread(user_id=USER, agent_id="agent")
        messages = _messages(make)
        for start in range(0, len(messages), 32):
            thread.add_messages(messages[start:start + 32])
    for name, query in (("first search", FIRST_QUERY), ("second search", SECOND_QUERY)):
        started = time.perf_counter()
        hits = client.search(query, user_id=USER, max_results=5)
        out[name] = (time.perf_counter() - started) * 1e3
        if not hits:
            raise SystemExit(f"no hit for {query!r}: the store is empty")
    client.close()
    out["peak RSS MB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _spawn(checkout: Path, folder: Path, make: int = 0) -> dict[str, float]:
    return checkouts.child_result(
        checkout, "benchmarks.client_cold_start",
        ["--child", str(folder / "store.db"), "--make", str(make)],
        env={"ORACLEAGENTMEMORY_ONNX_CACHE_DIR": str(folder / "onnx")}, compiled=True)


def _commit(checkout: Path) -> str | None:
    """The checkout's commit (None outside git), so a run names what it compared."""
    done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    return done.stdout.strip() or None


def report_section(run: dict[str, Any]) -> list[str]:
    """The report's section for a run of this benchmark (``benchmarks.report`` side runs)."""
    summary, rounds = run["summary"], len(next(iter(run["runs"].values())))
    lines = ["## A process as a user starts one: import, open, the first search", "",
             "```bash", run["command"], "```", "", machine.ran_on(run["machine"]), "",
             f"Fresh processes, the two checkouts alternating, medians of {rounds} each: "
             "import the client, open it on a store file of messages it made, a "
             "user-scoped search (the default embedder loads: multilingual-e5-small on "
             "onnxruntime, its model files built before), a second search, peak RSS.", "",
             "| checkout | import ms | open ms | first search ms | second search ms "
             "| import + open + first ms | peak RSS MB |", "|---|---|---|---|---|---|---|"]
    commits = run.get("commits", {})
    for label, cell in summary.items():
        if commits.get(label):
            label = f"{label} ({commits[label]})"
        lines.append(f"| {label} | {cell['import']:,.0f} | {cell['open']:,.0f} "
                     f"| {cell['first search']:,.0f} | {cell['second search']:.1f} "
                     f"| {cell['import + open + first']:,.0f} | {cell['peak RSS MB']:,.0f} |")
    if {"this", "baseline"} <= summary.keys():
        this, base = summary["this"], summary["baseline"]
        lines += ["", f"- this ÷ baseline: first search "
                      f"{this['first search'] / base['first search']:.2f}x, import + open + "
                      f"first {this['import + open + first'] / base['import + open + first']:.2f}x"
                      f", peak RSS {this['peak RSS MB'] / base['peak RSS MB']:.2f}x."]
    return [*lines, ""]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout of this repository")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--workdir", type=Path, default=ROOT / "benchmarks" / ".work")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--make", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.make)))
        return
    if args.baseline is None:
        parser.error("--baseline is required")
    labels = {"this": ROOT, "baseline": args.baseline.resolve()}
    folders = {label: args.workdir / "client-cold-start" / label for label in labels}
    started = machine.describe()
    for label, checkout in labels.items():
        shutil.rmtree(folders[label], ignore_errors=True)
        folders[label].mkdir(parents=True)
        _spawn(checkout, folders[label], args.messages)  # the store, its model files
        _spawn(checkout, folders[label])  # files a checkout keeps after its first load
    runs, loads = checkouts.alternating(
        list(labels), args.rounds, lambda label: _spawn(labels[label], folders[label]))
    columns = [*COLUMNS, "peak RSS MB"]
    summary = checkouts.medians(runs, columns)
    for cell in summary.values():
        cell["import + open + first"] = cell["import"] + cell["open"] + cell["first search"]
    print(f"{args.messages} messages, medians of {args.rounds} fresh processes each (ms); "
          f"load {min(loads):.1f}-{max(loads):.1f}")
    print("| checkout | " + " | ".join([*columns, "import + open + first"]) + " |")
    for label, cell in summary.items():
        print(f"| {label} | " + " | ".join(f"{cell[c]:.1f}" for c in
                                          [*columns, "import + open + first"]) + " |")
    if args.out:
        args.out.write_text(json.dumps({
            "command": f"PYTHONPATH=python:. {machine.interpreter()} -m "
                       "benchmarks.client_cold_start "
                       + shlex.join(sys.argv[1:] if argv is None else argv),
            "machine": machine.finish(started), "load": [min(loads), max(loads)],
            "commits": {label: _commit(checkout) for label, checkout in labels.items()},
            "summary": summary, "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
