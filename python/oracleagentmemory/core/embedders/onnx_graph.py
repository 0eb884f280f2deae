"""The ONNX graph of all-MiniLM-L6-v2, built from the safetensors weights without PyTorch.

Why: one model serves both backends. onnxruntime runs it in the embedded backend, and a DBA
loads it into Oracle AI Database with ``DBMS_VECTOR.LOAD_ONNX_MODEL`` for in-database
embedding. The graph is written node by node with ``onnx.helper`` from the same weights the
numpy forward pass (:mod:`.minilm_numpy`) reads, and computes the same thing: BERT encoder,
mean pooling over real tokens, L2 normalisation, 384 floats per text.

The two runtimes need different edges, so one builder makes two forms with the same encoder:

- ``batch`` (onnxruntime, embedded backend): inputs ``input_ids`` and ``attention_mask``
  (int64, ``[batch, sequence]``, right-padded), output ``embedding`` float32
  ``[batch, 384]``. Tokenising stays in Python (the ``tokenizers`` library), so texts are
  embedded many at a time and plain onnxruntime runs it (no custom operator).
- ``oracle`` (in-database): one string input ``input`` (shape ``[1]``, one text per call) and
  one output ``embedding`` float32 ``[384]``. Oracle requires the tokenizer inside the model:
  in-database embedding models include tokenization and post-processing, with the
  onnxruntime-extensions ``BertTokenizer`` (domain ``ai.onnx.contrib``) as the one custom
  operation accepted (docs/oracle.md, "Load an embedding model"). That operator tokenises
  one text per call (or a pair), so this form cannot batch, and plain onnxruntime cannot
  run it without onnxruntime-extensions.

The ``batch`` form computes attention with onnxruntime's fused ``Attention`` operator (domain
``com.microsoft``, one kernel for the products and the softmax, scale 1 since the query
weights are pre-scaled): measured 10-12 % faster per query and per batch than the same
attention in standard operators, with the same vectors (cosine 0.9999999). Oracle's form
keeps the standard operators.

Oracle runs ONNX Runtime 1.15.1, which implements ONNX opset 19 and IR version 9: both forms
use opset 17 (the first with ``LayerNormalization``) and IR version 8, and the ``oracle``
form only standard operators besides the tokenizer. GELU is the exact erf form (``Gelu`` is
opset 20). All weights are inline (Oracle refuses external initializers: LOAD_ONNX_MODEL
usage notes).

The output is deterministic: the same weights and builder version give the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from oracleagentmemory.core.embedders.e5_model_file import BLOCK, BlockTable
from oracleagentmemory.core.embedders.minilm_numpy import BertConfig

if TYPE_CHECKING:
    import onnx

__all__ = [
    "BUILDER_VERSION",
    "EMBEDDING_OUTPUT",
    "FORMS",
    "IR_VERSION",
    "OPSET",
    "ORACLE_INPUT",
    "TOKENIZER_DOMAIN",
    "Form",
    "SentencePieceSpec",
    "TokenizerSpec",
    "build_model",
]

Form = Literal["batch", "oracle"]
FORMS: tuple[Form, ...] = ("batch", "oracle")
BUILDER_VERSION = 2
"""Bumped whenever the graph changes, so cached files of an older builder are rebuilt
(2: the batch form's attention is onnxruntime's fused ``Attention``)."""
OPSET = 17
IR_VERSION = 8
TOKENIZER_DOMAIN = "ai.onnx.contrib"
FUSED_DOMAIN = "com.microsoft"
"""onnxruntime's own operators (fused attention), used by the batch form only."""
ORACLE_INPUT = "input"
EMBEDDING_OUTPUT = "embedding"
_F32 = np.float32


@dataclass(frozen=True)
class TokenizerSpec:
    """What the in-graph ``BertTokenizer`` needs, read from ``tokenizer.json``.

    ``vocab`` lists the tokens in id order; ``max_length`` counts ``[CLS]`` and ``[SEP]``
    (the operator keeps ``max_length - 2`` word pieces, as sentence-transformers does).
    """

    vocab: tuple[str, ...]
    max_length: int
    lowercase: bool
    strip_accents: bool
    tokenize_chinese_chars: bool
    unk_token: str = "[UNK]"
    cls_token: str = "[CLS]"
    sep_token: str = "[SEP]"
    pad_token: str = "[PAD]"
    mask_token: str = "[MASK]"
    suffix_indicator: str = "##"

    @classmethod
    def from_tokenizer_json(cls, data: Mapping[str, object], max_length: int) -> TokenizerSpec:
        """From a parsed Hugging Face ``tokenizer.json`` of a WordPiece BERT tokenizer."""
        model = data.get("model")
        normalizer = data.get("normalizer")
        if not isinstance(model, dict) or model.get("type") != "WordPiece":
            raise ValueError("only WordPiece (BERT) tokenizers can go inside the graph")
        if not isinstance(normalizer, dict) or normalizer.get("type") != "BertNormalizer":
            raise ValueError("only the BertNormalizer can go inside the graph")
        vocab_map = model.get("vocab")
        if not isinstance(vocab_map, dict):
            raise ValueError("tokenizer.json has no WordPiece vocabulary")
        by_id = sorted(vocab_map.items(), key=lambda item: int(item[1]))
        if [int(i) for _, i in by_id] != list(range(len(by_id))):
            raise ValueError("the vocabulary ids are not 0..n-1")
        vocab = tuple(str(token) for token, _ in by_id)
        if any("\n" in token for token in vocab):
            raise ValueError("a vocabulary token contains a newline")
        lowercase = bool(normalizer.get("lowercase", True))
        strip = normalizer.get("strip_accents")
        # BertNormalizer: strip_accents None follows lowercase, as in the original BERT.
        strip_accents = lowercase if strip is None else bool(strip)
        return cls(
            vocab=vocab,
            max_length=int(max_length),
            lowercase=lowercase,
            strip_accents=strip_accents,
            tokenize_chinese_chars=bool(normalizer.get("handle_chinese_chars", True)),
            unk_token=str(model.get("unk_token", "[UNK]")),
            suffix_indicator=str(model.get("continuing_subword_prefix", "##")),
        )


@dataclass(frozen=True)
class SentencePieceSpec:
    """What the in-graph ``SentencepieceTokenizer`` needs: a serialised SentencePiece model
    (see :mod:`.sentencepiece_model`) whose ids are the encoder's, the ids put around the
    pieces, and ``max_length`` counting them (longer texts keep their first pieces, as the
    ``tokenizers`` truncation does)."""

    model: bytes
    bos: int
    eos: int
    max_length: int


class _Graph:
    """Collects nodes and initializers with deterministic names."""

    def __init__(self) -> None:
        from onnx import helper, numpy_helper

        self.helper = helper
        self.numpy_helper = numpy_helper
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._count = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(self.numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, inputs: list[str], output: str | None = None,
           domain: str = "", outputs: list[str] | None = None, **attributes: Any) -> str:
        self._count += 1
        names = outputs or [output or f"t{self._count}_{op_type.lower()}"]
        self.nodes.append(self.helper.make_node(op_type, inputs, names,
                                                name=f"n{self._count}_{op_type}",
                                                domain=domain or None, **attributes))
        return names[0]


def _linear_weights(tensors: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    """A torch Linear weight (out, in) as the (in, out) matrix of ``x @ w``."""
    return np.asarray(tensors[name], dtype=np.float64).T


def _encoder(g: _Graph, config: BertConfig, tensors: Mapping[str, Any],
             input_ids: str, mask: str, fused: bool = False) -> str:
    """BERT embeddings, the encoder layers, mean pooling and L2 normalisation.

    ``input_ids`` and ``mask`` are int64 ``[batch, sequence]``; returns the name of the
    float32 ``[batch, hidden]`` unit vectors. Standard operators only: both forms share it.
    """
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in tensors else ""

    def t(name: str) -> np.ndarray:
        try:
            return np.asarray(tensors[prefix + name])
        except KeyError:
            raise KeyError(f"weight {prefix + name!r} missing from checkpoint") from None

    hid, eps = config.hidden_size, float(config.layer_norm_eps)
    table = tensors.get(prefix + "embeddings.word_embeddings.weight")
    if table is not None and table.shape != (config.vocab_size, hid):
        raise ValueError(f"word embeddings have shape {table.shape}")
    # Token type ids are all 0 for one sentence: fold that row into the position table.
    positions = (t("embeddings.position_embeddings.weight").astype(np.float64)
                 + t("embeddings.token_type_embeddings.weight")[0].astype(np.float64))

    zero = g.const("zero_i64", np.array([0], dtype=np.int64))
    one_axis = g.const("axis_1", np.array([1], dtype=np.int64))
    if isinstance(table, BlockTable):
        x = _block_rows(g, table, input_ids)
    else:
        word = t("embeddings.word_embeddings.weight").astype(_F32)
        x = g.op("Gather", [g.const("word_embeddings", word), input_ids])
    seq_len = g.op("Slice", [g.op("Shape", [input_ids]), one_axis,
                             g.const("axis_2", np.array([2], dtype=np.int64))])
    pos = g.op("Slice", [g.const("position_embeddings", positions.astype(_F32)), zero, seq_len,
                         zero])
    x = g.op("Add", [x, pos])
    x = g.op("LayerNormalization", [x, g.const("embeddings_ln_g", t("embeddings.LayerNorm.weight")
                                               .astype(_F32)),
                                    g.const("embeddings_ln_b", t("embeddings.LayerNorm.bias")
                                            .astype(_F32))], axis=-1, epsilon=eps)

    mask_f = g.op("Cast", [mask], to=1)  # FLOAT

    mask_index = g.op("Cast", [mask], to=6) if fused else None  # INT32, the kernel's mask
    x = _layers(g, config, tensors, prefix, x, mask_f, mask_index)

    # Mean over real tokens (sentence-transformers Pooling), then unit length (Normalize).
    mask3 = g.op("Unsqueeze", [mask_f, g.const("axis_2b", np.array([2], dtype=np.int64))])
    summed = g.op("ReduceSum", [g.op("Mul", [x, mask3]), one_axis], keepdims=0)
    counts = g.op("Max", [g.op("ReduceSum", [mask3, one_axis], keepdims=0),
                          g.const("count_eps", np.array(1e-9, dtype=_F32))])
    pooled = g.op("Div", [summed, counts])
    norm = g.op("Sqrt", [g.op("ReduceSum", [g.op("Mul", [pooled, pooled]),
                                            g.const("axis_last", np.array([-1], dtype=np.int64))],
                              keepdims=1)])
    norm = g.op("Max", [norm, g.const("norm_eps", np.array(1e-12, dtype=_F32))])
    return g.op("Div", [pooled, norm])


def _block_rows(g: _Graph, table: BlockTable, input_ids: str) -> str:
    """Rows of a 4-bit block table: int8 codes times their float16 block scale, in float32
    (the values the numpy pass reads, at a quarter of a float table's size)."""
    rows, width = table.shape
    blocks = width // BLOCK
    codes = g.op("Cast", [g.op("Gather", [g.const("word_codes", table.codes), input_ids])],
                 to=1)  # FLOAT
    codes = g.op("Reshape", [codes, g.const("shape_blocks",
                                            np.array([0, 0, blocks, BLOCK], dtype=np.int64))])
    scales = g.op("Cast", [g.op("Gather", [g.const("word_scales", table.scales), input_ids])],
                  to=1)
    scales = g.op("Unsqueeze", [scales, g.const("axis_last_block",
                                                np.array([-1], dtype=np.int64))])
    return g.op("Reshape", [g.op("Mul", [codes, scales]),
                            g.const("shape_rows", np.array([0, 0, width], dtype=np.int64))])


def _layers(g: _Graph, config: BertConfig, tensors: Mapping[str, np.ndarray],
                     prefix: str, x: str, mask_f: str, mask_index: str | None = None) -> str:
    """The encoder layers (post-LayerNorm transformer blocks, as BERT)."""
    hid, heads, head_dim = config.hidden_size, config.num_attention_heads, config.head_dim
    eps = float(config.layer_norm_eps)

    def t(name: str) -> np.ndarray:
        return np.asarray(tensors[prefix + name])

    # Additive key mask [batch, 1, 1, sequence]: 0 on real tokens, float32 min on padding.
    if mask_index is None:  # the standard operators' attention: mask bias and shapes
        blocked = g.op("Sub", [g.const("one_f", np.array(1.0, dtype=_F32)), mask_f])
        bias = g.op("Mul", [blocked, g.const("mask_min", np.array(np.finfo(_F32).min,
                                                                  dtype=_F32))])
        bias = g.op("Unsqueeze", [bias, g.const("axes_1_2", np.array([1, 2], dtype=np.int64))])
        split_qkv = g.const("shape_qkv", np.array([0, 0, 3, heads, head_dim], dtype=np.int64))
        split_sizes = g.const("qkv_sizes", np.array([1, 1, 1], dtype=np.int64))
        axis0 = g.const("qkv_axis", np.array([0], dtype=np.int64))
        merge_heads = g.const("shape_hidden", np.array([0, 0, hid], dtype=np.int64))
    scale = 1.0 / math.sqrt(head_dim)
    for i in range(config.num_hidden_layers):
        p = f"encoder.layer.{i}."
        n = f"l{i}_"

        def dense(inp: str, name: str, weight: str, factor: float = 1.0,
                  p: str = p, n: str = n) -> str:
            w = _linear_weights(tensors, prefix + p + weight + ".weight") * factor
            b = np.asarray(t(p + weight + ".bias"), dtype=np.float64) * factor
            out = g.op("MatMul", [inp, g.const(n + name + "_w", w.astype(_F32))])
            return g.op("Add", [out, g.const(n + name + "_b", b.astype(_F32))])

        def layer_norm(inp: str, name: str, weight: str, p: str = p, n: str = n) -> str:
            return g.op("LayerNormalization",
                        [inp, g.const(n + name + "_g", t(p + weight + ".weight").astype(_F32)),
                         g.const(n + name + "_b", t(p + weight + ".bias").astype(_F32))],
                        axis=-1, epsilon=eps)

        # Q, K and V in one product (one weight read, one larger GEMM); the softmax scale
        # 1/sqrt(head_dim) is folded into the query part.
        qkv_w = np.concatenate([
            _linear_weights(tensors, prefix + p + "attention.self.query.weight") * scale,
            _linear_weights(tensors, prefix + p + "attention.self.key.weight"),
            _linear_weights(tensors, prefix + p + "attention.self.value.weight")], axis=1)
        qkv_b = np.concatenate([
            np.asarray(t(p + "attention.self.query.bias"), dtype=np.float64) * scale,
            np.asarray(t(p + "attention.self.key.bias"), dtype=np.float64),
            np.asarray(t(p + "attention.self.value.bias"), dtype=np.float64)])
        if mask_index is not None:
            # onnxruntime's fused Attention: the same products and softmax in one kernel
            # (scale 1: the query part of the weights is already scaled).
            context = g.op("Attention", [x, g.const(n + "qkv_w", qkv_w.astype(_F32)),
                                         g.const(n + "qkv_b", qkv_b.astype(_F32)),
                                         mask_index],
                           domain=FUSED_DOMAIN, num_heads=heads, scale=1.0)
        else:
            qkv = g.op("Add", [g.op("MatMul", [x, g.const(n + "qkv_w", qkv_w.astype(_F32))]),
                               g.const(n + "qkv_b", qkv_b.astype(_F32))])
            # [batch, seq, 3 * hidden] -> [3, batch, heads, seq, head_dim], then one part each.
            qkv = g.op("Transpose", [g.op("Reshape", [qkv, split_qkv])], perm=[2, 0, 3, 1, 4])
            parts = [f"{n}q", f"{n}k", f"{n}v"]
            g.op("Split", [qkv, split_sizes], outputs=parts, axis=0)
            q, k, v = (g.op("Squeeze", [part, axis0]) for part in parts)
            k = g.op("Transpose", [k], perm=[0, 1, 3, 2])
            scores = g.op("Add", [g.op("MatMul", [q, k]), bias])
            probs = g.op("Softmax", [scores], axis=-1)
            context = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
            context = g.op("Reshape", [context, merge_heads])
        attn = dense(context, "attn_out", "attention.output.dense")
        x = layer_norm(g.op("Add", [attn, x]), "attn_ln", "attention.output.LayerNorm")

        h = dense(x, "ffn_in", "intermediate.dense")
        # Exact GELU, h * (1 + erf(h / sqrt(2))) * 0.5, in the order a PyTorch export writes
        # it, which onnxruntime fuses (with the bias Add before it) into one BiasGelu.
        erf = g.op("Erf", [g.op("Div", [h, g.const(n + "sqrt2",
                                                   np.array(math.sqrt(2), dtype=_F32))])])
        gate = g.op("Add", [erf, g.const(n + "one", np.array(1.0, dtype=_F32))])
        h = g.op("Mul", [g.op("Mul", [h, gate]), g.const(n + "half", np.array(0.5, dtype=_F32))])
        out = dense(h, "ffn_out", "output.dense")
        x = layer_norm(g.op("Add", [out, x]), "ffn_ln", "output.LayerNorm")
    return x


def _tokenizer(g: _Graph, spec: TokenizerSpec | SentencePieceSpec,
               text: str) -> tuple[str, str]:
    """The in-graph tokenizer: one string in, ``[1, sequence]`` ids and mask out."""
    if isinstance(spec, SentencePieceSpec):
        return _sentencepiece_tokenizer(g, spec, text)
    g.op("BertTokenizer", [text], domain=TOKENIZER_DOMAIN,
                outputs=["token_ids", "token_type_ids", "token_mask"],
                vocab_file="\n".join(spec.vocab),
                do_lower_case=int(spec.lowercase), do_basic_tokenize=1,
                strip_accents=int(spec.strip_accents),
                tokenize_chinese_chars=int(spec.tokenize_chinese_chars),
                unk_token=spec.unk_token, sep_token=spec.sep_token, pad_token=spec.pad_token,
                cls_token=spec.cls_token, mask_token=spec.mask_token,
                suffix_indicator=spec.suffix_indicator, max_length=spec.max_length)
    batch_axis = g.const("axis_0", np.array([0], dtype=np.int64))
    ids = g.op("Unsqueeze", ["token_ids", batch_axis], output="input_ids")
    mask = g.op("Unsqueeze", ["token_mask", batch_axis], output="attention_mask")
    return ids, mask


def _sentencepiece_tokenizer(g: _Graph, spec: SentencePieceSpec,
                             text: str) -> tuple[str, str]:
    """onnxruntime-extensions' ``SentencepieceTokenizer`` (its six inputs of every release:
    text, nbest_size, alpha, add_bos, add_eos, reverse), the pieces cut to
    ``max_length - 2`` and put between ``bos`` and ``eos`` with standard operators."""
    false = g.const("sp_false", np.array([False]))
    g.op("SentencepieceTokenizer",
         [text, g.const("sp_nbest_size", np.array([0], dtype=np.int64)),
          g.const("sp_alpha", np.array([0.0], dtype=_F32)), false, false, false],
         domain=TOKENIZER_DOMAIN, outputs=["piece_ids", "piece_rows"], model=spec.model)
    pieces = g.op("Slice", [g.op("Cast", ["piece_ids"], to=7),  # INT64
                            g.const("sp_start", np.array([0], dtype=np.int64)),
                            g.const("sp_stop", np.array([spec.max_length - 2], dtype=np.int64))])
    ids = g.op("Concat", [g.const("sp_bos", np.array([spec.bos], dtype=np.int64)), pieces,
                          g.const("sp_eos", np.array([spec.eos], dtype=np.int64))], axis=0)
    batch_axis = g.const("axis_0", np.array([0], dtype=np.int64))
    ids = g.op("Unsqueeze", [ids, batch_axis], output="input_ids")
    ones = g.op("ConstantOfShape", [g.op("Shape", [ids])],
                value=g.numpy_helper.from_array(np.array([1], dtype=np.int64)))
    return ids, g.op("Identity", [ones], output="attention_mask")


def build_model(form: Form, config: BertConfig, tensors: Mapping[str, Any],
                tokenizer: TokenizerSpec | SentencePieceSpec | None = None, *, doc: str = "",
                metadata: Mapping[str, str] | None = None,
                name: str = "all_minilm_l6_v2",
                fused_attention: bool = True) -> onnx.ModelProto:
    """The ModelProto of ``form`` (see the module docstring); ``oracle`` needs ``tokenizer``.

    ``metadata`` goes into the model's ``metadata_props`` (sorted, for stable bytes).
    ``fused_attention=False`` gives the batch form with attention in standard operators, as
    builder version 1 made it (what benchmarks hand to onnxruntime's transformer optimizer).
    Raises ImportError when the ``onnx`` package is missing.
    """
    from onnx import TensorProto, checker, helper

    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    g = _Graph()
    dim = config.hidden_size
    opsets = [helper.make_opsetid("", OPSET)]
    if form == "batch":
        opsets.append(helper.make_opsetid(FUSED_DOMAIN, 1))
        inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64,
                                                ["batch", "sequence"]),
                  helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                                ["batch", "sequence"])]
        unit = _encoder(g, config, tensors, "input_ids", "attention_mask",
                        fused=fused_attention)
        g.op("Identity", [unit], output=EMBEDDING_OUTPUT)
        outputs = [helper.make_tensor_value_info(EMBEDDING_OUTPUT, TensorProto.FLOAT,
                                                 ["batch", dim])]
    else:
        if tokenizer is None:
            raise ValueError("the oracle form needs the tokenizer")
        inputs = [helper.make_tensor_value_info(ORACLE_INPUT, TensorProto.STRING, [1])]
        ids, mask = _tokenizer(g, tokenizer, ORACLE_INPUT)
        unit = _encoder(g, config, tensors, ids, mask)
        g.op("Squeeze", [unit, "axis_0"], output=EMBEDDING_OUTPUT)
        outputs = [helper.make_tensor_value_info(EMBEDDING_OUTPUT, TensorProto.FLOAT, [dim])]
        opsets.append(helper.make_opsetid(TOKENIZER_DOMAIN, 1))
    graph = helper.make_graph(g.nodes, f"{name}_{form}", inputs, outputs,
                              g.initializers)
    model = helper.make_model(graph, opset_imports=opsets, ir_version=IR_VERSION,
                              producer_name="oracleagentmemory",
                              producer_version=str(BUILDER_VERSION), doc_string=doc)
    for key, value in sorted((metadata or {}).items()):
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    # full_check (shape inference) needs every operator's schema: the tokenizer and the
    # onnxruntime operators have none in the onnx package.
    checker.check_model(model)
    return model
