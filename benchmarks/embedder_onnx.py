"""The onnxruntime embedder against the numpy one, paired in one run.

Run: ``PYTHONPATH=python:. python -m benchmarks.embedder_onnx [LOCOMO_DIR] --out FILE``

Both runtimes of ``LocalMiniLMEmbedder`` run in this process, in alternating rounds, on the
same texts, so each ratio compares like with like on whatever else the machine was doing:

- throughput on ~20-word chat turns, embedded as one ``embed`` call per round (as
  ``thread.add_messages`` does);
- latency of one short query at a time (query cache off, so the model runs every time), and
  of a repeated query (cache on);
- cosine against the numpy vectors on real sentences (LoCoMo turns when the folder is given,
  else generated conversation turns), and against sentence-transformers (PyTorch, fp32) when
  it is installed (``pip install torch==2.13.0 sentence-transformers`` into the benchmark
  environment): then it also runs as a system of its own in the same rounds;
- the Oracle form (tokenizer in the graph, run with onnxruntime-extensions when installed)
  against the same vectors: what in-database embedding would give;
- an int8 variant (onnxruntime dynamic quantisation of the MatMul weights, per channel):
  its speed and its cosine against fp32, to decide whether to ship it (it needs >= 0.99);
- onnxruntime with 1 thread and with the default threads.

The CPU model and flags, thread variables, onnxruntime and numpy versions and the load average
are recorded with the results. Nothing here runs in CI.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import machine
from benchmarks.conversations import sample_messages
from oracleagentmemory.core.embedders.length_batches import padded_batch, plan_batches
from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder, max_seq_length
from oracleagentmemory.core.embedders.minilm_numpy import BertConfig
from oracleagentmemory.core.embedders.onnx_model_file import model_file

TURN_WORDS = 20
SHORT_QUERIES = [
    "what does Alice eat?", "when is the train to Paris", "favourite colour",
    "where did I park the car", "allergies", "who is coming to the party on Saturday",
    "book a table tonight", "what music does Bob like", "dog's name", "next holiday plans",
]


def real_sentences(folder: Path | None, count: int) -> tuple[list[str], str]:
    """Up to ``count`` non-empty conversation turns, and where they came from."""
    if folder is not None:
        turns: list[str] = []
        for path in sorted(folder.glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            sessions = sorted((k for k in data if re.fullmatch(r"session_\d+", k)),
                              key=lambda k: int(k.split("_")[1]))
            for key in sessions:
                turns += [t["text"] for t in data[key]
                          if isinstance(t, dict) and str(t.get("text", "")).strip()]
        if turns:
            return turns[:count], f"LoCoMo turns from {folder.name}/ ({len(turns)} available)"
    return sample_messages(count), "generated conversation turns (benchmarks/conversations.py)"


def turn_run_arguments(doc: str, rounds: int, query_repeat: int
                       ) -> tuple[argparse.Namespace, dict[str, Any], list[str], str]:
    """The command line of a paired turns-and-queries run (LoCoMo folder, ``--turns``,
    ``--rounds``, ``--query-repeat``, ``--out``): the arguments, the machine at the start, the
    20-word turns and where their words came from."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="?", help="LoCoMo folder (real sentences)")
    parser.add_argument("--turns", type=int, default=256, help="20-word turns per round")
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--query-repeat", type=int, default=query_repeat)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    started = machine.describe()
    texts, source = real_sentences(args.data, 4000)
    return args, started, turns_of(texts, TURN_WORDS, args.turns), source


def turns_of(texts: list[str], words: int, count: int) -> list[str]:
    """``count`` texts of exactly ``words`` words, cut from the running text of ``texts``."""
    stream = " ".join(texts).split()
    while len(stream) < words * count:
        stream += stream
    return [" ".join(stream[i * words:(i + 1) * words]) for i in range(count)]


def cosines(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    c = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return {"min": float(c.min()), "mean": float(c.mean()), "p1": float(np.percentile(c, 1)),
            "share_below_0_99": float(np.mean(c < 0.99)),
            "share_below_0_999": float(np.mean(c < 0.999))}


def latency_ms(embed: Callable[[list[str]], np.ndarray], queries: list[str],
               repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        for query in queries:
            t0 = time.perf_counter()
            embed([query])
            out.append((time.perf_counter() - t0) * 1e3)
    return out


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": float(np.percentile(values, 50)), "p95": float(np.percentile(values, 95)),
            "mean": float(np.mean(values))}


def int8_model(batch_path: Path, workdir: Path) -> Path | None:
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        return None
    out = workdir / "int8.onnx"
    quantize_dynamic(str(batch_path), str(out), weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=["MatMul"])
    return out


class _SessionEmbedder:
    """Runs a ``batch``-form file through the local embedder's batching (for int8)."""

    def __init__(self, base: LocalMiniLMEmbedder, path: Path, threads: int) -> None:
        from oracleagentmemory.core.embedders import local
        from oracleagentmemory.core.embedders.minilm_onnxruntime import OnnxEncoder

        self.base = base
        self.tokenizer = local._load_model(base._key()).tokenizer
        self.encoder = OnnxEncoder(path, threads)

    def embed(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch([t.strip() for t in texts])
        out = np.zeros((len(texts), 384), dtype=np.float32)
        token_ids = [encoding.ids for encoding in encodings]
        for index in plan_batches([len(ids) for ids in token_ids], self.base.batch_size):
            out[index] = self.encoder.run(*padded_batch(token_ids, index))
        return out


def sentence_transformers_model(model_dir: Path) -> Any | None:
    """The same weights in sentence-transformers (PyTorch), or None when not installed."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    return SentenceTransformer(str(model_dir), device="cpu")


def oracle_form_vectors(model: LocalMiniLMEmbedder, texts: list[str]) -> np.ndarray | None:
    try:
        import onnxruntime as ort
        from onnxruntime_extensions import get_library_path
    except ImportError:
        return None
    config = BertConfig.from_json(model.model_dir / "config.json")
    path = model_file("oracle", model_dir=model.model_dir,
                      max_seq_length=max_seq_length(model.model_dir, config))
    options = ort.SessionOptions()
    options.register_custom_ops_library(get_library_path())
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return np.stack([session.run(["embedding"], {"input": np.array([t], dtype=object)})[0]
                     for t in texts])


def versions() -> dict[str, str]:
    import onnxruntime

    found = {"numpy": np.__version__, "onnxruntime": onnxruntime.__version__}
    try:
        from threadpoolctl import threadpool_info

        found["blas"] = ", ".join(f"{i.get('internal_api')} {i.get('version')} "
                                  f"({i.get('num_threads')} threads)"
                                  for i in threadpool_info() if i.get("user_api") == "blas")
    except ImportError:
        found["blas"] = "unknown (threadpoolctl not installed)"
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="?", help="LoCoMo folder (real sentences)")
    parser.add_argument("--turns", type=int, default=512, help="20-word turns per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--query-repeat", type=int, default=20)
    parser.add_argument("--out", type=Path, help="save the results as JSON here "
                                                 "(benchmarks.report shows them)")
    args = parser.parse_args()
    started = machine.describe()
    sentences, source = real_sentences(args.data, args.sentences)
    turns = turns_of(sentences, TURN_WORDS, args.turns)

    numpy_model = LocalMiniLMEmbedder(runtime="numpy", query_cache_size=0)
    onnx_model = LocalMiniLMEmbedder(runtime="onnxruntime", query_cache_size=0)
    one_thread = LocalMiniLMEmbedder(runtime="onnxruntime", threads=1, query_cache_size=0)
    cached = LocalMiniLMEmbedder(runtime="onnxruntime")
    for model in (numpy_model, onnx_model, one_thread, cached):
        model.embed(turns[:8])

    with tempfile.TemporaryDirectory() as workdir:
        config = BertConfig.from_json(onnx_model.model_dir / "config.json")
        batch_path = model_file("batch", model_dir=onnx_model.model_dir,
                                max_seq_length=max_seq_length(onnx_model.model_dir, config))
        int8_path = int8_model(batch_path, Path(workdir))
        int8 = _SessionEmbedder(onnx_model, int8_path, onnx_model.threads) if int8_path else None

        systems: dict[str, Callable[[list[str]], np.ndarray]] = {
            "numpy": numpy_model.embed,
            f"onnxruntime ({onnx_model.threads} threads)": onnx_model.embed,
            "onnxruntime (1 thread)": one_thread.embed,
        }
        if int8 is not None:
            systems[f"onnxruntime int8 ({onnx_model.threads} threads)"] = int8.embed
        reference_model = sentence_transformers_model(onnx_model.model_dir)
        if reference_model is not None:
            import torch

            def st_embed(texts: list[str]) -> np.ndarray:
                return np.asarray(reference_model.encode(texts, batch_size=32,
                                                         normalize_embeddings=True))

            st_embed(turns[:8])
            systems[f"sentence-transformers (PyTorch, {torch.get_num_threads()} threads)"] = (
                st_embed)
        throughput: dict[str, list[float]] = {name: [] for name in systems}
        latency: dict[str, list[float]] = {name: [] for name in systems}
        for _ in range(args.rounds):  # alternate, so load changes hit every system alike
            for name, embed in systems.items():
                t0 = time.perf_counter()
                embed(turns)
                throughput[name].append(len(turns) / (time.perf_counter() - t0))
                latency[name] += latency_ms(embed, SHORT_QUERIES, max(1, args.query_repeat //
                                                                       args.rounds))
        cached.embed(SHORT_QUERIES, is_query=True)  # fill the cache: only hits are timed
        cached_latency = latency_ms(lambda q: cached.embed(q, is_query=True), SHORT_QUERIES,
                                    args.query_repeat)

        reference = numpy_model.embed(sentences)
        quality = {"onnxruntime vs numpy": cosines(onnx_model.embed(sentences), reference)}
        if int8 is not None:
            quality["int8 vs onnxruntime fp32"] = cosines(int8.embed(sentences),
                                                          onnx_model.embed(sentences))
        if reference_model is not None:
            st_vectors = np.asarray(reference_model.encode(sentences, batch_size=32))
            quality["onnxruntime vs sentence-transformers"] = cosines(
                onnx_model.embed(sentences), st_vectors)
            quality["numpy vs sentence-transformers"] = cosines(reference, st_vectors)
            if int8 is not None:
                quality["int8 vs sentence-transformers"] = cosines(int8.embed(sentences),
                                                                   st_vectors)
        oracle = oracle_form_vectors(onnx_model, sentences)
        if oracle is not None:
            quality["Oracle form (in-graph tokenizer) vs numpy"] = cosines(oracle, reference)

    base_tp = statistics.median(throughput["numpy"])
    base_p50 = summary(latency["numpy"])["p50"]
    rows = [{"system": name, "texts_per_second": statistics.median(values),
             "throughput_vs_numpy": statistics.median(values) / base_tp,
             "query_ms": summary(latency[name]),
             "query_p50_vs_numpy": summary(latency[name])["p50"] / base_p50}
            for name, values in throughput.items()]
    result = {
        "command": " ".join(["PYTHONPATH=python:.", "python", "-m", "benchmarks.embedder_onnx",
                             *map(shlex.quote, sys.argv[1:])]),
        "machine": {**machine.finish(started), "cpu_flags": machine.cpu_flags(),
                    "versions": versions()},
        "settings": {"turn_words": TURN_WORDS, "turns": len(turns), "rounds": args.rounds,
                     "onnx_threads": onnx_model.threads, "onnx_batch_size": onnx_model.batch_size,
                     "numpy_batch_size": numpy_model.batch_size,
                     "short_queries": len(SHORT_QUERIES)},
        "sentences": {"count": len(sentences), "source": source},
        "rows": rows,
        "cached_query_ms": summary(cached_latency),
        "quality": quality,
        "note": ("sentence-transformers ran beside them (PyTorch CPU build, fp32)."
                 if reference_model is not None else
                 "sentence-transformers was not installed: the reference is the numpy path, "
                 "which matches it to ~1e-6 (tests/embedders/test_local_minilm.py)."),
    }
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
