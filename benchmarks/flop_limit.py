"""This machine's float32 limit on one thread: measured (sgemm) and theoretical (the CPU).

Why: the speed issue's target is a batch at 85 % of "the FLOP limit on one thread"; a limit
has to be measured on the machine, in the same run, or the share means nothing.

- **sgemm (the limit used)**: onnxruntime's ``MatMul`` of two square float32 matrices in a
  session with one intra-op and one inter-op thread, timed by the calling thread's CPU time
  (onnxruntime computes on the calling thread when it has one thread, so time the scheduler
  gave other processes is not counted). The best of several sizes is the limit: it is the
  kernel library our encoder runs (MLAS), in this process, so it is timed in the same rounds
  as the batches. numpy's BLAS in a child process (``OPENBLAS_NUM_THREADS=1`` etc. set
  before numpy loads) is recorded beside it; it is not the limit, since the encoder does
  not run it and the environment may pin OpenBLAS to an older kernel
  (``OPENBLAS_CORETYPE``).
- **theoretical peak**: clock x float32 lanes x 2 FLOPs per FMA x FMA pipes. The lanes come
  from ``/proc/cpuinfo``'s flags (16 with ``avx512f``, 8 with ``avx2``/``fma``); the pipes
  are assumed (2, as on every AVX-512 server core since Skylake-SP and on AMD Zen 5, CPU
  family 26; Zen 4, family 25, splits a 512-bit FMA in two halves, so 8 lanes per pipe
  there). The clock in ``/proc/cpuinfo`` is the nominal one under a hypervisor, not what
  the core runs at, so when a C compiler is found a tiny probe measures both the clock (a
  chain of dependent integer adds, one per cycle) and the FMA peak itself (12 independent
  FMA chains of the widest vector), on thread CPU time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

SGEMM_SIZES = (256, 512, 1024)
_SGEMM_SECONDS = 0.2

_PROBE_C = r"""
#include <stdio.h>
#include <time.h>
#include <immintrin.h>
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
                          return t.tv_sec + t.tv_nsec * 1e-9; }
int main(void) {
  long adds = 800000000, x = 0, loops = 60000000;
  double t = cpu();
  __asm__ volatile("mov %1, %%rcx\n1:\n"
    "add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n"
    "add $1, %0\n add $1, %0\n add $1, %0\n add $1, %0\n"
    "sub $8, %%rcx\n jnz 1b\n" : "+r"(x) : "r"(adds) : "rcx");
  double clock_hz = adds / (cpu() - t);
#ifdef __AVX512F__
  __m512 a[12], b = _mm512_set1_ps(1.0000001f), c = _mm512_set1_ps(1e-9f);
  for (int j = 0; j < 12; j++) a[j] = _mm512_set1_ps((float)j);
  t = cpu();
  for (long i = 0; i < loops; i++) for (int j = 0; j < 12; j++) a[j] = _mm512_fmadd_ps(a[j], b, c);
  double seconds = cpu() - t; float s = 0;
  for (int j = 0; j < 12; j++) s += _mm512_reduce_add_ps(a[j]);
  int lanes = 16;
#else
  __m256 a[12], b = _mm256_set1_ps(1.0000001f), c = _mm256_set1_ps(1e-9f);
  for (int j = 0; j < 12; j++) a[j] = _mm256_set1_ps((float)j);
  t = cpu();
  for (long i = 0; i < loops; i++) for (int j = 0; j < 12; j++) a[j] = _mm256_fmadd_ps(a[j], b, c);
  double seconds = cpu() - t; float s = 0; float v[8];
  for (int j = 0; j < 12; j++) { _mm256_storeu_ps(v, a[j]); s += v[0]; }
  int lanes = 8;
#endif
  printf("{\"clock_ghz\": %.4f, \"fma_loop_gflops\": %.2f, \"fma_lanes\": %d, \"check\": %g}\n",
         clock_hz / 1e9, loops * 12.0 * lanes * 2 / seconds / 1e9, lanes, s);
  return 0;
}
"""


def _cpuinfo() -> dict[str, str]:
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
            if not line.strip():
                break  # the first processor is enough
    except OSError:
        pass
    return fields


def theoretical_peak() -> dict[str, Any]:
    """Peak float32 GFLOP/s of one core at the nominal clock, with what it was read from."""
    info = _cpuinfo()
    flags = set(info.get("flags", "").split())
    lanes = 16 if "avx512f" in flags else 8 if {"avx2", "fma"} <= flags else 4
    vendor, family = info.get("vendor_id", ""), info.get("cpu family", "")
    if vendor == "AuthenticAMD" and family == "25" and lanes == 16:
        lanes = 8  # Zen 4: a 512-bit FMA occupies a 256-bit pipe twice
    pipes = 2
    mhz = float(info.get("cpu MHz", "0") or 0)
    return {"cpu_mhz_cpuinfo": mhz, "vendor": vendor, "cpu_family": family,
            "model_name": info.get("model name", ""), "fp32_lanes_per_fma": lanes,
            "fma_pipes_assumed": pipes,
            "flops_per_cycle": lanes * 2 * pipes,
            "gflops_at_cpuinfo_clock": mhz / 1e3 * lanes * 2 * pipes}


def measured_peak(workdir: Path) -> dict[str, Any]:
    """The C probe's clock and FMA-loop peak (one thread), or why it did not run."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return {"skipped": "no C compiler"}
    source, binary = workdir / "fma_probe.c", workdir / "fma_probe"
    source.write_text(_PROBE_C)
    built = subprocess.run([compiler, "-O3", "-march=native", "-o", str(binary), str(source)],
                           capture_output=True, text=True)
    if built.returncode != 0:
        return {"skipped": f"probe did not compile: {built.stderr.strip()[:200]}"}
    found: dict[str, Any] = json.loads(subprocess.run([str(binary)], capture_output=True,
                                                      text=True, check=True).stdout)
    found.pop("check")
    peak = theoretical_peak()
    found["gflops_at_measured_clock"] = found["clock_ghz"] * peak["flops_per_cycle"]
    return found


class SgemmProbe:
    """onnxruntime float32 ``MatMul`` of square matrices on one thread (see the module doc)."""

    def __init__(self, sizes: tuple[int, ...] = SGEMM_SIZES) -> None:
        import onnxruntime as ort
        from onnx import TensorProto, helper

        self._runs: dict[int, tuple[Any, dict[str, np.ndarray], int]] = {}
        rng = np.random.default_rng(0)
        for n in sizes:
            graph = helper.make_graph(
                [helper.make_node("MatMul", ["a", "b"], ["c"])], "sgemm",
                [helper.make_tensor_value_info(name, TensorProto.FLOAT, [n, n])
                 for name in ("a", "b")],
                [helper.make_tensor_value_info("c", TensorProto.FLOAT, [n, n])])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                                      ir_version=8)
            options = ort.SessionOptions()
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            session = ort.InferenceSession(model.SerializeToString(), options,
                                           providers=["CPUExecutionProvider"])
            feeds = {name: rng.random((n, n), dtype=np.float32) for name in ("a", "b")}
            session.run(None, feeds)
            flops = 2 * n ** 3
            repeats = max(1, round(_SGEMM_SECONDS * 150e9 / flops))
            self._runs[n] = (session, feeds, repeats)

    def measure(self) -> dict[int, float]:
        """GFLOP/s of each size, on the calling thread's CPU time."""
        rates = {}
        for n, (session, feeds, repeats) in self._runs.items():
            started = time.thread_time()
            for _ in range(repeats):
                session.run(None, feeds)
            rates[n] = 2 * n ** 3 * repeats / (time.thread_time() - started) / 1e9
        return rates


def numpy_sgemm() -> dict[str, Any]:
    """numpy's float32 matmul on one BLAS thread, in a child process (the thread variables
    must be set before numpy loads), best of :data:`SGEMM_SIZES`, with the environment it
    had."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    child = subprocess.run([sys.executable, "-c", f"from {__name__} import _numpy_child; "
                            "_numpy_child()"], env=env, capture_output=True, text=True,
                           check=True, cwd=Path(__file__).resolve().parent.parent)
    return {"gflops_by_size": json.loads(child.stdout),
            "environment": {k: env[k] for k in sorted(env) if k.startswith("OPENBLAS_")}}


def _numpy_child() -> None:
    rng = np.random.default_rng(0)
    rates = {}
    for n in SGEMM_SIZES:
        a, b = (rng.random((n, n), dtype=np.float32) for _ in range(2))
        a @ b
        repeats = max(1, round(_SGEMM_SECONDS * 100e9 / (2 * n ** 3)))
        started = time.thread_time()
        for _ in range(repeats):
            a @ b
        rates[n] = 2 * n ** 3 * repeats / (time.thread_time() - started) / 1e9
    print(json.dumps(rates))


def machine_limits() -> dict[str, Any]:
    """The theoretical peak and, when a compiler is found, the measured clock and FMA peak."""
    with tempfile.TemporaryDirectory() as folder:
        return {"theoretical": theoretical_peak(), "probe": measured_peak(Path(folder))}
