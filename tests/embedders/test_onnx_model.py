"""The ONNX model of all-MiniLM-L6-v2 (both forms), its file cache, and the onnxruntime path
of LocalMiniLMEmbedder: same vectors as the numpy forward pass, the Oracle metadata, a
deterministic builder, batching and padding edge cases, and the query cache.

Expected vectors come from the numpy path (validated against sentence-transformers by
``test_local_minilm.py``) and from the sentence-transformers reference fixture, never from the
code under test. Model-dependent tests skip without the weights or ``tokenizers``.
"""

from __future__ import annotations

import gc
import hashlib
import importlib.util
import json
import logging
import re
import sys
import threading
import weakref
from pathlib import Path

import numpy as np
import pytest

from oracleagentmemory import cli
from oracleagentmemory.core.embedders import local, minilm_onnxruntime, onnx_model_file
from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder, max_seq_length
from oracleagentmemory.core.embedders.minilm_numpy import BertConfig
from oracleagentmemory.core.embedders.minilm_onnxruntime import THREADS_ENV_VAR, default_threads
from oracleagentmemory.core.embedders.onnx_model_file import (
    ORACLE_METADATA,
    model_file,
    oracle_metadata_json,
)
from oracleagentmemory.errors import InvalidArgumentError

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).parent / "fixtures" / "minilm_reference.json"


def _model_skip_reason() -> str | None:
    if importlib.util.find_spec("tokenizers") is None:
        return "tokenizers is not installed"
    if importlib.util.find_spec("onnxruntime") is None or importlib.util.find_spec("onnx") is None:
        return "onnxruntime or onnx is not installed"
    try:
        local.find_model_dir()
    except RuntimeError as error:
        return str(error)
    return None


_SKIP_REASON = _model_skip_reason()
needs_model = pytest.mark.skipif(_SKIP_REASON is not None, reason=_SKIP_REASON or "")
needs_extensions = pytest.mark.skipif(
    importlib.util.find_spec("onnxruntime_extensions") is None,
    reason="onnxruntime-extensions is not installed (a dev dependency): the Oracle form's "
           "in-graph tokenizer cannot run")

EDGE_TEXTS = [
    "",
    "   ",
    "hi",
    "Where did I park the car?",
    "naïve café résumé — Straße, Ελληνικά, 東京タワー, emoji 🚆🍕, Ünïcödé",
    "Please book a table for two at eight tonight, near the station if possible. " * 60,
]


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


@pytest.fixture(scope="module")
def numpy_model() -> LocalMiniLMEmbedder:
    return LocalMiniLMEmbedder(runtime="numpy", query_cache_size=0)


@pytest.fixture(scope="module")
def onnx_model() -> LocalMiniLMEmbedder:
    model = LocalMiniLMEmbedder(runtime="onnxruntime", batch_size=4, threads=1,
                                query_cache_size=0)
    model.load()
    return model


def _sources(model: LocalMiniLMEmbedder) -> tuple[Path, int]:
    config = BertConfig.from_json(model.model_dir / "config.json")
    return model.model_dir, max_seq_length(model.model_dir, config)


# --- the Oracle metadata -------------------------------------------------------------------


def test_oracle_metadata_is_the_documented_load_onnx_model_json() -> None:
    # DBMS_VECTOR.LOAD_ONNX_MODEL's documented default metadata (Oracle 26ai, vecse):
    # JSON('{"function" : "embedding", "embeddingOutput" : "embedding",
    #        "input": {"input":["DATA"]}}')
    documented = {"function": "embedding", "embeddingOutput": "embedding",
                  "input": {"input": ["DATA"]}}
    assert documented == ORACLE_METADATA
    assert json.loads(oracle_metadata_json()) == documented


def test_the_sql_script_passes_the_same_metadata() -> None:
    script = (ROOT / "install" / "load_onnx_model.sql").read_text()
    passed = re.findall(r"metadata\s*=>\s*JSON\('([^']*)'\)", script)
    assert passed, "load_onnx_model.sql passes no metadata"
    assert [json.loads(text) for text in passed] == [ORACLE_METADATA]


def test_cli_prints_the_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["onnx-model", "--metadata"]) == 0
    assert json.loads(capsys.readouterr().out) == ORACLE_METADATA


# --- the graphs ----------------------------------------------------------------------------


@needs_model
def test_both_forms_have_the_edges_each_runtime_needs(onnx_model: LocalMiniLMEmbedder) -> None:
    import onnx

    model_dir, max_tokens = _sources(onnx_model)
    batch = onnx.load(str(model_file("batch", model_dir=model_dir, max_seq_length=max_tokens)))
    oracle_path = model_file("oracle", model_dir=model_dir, max_seq_length=max_tokens)
    oracle = onnx.load(str(oracle_path))

    def edges(values: list[onnx.ValueInfoProto]) -> list[tuple[str, int, list[object]]]:
        return [(v.name, v.type.tensor_type.elem_type,
                 [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim])
                for v in values]

    t = onnx.TensorProto
    assert edges(list(batch.graph.input)) == [
        ("input_ids", t.INT64, ["batch", "sequence"]),
        ("attention_mask", t.INT64, ["batch", "sequence"])]
    assert edges(list(batch.graph.output)) == [("embedding", t.FLOAT, ["batch", 384])]
    # Oracle: one string input named as the metadata maps it, one 384-float output.
    assert edges(list(oracle.graph.input)) == [("input", t.STRING, [1])]
    assert edges(list(oracle.graph.output)) == [("embedding", t.FLOAT, [384])]
    assert list(ORACLE_METADATA["input"]) == ["input"]
    assert ORACLE_METADATA["embeddingOutput"] == "embedding"

    for model in (batch, oracle):
        # Oracle runs ONNX Runtime 1.15.1: opset <= 19, IR version <= 9.
        assert model.ir_version <= 9
        assert {o.domain: o.version for o in model.opset_import}[""] <= 19
        # No external initializers (LOAD_ONNX_MODEL refuses them).
        assert all(i.data_location != t.EXTERNAL for i in model.graph.initializer)
    custom = {(n.domain, n.op_type) for n in oracle.graph.node if n.domain not in ("", "ai.onnx")}
    assert custom == {("ai.onnx.contrib", "BertTokenizer")}
    # The batch form runs in onnxruntime only: its attention is onnxruntime's fused kernel.
    assert {(n.domain, n.op_type) for n in batch.graph.node
            if n.domain not in ("", "ai.onnx")} == {("com.microsoft", "Attention")}
    assert oracle_path.stat().st_size < 1 << 30  # 23ai: at most 1 GB
    metadata_file = oracle_path.with_name(oracle_path.name + ".metadata.json")
    assert json.loads(metadata_file.read_text()) == ORACLE_METADATA


@needs_model
def test_the_builder_is_deterministic(onnx_model: LocalMiniLMEmbedder, tmp_path: Path) -> None:
    model_dir, max_tokens = _sources(onnx_model)
    first = model_file("oracle", model_dir=model_dir, max_seq_length=max_tokens,
                       directory=tmp_path / "a")
    second = model_file("oracle", model_dir=model_dir, max_seq_length=max_tokens,
                        directory=tmp_path / "b")
    assert first.name == second.name
    assert hashlib.sha256(first.read_bytes()).digest() == \
        hashlib.sha256(second.read_bytes()).digest()
    # Asked again, the cached file is reused, not rebuilt.
    stamp = first.stat().st_mtime_ns
    assert model_file("oracle", model_dir=model_dir, max_seq_length=max_tokens,
                      directory=tmp_path / "a") == first
    assert first.stat().st_mtime_ns == stamp
    assert not [p for p in (tmp_path / "a").iterdir() if p.name.endswith(".tmp")]


@needs_model
def test_changed_weights_get_a_new_file(onnx_model: LocalMiniLMEmbedder, tmp_path: Path) -> None:
    model_dir, max_tokens = _sources(onnx_model)
    copy = tmp_path / "model"
    copy.mkdir()
    for source in model_dir.iterdir():
        if source.is_file():
            (copy / source.name).symlink_to(source)
    config = json.loads((model_dir / "config.json").read_text())
    config["layer_norm_eps"] = 1e-6
    (copy / "config.json").unlink()
    (copy / "config.json").write_text(json.dumps(config))
    names = {model_file("batch", model_dir=d, max_seq_length=max_tokens,
                        directory=tmp_path / "cache").name for d in (model_dir, copy)}
    assert len(names) == 2


@needs_model
def test_the_batch_form_keeps_its_weights_beside_the_graph_and_gives_the_same_vectors(
        onnx_model: LocalMiniLMEmbedder, tmp_path: Path) -> None:
    """onnxruntime maps a file of weights instead of copying each out of the graph; the
    vectors are the ones of the same graph written as one file."""
    import onnx
    import onnxruntime as ort

    model_dir, max_tokens = _sources(onnx_model)
    path = model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                      directory=tmp_path)
    weights = onnx_model_file.weights_file(path)
    assert weights.is_file() and path.stat().st_size < 100_000 < weights.stat().st_size
    graph = onnx.load(str(path), load_external_data=False)
    kept = [t for t in graph.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    assert kept
    for tensor in kept:
        entries = {entry.key: entry.value for entry in tensor.external_data}
        assert entries["location"] == weights.name
        if int(entries["length"]) >= 1 << 20:
            assert int(entries["offset"]) % (1 << 16) == 0
    whole = tmp_path / "whole.onnx"
    whole.write_bytes(onnx_model_file._build(model_dir, "batch", max_tokens, "x")
                      .SerializeToString())
    ids = np.array([[101, 7592, 2088, 102, 0], [101, 2054, 2003, 2009, 102]], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": (ids != 0).astype(np.int64)}
    split, one = (ort.InferenceSession(str(file), providers=["CPUExecutionProvider"])
                  .run(["embedding"], feed)[0] for file in (path, whole))
    assert np.array_equal(split, one)
    oracle = model_file("oracle", model_dir=model_dir, max_seq_length=max_tokens,
                        directory=tmp_path)
    assert not onnx_model_file.weights_file(oracle).exists()  # Oracle loads one file


@needs_model
def test_a_graph_whose_weights_are_gone_is_built_again(onnx_model: LocalMiniLMEmbedder,
                                                       tmp_path: Path) -> None:
    model_dir, max_tokens = _sources(onnx_model)
    path = model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                      directory=tmp_path)
    weights = onnx_model_file.weights_file(path)
    built = weights.read_bytes()
    weights.unlink()
    assert model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                      directory=tmp_path) == path
    assert weights.read_bytes() == built


def _damage(file: Path, how: str) -> None:
    data = bytearray(file.read_bytes())
    if how == "bytes changed in place":
        middle = len(data) * 3 // 5
        data[middle:middle + 4096] = bytes(b ^ 0x5A for b in data[middle:middle + 4096])
        with open(file, "r+b") as handle:  # in place, as a damaging write would be
            handle.write(data)
    elif how == "cut short":
        with open(file, "r+b") as handle:
            handle.truncate(len(data) // 2)
    else:  # "emptied"
        with open(file, "r+b") as handle:
            handle.truncate(0)


@needs_model
@pytest.mark.parametrize("part", ["graph", "weights"])
@pytest.mark.parametrize("how", ["bytes changed in place", "cut short", "emptied"])
def test_a_damaged_build_is_built_again_before_it_is_used(
        onnx_model: LocalMiniLMEmbedder, tmp_path: Path, part: str, how: str) -> None:
    """Weights changed in place gave NaN or other vectors (cosine 0.96) with no error, and a
    graph or weights cut short failed inside onnxruntime in every process: only the files'
    presence was checked. Their digests as built are kept beside them now."""
    model_dir, max_tokens = _sources(onnx_model)
    path = model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                      directory=tmp_path)
    weights = onnx_model_file.weights_file(path)
    built = {path: path.read_bytes(), weights: weights.read_bytes()}
    noted = json.loads(onnx_model_file.digests_file(path).read_text())
    assert {role: (entry["sha256"], entry["size"]) for role, entry in noted.items()} == {
        role: (hashlib.sha256(built[file]).hexdigest(), len(built[file]))
        for role, file in (("graph", path), ("weights", weights))}
    _damage(path if part == "graph" else weights, how)
    assert model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                      directory=tmp_path) == path
    assert path.read_bytes() == built[path] and weights.read_bytes() == built[weights]


@needs_model
def test_a_build_without_its_digests_is_built_again(onnx_model: LocalMiniLMEmbedder,
                                                    tmp_path: Path) -> None:
    """A build from before the digests were kept, or one whose digests are damaged, is not
    trusted: it is built again (the same bytes), and its digests written."""
    model_dir, max_tokens = _sources(onnx_model)
    path = model_file("oracle", model_dir=model_dir, max_seq_length=max_tokens,
                      directory=tmp_path)
    digests = onnx_model_file.digests_file(path)
    built = path.read_bytes()
    for damage in (digests.unlink, lambda: digests.write_text("[1]"),
                   lambda: digests.write_text('{"graph": "00"}')):
        damage()
        _damage(path, "bytes changed in place")
        assert model_file("oracle", model_dir=model_dir, max_seq_length=max_tokens,
                          directory=tmp_path) == path
        assert path.read_bytes() == built
        assert json.loads(digests.read_text())["graph"]["sha256"] == hashlib.sha256(
            built).hexdigest()


@needs_model
def test_an_earlier_release_build_in_a_directory_that_cannot_be_written_is_used_as_before(
        onnx_model: LocalMiniLMEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A read-only image built by the release before digests were kept: rebuilding it (2.5 s)
    failed to write, so every process fell back to numpy (auto) or failed (onnxruntime).
    It is used unchecked, as that release used it, with a warning that says what to do."""
    model_dir, max_tokens = _sources(onnx_model)
    path = model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                      directory=tmp_path)
    onnx_model_file.digests_file(path).unlink()  # as the earlier release left it
    built = onnx_model_file.weights_file(path).read_bytes()

    def refuse(*args: object) -> None:
        raise AssertionError("built again")

    monkeypatch.setattr(onnx_model_file, "_write_built", refuse)
    monkeypatch.setattr(onnx_model_file.os, "access", lambda file, mode: False)
    with caplog.at_level(logging.WARNING, logger=onnx_model_file.__name__):
        assert model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                          directory=tmp_path) == path
    assert "run `oracleagentmemory onnx-model`" in caplog.text
    assert onnx_model_file.weights_file(path).read_bytes() == built
    onnx_model_file.weights_file(path).unlink()  # an incomplete build is never used so
    with pytest.raises(AssertionError, match="built again"):
        model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                   directory=tmp_path)


@needs_model
def test_a_build_unchanged_since_it_was_built_is_not_read_to_check_it(
        onnx_model: LocalMiniLMEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hashing e5's 190 MB of weights takes 0.12-0.18 s, which every process would pay where
    digests cannot be noted (Windows, a read-only directory): files whose stat is the one
    noted when they were built are taken as built; a changed one is hashed."""
    model_dir, max_tokens = _sources(onnx_model)
    path = model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                      directory=tmp_path)
    hashed: list[Path] = []
    monkeypatch.setattr(onnx_model_file, "file_sha256",
                        lambda file: hashed.append(Path(file)) or b"")
    assert onnx_model_file._built(path, "batch") and hashed == []
    weights = onnx_model_file.weights_file(path)
    weights.write_bytes(weights.read_bytes())  # the same bytes, written again: a new stat
    assert not onnx_model_file._built(path, "batch")  # (the stand-in digest is wrong)
    assert hashed == [weights]


@needs_model
@pytest.mark.parametrize("setting", ["_EXTERNAL_MIN_BYTES", "_ALIGN_FROM_BYTES", "_ALIGNMENT"])
def test_the_batch_file_name_covers_how_its_weights_are_laid_out(
        onnx_model: LocalMiniLMEmbedder, monkeypatch: pytest.MonkeyPatch, setting: str) -> None:
    """The graph names offsets into the weights file: a library laying them out otherwise
    must not take (or, building at the same time, write over) this one's pair of files."""
    model_dir, _ = _sources(onnx_model)
    before = {form: onnx_model_file._digest(model_dir, form) for form in ("batch", "oracle")}
    monkeypatch.setattr(onnx_model_file, setting, getattr(onnx_model_file, setting) * 2)
    assert onnx_model_file._digest(model_dir, "batch") != before["batch"]
    assert onnx_model_file._digest(model_dir, "oracle") == before["oracle"]  # one file


@needs_model
def test_a_build_whose_files_another_process_put_in_place_first_is_used(
        onnx_model: LocalMiniLMEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On Windows a weights file another process maps cannot be renamed over: the files it
    built are the same, so that refusal is not an error; any other failure still is."""
    model_dir, max_tokens = _sources(onnx_model)
    built = model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                       directory=tmp_path)  # the other process's build
    looked = []
    real_built = onnx_model_file._built

    def built_after_our_look(path: Path, form: str) -> bool:
        looked.append(path)
        return len(looked) > 1 and real_built(path, form)  # ours looked before they were

    monkeypatch.setattr(onnx_model_file, "_built", built_after_our_look)

    def in_use(path: Path, data: bytes) -> None:
        raise PermissionError(f"{path} is in use")

    monkeypatch.setattr(onnx_model_file, "write_atomically", in_use)
    assert model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                      directory=tmp_path) == built
    with pytest.raises(PermissionError):  # nothing there: the failure is the caller's
        model_file("batch", model_dir=model_dir, max_seq_length=max_tokens,
                   directory=tmp_path / "empty")


def test_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    monkeypatch.setenv(onnx_model_file.CACHE_DIR_ENV_VAR, str(tmp_path / "mine"))
    assert onnx_model_file.cache_dir() == tmp_path / "mine"
    assert onnx_model_file.cache_dir(tmp_path / "given") == tmp_path / "given"
    monkeypatch.delenv(onnx_model_file.CACHE_DIR_ENV_VAR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert onnx_model_file.cache_dir() == tmp_path / "xdg" / "oracleagentmemory" / "onnx"


# --- same vectors as the numpy path ----------------------------------------------------------


@needs_model
def test_onnxruntime_gives_the_numpy_vectors(onnx_model: LocalMiniLMEmbedder,
                                             numpy_model: LocalMiniLMEmbedder) -> None:
    reference = json.loads(FIXTURE.read_text(encoding="utf-8"))
    texts = reference["sentences"] + EDGE_TEXTS

    got = onnx_model.embed(texts)
    expected = numpy_model.embed(texts)

    assert got.shape == (len(texts), 384) and got.dtype == np.float32
    assert np.max(np.abs(got - expected)) < 1e-5
    assert np.min(_cos(got, expected)) > 0.99999
    # ... and sentence-transformers' own vectors (rounded to 6 decimals in the fixture).
    st = np.asarray(reference["embeddings"], dtype=np.float32)
    assert np.min(_cos(got[: len(st)], st)) > 0.9999


@needs_model
@needs_extensions
def test_the_oracle_form_gives_the_numpy_vectors(onnx_model: LocalMiniLMEmbedder,
                                                 numpy_model: LocalMiniLMEmbedder) -> None:
    """The file a DBA loads, run as Oracle runs it: one text per call, tokenised in the
    graph by onnxruntime-extensions' BertTokenizer.

    That operator splits Latin-script text as the ``tokenizers`` library does, but not all of
    Greek or kana (a Greek word becomes one [UNK]): those texts are left out here, and the
    benchmark measures the agreement on real conversation turns (docs/oracle.md).
    """
    import onnxruntime as ort
    from onnxruntime_extensions import get_library_path

    model_dir, max_tokens = _sources(onnx_model)
    path = model_file("oracle", model_dir=model_dir, max_seq_length=max_tokens)
    options = ort.SessionOptions()
    options.register_custom_ops_library(get_library_path())
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    texts = [text for text in json.loads(FIXTURE.read_text(encoding="utf-8"))["sentences"]
             + EDGE_TEXTS if not re.search("[\u0370-\u03ff\u3040-\u30ff]", text)]
    assert len(texts) >= 10

    got = np.stack([session.run(["embedding"], {"input": np.array([text], dtype=object)})[0]
                    for text in texts])

    assert got.shape == (len(texts), 384)
    assert np.min(_cos(got, numpy_model.embed(texts))) > 0.9999


# --- batching, padding and edge cases ----------------------------------------------------


@needs_model
@pytest.mark.parametrize("runtime", ["onnxruntime", "numpy"])
def test_batches_of_any_size_give_the_single_text_vectors(runtime: str) -> None:
    texts = EDGE_TEXTS + ["short", "a somewhat longer sentence about trains and pizza"]
    singles = np.stack([LocalMiniLMEmbedder(runtime=runtime, batch_size=1).embed([t])[0]
                        for t in texts])
    for batch_size in (2, 3, 16):
        model = LocalMiniLMEmbedder(runtime=runtime, batch_size=batch_size)
        np.testing.assert_allclose(model.embed(texts), singles, atol=2e-6)
        np.testing.assert_allclose(model.embed(texts[::-1])[::-1], singles, atol=2e-6)


@needs_model
def test_edge_texts(onnx_model: LocalMiniLMEmbedder) -> None:
    empty, blank, *_ = onnx_model.embed(EDGE_TEXTS)
    # Empty and blank texts are [CLS] [SEP] alone: a valid unit vector, the same one.
    np.testing.assert_allclose(np.linalg.norm(empty), 1.0, atol=1e-5)
    np.testing.assert_allclose(empty, blank, atol=1e-6)
    vectors = onnx_model.embed(EDGE_TEXTS)
    assert np.all(np.isfinite(vectors))
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@needs_model
def test_a_long_text_is_cut_to_the_models_maximum(onnx_model: LocalMiniLMEmbedder) -> None:
    long_text = " ".join(f"word{i % 50}" for i in range(3000))
    a, b = onnx_model.embed([long_text, long_text + " and a completely different ending"])
    np.testing.assert_allclose(a, b, atol=1e-6)  # only the first 256 tokens count
    assert onnx_model.max_input_tokens == 256


# --- runtime choice and threads ----------------------------------------------------------


@needs_model
def test_runtime_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    assert LocalMiniLMEmbedder().runtime == "onnxruntime"
    assert LocalMiniLMEmbedder(runtime="numpy").runtime == "numpy"
    monkeypatch.setattr(local, "_onnxruntime_installed", lambda: False)
    assert LocalMiniLMEmbedder().runtime == "numpy"
    assert LocalMiniLMEmbedder(runtime="onnxruntime").runtime == "onnxruntime"
    with pytest.raises(ValueError, match="runtime"):
        LocalMiniLMEmbedder(runtime="torch")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="threads"):
        LocalMiniLMEmbedder(threads=0)


@needs_model
def test_auto_falls_back_to_numpy_when_the_model_cannot_be_built(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        numpy_model: LocalMiniLMEmbedder) -> None:
    monkeypatch.setattr(local, "_MODELS", {})

    def unwritable(*args: object, **kwargs: object) -> Path:
        raise PermissionError("cache directory is read-only")

    monkeypatch.setattr(onnx_model_file, "model_file", unwritable)
    model = LocalMiniLMEmbedder()
    with caplog.at_level(logging.WARNING):
        vectors = model.embed(["hello"])
    assert model.runtime == "numpy"
    assert "read-only" in caplog.text
    np.testing.assert_allclose(vectors, numpy_model.embed(["hello"]), atol=1e-6)
    with pytest.raises(PermissionError):
        LocalMiniLMEmbedder(runtime="onnxruntime").embed(["hello"])


def test_threads_default_and_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_ENV_VAR, raising=False)
    assert 1 <= default_threads() <= 4
    monkeypatch.setenv(THREADS_ENV_VAR, "3")
    assert default_threads() == 3
    monkeypatch.setenv(THREADS_ENV_VAR, "none")
    with pytest.raises(ValueError, match=THREADS_ENV_VAR):
        default_threads()


@pytest.mark.parametrize("setting", ["257", "100000", "99999999999999999999"])
def test_more_threads_than_any_machine_has_are_refused(monkeypatch: pytest.MonkeyPatch,
                                                       setting: str) -> None:
    """100,000 hung onnxruntime's start, a number past 64 bits raised pybind's TypeError at
    the first embed: the variable is refused when it is read, naming it."""
    monkeypatch.setenv(THREADS_ENV_VAR, setting)
    with pytest.raises(InvalidArgumentError, match=rf"{THREADS_ENV_VAR} must be at most 256"):
        default_threads()
    monkeypatch.setenv(THREADS_ENV_VAR, "256")
    assert default_threads() == 256
    with pytest.raises(ValueError, match="threads must be from 1 to 256, got 257"):
        LocalMiniLMEmbedder(runtime="onnxruntime", threads=257)


@needs_model
def test_the_session_uses_the_chosen_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_ENV_VAR, "1")
    model = LocalMiniLMEmbedder()
    assert model.threads == 1
    assert LocalMiniLMEmbedder(threads=2).threads == 2
    encoder = local._load_model(model._key()).encoder
    assert getattr(encoder, "threads", None) == 1


class _FakeEncoder:
    """Stands for ``OnnxEncoder`` in ``encoder_beside``: waits until the caller's work has
    started, so a session opened before or after the work (not beside it) is seen."""

    work_started = threading.Event()
    error: BaseException | None = None

    def __init__(self, path: Path, threads: int) -> None:
        self.thread = threading.current_thread()
        self.saw_work = self.work_started.wait(timeout=30)
        if self.error is not None:
            raise self.error


@pytest.fixture
def fake_encoder(monkeypatch: pytest.MonkeyPatch) -> type[_FakeEncoder]:
    fake = type("Fake", (_FakeEncoder,), {"work_started": threading.Event(), "error": None})
    monkeypatch.setattr(minilm_onnxruntime, "OnnxEncoder", fake)
    return fake


def _helpers_left() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate()
            if thread.name == "oracleagentmemory-onnx-session"]


def test_the_session_opens_on_a_helper_thread_while_the_work_runs(
        fake_encoder: type[_FakeEncoder]) -> None:
    def work() -> str:
        fake_encoder.work_started.set()
        return "vocabulary"

    encoder, result = minilm_onnxruntime.encoder_beside(Path("model.onnx"), 2, work)
    assert result == "vocabulary"
    assert isinstance(encoder, fake_encoder)
    assert encoder.saw_work
    assert encoder.thread is not threading.current_thread()
    assert _helpers_left() == []


def test_the_sessions_error_is_raised_on_the_callers_thread(
        fake_encoder: type[_FakeEncoder]) -> None:
    fake_encoder.error = PermissionError("model.onnx: permission denied")
    with pytest.raises(PermissionError, match="permission denied"):
        minilm_onnxruntime.encoder_beside(Path("model.onnx"), 2,
                                          fake_encoder.work_started.set)
    assert _helpers_left() == []


def _refuse_to_start(self: threading.Thread) -> None:
    raise RuntimeError("can't start new thread")


@pytest.mark.parametrize("missing", ["a thread", "onnxruntime"])
def test_without_a_thread_or_onnxruntime_the_work_runs_first_then_the_session_here(
        missing: str, fake_encoder: type[_FakeEncoder],
        monkeypatch: pytest.MonkeyPatch) -> None:
    if missing == "a thread":
        monkeypatch.setattr(threading.Thread, "start", _refuse_to_start)
    else:
        monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import raises ImportError
    order: list[str] = []

    def work() -> str:
        order.append("work")
        fake_encoder.work_started.set()
        return "vocabulary"

    encoder, result = minilm_onnxruntime.encoder_beside(Path("model.onnx"), 2, work)
    assert result == "vocabulary" and order == ["work"]
    assert encoder.thread is threading.current_thread() and encoder.saw_work
    assert _helpers_left() == []


def test_the_works_error_comes_first_and_the_helper_has_finished(
        fake_encoder: type[_FakeEncoder]) -> None:
    fake_encoder.error = PermissionError("model.onnx: permission denied")

    def work() -> None:
        fake_encoder.work_started.set()
        raise ValueError("the vocabulary is damaged")

    with pytest.raises(ValueError, match="vocabulary"):
        minilm_onnxruntime.encoder_beside(Path("model.onnx"), 2, work)
    assert _helpers_left() == []


class _Stopped(BaseException):
    """An error that is no ``Exception`` (as SystemExit or KeyboardInterrupt are)."""


def test_an_error_that_is_no_exception_is_raised_as_it_is_from_the_helper(
        fake_encoder: type[_FakeEncoder], monkeypatch: pytest.MonkeyPatch) -> None:
    # it was not caught on the helper: the thread died on it (threading.excepthook) and the
    # caller got an IndexError (no session opened, no error kept)
    fake_encoder.error = _Stopped("stopped")
    unhandled: list[object] = []
    monkeypatch.setattr(threading, "excepthook", unhandled.append)
    with pytest.raises(_Stopped, match="stopped"):
        minilm_onnxruntime.encoder_beside(Path("model.onnx"), 2,
                                          fake_encoder.work_started.set)
    assert unhandled == [] and _helpers_left() == []


class _Vocabulary:
    """What ``work`` reads (tens of MB for multilingual-e5-small)."""


class _Denied(PermissionError):
    """A PermissionError that a weak reference can follow."""


def test_a_session_that_fails_keeps_nothing_alive_for_the_garbage_collector(
        fake_encoder: type[_FakeEncoder]) -> None:
    # the error's traceback held this call's frame, which held the error (a cycle): on the
    # auto runtime's fallback to numpy, the vocabulary read beside the session stayed in
    # memory with it until the garbage collector ran
    def fail(self: _FakeEncoder, path: Path, threads: int) -> None:
        raise _Denied("model.onnx: permission denied")

    fake_encoder.__init__ = fail  # type: ignore[method-assign]
    read = [_Vocabulary()]
    kept = weakref.ref(read[0])
    errors: list[weakref.ref[BaseException]] = []
    collecting = gc.isenabled()
    gc.disable()
    try:
        try:
            minilm_onnxruntime.encoder_beside(Path("model.onnx"), 2, read.pop)
        except _Denied as error:
            errors.append(weakref.ref(error))
        assert kept() is None and errors and errors[0]() is None
    finally:
        if collecting:
            gc.enable()


# --- the query cache ---------------------------------------------------------------------


@needs_model
def test_repeated_queries_come_from_the_cache(numpy_model: LocalMiniLMEmbedder) -> None:
    model = LocalMiniLMEmbedder(query_cache_size=2)
    cache = model._query_cache
    first = model.embed(["where is my car", "where is my car"], is_query=True)
    assert (cache.hits, cache.misses, len(cache)) == (0, 2, 1)  # one text, embedded once
    again = model.embed(["where is my car"], is_query=True)
    assert cache.hits == 1
    np.testing.assert_array_equal(again[0], first[0])
    np.testing.assert_allclose(first, numpy_model.embed(["where is my car"] * 2), atol=1e-5)

    again[0, :] = 0  # the caller's array is a copy
    np.testing.assert_array_equal(model.embed(["where is my car"], is_query=True), first[:1])

    model.embed(["b"], is_query=True)
    model.embed(["c"], is_query=True)  # evicts the least recently used: "where is my car"
    assert len(cache) == 2
    misses = cache.misses
    model.embed(["where is my car"], is_query=True)
    assert cache.misses == misses + 1

    model.embed(["a document"])  # documents are not cached
    assert cache.get("a document") is None


@needs_model
def test_a_zero_size_cache_keeps_nothing() -> None:
    model = LocalMiniLMEmbedder(query_cache_size=0)
    model.embed(["q"], is_query=True)
    model.embed(["q"], is_query=True)
    assert len(model._query_cache) == 0
    with pytest.raises(ValueError):
        LocalMiniLMEmbedder(query_cache_size=-1)
