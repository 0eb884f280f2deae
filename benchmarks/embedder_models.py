"""The default model (multilingual-e5-small) beside all-MiniLM-L6-v2, paired in one run.

Run: ``PYTHONPATH=python:. python -m benchmarks.embedder_models [LOCOMO_DIR] --out FILE``

Both local models run in this process with onnxruntime and their default threads, in
alternating rounds on the same texts, so the ratio compares like with like on whatever else
the machine was doing (the load is recorded):

- throughput on 20-word chat turns, one ``embed`` call per round (as ``add_messages`` does);
- latency of one short query at a time, with the query cache off.

The target: the default stays usable on two cores, at least 30 turns/s.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from typing import Any

from benchmarks import machine
from benchmarks.embedder_onnx import (
    SHORT_QUERIES,
    TURN_WORDS,
    latency_ms,
    summary,
    turn_run_arguments,
)
from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder
from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder


def main() -> None:
    args, started, turns, source = turn_run_arguments(__doc__ or "", rounds=4, query_repeat=10)
    models: dict[str, Any] = {
        "multilingual-e5-small": LocalE5Embedder(runtime="onnxruntime", query_cache_size=0),
        "all-MiniLM-L6-v2": LocalMiniLMEmbedder(runtime="onnxruntime", query_cache_size=0)}
    for model in models.values():
        model.load()
        model.embed(turns[:8])  # warm up
    rates: dict[str, list[float]] = {name: [] for name in models}
    queries: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(args.rounds):
        for name, model in models.items():
            t0 = time.perf_counter()
            model.embed(turns)
            rates[name].append(len(turns) / (time.perf_counter() - t0))
            queries[name] += latency_ms(model.embed, SHORT_QUERIES, args.query_repeat)
    results = {name: {"turns_per_s": summary(rates[name]), "query_ms": summary(queries[name]),
                      "threads": models[name].threads} for name in models}
    ratio = (results["multilingual-e5-small"]["turns_per_s"]["p50"]
             / results["all-MiniLM-L6-v2"]["turns_per_s"]["p50"])
    report = {"command": f"{machine.interpreter()} -m benchmarks.embedder_models "
                         + shlex.join(sys.argv[1:]),
              "machine": machine.finish(started), "texts": source,
              "turn_words": TURN_WORDS, "turns_per_round": len(turns), "rounds": args.rounds,
              "results": results, "e5_throughput_ratio": ratio}
    print(json.dumps(report, indent=1))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
