"""The metadata filter language, checked on its reference evaluator with the contract's
cases (the same table the contract suite and the utPLSQL suite run)."""

from __future__ import annotations

import pytest

from oracleagentmemory.conformance.cases import FILTER_CASES, MALFORMED_FILTERS
from oracleagentmemory.stores.errors import InvalidFilterError
from oracleagentmemory.stores.metadata_filter import matches, validate_filter


@pytest.mark.parametrize("case", FILTER_CASES,
                         ids=[f"{case.group.name}-{i}" for i, case in enumerate(FILTER_CASES)])
def test_filter_semantics(case):
    assert matches(validate_filter(case.metadata_filter), case.metadata) is case.matches


@pytest.mark.parametrize("case", MALFORMED_FILTERS,
                         ids=[f"malformed-{i}" for i in range(len(MALFORMED_FILTERS))])
def test_malformed_filters_raise_value_error_naming_the_key(case):
    with pytest.raises(InvalidFilterError) as error:
        validate_filter(case.metadata_filter)
    assert isinstance(error.value, ValueError)
    assert case.names in str(error.value)


def test_none_filter_is_no_filter():
    assert validate_filter(None) is None
    assert matches(None, {"x": 1}) is True
