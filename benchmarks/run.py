"""The one benchmark command: every size, every system, quality, then the report.

    python -m benchmarks.run --sizes 10000,100000,1000000 --out benchmarks/results/

Each measurement runs in its own child process (``benchmarks.worker``), so resident memory
and caches belong to one system alone. Peers that are not installed are skipped and said
so in the report. By default the children run with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE
unset (numpy then picks its native kernel); ``--blas inherit`` keeps the environment as is.
A small probe times the numpy scan under both settings either way.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import machine, report

ROOT = Path(__file__).resolve().parent.parent
ALL_BACKENDS = ("embedded", "numpy", "chroma", "lancedb", "mem0")
PEER_MODULES = {"chroma": "chromadb", "lancedb": "lancedb", "mem0": "mem0"}
BLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
NOISE = "Deprecation warning, this behavior will change"
"""LanceDB logs this once per query; kept out of run.log."""


def child_env(blas: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), str(ROOT)])
    env["MEM0_TELEMETRY"] = "False"
    env["ANONYMIZED_TELEMETRY"] = "False"
    env.setdefault("LANCE_LOG", "error")
    env.setdefault("RUST_LOG", "error")
    if blas == "native":
        for name in BLAS_VARS:
            env.pop(name, None)
    return env


def relative_to_checkout(text: str) -> str:
    """Paths inside the checkout (or beside it) relative to it: the log names no machine."""
    return text.replace(f"{ROOT}{os.sep}", "").replace(f"{ROOT.parent}{os.sep}", f"..{os.sep}")


def shown_command(command: list[str]) -> str:
    """The command as the log shows it."""
    return shlex.join(relative_to_checkout(part) for part in command)


def run_child(module: str, args: list[str], env: dict[str, str], out: Path,
              log: Path) -> dict[str, Any] | None:
    command = [sys.executable, "-m", module, *args, "--out", str(out)]
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    with open(log, "a") as handle:
        handle.write(f"\n$ {shown_command(command)}\n")
        for line in (done.stdout + done.stderr).splitlines():
            if NOISE not in line:
                handle.write(relative_to_checkout(line) + "\n")
    seconds = time.perf_counter() - t0
    print(f"  {module} {' '.join(args[:3])}: {seconds:.1f}s rc={done.returncode}", flush=True)
    if done.returncode != 0 or not out.exists():
        return None
    result = json.loads(out.read_text())
    result["child_seconds"] = seconds
    result["load_average"] = [load_before, os.getloadavg()[0]]
    return result


def blas_probe() -> dict[str, Any]:
    """numpy scan of 100K x 384 under both BLAS settings, and which kernel each picks."""
    code = (
        "import json,time,numpy as np\n"
        "from benchmarks.worker import blas_info\n"
        "m=np.random.default_rng(0).standard_normal((100000,384),dtype=np.float32)\n"
        "q=m[1].copy();t=[]\n"
        "for _ in range(40):\n"
        "  s=time.perf_counter();m@q;t.append(time.perf_counter()-s)\n"
        "print(json.dumps({'p50_ms':float(np.percentile(t,50)*1e3),'blas':blas_info()}))\n"
    )
    results = {}
    for mode in ("inherit", "native"):
        done = subprocess.run([sys.executable, "-c", code], env=child_env(mode),
                              capture_output=True, text=True, check=False)
        results[mode] = json.loads(done.stdout) if done.returncode == 0 else {"error": done.stderr}
    results["inherited_env"] = {name: os.environ.get(name) for name in BLAS_VARS}
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument("--backends", default=",".join(ALL_BACKENDS))
    parser.add_argument("--queries", type=int, default=200, help="queries per workload")
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="time cap per workload (at least 20 queries are always run)")
    parser.add_argument("--chroma-max-size", type=int, default=100_000)
    parser.add_argument("--mem0-max-size", type=int, default=10_000)
    parser.add_argument("--e2e-sample", type=int, default=512,
                        help="messages added through the client API with the local embedder")
    parser.add_argument("--e2e-turns", type=Path, default=None,
                        help="LoCoMo folder: the end-to-end phase adds its real turns "
                             "(alternating roles) instead of generated one-role messages")
    parser.add_argument("--blas", choices=("native", "inherit"), default="native")
    parser.add_argument("--workdir", type=Path, default=ROOT / "benchmarks" / ".work")
    parser.add_argument("--no-quality", action="store_true")
    parser.add_argument("--no-blas-probe", action="store_true")
    parser.add_argument("--report-only", action="store_true",
                        help="rewrite the report from the last run's saved results")
    args = parser.parse_args(argv)
    if args.report_only:
        report.write(json.loads((args.workdir / "results-full.json").read_text()), args.out)
        return

    sizes = [int(s) for s in args.sizes.split(",") if s]
    backends = [b for b in args.backends.split(",") if b]
    env = child_env(args.blas)
    args.out.mkdir(parents=True, exist_ok=True)
    args.workdir.mkdir(parents=True, exist_ok=True)
    log = args.out / "run.log"
    log.write_text("")
    skipped: dict[str, str] = {}
    for name, module in PEER_MODULES.items():
        if name in backends and importlib.util.find_spec(module) is None:
            skipped[name] = f"not installed ({module}); see benchmarks/requirements.txt"
    started = time.perf_counter()
    results: dict[str, Any] = {
        "command": f"{machine.interpreter()} -m benchmarks.run "
        + shlex.join(sys.argv[1:] if argv is None else argv),
        "machine": machine.describe(),
        "blas_mode": args.blas,
        "blas_probe": {} if args.no_blas_probe else blas_probe(),
        "sizes": sizes, "runs": [], "skipped": skipped, "limits": {
            "chroma": args.chroma_max_size, "mem0": args.mem0_max_size,
            "seconds_per_workload": args.seconds, "queries": args.queries,
            "e2e_sample": args.e2e_sample,
            "e2e_turns": None if args.e2e_turns is None else args.e2e_turns.name},
    }
    results["versions"] = _versions()
    for size in sizes:
        print(f"== {size} records", flush=True)
        for backend in backends:
            if backend in skipped:
                continue
            limit = {"chroma": args.chroma_max_size, "mem0": args.mem0_max_size}.get(backend)
            if limit is not None and size > limit:
                continue
            workdir = args.workdir / f"{size}" / backend
            shutil.rmtree(workdir, ignore_errors=True)
            workdir.mkdir(parents=True)
            common = ["--backend", backend, "--size", str(size), "--workdir", str(workdir)]
            ingest = run_child("benchmarks.worker",
                               ["ingest", *common, "--queries", str(args.queries)],
                               env, workdir.parent / f"{backend}-ingest.json", log)
            search = None
            if ingest is not None:
                search = run_child(
                    "benchmarks.worker",
                    ["search", *common, "--seconds", str(args.seconds)],
                    env, workdir.parent / f"{backend}-search.json", log)
            e2e = None
            if backend != "numpy" and ingest is not None and args.e2e_sample:
                turns = [] if args.e2e_turns is None else [
                    "--turns-from", str(args.e2e_turns.resolve())]
                e2e = run_child("benchmarks.worker",
                                ["e2e", *common, "--sample", str(args.e2e_sample), *turns],
                                env, workdir.parent / f"{backend}-e2e.json", log)
            results["runs"].append({"size": size, "backend": backend, "ingest": ingest,
                                    "search": search, "e2e": e2e})
            shutil.rmtree(workdir, ignore_errors=True)
            _save(args.out, args.workdir, results)
    if not args.no_quality:
        print("== retrieval quality", flush=True)
        systems = [b for b in backends if b not in skipped]
        results["quality"] = run_child(
            "benchmarks.quality",
            ["--workdir", str(args.workdir / "quality"), "--systems", ",".join(systems)],
            env, args.workdir / "quality.json", log)
    results["total_seconds"] = time.perf_counter() - started
    results["machine"] = machine.finish(results["machine"])
    _save(args.out, args.workdir, results)
    report.write(results, args.out)
    print(f"report: {args.out / 'report.md'}", flush=True)


def _save(out: Path, workdir: Path, results: dict[str, Any]) -> None:
    """results.json for the record (without per-query ids); everything in the workdir."""
    (workdir / "results-full.json").write_text(json.dumps(results))
    slim = json.loads(json.dumps(results))
    for run in slim["runs"]:
        for workload in ((run.get("search") or {}).get("workloads") or {}).values():
            workload.pop("ids", None)
    (out / "results.json").write_text(json.dumps(slim, indent=1))


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {}
    for dist in ("numpy", "chromadb", "lancedb", "mem0ai", "qdrant-client"):
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            continue
    import sqlite3

    out["sqlite"] = sqlite3.sqlite_version
    return out


if __name__ == "__main__":
    main()
