"""BERT encoder forward pass (as used by all-MiniLM-L6-v2) in plain numpy.

Why: the default embedder has to run offline without PyTorch. MiniLM-L6 is small (6 layers,
384 hidden) so a float32 numpy implementation using batched BLAS matmuls is fast enough, and it
reproduces the Hugging Face ``BertModel`` + sentence-transformers mean pooling to ~1e-6.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from oracleagentmemory.core.embedders.json_file import read_json_object

__all__ = ["BertConfig", "BertEncoder", "gelu_", "l2_normalize", "mean_pool"]

_F32 = np.float32
# Rows of the (tokens x intermediate) feed-forward activation processed at once: keeps the
# GELU temporaries cache-sized instead of streaming tens of MB through memory per op.
_FFN_ROW_BLOCK = 256

# Numerical Recipes "erfcc" Chebyshev fit: erfc(z) = t * exp(-z^2 + P(t)), t = 1 / (1 + z/2),
# fractional error < 1.2e-7 for all z >= 0. Coefficients of P, highest power first.
_ERFC_COEFFS = (
    0.17087277,
    -0.82215223,
    1.48851587,
    -1.13520398,
    0.27886807,
    -0.18628806,
    0.09678418,
    0.37409196,
    1.00002368,
    -1.26551223,
)


@dataclass(frozen=True)
class BertConfig:
    """The subset of a Hugging Face BERT ``config.json`` the forward pass needs."""

    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    max_position_embeddings: int
    type_vocab_size: int
    layer_norm_eps: float

    @property
    def head_dim(self) -> int:
        """Width of one attention head."""
        return self.hidden_size // self.num_attention_heads

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BertConfig:
        """Build from parsed ``config.json``; rejects variants this implementation cannot run."""
        act = data.get("hidden_act", "gelu")
        if act != "gelu":
            raise ValueError(f"unsupported hidden_act {act!r} (only exact 'gelu')")
        pos = data.get("position_embedding_type", "absolute")
        if pos != "absolute":
            raise ValueError(f"unsupported position_embedding_type {pos!r}")
        config = cls(
            vocab_size=int(data["vocab_size"]),
            hidden_size=int(data["hidden_size"]),
            num_hidden_layers=int(data["num_hidden_layers"]),
            num_attention_heads=int(data["num_attention_heads"]),
            intermediate_size=int(data["intermediate_size"]),
            max_position_embeddings=int(data["max_position_embeddings"]),
            type_vocab_size=int(data.get("type_vocab_size", 2)),
            layer_norm_eps=float(data.get("layer_norm_eps", 1e-12)),
        )
        if config.hidden_size % config.num_attention_heads:
            raise ValueError("hidden_size is not divisible by num_attention_heads")
        return config

    @classmethod
    def from_json(cls, path: str | os.PathLike[str]) -> BertConfig:
        """Read a ``config.json`` file."""
        return cls.from_dict(read_json_object(Path(path)))


@dataclass(frozen=True)
class _LayerWeights:
    """One encoder layer, with linear weights pre-transposed to (in, out) for ``x @ w``."""

    qkv_w: np.ndarray  # (H, 3H); query part pre-scaled by 1/sqrt(head_dim)
    qkv_b: np.ndarray
    attn_out_w: np.ndarray
    attn_out_b: np.ndarray
    attn_ln_g: np.ndarray
    attn_ln_b: np.ndarray
    ffn_in_w: np.ndarray
    ffn_in_b: np.ndarray
    ffn_out_w: np.ndarray
    ffn_out_b: np.ndarray
    ffn_ln_g: np.ndarray
    ffn_ln_b: np.ndarray


def _frozen(array: np.ndarray) -> np.ndarray:
    """Return a contiguous float32 copy that cannot be modified (weights are shared by threads)."""
    out = np.array(array, dtype=_F32, order="C", copy=True)
    out.flags.writeable = False
    return out


class BertEncoder:
    """Numpy forward pass of a BERT encoder (no pooler), float32 throughout.

    Instances are immutable after construction and safe to call from several threads.
    """

    def __init__(self, config: BertConfig, tensors: Mapping[str, Any]) -> None:
        """Arrange checkpoint tensors (Hugging Face ``BertModel`` names) for fast inference."""
        self.config = config
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in tensors else ""

        def get(name: str) -> np.ndarray:
            try:
                return tensors[prefix + name]
            except KeyError:
                raise KeyError(f"weight {prefix + name!r} missing from checkpoint") from None

        word = tensors.get(prefix + "embeddings.word_embeddings.weight")
        # A table of another kind (4-bit blocks) is kept as it is: indexing it gives rows.
        self.word_embeddings = (_frozen(get("embeddings.word_embeddings.weight"))
                                if isinstance(word, np.ndarray) or word is None else word)
        self.position_embeddings = _frozen(get("embeddings.position_embeddings.weight"))
        self.token_type_embeddings = _frozen(get("embeddings.token_type_embeddings.weight"))
        self.embeddings_ln_g = _frozen(get("embeddings.LayerNorm.weight"))
        self.embeddings_ln_b = _frozen(get("embeddings.LayerNorm.bias"))
        expected = (config.vocab_size, config.hidden_size)
        if self.word_embeddings.shape != expected:
            raise ValueError(f"word embeddings have shape {self.word_embeddings.shape}")

        scale = 1.0 / math.sqrt(config.head_dim)
        layers = []
        for i in range(config.num_hidden_layers):
            p = f"encoder.layer.{i}."

            def w(name: str, p: str = p) -> np.ndarray:
                return np.asarray(get(p + name), dtype=np.float64)

            # Fuse Q, K, V into one GEMM; folding the softmax scale into Q saves a pass.
            qkv_w = np.concatenate(
                [
                    w("attention.self.query.weight") * scale,
                    w("attention.self.key.weight"),
                    w("attention.self.value.weight"),
                ]
            ).T
            qkv_b = np.concatenate(
                [
                    w("attention.self.query.bias") * scale,
                    w("attention.self.key.bias"),
                    w("attention.self.value.bias"),
                ]
            )
            layers.append(
                _LayerWeights(
                    qkv_w=_frozen(qkv_w),
                    qkv_b=_frozen(qkv_b),
                    attn_out_w=_frozen(w("attention.output.dense.weight").T),
                    attn_out_b=_frozen(w("attention.output.dense.bias")),
                    attn_ln_g=_frozen(w("attention.output.LayerNorm.weight")),
                    attn_ln_b=_frozen(w("attention.output.LayerNorm.bias")),
                    ffn_in_w=_frozen(w("intermediate.dense.weight").T),
                    ffn_in_b=_frozen(w("intermediate.dense.bias")),
                    ffn_out_w=_frozen(w("output.dense.weight").T),
                    ffn_out_b=_frozen(w("output.dense.bias")),
                    ffn_ln_g=_frozen(w("output.LayerNorm.weight")),
                    ffn_ln_b=_frozen(w("output.LayerNorm.bias")),
                )
            )
        self.layers: tuple[_LayerWeights, ...] = tuple(layers)

    def forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """Return the last hidden state, shape (batch, seq, hidden), for right-padded input.

        ``attention_mask`` is 1 for real tokens and 0 for padding; token type ids are all 0
        (single-sentence input), as the sentence-transformers tokenizer produces.
        """
        cfg = self.config
        ids = np.asarray(input_ids, dtype=np.int64)
        if ids.ndim != 2:
            raise ValueError("input_ids must be 2-D (batch, seq)")
        batch, seq = ids.shape
        if seq > cfg.max_position_embeddings:
            raise ValueError(f"sequence length {seq} exceeds {cfg.max_position_embeddings}")
        if ids.size and (ids.min() < 0 or ids.max() >= cfg.vocab_size):
            raise ValueError("token id out of vocabulary range")
        hid = cfg.hidden_size

        x = self.word_embeddings[ids]  # (B, L, H) fresh array
        x += self.position_embeddings[:seq]
        x += self.token_type_embeddings[0]
        x = x.reshape(batch * seq, hid)
        _layer_norm_(x, self.embeddings_ln_g, self.embeddings_ln_b, cfg.layer_norm_eps)

        # Additive key mask, (B, 1, 1, L): large negative on padding keys so softmax ignores them.
        mask = np.asarray(attention_mask).reshape(batch, 1, 1, seq)
        bias = np.where(mask > 0, _F32(0.0), np.finfo(_F32).min).astype(_F32)

        for layer in self.layers:
            x = self._layer(x, layer, bias, batch, seq)
        return x.reshape(batch, seq, hid)

    def _layer(
        self, x: np.ndarray, lw: _LayerWeights, bias: np.ndarray, batch: int, seq: int
    ) -> np.ndarray:
        """One transformer block (post-LayerNorm, as BERT) on x of shape (B*L, H)."""
        cfg = self.config
        heads, head_dim, hid = cfg.num_attention_heads, cfg.head_dim, cfg.hidden_size

        qkv = x @ lw.qkv_w
        qkv += lw.qkv_b
        # (B*L, 3H) -> (3, B, heads, L, head_dim)
        qkv = qkv.reshape(batch, seq, 3, heads, head_dim).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]

        scores = np.matmul(q, k.transpose(0, 1, 3, 2))  # (B, heads, L, L), already scaled
        scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        context = np.matmul(scores, v)  # (B, heads, L, head_dim)
        context = context.transpose(0, 2, 1, 3).reshape(batch * seq, hid)

        attn = context @ lw.attn_out_w
        attn += lw.attn_out_b
        attn += x
        _layer_norm_(attn, lw.attn_ln_g, lw.attn_ln_b, cfg.layer_norm_eps)

        out: np.ndarray = np.empty_like(attn)
        for start in range(0, attn.shape[0], _FFN_ROW_BLOCK):
            rows = slice(start, start + _FFN_ROW_BLOCK)
            h = attn[rows] @ lw.ffn_in_w
            h += lw.ffn_in_b
            gelu_(h)
            np.matmul(h, lw.ffn_out_w, out=out[rows])
        out += lw.ffn_out_b
        out += attn
        _layer_norm_(out, lw.ffn_ln_g, lw.ffn_ln_b, cfg.layer_norm_eps)
        return out


def _layer_norm_(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> None:
    """LayerNorm over the last axis, in place (biased variance, as torch)."""
    mean = x.mean(axis=-1, keepdims=True)
    x -= mean
    var = np.mean(np.square(x), axis=-1, keepdims=True)
    var += _F32(eps)
    np.sqrt(var, out=var)
    x /= var
    x *= gamma
    x += beta


def gelu_(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU, in place on a float32 array; returns ``x``.

    gelu(x) = x * Phi(x), with Phi(x) = h for x < 0 and 1 - h otherwise, where
    h = erfc(|x|/sqrt(2)) / 2 comes from a Chebyshev fit (fractional error < 1.2e-7), so both
    tails keep full precision. Max abs error vs. float64 math.erf is about 1 float32 ulp of x.
    Only branch-free ufuncs are used (masked ``where=`` ufuncs are ~20x slower).
    """
    dt = x.dtype.type
    a = np.abs(x)
    # t = 1 / (1 + z/2) with z = |x|/sqrt(2)
    t = a * dt(0.5 / math.sqrt(2.0))
    t += dt(1.0)
    np.reciprocal(t, out=t)
    # P(t) by Horner; log(1/2) is folded into the constant term so exp() yields h directly.
    poly = t * dt(_ERFC_COEFFS[0])
    for coeff in _ERFC_COEFFS[1:-1]:
        poly += dt(coeff)
        poly *= t
    poly += dt(_ERFC_COEFFS[-1] + math.log(0.5))
    np.multiply(x, x, out=a)
    a *= dt(-0.5)  # -z^2
    poly += a
    np.exp(poly, out=poly)
    poly *= t  # h = Phi(-|x|)
    # Phi = h + [x >= 0] * (1 - 2h), computed without a data-dependent branch.
    np.multiply(poly, dt(-2.0), out=t)
    t += dt(1.0)
    t *= x >= 0
    poly += t
    x *= poly
    return x


def mean_pool(hidden: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """Average token vectors over real (mask == 1) tokens, as sentence-transformers Pooling."""
    mask = np.asarray(attention_mask, dtype=_F32)[:, :, None]
    summed = (hidden * mask).sum(axis=1)
    counts = np.maximum(mask.sum(axis=1), _F32(1e-9))
    pooled: np.ndarray = (summed / counts).astype(_F32, copy=False)
    return pooled


def l2_normalize(x: np.ndarray) -> np.ndarray:
    """Scale rows to unit L2 norm (torch.nn.functional.normalize semantics, eps 1e-12)."""
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    unit: np.ndarray = (x / np.maximum(norms, _F32(1e-12))).astype(_F32, copy=False)
    return unit
