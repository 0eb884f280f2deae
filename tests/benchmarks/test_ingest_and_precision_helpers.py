"""Helpers of the ingestion and low-precision benchmarks: ids made before timing, links
following their records, and recall leaving the query's own row out."""

from __future__ import annotations

import uuid

import numpy as np
from benchmarks.ingest_cost import _with_generated_ids
from benchmarks.ingest_schema_variants import _ids
from benchmarks.low_precision import recall


def test_generated_ids_replace_records_and_both_link_endpoints() -> None:
    batches = [
        ([{"id": "rec-0"}, {"id": "rec-1"}],
         [{"source_id": "rec-1", "target_id": "rec-0"}]),
        ([{"id": "rec-2"}],
         [{"source_id": "rec-2", "target_id": "rec-0"}]),
    ]
    _with_generated_ids(batches)
    new = [record["id"] for records, _ in batches for record in records]
    assert len(set(new)) == 3 and not any(value.startswith("rec-") for value in new)
    first_links, second_links = batches[0][1], batches[1][1]
    assert (first_links[0]["source_id"], first_links[0]["target_id"]) == (new[1], new[0])
    assert (second_links[0]["source_id"], second_links[0]["target_id"]) == (new[2], new[0])


def test_variant_ids_are_the_uuid_versions_named_and_uuid7_ascends_by_time() -> None:
    assert _ids(5, ["base"]) is None
    random_ids = [uuid.UUID(value) for value in _ids(300, ["uuid4"])]
    assert {value.version for value in random_ids} == {4}
    ordered = [uuid.UUID(value) for value in _ids(300, ["uuid7"])]
    assert {value.version for value in ordered} == {7}
    assert {value.variant for value in ordered} == {uuid.RFC_4122}
    milliseconds = [value.int >> 80 for value in ordered]
    assert milliseconds == sorted(milliseconds) and milliseconds[-1] > milliseconds[0]


def test_recall_leaves_the_query_row_out_of_both_lists() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((14, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    # the same scores: the query's own row tops the candidates, so were it kept in them
    # (and not in the exact list) it would take one of the ten places
    assert recall(vectors, vectors.copy(), pool=10, step=14) == 1.0
    # the query's own row scored last by the low form: were it kept in the exact list
    # it would be a hit the candidates miss
    low = vectors.copy()
    low[0] = -vectors[0]
    assert recall(vectors, low, pool=10, step=14) == 1.0
    # and a low form that ranks badly is seen
    noisy = vectors + rng.standard_normal(vectors.shape).astype(np.float32) * 5
    assert recall(vectors, noisy, pool=10, step=1) < 1.0
