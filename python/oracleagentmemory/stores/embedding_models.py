"""Names of the local embedding models, known to the stores that record them.

Why here: a store records which model made its vectors, so the client can choose the same
model next time; a store made before names were recorded holds all-MiniLM-L6-v2 vectors.
"""

from __future__ import annotations

DEFAULT_EMBEDDING_MODEL = "multilingual-e5-small"
"""The local model a new embedded store gets when the caller names none."""
LEGACY_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
"""The default before the multilingual model: the model of stores that recorded no name,
and still the default on Oracle (whose in-database ONNX form is built from it)."""
LOCAL_EMBEDDING_MODELS = (DEFAULT_EMBEDDING_MODEL, LEGACY_EMBEDDING_MODEL)
