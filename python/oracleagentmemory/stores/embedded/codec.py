"""Conversions between SQLite rows and the contract's JSON-shaped values."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from oracleagentmemory.stores.errors import DimensionMismatchError, InvalidArgumentError

RECORD_COLUMNS = (
    "seq, id, record_type, user_id, agent_id, thread_id, role, content, metadata, extra, "
    "event_ts, created_at, updated_at, expires_at, status, message_id"
)


def encode_vector(vector: Sequence[float] | np.ndarray, dimension: int | None) -> bytes:
    """float32 little-endian bytes of a vector whose length is the store's dimension."""
    array = np.asarray(vector, dtype="<f4")
    if array.ndim != 1:
        raise DimensionMismatchError("embedding must be a one-dimensional vector")
    if dimension is not None and array.shape[0] != dimension:
        raise DimensionMismatchError(
            f"embedding has {array.shape[0]} dimensions, the store uses {dimension}"
        )
    if not np.all(np.isfinite(array)):
        raise InvalidArgumentError("embedding contains NaN or infinite values")
    return array.tobytes()


def decode_vectors(blobs: Sequence[bytes], dimension: int) -> np.ndarray:
    if not blobs:
        return np.zeros((0, dimension), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dimension)


def dump_json(value: Any, argument: str) -> str | None:
    """Serialise a JSON object argument, rejecting what JSON cannot hold."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidArgumentError(f"{argument} must be a dict or None, got {type(value).__name__}")
    _check_json(value, argument)
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _check_json(value: Any, argument: str) -> None:
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidArgumentError(f"{argument} contains a NaN or infinite number")
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidArgumentError(f"{argument} keys must be strings, got {key!r}")
            _check_json(item, argument)
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            _check_json(item, argument)
        return
    raise InvalidArgumentError(
        f"{argument} holds a value of type {type(value).__name__}, which is not JSON"
    )


def load_json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def row_to_record(row: Sequence[Any]) -> dict[str, Any]:
    """A ``records`` row (RECORD_COLUMNS order) as a contract RecordOut."""
    (_, rid, rtype, user_id, agent_id, thread_id, role, content, metadata, extra,
     event_ts, created_at, updated_at, expires_at, status, message_id) = row
    extra_obj = load_json(extra) or {}
    record: dict[str, Any] = {
        "id": rid,
        "record_type": rtype,
        "user_id": user_id,
        "agent_id": agent_id,
        "thread_id": thread_id,
        "role": role,
        "content": content,
        "metadata": load_json(metadata),
        "timestamp": event_ts,
        "created_at": created_at,
        "updated_at": updated_at,
        "expires_at": expires_at,
        "status": status,
        "parts": extra_obj.get("parts"),
        "mime_type": extra_obj.get("mime_type"),
        "message_id": message_id,
        "config": extra_obj.get("config"),
    }
    return record
