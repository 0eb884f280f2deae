"""The numpy embedder (the fallback runtime) under each BLAS thread setting, side by side.

Why: we saw the numpy embedder run 3-5x slower with the default BLAS threading on a
busy 2-core machine, and asked whether the library should limit BLAS threads. numpy's BLAS
pool belongs to the whole process (the host application's numpy too), so it can only be set
by the environment before numpy loads; this run measures what each setting does.

Each setting runs in its own child process (the variable must be set before numpy is
imported); the settings alternate within every round so that a change of load hits them
alike, and the report gives each as a ratio to the default (variables unset) of the same run.

    PYTHONPATH=python:. python -m benchmarks.numpy_blas_threads \\
        --out benchmarks/results/numpy_blas_threads.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import machine

SETTINGS: dict[str, dict[str, str]] = {
    "default (unset)": {},
    "1 thread": {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
    "2 threads": {"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"},
}
BATCH = 64
WORDS = 20


def child(repeat: int) -> None:
    """One setting: median seconds of a 64-turn batch and of one short query."""
    from benchmarks.conversations import sample_messages
    from benchmarks.embedder_onnx import turns_of
    from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder

    model = LocalMiniLMEmbedder(runtime="numpy", query_cache_size=0)
    turns = turns_of(sample_messages(400), WORDS, BATCH)
    model.embed(turns[:8])  # load the weights and warm the kernels
    batch, query = [], []
    for index in range(repeat):
        started = time.perf_counter()
        model.embed(turns)
        batch.append(time.perf_counter() - started)
        started = time.perf_counter()
        model.embed([f"what did we say about the trip {index}"], is_query=True)
        query.append(time.perf_counter() - started)
    print(json.dumps({"batch_s": float(np.median(batch)), "query_s": float(np.median(query))}))


def run_setting(name: str, repeat: int) -> dict[str, float]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    env.update(SETTINGS[name])
    done = subprocess.run([sys.executable, "-m", "benchmarks.numpy_blas_threads", "--child",
                           "--repeat", str(repeat)], env=env, check=True,
                          capture_output=True, text=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        child(arguments.repeat)
        return
    described = machine.describe()
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in SETTINGS}
    names = list(SETTINGS)
    for index in range(arguments.rounds):
        order = names[index % len(names):] + names[:index % len(names)]
        for name in order:
            rounds[name].append(run_setting(name, arguments.repeat))
    base = rounds["default (unset)"]
    table: dict[str, Any] = {}
    for name, results in rounds.items():
        batch = float(np.median([r["batch_s"] for r in results]))
        query = float(np.median([r["query_s"] for r in results]))
        table[name] = {
            "batch_turns_per_s": BATCH / batch, "query_ms": query * 1e3,
            "batch_speed_vs_default": float(np.median(
                [b["batch_s"] / r["batch_s"] for b, r in zip(base, results, strict=True)])),
            "query_speed_vs_default": float(np.median(
                [b["query_s"] / r["query_s"] for b, r in zip(base, results, strict=True)])),
        }
    record = {"machine": machine.finish(described), "batch": BATCH, "words": WORDS,
              "rounds": arguments.rounds, "repeat": arguments.repeat, "settings": table,
              "command": "PYTHONPATH=python:. python -m benchmarks.numpy_blas_threads "
                         "--out benchmarks/results/numpy_blas_threads.json"}
    text = json.dumps(record, indent=2)
    if arguments.out:
        arguments.out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
