"""Batch throughput of the local embedders as a share of this machine's FLOP limit, one thread.

Run: ``PYTHONPATH=python:. python -m benchmarks.encoder_flops [LOCOMO_DIR] --out FILE``

For all-MiniLM-L6-v2 and multilingual-e5-small, the shipped ``batch`` graph runs in an
onnxruntime session with one intra-op and one inter-op thread on realistic batches, grouped
as the embedder groups them (:mod:`oracleagentmemory.core.embedders.length_batches`) and,
beside it, as it grouped them before (fixed runs of ``batch_size`` texts in length order):

- ``20-word turns``: the harness's turns (``benchmarks.embedder_onnx``), one call of
  ``--turns`` texts;
- ``LoCoMo sessions``: with the folder, each conversation session's real turns as one call
  (what ``add_messages`` gets when an app stores a session), all sessions one after another.

Work is counted from the graph (:mod:`benchmarks.graph_flops`): *useful* FLOPs at each
text's own length, *executed* at the padded length. The limit is an onnxruntime sgemm on one
thread (:mod:`benchmarks.flop_limit`), measured in every round between the batches, so each
round's share compares like with like; the theoretical peak is given too. Times are the
calling thread's CPU time (onnxruntime computes on it with one thread). Tokenising is outside
the timing. The load average and the process CPU time are recorded. Nothing here runs in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import machine
from benchmarks.embedder_onnx import TURN_WORDS, real_sentences, turns_of
from benchmarks.flop_limit import SgemmProbe, machine_limits, numpy_sgemm
from benchmarks.graph_flops import MatmulWork, batch_flops, matmul_work
from oracleagentmemory.core.embedders.length_batches import padded_batch, plan_batches

Batch = tuple[np.ndarray, np.ndarray, list[int]]


def fixed_runs(lengths: list[int], size: int) -> list[list[int]]:
    """The grouping before ``plan_batches``: length order cut every ``size`` texts."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    return [order[start:start + size] for start in range(0, len(order), size)]


GROUPINGS: dict[str, Callable[[list[int], int], list[list[int]]]] = {
    "planned (shipped)": plan_batches, "fixed runs of batch_size": fixed_runs}


def locomo_sessions(folder: Path) -> list[list[str]]:
    """Each session's non-empty turns, conversation by conversation."""
    sessions = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for key in sorted((k for k in data if re.fullmatch(r"session_\d+", k)),
                          key=lambda k: int(k.split("_")[1])):
            sessions.append([turn["text"] for turn in data[key]
                             if isinstance(turn, dict) and str(turn.get("text", "")).strip()])
    return [session for session in sessions if session]


def _embedders() -> dict[str, Any]:
    from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    return {"all-MiniLM-L6-v2": LocalMiniLMEmbedder(runtime="onnxruntime", threads=1,
                                                    query_cache_size=0),
            "multilingual-e5-small": LocalE5Embedder(runtime="onnxruntime", threads=1,
                                                     query_cache_size=0)}


def _calls(embedder: Any, calls: list[list[str]], grouping: Callable[[list[int], int],
           list[list[int]]], work: MatmulWork) -> dict[str, Any]:
    """The batches of each embed call (stored texts) under ``grouping``, and their work."""
    loaded = embedder._model()
    batches: list[list[Batch]] = []
    useful = executed = tokens = padded = 0
    for texts in calls:
        ids = [encoding.ids for encoding in loaded.tokenizer.encode_batch(
            [embedder._prepare(loaded, text.strip(), False) for text in texts])]
        lengths = [len(row) for row in ids]
        call = []
        for index in grouping(lengths, embedder.batch_size):
            call.append((*padded_batch(ids, index), index))
            flops = batch_flops(work, [lengths[i] for i in index])
            useful, executed = useful + flops[0], executed + flops[1]
            tokens += sum(lengths[i] for i in index)
            padded += len(index) * max(lengths[i] for i in index)
        batches.append(call)
    return {"batches": batches, "useful_flops": useful, "executed_flops": executed,
            "tokens": tokens, "padded_tokens": padded, "texts": sum(map(len, calls)),
            "runs": sum(map(len, batches))}


def _run(encoder: Any, calls: list[list[Batch]], dimension: int) -> list[np.ndarray]:
    out = []
    for call in calls:
        vectors = np.zeros((sum(len(index) for _, _, index in call), dimension), np.float32)
        for ids, mask, index in call:
            vectors[index] = encoder.run(ids, mask)
        out.append(vectors)
    return out


def measure(workloads: dict[str, list[list[str]]], rounds: int) -> dict[str, Any]:
    """Every model x workload x grouping, with the sgemm limit, in alternating rounds."""
    from oracleagentmemory.core.embedders.minilm_onnxruntime import OnnxEncoder

    probe = SgemmProbe()
    cases: dict[str, dict[str, Any]] = {}
    encoders: dict[str, Any] = {}
    for model, embedder in _embedders().items():
        embedder.load()
        path = Path(embedder._model().encoder.path)
        encoders[model] = OnnxEncoder(path, 1)
        work = matmul_work(path)
        for workload, calls in workloads.items():
            vectors = {}
            for grouping, plan in GROUPINGS.items():
                case = _calls(embedder, calls, plan, work)
                case.update(model=model, workload=workload, grouping=grouping,
                            dimension=embedder.embedding_dimension, seconds=[],
                            limit_gflops=[])
                vectors[grouping] = np.concatenate(_run(encoders[model], case["batches"],
                                                        case["dimension"]))
                cases[f"{model} | {workload} | {grouping}"] = case
            planned, fixed = vectors.values()
            cases[f"{model} | {workload} | {list(GROUPINGS)[0]}"]["min_cosine_vs_fixed"] = (
                float(np.min(np.sum(planned * fixed, axis=1))))
    sgemm: dict[int, list[float]] = {}
    load = [os.getloadavg()[0]]
    cpu_start = machine.cpu_seconds()
    for round_ in range(rounds):
        names = list(cases) if round_ % 2 == 0 else list(cases)[::-1]
        for name in names:
            limit = probe.measure()
            for size, rate in limit.items():
                sgemm.setdefault(size, []).append(rate)
            case = cases[name]
            started = time.thread_time()
            _run(encoders[case["model"]], case["batches"], case["dimension"])
            case["seconds"].append(time.thread_time() - started)
            case["limit_gflops"].append(max(limit.values()))
        load.append(os.getloadavg()[0])
    rows = []
    for case in cases.values():
        seconds = np.array(case["seconds"])
        useful = case["useful_flops"] / seconds / 1e9
        rows.append({key: case[key] for key in ("model", "workload", "grouping", "texts",
                                                "runs", "tokens", "padded_tokens",
                                                "useful_flops", "executed_flops")}
                    | {"min_cosine_vs_fixed": case.get("min_cosine_vs_fixed"),
                       "texts_per_s": float(np.median(case["texts"] / seconds)),
                       "useful_gflops": float(np.median(useful)),
                       "executed_gflops": float(np.median(case["executed_flops"] / seconds
                                                          / 1e9)),
                       "share_of_sgemm_limit": float(np.median(
                           useful / np.array(case["limit_gflops"]))),
                       "executed_share_of_sgemm_limit": float(np.median(
                           case["executed_flops"] / seconds / 1e9
                           / np.array(case["limit_gflops"])))})
    return {"rows": rows, "sgemm_gflops": {str(size): {"p50": float(np.median(rates)),
                                                       "max": float(np.max(rates))}
                                           for size, rates in sgemm.items()},
            "sgemm_limit_p50": float(np.median([max(r) for r in zip(*sgemm.values(),
                                                                    strict=True)])),
            "load_average_by_round": load, "cpu_seconds": machine.cpu_seconds() - cpu_start}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("data", type=Path, nargs="?", help="LoCoMo folder (real turns)")
    parser.add_argument("--turns", type=int, default=256, help="20-word turns in one call")
    parser.add_argument("--sessions", type=int, default=24, help="LoCoMo sessions (calls)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    started = machine.describe()
    texts, source = real_sentences(args.data, 4000)
    workloads = {f"{args.turns} turns of {TURN_WORDS} words, one call":
                 [turns_of(texts, TURN_WORDS, args.turns)]}
    if args.data is not None:
        sessions = locomo_sessions(args.data)[:args.sessions]
        workloads[f"LoCoMo sessions, one call each ({len(sessions)})"] = sessions
    limits = machine_limits()
    limits["numpy_one_thread_start"] = numpy_sgemm()
    results = measure(workloads, args.rounds)
    limits["numpy_one_thread_end"] = numpy_sgemm()
    report = {"command": f"{machine.interpreter()} -m benchmarks.encoder_flops "
                         + shlex.join(sys.argv[1:]),
              "machine": {**machine.finish(started), "cpu_flags": machine.cpu_flags()},
              "texts": source, "rounds": args.rounds, "limits": limits, **results}
    print(json.dumps(report, indent=1))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()


def report_section(run: dict[str, Any]) -> list[str]:
    """The report's section for an encoder-FLOPs run (``benchmarks.report`` side runs)."""
    theory, probe = run["limits"]["theoretical"], run["limits"]["probe"]
    limit = run["sgemm_limit_p50"]
    peak = probe.get("gflops_at_measured_clock")
    numpy_rates = run["limits"]["numpy_one_thread_start"]["gflops_by_size"]
    lines = ["## Encoder batches against the FLOP limit, one thread", "", "```bash",
             run["command"], "```", "", machine.ran_on(run["machine"]), "",
             f"Limit: onnxruntime sgemm on one thread, best square size each round, p50 "
             f"{limit:,.0f} GFLOP/s (by size: " + ", ".join(
                 f"{size} {cell['p50']:,.0f}" for size, cell in run["sgemm_gflops"].items())
             + "; numpy/OpenBLAS on one thread in a child: " + ", ".join(
                 f"{size} {rate:,.0f}" for size, rate in numpy_rates.items()) + "). "
             f"Theoretical peak: {theory['fp32_lanes_per_fma']} float32 lanes x 2 x "
             f"{theory['fma_pipes_assumed']} FMA pipes (assumed) = "
             f"{theory['flops_per_cycle']} FLOPs a cycle; at the "
             f"{theory['cpu_mhz_cpuinfo']:,.0f} MHz of /proc/cpuinfo "
             f"{theory['gflops_at_cpuinfo_clock']:,.0f} GFLOP/s"
             + (f", at the measured clock of {probe['clock_ghz']:.2f} GHz {peak:,.0f} "
                f"(an FMA loop reached {probe['fma_loop_gflops']:,.0f})" if peak else "")
             + ". Work counted from each graph's MatMul and Attention nodes; *useful* at each "
             "text's own length, *executed* padded. Rates on thread CPU time, p50 of "
             f"{run['rounds']} alternating rounds, the sgemm timed before each batch.", "",
             "| model | texts | grouping | runs | padded / real tokens | texts/s | useful "
             "GFLOP/s | useful % of sgemm | executed % of sgemm | useful % of peak | cosine "
             "vs fixed (min) |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in run["rows"]:
        cosine = row["min_cosine_vs_fixed"]
        lines.append(
            f"| {row['model']} | {row['workload']} | {row['grouping']} | {row['runs']} | "
            f"{row['padded_tokens'] / row['tokens']:.3f} | {row['texts_per_s']:,.1f} | "
            f"{row['useful_gflops']:,.0f} | {row['share_of_sgemm_limit']:.0%} | "
            f"{row['executed_share_of_sgemm_limit']:.0%} | "
            f"{row['useful_gflops'] / (peak or theory['gflops_at_cpuinfo_clock']):.0%} | "
            f"{'–' if cosine is None else f'{cosine:.7f}'} |")
    loads = run["load_average_by_round"]
    lines += ["", f"Load average {loads[0]:.1f} before the rounds, {max(loads):.1f} at most "
              f"after one; {run['cpu_seconds']:,.0f} s of CPU.", ""]
    return lines
