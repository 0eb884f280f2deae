"""Embeddings computed inside Oracle AI Database by an imported ONNX model."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from oracleagentmemory.apis.embedders.embedder import IEmbedder

_MODEL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_$#]{0,127}(\.[A-Za-z][A-Za-z0-9_$#]{0,127})?$")

# One round trip per batch: the texts travel as one JSON array bind, VECTOR_EMBEDDING runs
# once per row of JSON_TABLE, and the ordinality column restores the input order.
_EMBED_SQL = (
    "SELECT VECTOR_EMBEDDING({model} USING jt.txt AS data) "
    "FROM JSON_TABLE(:texts, '$[*]' COLUMNS (ord FOR ORDINALITY, "
    "txt VARCHAR2(32767) PATH '$')) jt ORDER BY jt.ord"
)


def check_model_name(model: str) -> str:
    """Model names are identifiers (they cannot be bound), so only plain names pass."""
    if not isinstance(model, str) or not _MODEL_NAME.match(model):
        raise ValueError(
            f"model must be an Oracle identifier such as DOC_MODEL or OWNER.DOC_MODEL, "
            f"got {model!r}"
        )
    return model.upper()


class OracleDBEmbedder(IEmbedder):
    """Embeds with ``VECTOR_EMBEDDING`` and a model loaded by ``DBMS_VECTOR.LOAD_ONNX_MODEL``."""

    def __init__(self, connection: Any, model: str, embedding_dimension: int) -> None:
        if isinstance(embedding_dimension, bool) or not isinstance(embedding_dimension, int) \
                or embedding_dimension < 1:
            raise ValueError("embedding_dimension must be a positive integer")
        self.connection = connection
        self.model = check_model_name(model)
        self._dimension = embedding_dimension
        self._sql = _EMBED_SQL.format(model=self.model)

    @property
    def embedding_dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        rows = self._run(json.dumps(list(texts), ensure_ascii=False))
        vectors = np.asarray([np.asarray(row[0], dtype=np.float32) for row in rows])
        if vectors.shape != (len(texts), self._dimension):
            raise ValueError(
                f"model {self.model} returned vectors of shape {vectors.shape}, expected "
                f"({len(texts)}, {self._dimension})"
            )
        return vectors

    def _run(self, texts_json: str) -> list[tuple]:
        if hasattr(self.connection, "acquire"):
            with self.connection.acquire() as conn, conn.cursor() as cursor:
                return cursor.execute(self._sql, texts=texts_json).fetchall()
        with self.connection.cursor() as cursor:
            return cursor.execute(self._sql, texts=texts_json).fetchall()
