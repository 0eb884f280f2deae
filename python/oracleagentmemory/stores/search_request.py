"""A search request as the store contract defines it: checked, with its defaults filled.

Every Python backend that answers ``search`` itself (the embedded store, the adapter of a
caller's own store) checks a request here, so both refuse the same requests the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, get_args

from oracleagentmemory._vocabulary import SEARCHABLE_TYPES
from oracleagentmemory.stores import limits
from oracleagentmemory.stores import metadata_filter as mf
from oracleagentmemory.stores.errors import InvalidArgumentError
from oracleagentmemory.stores.protocol import SCOPE_KEYS, ScopeDimension, Strategy, Vector

STRATEGIES = get_args(Strategy)
SCOPE_COLUMNS = SCOPE_KEYS


class CheckedRequest(TypedDict):
    """A search request after ``check_search_request``: every field present.

    The keys of ``protocol.SearchRequest``, written again because a TypedDict cannot derive
    a total twin from a partial one (a subclass keeps its base's requiredness, and
    ``Required`` marks keys of one class body only); a test keeps the two key sets equal.
    """

    query_text: str
    query_vector: Vector | None
    strategy: Strategy
    scope: Mapping[str, ScopeDimension]
    record_types: list[str]
    metadata_filter: dict[str, Any] | None
    include_invalid: bool
    max_results: int
    num_hops: int
    max_linked_results: int


def check_search_request(request: Mapping[str, Any]) -> CheckedRequest:
    """Validate a search request and fill the contract's defaults."""
    if not isinstance(request, dict):
        raise InvalidArgumentError("search request must be a dict")
    strategy = request.get("strategy", "VECTOR")
    if strategy not in STRATEGIES:
        raise InvalidArgumentError(f"strategy must be one of {', '.join(STRATEGIES)}")
    query_text = request.get("query_text", "")
    if not isinstance(query_text, str):
        raise InvalidArgumentError("query must be a string")
    record_types = request.get("record_types") or list(SEARCHABLE_TYPES)
    if isinstance(record_types, str):
        raise InvalidArgumentError("record_types must be a list of record type names")
    for record_type in record_types:
        if record_type not in SEARCHABLE_TYPES:
            raise InvalidArgumentError(
                f"record_types contains unknown or unsearchable record type {record_type!r}; "
                f"allowed: {', '.join(SEARCHABLE_TYPES)}"
            )
    max_results = _check_int(request.get("max_results", 10), "max_results", minimum=1)
    num_hops = _check_int(request.get("num_hops", 0), "num_hops", minimum=0)
    if num_hops > limits.MAX_HOPS:
        raise InvalidArgumentError(f"num_hops must be between 0 and {limits.MAX_HOPS}")
    max_linked = _check_int(request.get("max_linked_results", 100), "max_linked_results", 0)
    scope = request.get("scope") or {}
    for key, dimension in scope.items():
        if key not in SCOPE_COLUMNS or not isinstance(dimension, dict):
            raise InvalidArgumentError(f"scope has an unknown dimension {key!r}")
        if not isinstance(dimension.get("exact"), bool):
            raise InvalidArgumentError(f"scope {key} needs a boolean 'exact'")
        value = dimension.get("value")
        if value is not None and not isinstance(value, str):
            raise InvalidArgumentError(f"scope {key} value must be a string or None")
    return {
        "query_text": query_text,
        "query_vector": request.get("query_vector"),
        "strategy": strategy,
        "scope": scope,
        "record_types": list(dict.fromkeys(record_types)),
        "metadata_filter": mf.validate_filter(request.get("metadata_filter")),
        "include_invalid": bool(request.get("include_invalid", True)),
        "max_results": max_results,
        "num_hops": num_hops,
        "max_linked_results": max_linked,
    }


def _check_int(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgumentError(f"{name} must be an integer of at least {minimum}")
    return value
