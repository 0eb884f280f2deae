"""Conversions between SQLite rows and the contract's JSON-shaped values."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from oracleagentmemory.stores.errors import DimensionMismatchError, InvalidArgumentError
from oracleagentmemory.stores.limits import json_text
from oracleagentmemory.stores.protocol import LinkOut, RecordOut

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
    if not np.isfinite(array).all():
        raise InvalidArgumentError("embedding contains NaN or infinite values")
    return array.tobytes()


def dump_json(value: Any, argument: str, max_chars: int | None = None) -> str | None:
    """Serialise a JSON object argument, rejecting what JSON cannot hold, nesting deeper than
    the limit, text that is not valid Unicode and (with ``max_chars``) an oversized value."""
    if value is None:
        return None
    if type(value) is not dict and not isinstance(value, Mapping):
        raise InvalidArgumentError(f"{argument} must be a dict or None, got {type(value).__name__}")
    return json_text(value, argument, max_chars)


def load_json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def row_to_record(row: Sequence[Any]) -> RecordOut:
    """A ``records`` row (RECORD_COLUMNS order) as a contract RecordOut."""
    (_, rid, rtype, user_id, agent_id, thread_id, role, content, metadata, extra,
     event_ts, created_at, updated_at, expires_at, status, message_id) = row
    extra_obj = load_json(extra) or {}
    record: RecordOut = {
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
    if rtype == "message":
        record["seq_no"] = row[0]
    return record


LINK_COLUMNS = (
    "id, thread_id, source_id, source_type, target_id, target_type, relation_type, "
    "opposite_relation_type, event_ts, metadata, created_at"
)


def row_to_link(row: Sequence[Any]) -> LinkOut:
    """A ``relations`` row (LINK_COLUMNS order) as a contract LinkOut."""
    (rid, thread_id, source_id, source_type, target_id, target_type, relation_type,
     opposite_relation_type, event_ts, metadata, created_at) = row
    return {
        "id": rid,
        "thread_id": thread_id,
        "source_id": source_id,
        "source_type": source_type,
        "target_id": target_id,
        "target_type": target_type,
        "relation_type": relation_type,
        "opposite_relation_type": opposite_relation_type,
        "timestamp": event_ts,
        "metadata": load_json(metadata),
        "created_at": created_at,
    }
