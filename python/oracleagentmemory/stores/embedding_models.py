"""Names of the local embedding models, known to the stores that record them.

Why here: a store records which model made its vectors, so the client can choose the same
model next time; a store made before names were recorded holds all-MiniLM-L6-v2 vectors.
"""

from __future__ import annotations

DEFAULT_EMBEDDING_MODEL = "multilingual-e5-small"
"""The local model a new embedded store gets when the caller names none."""
LEGACY_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
"""The default before the multilingual model: the model of stores that recorded no name
and hold vectors, on both backends."""
LOCAL_EMBEDDING_MODELS = (DEFAULT_EMBEDDING_MODEL, LEGACY_EMBEDDING_MODEL)

IN_DATABASE_MODELS = {"MULTILINGUAL_E5_SMALL": DEFAULT_EMBEDDING_MODEL,
                      "ALL_MINILM_L6_V2": LEGACY_EMBEDDING_MODEL}
"""The in-database (``DBMS_VECTOR.LOAD_ONNX_MODEL``) names under which a DBA loads the Oracle
forms this project builds (``oracleagentmemory onnx-model``), and the local model each one
gives the vectors of. A store rendered with one of them embeds in SQL as the client does."""
TEXT_PREFIXES = {DEFAULT_EMBEDDING_MODEL: ("query: ", "passage: ")}
"""(query, stored text) prefixes a model is given its texts with (the E5 model card asks for
them); a model not listed reads its texts as they are."""
VECTOR_MODEL_KEY = "vector_model"
"""The Oracle store's META key naming the local model whose vectors it holds (its
``embedding_model`` key names the in-database model that embeds in SQL)."""
