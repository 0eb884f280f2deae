"""The compiled metadata prefilter always fits the statements it is spliced into.

search.ranking_sql and record_api.get_records build their dynamic SQL in a
VARCHAR2(32767) and splice <prefix>_FILTER.prefilter() into it; a PL/SQL VARCHAR2 assigned
more than it holds raises VALUE_ERROR (ORA-06502). The contract (stores/limits.py,
stores/metadata_filter.py) accepts a filter whose prefilter text, without a budget, is
longer than that: field names nested 32 deep (compile_object compiles at most
c_max_compiled predicates), each as long as c_safe_key allows. The embedded store answers
such a filter; Oracle failed the search with ORA-06502.
"""

from __future__ import annotations

import re

from oracleagentmemory.stores.metadata_filter import validate_filter
from oracleagentmemory.stores.oracle_sql import render

FILES = dict(render.render_install())
VARCHAR2_MAX = 32767
"""Bytes of the PL/SQL VARCHAR2(32767) the callers build their statement in (the field
names c_safe_key lets through are ASCII, so characters are bytes)."""


def _constant(body: str, name: str) -> int:
    return int(re.search(rf"\b{name}\s+CONSTANT PLS_INTEGER := (\d+);", body).group(1))


def _literal_chars(function_text: str) -> int:
    """Characters of every string literal in the text (all branches counted: an upper
    bound of the constant part of the statement it builds)."""
    return sum(len(literal.replace("''", "'"))
               for literal in re.findall(r"'((?:[^']|'')*)'", function_text))


def _function(body: str, name: str) -> str:
    start = re.search(rf"\n  (?:FUNCTION|PROCEDURE) {name}\b", body).start()
    return body[start:body.index(f"END {name};", start)]


def _deepest_filter(depth: int, key_length: int) -> dict:
    """A filter of `depth` nested field names of `key_length` characters, the innermost
    holding a number (a JSON_EXISTS predicate per level)."""
    spec: object = 1
    for level in range(depth):
        spec = {chr(ord("a") + level % 26) * key_length: spec}
    assert isinstance(spec, dict)
    return spec


def test_the_deepest_compiled_filter_the_contract_allows_overflows_an_unbounded_prefilter():
    # the premise: without a budget, the prefilter text outgrows the statement's VARCHAR2
    filter_body = FILES["agent_memory_filter.pkb"]
    spec = FILES["agent_memory_filter.pks"]
    depth = _constant(filter_body, "c_max_compiled")
    key_length = int(re.search(r"c_safe_key CONSTANT VARCHAR2\(40 CHAR\) := "
                               r"'\^\[A-Za-z\]\[A-Za-z0-9_\]\{0,(\d+)\}\$';", spec).group(1)) + 1
    assert validate_filter(_deepest_filter(depth, key_length))  # the contract accepts it
    predicate = len(" AND JSON_EXISTS(r.metadata, '')")
    unbounded = len("1 = 1") + sum(predicate + len("$") + level * (1 + key_length)
                                   for level in range(1, depth + 1))
    assert unbounded > VARCHAR2_MAX


def test_the_prefilter_is_cut_at_a_budget_that_leaves_room_for_each_statement():
    filter_body = FILES["agent_memory_filter.pkb"]
    budget = _constant(filter_body, "c_max_prefilter_chars")
    compile_object = _function(filter_body, "compile_object")
    # every predicate goes through the one check against the budget before it is appended
    assert re.search(r"IF NVL\(LENGTH\(p_sql\), 0\) \+ LENGTH\(p_part\) > "
                     r"c_max_prefilter_chars THEN", compile_object)
    assert compile_object.count("p_sql := p_sql ||") == 1
    assert compile_object.count("EXIT WHEN NOT appended(l_part);") == 3
    # a predicate that would pass the budget is never appended, so the prefilter text is
    # at most the budget; with every literal of the statement it still fits
    for name, function in (("agent_memory_search.pkb", "ranking_sql"),
                           ("agent_memory_record_api.pkb", "get_records")):
        statement = _literal_chars(_function(FILES[name], function))
        assert budget + statement <= VARCHAR2_MAX, (name, budget, statement)
