"""Float16 and int8 copies of the vectors, with exact float32 rescoring: recall and speed.

    PYTHONPATH=python:. python -m benchmarks.low_precision ../shared/data/locomo-dev \\
        --out benchmarks/results/low_precision.json

The speed issue asks to consider storing the vector file's vectors as float16 or int8 (a
half or a quarter of the bytes: less to map, to read back after a reboot, to hold in memory)
with the top candidates rescored exactly, if recall@10 against float32 exact stays 1.000.
Recall: every LoCoMo turn embedded with the default English model (all-MiniLM-L6-v2), every
7th turn a query against all the others; the top ``pool`` candidates by the low-precision
score, rescored in float32, against float32's top 10. Speed: one user-scoped scoring as the
store does it (``numpy.vecdot`` of the scope's rows with the query) on the same
vectors, 1K and 10K rows (the turns repeated), float32 against each low-precision form
scored by what numpy offers for it (the widened forms through numpy's BLAS, threads as the
environment sets them). Medians of 200 calls; the load average is recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import machine
from benchmarks.embedder_onnx import real_sentences

POOLS = (10, 20, 50)


def _int8(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row symmetric int8 codes and their scales."""
    scale = (np.abs(vectors).max(axis=1) / 127).astype(np.float32)
    return np.round(vectors / scale[:, None]).astype(np.int8), scale


def recall(vectors: np.ndarray, low: np.ndarray, pool: int, step: int = 7) -> float:
    """Share of float32's top 10 (the query's own row left out) found by rescoring the
    top ``pool`` by ``low`` in float32."""
    found = wanted = 0
    for index in range(0, vectors.shape[0], step):
        query = vectors[index]
        exact = np.argsort(-(vectors @ query), kind="stable")
        exact = exact[exact != index][:10]
        candidates = np.argsort(-(low @ query), kind="stable")
        candidates = candidates[candidates != index][:pool]
        best = candidates[np.argsort(-(vectors[candidates] @ query), kind="stable")[:10]]
        found += len(set(exact.tolist()) & set(best.tolist()))
        wanted += 10
    return found / wanted


def _median_ms(call: Callable[[], object], repeats: int = 200) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1e3)
    return statistics.median(times)


def speed(vectors: np.ndarray, rows: int) -> dict[str, float]:
    """Milliseconds to score ``rows`` rows against one query in each form."""
    matrix = np.resize(vectors, (rows, vectors.shape[1]))
    query = matrix[0].copy()
    half, half_query = matrix.astype(np.float16), query.astype(np.float16)
    codes, scale = _int8(matrix)
    return {
        "float32 vecdot": _median_ms(lambda: np.vecdot(matrix, query)),
        "float16 vecdot": _median_ms(lambda: np.vecdot(half, half_query)),
        "float16 widened, then matvec": _median_ms(lambda: half.astype(np.float32) @ query),
        "int8 widened, then matvec and scales": _median_ms(
            lambda: (codes.astype(np.float32) @ query) * scale),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder

    started = machine.describe()
    texts, source = real_sentences(args.locomo, 10_000)
    vectors = np.asarray(LocalMiniLMEmbedder().embed(texts), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    codes, scale = _int8(vectors)
    forms = {"float16": vectors.astype(np.float16).astype(np.float32),
             "int8": codes.astype(np.float32) * scale[:, None]}
    result: dict[str, Any] = {
        "command": f"PYTHONPATH=python:. {machine.interpreter()} -m benchmarks.low_precision "
                   + shlex.join(sys.argv[1:] if argv is None else argv),
        "texts": source,
        "recall_at_10": {form: {str(pool): recall(vectors, low, pool) for pool in POOLS}
                         for form, low in forms.items()},
        "speed_ms": {str(rows): speed(vectors, rows) for rows in (1_000, 10_000)},
        "load_average": os.getloadavg()[0],
    }
    result["machine"] = machine.finish(started)
    print(json.dumps({key: result[key] for key in ("recall_at_10", "speed_ms")}, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
