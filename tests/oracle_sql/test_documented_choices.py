"""The safe choices taken where the documentation left doubt, pinned on the
rendered SQL (docs/oracle.md, "Decisions taken from the documentation")."""

from __future__ import annotations

import re

from oracleagentmemory.stores.oracle_sql.render import render_install

BODIES = {name: text for name, text in render_install(embedding_model="DOC_MODEL",
                                                      search_strategy="HYBRID")
          if name.endswith(".pkb")}


def _declared_json(body: str) -> set[str]:
    """Variables and record fields declared of type JSON."""
    return {name.lower() for name in re.findall(r"^\s+(\w+)\s+JSON[;,]", body, re.MULTILINE)}


def test_no_plsql_json_value_is_bound_into_dynamic_sql():
    # JSON documents travel as CLOB text and become JSON in SQL through JSON(:b)
    checked = 0
    for name, body in BODIES.items():
        json_variables = _declared_json(body)
        for using in re.findall(r"\bUSING\b(.*?);", body, flags=re.S):
            bound = {word.lower() for word in re.findall(r"\w+", using)}
            assert not bound & json_variables, (name, bound & json_variables)
            checked += 1
    assert checked >= 3
    assert "filter_json" in _declared_json(BODIES["agent_memory_search.pkb"])
    assert "JSON(:b_filter) AS f" in BODIES["agent_memory_search.pkb"]
    assert "JSON(:b_filter) AS f" in BODIES["agent_memory_record_api.pkb"]


def test_large_loosely_scoped_vector_searches_let_the_index_preselect():
    body = BODIES["agent_memory_search.pkb"]
    block = body[body.index("FUNCTION preselect("):body.index("END preselect;")]
    # no preselection for another strategy, a metadata filter or an exact scope dimension
    assert ("IF p_req.strategy <> 'VECTOR' OR p_req.filter_json IS NOT NULL\n"
            "       OR dim_exact(p_req.scope.user_dim) + dim_exact(p_req.scope.agent_dim)\n"
            "          + dim_exact(p_req.scope.thread_dim) > 0 THEN\n"
            "      RETURN NULL;") in block
    exact = body[body.index("FUNCTION dim_exact("):body.index("END dim_exact;")]
    assert "CASE WHEN p_dim.present AND p_dim.exact THEN 1 ELSE 0 END" in exact
    assert "IF l_rows <= c_approx_min_rows THEN\n      RETURN NULL;" in block
    assert "FETCH APPROX FIRST l_rows ROWS ONLY WITH TARGET ACCURACY 95" in block
    # the exact ranking then runs over the preselected records only
    assert ("AND (flt.has_near = 0 OR r.seq IN (SELECT n.COLUMN_VALUE FROM TABLE(:b_near) n))"
            in body)
    assert "l_req.near := preselect(l_req, l_now);" in body


def test_the_model_is_called_only_through_documented_plsql_and_sql_entry_points():
    body = BODIES["agent_memory_record_api.pkb"]
    assert "VECTOR_EMBEDDING(" not in body  # needs a VARCHAR2 input, at most 4000 bytes
    assert "DBMS_VECTOR_CHAIN.UTL_TO_EMBEDDING(" in body


def test_the_sqlplus_upgrade_refuses_a_store_with_other_choices_before_compiling():
    # the same for the DBA path: install/upgrade.sql carries the default rendering
    from pathlib import Path

    script = (Path(__file__).resolve().parents[2] / "install" / "upgrade.sql").read_text()
    check = script.index("meta_key = 'embedding_dimension' AND meta_value <> '384'")
    assert "meta_key = 'embedding_model' AND meta_value IS NOT NULL" in script
    assert "meta_key = 'sync_mode' AND meta_value <> 'ON_COMMIT'" in script
    assert check < script.index("@@packages.sql")
