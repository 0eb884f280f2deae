"""Vectors with components far from 1 are scored as cosines, not refused as damage.

The cache keeps unit vectors and takes a cosine past 1 for a damaged vector file; squares of
float32 components below about 1e-19 underflow (and above 1e19 overflow), so a norm taken in
float32 left a vector of tiny components longer than 1: every search meeting it read SQLite
again, then failed with DamagedFile. Norms are now taken in float64 where float32 cannot.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend

DIM = 8


def axis(scale: float, at: int = 0) -> list[float]:
    return [scale if i == at else 0.0 for i in range(DIM)]


@pytest.fixture(params=["memory", "file"])
def store(request: pytest.FixtureRequest, tmp_path: Path):
    location = ":memory:" if request.param == "memory" else tmp_path / "extremes.db"
    backend = EmbeddedBackend(location, embedding_dimension=DIM)
    backend.write_records([
        {"record_type": "memory", "id": "tiny", "content": "a", "embedding": axis(4.569e-23)},
        {"record_type": "memory", "id": "huge", "content": "b", "embedding": axis(1e20, 1)},
        {"record_type": "memory", "id": "plain", "content": "c", "embedding": axis(0.5, 2)},
        {"record_type": "memory", "id": "zero", "content": "d", "embedding": axis(0.0)},
    ])
    yield backend
    backend.close()


def distances(store: EmbeddedBackend, query: list[float]) -> dict[str, float]:
    hits = store.search({"query_vector": query, "strategy": "VECTOR", "max_results": 10})
    return {hit["record"]["id"]: hit["distance"] for hit in hits}


@pytest.mark.parametrize(("query", "nearest"), [
    (axis(1.0), "tiny"), (axis(4.569e-23), "tiny"), (axis(3e-30), "tiny"),
    (axis(1.0, 1), "huge"), (axis(1e20, 1), "huge"), (axis(1.0, 2), "plain"),
])
def test_tiny_and_huge_components_give_exact_cosines(store, query, nearest):
    got = distances(store, query)
    assert got[nearest] == pytest.approx(0.0, abs=1e-6)
    others = {"tiny", "huge", "plain"} - {nearest}
    assert all(got[other] == pytest.approx(1.0, abs=1e-6) for other in others)
    assert got["zero"] == pytest.approx(1.0, abs=1e-6)  # a zero vector is orthogonal
    assert store._cache._distrusted is False


@pytest.mark.parametrize("scale", [1e-45, 5e-43, 3e38])
def test_a_query_whose_norm_float32_cannot_hold_is_scored_exactly(scale):
    """A query of two components of 1e-45 (norm 1.98e-45, which float32 rounds to 1.4e-45)
    came out as [1, 1], a cosine of 1.41 with a stored [0.71, 0.71]: taken for damage, the
    store reloaded and the search raised; one of 3e38 (norm past float32's largest) came
    out as zeros, at distance 1 from everything."""
    backend = EmbeddedBackend(":memory:", embedding_dimension=2)
    backend.write_records([
        {"record_type": "memory", "id": "same", "content": "x", "embedding": [1.0, 1.0]},
        {"record_type": "memory", "id": "across", "content": "y", "embedding": [1.0, -1.0]}])
    hits = backend.search({"query_vector": [scale, scale], "strategy": "VECTOR"})
    backend.close()
    got = {hit["record"]["id"]: hit["distance"] for hit in hits}
    assert got == {"same": pytest.approx(0.0, abs=1e-6), "across": pytest.approx(1.0, abs=1e-6)}
