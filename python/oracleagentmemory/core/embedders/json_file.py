"""The JSON files that come with a model (config, tokenizer, pooling), read one way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object stored at ``path``; a file holding anything else is an error."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict):
        raise RuntimeError(f"{path} does not contain a JSON object")
    return data
