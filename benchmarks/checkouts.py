"""A benchmark's child process running one checkout's library: benchmarks that compare two
checkouts run each measurement in a fresh process with that checkout's ``python/`` first on
the path and this repository's ``benchmarks`` after it."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def child_result(checkout: Path, module: str, args: list[str],
                 env: Mapping[str, str] | None = None, compiled: bool = False
                 ) -> dict[str, Any]:
    """The JSON object ``python -m module *args`` prints last, run with ``checkout``'s
    library and ``env`` added to this process's environment; ``compiled``: modules are
    compiled once and kept (``PYTHONDONTWRITEBYTECODE`` dropped), as an installed package's
    are."""
    child_env = {**os.environ, **(env or {}),
                 "PYTHONPATH": os.pathsep.join([str(checkout / "python"), str(ROOT)])}
    if compiled:
        child_env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-m", module, *args], env=child_env,
                          capture_output=True, text=True, check=True, cwd=str(ROOT))
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def alternating(labels: list[str], rounds: int, measure: Callable[[str], dict[str, float]]
                ) -> tuple[dict[str, list[dict[str, float]]], list[float]]:
    """``rounds`` measurements of each label, the labels' order reversed every other round
    so that load from other work falls on each alike; also the load average at each start."""
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in labels}
    loads: list[float] = []
    for round_ in range(rounds):
        for label in labels if round_ % 2 == 0 else labels[::-1]:
            loads.append(os.getloadavg()[0])
            runs[label].append(measure(label))
    return runs, loads


def medians(runs: dict[str, list[dict[str, float]]], columns: list[str]
            ) -> dict[str, dict[str, float]]:
    """Each label's median of each column."""
    return {label: {c: statistics.median(run[c] for run in mine) for c in columns}
            for label, mine in runs.items()}
