"""Search configs: their fields, defaults and validation."""

from __future__ import annotations

import dataclasses

import pytest

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.apis.searchconfig import ISearchConfig
from oracleagentmemory.core.rerankers_local import RankFusionReranker
from oracleagentmemory.core.searchconfig import (
    MemorySearchConfig,
    PruningEvaluationMode,
    PruningMemorySearchConfig,
    TopKMemorySearchConfig,
)


class NoLlm:
    def generate(self, prompt, *, response_json_schema=None, **kwargs):
        raise AssertionError("not called")


def test_every_field_starts_not_set():
    config = PruningMemorySearchConfig(pruner=NoLlm())
    assert all(getattr(config, field.name) is NOT_SET_MARKER
               for field in dataclasses.fields(config) if field.name != "pruner")
    assert isinstance(TopKMemorySearchConfig(), MemorySearchConfig)
    assert isinstance(MemorySearchConfig(), ISearchConfig)


def test_field_order_and_the_keyword_only_pruner():
    assert [f.name for f in dataclasses.fields(TopKMemorySearchConfig)] == [
        "token_budget", "soft_token_budget", "reranker", "reranker_max_candidates",
        "max_results"]
    config = PruningMemorySearchConfig(100, None, None, 20, "extended", 3, 0.5, pruner=NoLlm())
    assert (config.token_budget, config.reranker_max_candidates, config.num_probe_points,
            config.protected_fraction) == (100, 20, 3, 0.5)
    assert config.evaluation_mode is PruningEvaluationMode.EXTENDED
    with pytest.raises(TypeError, match="pruner"):
        PruningMemorySearchConfig()


def test_evaluation_modes():
    assert [mode.value for mode in PruningEvaluationMode] == ["fast", "extended", "exhaustive"]
    assert PruningEvaluationMode("fast") == "fast"


@pytest.mark.parametrize(("make", "field"), [
    (lambda: MemorySearchConfig(token_budget=0), "token_budget"),
    (lambda: MemorySearchConfig(soft_token_budget=True), "soft_token_budget"),
    (lambda: TopKMemorySearchConfig(max_results=0), "max_results"),
    (lambda: TopKMemorySearchConfig(reranker_max_candidates="50"), "reranker_max_candidates"),
    (lambda: PruningMemorySearchConfig(evaluation_mode="slow", pruner=NoLlm()),
     "evaluation_mode"),
    (lambda: PruningMemorySearchConfig(num_probe_points=0, pruner=NoLlm()), "num_probe_points"),
    (lambda: PruningMemorySearchConfig(protected_fraction=1.5, pruner=NoLlm()),
     "protected_fraction"),
])
def test_bad_values_raise_value_errors_naming_the_field(make, field):
    with pytest.raises(ValueError, match=field):
        make()


def test_wrong_objects_raise_type_errors_naming_the_field():
    with pytest.raises(TypeError, match="reranker"):
        TopKMemorySearchConfig(reranker="cohere")
    with pytest.raises(TypeError, match="pruner"):
        PruningMemorySearchConfig(pruner="gpt")


def test_values_are_checked_when_set_later_too():
    config = TopKMemorySearchConfig(reranker=RankFusionReranker(), max_results=5)
    config.max_results = 7
    assert config.max_results == 7
    with pytest.raises(ValueError, match="max_results"):
        config.max_results = -1
    config.max_results = NOT_SET_MARKER
    assert config.max_results is NOT_SET_MARKER
    assert MemorySearchConfig(token_budget=None).token_budget is None
