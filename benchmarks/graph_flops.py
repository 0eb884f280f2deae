"""The floating-point work of a batch through an encoder graph, counted from the graph.

Why: "a share of the FLOP limit" needs the FLOPs a batch really asks for. They are read from
the ``batch``-form ONNX file, not from a formula for BERT: every ``MatMul`` or ``Gemm`` with
a weight initializer ``[k, n]`` costs ``2·k·n`` per token, and onnxruntime's fused
``Attention`` (com.microsoft) costs its query/key/value projection per token (its weight
``[k, 3·h]``) plus ``QKᵀ`` and ``AV``: ``2·2·h`` per pair of tokens of one text. The other
operators (layer norms, GELU, softmax, additions) are not counted: they are a few FLOPs per
value, and counting them would flatter the rate.

*Useful* FLOPs count each text at its own length; *executed* FLOPs count every row at the
batch's padded length, which is what the encoder runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class MatmulWork:
    """FLOPs per token and per (query token, key token) pair of one text, all layers."""

    per_token: int
    per_token_pair: int

    def text_flops(self, tokens: int) -> int:
        """The FLOPs of one text of ``tokens`` tokens (or one row padded to it)."""
        return self.per_token * tokens + self.per_token_pair * tokens * tokens


def matmul_work(path: Path) -> MatmulWork:
    """The matrix-product work of the graph in ``path``.

    Raises:
        ValueError: a ``MatMul`` or ``Gemm`` multiplies two activations (its cost depends on
            shapes this count does not infer), or a weight is not two-dimensional.
    """
    import onnx

    graph = onnx.load(str(path)).graph
    weights = {tensor.name: tuple(tensor.dims) for tensor in graph.initializer}
    per_token = per_pair = 0
    for node in graph.node:
        if node.op_type not in ("MatMul", "Gemm", "Attention"):
            continue
        shape = weights.get(node.input[1])
        if shape is None or len(shape) != 2:
            raise ValueError(f"{node.op_type} {node.name!r}: second input is not a 2-D weight")
        k, n = shape
        if node.op_type == "Gemm" and any(a.name == "transB" and a.i for a in node.attribute):
            k, n = n, k
        per_token += 2 * k * n
        if node.op_type == "Attention":
            per_pair += 2 * 2 * (n // 3)  # QKᵀ and AV over all heads: 2·h each per pair
    return MatmulWork(per_token, per_pair)


def batch_flops(work: MatmulWork, lengths: Sequence[int]) -> tuple[int, int]:
    """Useful and executed FLOPs of one batch of texts of ``lengths`` tokens (right-padded
    to the longest)."""
    longest = max(lengths)
    return (sum(work.text_flops(length) for length in lengths),
            len(lengths) * work.text_flops(longest))
