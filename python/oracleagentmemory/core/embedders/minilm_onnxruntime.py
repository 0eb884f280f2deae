"""The all-MiniLM-L6-v2 encoder run by onnxruntime, with its threads chosen on purpose.

Why: onnxruntime runs the ONNX model (:mod:`.onnx_graph`, ``batch`` form) several times faster
than the numpy forward pass, with the same vectors to ~1e-7. Its thread pool is its own, so it
is sized here rather than left to defaults made for a dedicated inference server:

- ``intra_op_num_threads``: the CPUs this process may run on, at most 4
  (``$ORACLEAGENTMEMORY_EMBEDDER_THREADS`` overrides). A batch of ~20-word texts gains
  little past 4 threads and an embedding library should not take a whole large server.
- ``inter_op_num_threads`` 1 and sequential execution: the graph is one chain of operators,
  there is nothing to run side by side.
- no spinning: by default onnxruntime's idle workers spin for a while after each run, which
  burns a core that the application (or the store's numpy search right after a query
  embedding) needs; measured on 2 cores it did not make a single query faster.
- weights packed one after the other (the default): opening a session packs every weight
  matrix for onnxruntime's matrix kernels, about 0.1 s of the 0.15 s it takes for
  multilingual-e5-small. Packing them on the session's threads
  (``session.prepack.enable_parallel``) took 20 ms more off a new process's model load on 2
  cores and raised its peak RSS by 40-75 MB.

Opening a session lets go of the GIL, so ``encoder_beside`` opens it on a helper thread while
the caller reads the tokenizer's vocabulary.

numpy's BLAS pool (the fallback path) is the process's and is left as the environment sets it
(``OPENBLAS_NUM_THREADS``/``OMP_NUM_THREADS``): changing it would change the host
application's numpy too.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from oracleagentmemory.core.embedders.onnx_graph import EMBEDDING_OUTPUT
from oracleagentmemory.core.llms.from_env import env_positive
from oracleagentmemory.errors import InvalidArgumentError

__all__ = ["MAX_DEFAULT_THREADS", "MAX_THREADS", "THREADS_ENV_VAR", "OnnxEncoder",
           "default_threads", "encoder_beside"]

T = TypeVar("T")

THREADS_ENV_VAR = "ORACLEAGENTMEMORY_EMBEDDER_THREADS"
MAX_DEFAULT_THREADS = 4
MAX_THREADS = 256
"""The most intra-op threads an embedder is given: more than any machine this runs on has
(20,000 took onnxruntime 9 s and 1.8 GB to start, 100,000 hung it)."""


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_threads() -> int:
    """``$ORACLEAGENTMEMORY_EMBEDDER_THREADS``, else the usable CPUs, at most 4."""
    configured = env_positive(os.environ, THREADS_ENV_VAR, int)
    if configured is not None:
        if configured > MAX_THREADS:
            raise InvalidArgumentError(
                f"{THREADS_ENV_VAR} must be at most {MAX_THREADS}, got "
                f"{os.environ[THREADS_ENV_VAR].strip()!r}")
        return int(configured)
    return max(1, min(MAX_DEFAULT_THREADS, _available_cpus()))


class OnnxEncoder:
    """An onnxruntime session over the ``batch`` model: token ids in, unit vectors out.

    ``run`` may be called from several threads at once (onnxruntime sessions allow it).
    """

    def __init__(self, path: Path, threads: int) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        options.log_severity_level = 3  # errors only
        self.path = path
        self.threads = threads
        self._session: Any = ort.InferenceSession(str(path), options,
                                                  providers=["CPUExecutionProvider"])

    def run(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """Float32 ``[batch, 384]`` unit vectors for right-padded int64 ids and 0/1 mask."""
        result = self._session.run([EMBEDDING_OUTPUT], {"input_ids": input_ids,
                                                        "attention_mask": attention_mask})
        return np.asarray(result[0], dtype=np.float32)


def encoder_beside(path: Path, threads: int, work: Callable[[], T]) -> tuple[OnnxEncoder, T]:
    """``OnnxEncoder(path, threads)`` opened on a helper thread while ``work()`` runs on this
    one, so that reading a tokenizer's vocabulary (60-100 ms for multilingual-e5-small) no
    longer waits for the session (onnxruntime holds no GIL while it opens one). Both have
    finished when this returns or raises; ``work``'s error is raised first, as when the two
    ran one after the other (the vocabulary was read first). Where onnxruntime cannot be
    imported, or no thread can be started (a limit on threads, the interpreter shutting
    down), they run one after the other.

    onnxruntime is imported here, on the caller's thread, before the helper starts: imported
    on the helper, it left the session's next run slower (a client's second search 15.4
    against 10.8 ms, its first no faster; ``benchmarks/README.md``)."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:  # raised by OnnxEncoder below, after work's own error if any
        return _one_after_the_other(path, threads, work)
    opened: list[OnnxEncoder] = []
    failed: list[BaseException] = []

    def open_session() -> None:
        try:
            opened.append(OnnxEncoder(path, threads))
        except BaseException as error:  # raised again on the caller's thread, below
            failed.append(error)

    helper = threading.Thread(target=open_session, name="oracleagentmemory-onnx-session",
                              daemon=True)
    try:
        helper.start()
    except RuntimeError:  # "can't start new thread"
        return _one_after_the_other(path, threads, work)
    try:
        try:
            result = work()
        finally:
            helper.join()
        if failed:
            raise failed[0]
        return opened[0], result
    finally:
        # the error's traceback holds this frame: emptied, the lists make no cycle that
        # would keep the error (and ``work``'s result) until the garbage collector runs
        failed.clear()
        opened.clear()


def _one_after_the_other(path: Path, threads: int, work: Callable[[], T]
                         ) -> tuple[OnnxEncoder, T]:
    result = work()
    return OnnxEncoder(path, threads), result
