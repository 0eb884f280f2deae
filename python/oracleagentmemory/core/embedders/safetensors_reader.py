"""Minimal reader for the safetensors weight format.

Why: the default embedder must load model weights without depending on ``torch`` or the
``safetensors`` package. The format is simple enough to read directly: an 8-byte little-endian
header length, a JSON header describing each tensor (dtype, shape, byte offsets), then the raw
little-endian tensor bytes.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["SafetensorsError", "read_safetensors"]

# Header size cap (the reference implementation uses 100 MB); guards against reading garbage.
_MAX_HEADER_BYTES = 100 * 1024 * 1024

# safetensors dtype name -> little-endian numpy dtype. BF16 is handled separately.
_DTYPES: dict[str, np.dtype[Any]] = {
    "F64": np.dtype("<f8"),
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"),
    "U64": np.dtype("<u8"),
    "U32": np.dtype("<u4"),
    "U16": np.dtype("<u2"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}


class SafetensorsError(ValueError):
    """Raised when a file is not a well-formed safetensors file."""


def read_safetensors(
    path: str | os.PathLike[str],
    names: Iterable[str] | None = None,
) -> dict[str, np.ndarray]:
    """Read tensors from a safetensors file into numpy arrays in native byte order.

    F16 tensors keep dtype float16 and BF16 tensors are widened to float32 (numpy has no
    bfloat16); callers cast to the precision they compute in. Returned arrays may be views of
    one shared buffer, which is released once no returned array is referenced.

    Args:
        path: the ``.safetensors`` file.
        names: if given, only these tensors are returned (a missing name is an error).
    """
    with open(Path(path), "rb") as f:
        raw_len = f.read(8)
        if len(raw_len) != 8:
            raise SafetensorsError(f"{path}: file too short for a safetensors header")
        (header_len,) = struct.unpack("<Q", raw_len)
        if header_len > _MAX_HEADER_BYTES:
            raise SafetensorsError(f"{path}: header length {header_len} is implausibly large")
        header_bytes = f.read(header_len)
        if len(header_bytes) != header_len:
            raise SafetensorsError(f"{path}: truncated header")
        try:
            header = json.loads(header_bytes)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SafetensorsError(f"{path}: header is not valid JSON") from exc
        if not isinstance(header, dict):
            raise SafetensorsError(f"{path}: header is not a JSON object")
        header.pop("__metadata__", None)

        wanted = set(header) if names is None else set(names)
        missing = wanted - set(header)
        if missing:
            raise SafetensorsError(f"{path}: tensors not found: {sorted(missing)}")

        data_len = os.fstat(f.fileno()).st_size - 8 - header_len
        buffer = bytearray(data_len)
        if f.readinto(buffer) != data_len:
            raise SafetensorsError(f"{path}: truncated tensor data")

    out: dict[str, np.ndarray] = {}
    for name in sorted(wanted):
        out[name] = _tensor_from_buffer(path, name, header[name], buffer)
    return out


def _tensor_from_buffer(
    path: str | os.PathLike[str], name: str, info: Any, buffer: bytearray
) -> np.ndarray:
    """Build one tensor from its header entry, validating dtype, shape and byte range."""
    try:
        dtype_name = info["dtype"]
        shape = tuple(int(d) for d in info["shape"])
        start, end = (int(o) for o in info["data_offsets"])
    except (KeyError, TypeError, ValueError) as exc:
        raise SafetensorsError(f"{path}: malformed header entry for {name!r}") from exc
    if any(d < 0 for d in shape) or not 0 <= start <= end <= len(buffer):
        raise SafetensorsError(f"{path}: invalid shape or offsets for {name!r}")

    count = int(np.prod(shape, dtype=np.int64))
    if dtype_name == "BF16":
        if end - start != 2 * count:
            raise SafetensorsError(f"{path}: size mismatch for {name!r}")
        # bfloat16 is the upper half of a float32: widen by shifting into the high 16 bits.
        bits = np.frombuffer(buffer, dtype="<u2", count=count, offset=start)
        return (bits.astype(np.uint32) << 16).view(np.float32).reshape(shape)

    dtype = _DTYPES.get(dtype_name)
    if dtype is None:
        raise SafetensorsError(f"{path}: unsupported dtype {dtype_name!r} for {name!r}")
    if end - start != dtype.itemsize * count:
        raise SafetensorsError(f"{path}: size mismatch for {name!r}")
    array = np.frombuffer(buffer, dtype=dtype, count=count, offset=start).reshape(shape)
    if not dtype.isnative:
        array = array.astype(dtype.newbyteorder("="))
    return array
