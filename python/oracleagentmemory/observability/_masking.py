"""How event values are dumped: JSON-safe, with sensitive information masked.

Why one function: events carry whatever the operation received (texts, numpy arrays,
records, bytes), and a dump must neither fail on such values nor leak them. Two rules mask:
a whole field the event class marks sensitive (texts, prompts, vectors, raw arguments and
results), and, anywhere inside a free-form value, a key that names a secret (``api_key``,
``password``, ``authorization``, ...).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from datetime import date, datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel

MASK = "[MASKED]"
"""What a masked value is replaced with."""

MASK_CONTEXT_KEY = "oracleagentmemory_mask_sensitive_information"
"""Key of the pydantic serialisation context that switches masking on."""

SECRET_KEY = re.compile(
    r"api[_-]?key|secret|passw(or)?d|authorization|bearer|access[_-]?token|refresh[_-]?token"
    r"|private[_-]?key|credential",
    re.IGNORECASE,
)
"""Dictionary keys whose values are masked wherever they appear."""

_SCALARS = (str, int, float, bool, type(None))


def is_secret_key(key: Any) -> bool:
    return isinstance(key, str) and SECRET_KEY.search(key) is not None


def serialize_value(value: Any, *, mask: bool, json_mode: bool, whole: bool = False) -> Any:
    """``value`` ready for a dump.

    ``whole``: the field itself is sensitive, so with ``mask`` the value becomes
    :data:`MASK`. Otherwise containers are copied with secret keys masked (when ``mask``),
    and in JSON mode every leaf becomes a JSON type (bytes become their size, unknown
    objects their ``repr``).
    """
    if mask and whole:
        return MASK
    return _convert(value, mask, json_mode)


def _convert(value: Any, mask: bool, json_mode: bool) -> Any:
    if isinstance(value, Enum):
        return value.value if json_mode else value
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, Mapping):
        return {
            (str(key) if json_mode else key):
                MASK if mask and is_secret_key(key) else _convert(item, mask, json_mode)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_convert(item, mask, json_mode) for item in value]
        return items if json_mode or isinstance(value, list) else type(value)(items)
    if not json_mode and not mask:
        return value
    return _convert_leaf(value, mask, json_mode)


def _convert_leaf(value: Any, mask: bool, json_mode: bool) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(value)} bytes>" if json_mode else value
    if isinstance(value, (datetime, date)):
        return value.isoformat() if json_mode else value
    if isinstance(value, BaseModel):
        return _convert(value.model_dump(), mask, json_mode)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
        return _convert(fields, mask, json_mode)
    tolist = getattr(value, "tolist", None)  # numpy arrays and scalars
    if callable(tolist):
        return _convert(tolist(), mask, json_mode)
    return repr(value) if json_mode else value
