"""Deduplication of extracted memories against what is already stored (and each other).

Why: overlapping extraction windows and repeated statements ("I'm vegetarian", twice)
would otherwise fill the store with copies that crowd search results. Two checks: the same
text after normalisation (case, spacing, end punctuation), and, with an embedder, cosine
similarity at or above a threshold. Candidate vectors are returned so the caller stores
them without embedding twice.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core.extractors.extractor import ExtractedMemory

DEFAULT_SIMILARITY_THRESHOLD = 0.92
_SPACES = re.compile(r"\s+")
_EDGE_PUNCTUATION = " \t\n.!?;:,\"'`()[]{}"


def normalise_text(text: str) -> str:
    """Case-folded, NFKC, single-spaced text without surrounding punctuation."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return _SPACES.sub(" ", text).strip(_EDGE_PUNCTUATION)


@dataclass
class DedupResult:
    """Candidates to store (with their vectors, row-aligned) and the ones left out."""

    kept: list[ExtractedMemory]
    vectors: np.ndarray | None
    duplicates: list[tuple[ExtractedMemory, str]] = field(default_factory=list)
    """Each dropped candidate with the stored (or earlier) text it duplicates."""


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


class MemoryDeduplicator:
    """Filters candidates that repeat stored memories or each other.

    ``existing`` items are texts or records with ``content`` and optionally ``embedding``;
    missing vectors are embedded in one batch. Pass the nearest stored memories (for example
    a scoped search with the candidates' text), not the whole store, to bound the cost.
    """

    def __init__(self, embedder: IEmbedder | None = None,
                 similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD) -> None:
        if not 0 < similarity_threshold <= 1:
            raise ValueError(f"similarity_threshold must be in (0, 1], got "
                             f"{similarity_threshold}")
        self.embedder = embedder
        self.similarity_threshold = similarity_threshold

    def deduplicate(
        self,
        candidates: Sequence[ExtractedMemory],
        existing: Sequence[str | Mapping[str, Any]] = (),
        candidate_vectors: np.ndarray | None = None,
        nearest_existing: Sequence[Sequence[tuple[str, float]]] | None = None,
    ) -> DedupResult:
        """``candidate_vectors`` (row-aligned with ``candidates``) saves embedding them.
        ``nearest_existing`` (row-aligned too) gives each candidate's closest stored texts
        with their cosine similarity, as a vector search returns them; with it the stored
        memories are not embedded again (``existing`` then serves the text check only)."""
        texts = [item if isinstance(item, str) else str(item.get("content") or "")
                 for item in existing]
        seen = {normalise_text(text): text for text in texts if text}
        exact_kept: list[ExtractedMemory] = []
        exact_rows: list[int] = []
        duplicates: list[tuple[ExtractedMemory, str]] = []
        for row, candidate in enumerate(candidates):
            key = normalise_text(candidate.content)
            if not key:
                continue
            if key in seen:
                duplicates.append((candidate, seen[key]))
                continue
            seen[key] = candidate.content
            exact_kept.append(candidate)
            exact_rows.append(row)
        if self.embedder is None or not exact_kept:
            return DedupResult(exact_kept, None, duplicates)

        vectors = _unit(self.embedder.embed([c.content for c in exact_kept])
                        if candidate_vectors is None else candidate_vectors[exact_rows])
        stored = None if nearest_existing is not None else self._existing_vectors(existing,
                                                                                  texts)
        kept: list[ExtractedMemory] = []
        kept_rows: list[int] = []
        for row, candidate in enumerate(exact_kept):
            match = (self._known_match(nearest_existing[exact_rows[row]])
                     if nearest_existing is not None
                     else self._similar(vectors[row], stored, texts))
            if match is None and kept_rows:
                match = self._similar(vectors[row], vectors[kept_rows],
                                      [kept_item.content for kept_item in kept])
            if match is not None:
                duplicates.append((candidate, match))
                continue
            kept.append(candidate)
            kept_rows.append(row)
        return DedupResult(kept, vectors[kept_rows] if kept_rows else vectors[:0], duplicates)

    def _existing_vectors(self, existing: Sequence[str | Mapping[str, Any]],
                          texts: list[str]) -> np.ndarray | None:
        if not existing:
            return None
        assert self.embedder is not None
        given = [item.get("embedding") if isinstance(item, Mapping) else None
                 for item in existing]
        missing = [i for i, vector in enumerate(given) if vector is None]
        computed: np.ndarray | list[np.ndarray] = (
            self.embedder.embed([texts[i] for i in missing]) if missing else [])
        rows = list(given)
        for position, index in enumerate(missing):
            rows[index] = computed[position]
        return _unit(np.asarray([np.asarray(row, dtype=np.float32) for row in rows]))

    def _known_match(self, nearest: Sequence[tuple[str, float]]) -> str | None:
        above = [(similarity, text) for text, similarity in nearest
                 if similarity >= self.similarity_threshold]
        return max(above)[1] if above else None

    def _similar(self, vector: np.ndarray, matrix: np.ndarray | None,
                 texts: Sequence[str]) -> str | None:
        if matrix is None or len(matrix) == 0:
            return None
        scores = matrix @ vector
        best = int(np.argmax(scores))
        return texts[best] if float(scores[best]) >= self.similarity_threshold else None
