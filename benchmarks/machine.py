"""What a benchmark ran on: the CPU, the thread settings and the load, recorded with it."""

from __future__ import annotations

import os
import platform
import re
import resource
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "RAYON_NUM_THREADS")


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def cpu_flags() -> list[str]:
    """The vector-instruction flags that matter to BLAS and onnxruntime kernels."""
    wanted = re.compile(r"^(sse4_2|avx|avx2|fma|f16c|avx512\w*|avx_vnni|amx\w*)$")
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return sorted(f for f in line.split(":", 1)[1].split() if wanted.match(f))
    except OSError:
        pass
    return []


def interpreter() -> str:
    """The interpreter as the user would type it (relative to the repo when inside it)."""
    try:
        return str(Path(sys.executable).relative_to(ROOT))
    except ValueError:
        return "python"


def describe() -> dict[str, Any]:
    """The machine as it is now; call once when a run starts."""
    return {"cpus": os.cpu_count(), "processor": cpu_name(),
            "python": platform.python_version(), "platform": platform.platform(),
            "threads": {name: os.environ[name] for name in THREAD_VARS if name in os.environ},
            "load_average_start": os.getloadavg()[0],
            "started_utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M")}


def cpu_seconds() -> float:
    """User plus system CPU time of this process so far (every thread)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def finish(machine: dict[str, Any]) -> dict[str, Any]:
    """The same record with the load at the end of the run."""
    return {**machine, "load_average_end": os.getloadavg()[0]}


def ran_on(m: dict[str, Any]) -> str:
    """One sentence for a report: when, on what, with which thread settings and load."""
    threads = ", ".join(f"{k}={v}" for k, v in m.get("threads", {}).items()) or "none set"
    return (f"Run {m['started_utc']} UTC on {m['cpus']} CPUs ({m['processor']}), Python "
            f"{m['python']}; thread variables: {threads}; load average "
            f"{m['load_average_start']:.2f} at the start, {m['load_average_end']:.2f} at the end.")
