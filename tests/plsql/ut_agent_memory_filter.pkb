-- Generated from the contract's cases (python/oracleagentmemory/conformance/cases.py) by
-- python -m oracleagentmemory_devtools.plsql_cases; edit the cases or
-- tests/plsql/templates/, never this file (tests/oracle_sql/test_plsql_cases.py checks it).
CREATE OR REPLACE PACKAGE BODY ut_agent_memory_filter AS
  -- The rich metadata document most filter cases are read against (cases.STORED).
  c_stored CONSTANT VARCHAR2(4000 CHAR) := '{"source": "chat", "count": 3, "ratio": 1.0, "flag": true, "nothing": null, "tags": ["trip", "urgent"], "travel": {"need": "transit", "city": {"name": "Rome"}}, "label": "trip", "objects": [{"a": 1}, {"b": [2]}]}';

  FUNCTION j(p_text IN VARCHAR2) RETURN JSON IS
  BEGIN
    RETURN JSON_ELEMENT_T.parse(p_text).to_json;
  END j;

  -- 1 when a record whose metadata is p_metadata (NULL: none) passes p_filter, else 0.
  FUNCTION m(p_metadata IN VARCHAR2, p_filter IN VARCHAR2) RETURN NUMBER IS
  BEGIN
    IF p_metadata IS NULL THEN
      RETURN agent_memory_filter.matches(NULL, j(p_filter));
    END IF;
    RETURN agent_memory_filter.matches(j(p_metadata), j(p_filter));
  END m;

  PROCEDURE json_equality IS
  BEGIN
    ut.expect(m(c_stored, '{"source": "chat"}')).to_equal(1);
    ut.expect(m(c_stored, '{"source": "mail"}')).to_equal(0);
    ut.expect(m(c_stored, '{"count": 3.0}')).to_equal(1);
    ut.expect(m(c_stored, '{"ratio": 1}')).to_equal(1);
    ut.expect(m(c_stored, '{"flag": 1}')).to_equal(0);
    ut.expect(m(c_stored, '{"count": true}')).to_equal(0);
    ut.expect(m(c_stored, '{"flag": true}')).to_equal(1);
    ut.expect(m(c_stored, '{"nothing": null}')).to_equal(1);
    ut.expect(m('{"n": 1.0}', '{"n": 1}')).to_equal(1);
    ut.expect(m('{"b": true}', '{"b": 1}')).to_equal(0);
    ut.expect(m('{"b": 1}', '{"b": true}')).to_equal(0);
    ut.expect(m('{"s": "1"}', '{"s": 1}')).to_equal(0);
    ut.expect(m('{"z": null}', '{"z": null}')).to_equal(1);
    ut.expect(m('{}', '{"z": null}')).to_equal(0);
  END json_equality;

  PROCEDURE missing_fields IS
  BEGIN
    ut.expect(m(c_stored, '{"missing": "x"}')).to_equal(0);
    ut.expect(m(c_stored, '{"missing": null}')).to_equal(0);
    ut.expect(m(c_stored, '{"missing": {"$not": "x"}}')).to_equal(1);
    ut.expect(m(c_stored, '{"missing": {"$not": {"$array_contains": "x"}}}')).to_equal(1);
    ut.expect(m(NULL, '{"a": 1}')).to_equal(0);
    ut.expect(m(NULL, '{"a": {"$not": 1}}')).to_equal(1);
    ut.expect(m('{}', '{"a": {"$not": 1}}')).to_equal(1);
    ut.expect(m(NULL, '{"a": {"$not": 1}, "b": 2}')).to_equal(0);
    ut.expect(m('{}', '{"k": {"$not": "x"}}')).to_equal(1);
  END missing_fields;

  PROCEDURE array_membership IS
  BEGIN
    ut.expect(m(c_stored, '{"tags": {"$array_contains": "trip"}}')).to_equal(1);
    ut.expect(m(c_stored, '{"tags": {"$array_contains": ["trip", "urgent"]}}')).to_equal(1);
    ut.expect(m(c_stored, '{"tags": {"$array_contains": ["trip", "archived"]}}')).to_equal(0);
    ut.expect(m(c_stored, '{"tags": {"$array_contains_any": ["archived", "urgent"]}}')).to_equal(1);
    ut.expect(m(c_stored, '{"tags": {"$array_contains_any": ["archived"]}}')).to_equal(0);
    ut.expect(m(c_stored, '{"label": {"$array_contains": "trip"}}')).to_equal(0);
    ut.expect(m('{"t": ["a", "b"]}', '{"t": {"$array_contains": ["a", "b"]}}')).to_equal(1);
    ut.expect(m('{"t": ["a"]}', '{"t": {"$array_contains": ["a", "b"]}}')).to_equal(0);
    ut.expect(m('{"t": ["a"]}', '{"t": {"$array_contains_any": ["b", "a"]}}')).to_equal(1);
    ut.expect(m('{"t": "a"}', '{"t": {"$array_contains": "a"}}')).to_equal(0);
  END array_membership;

  PROCEDURE negation IS
  BEGIN
    ut.expect(m(c_stored, '{"tags": {"$not": {"$array_contains": "archived"}}}')).to_equal(1);
    ut.expect(m(c_stored, '{"tags": {"$array_contains": "trip", "$not": {"$array_contains": "archived"}}}')).to_equal(1);
    ut.expect(m(c_stored, '{"tags": {"$array_contains": "trip", "$not": {"$array_contains": "urgent"}}}')).to_equal(0);
    ut.expect(m(c_stored, '{"label": {"$not": {"$array_contains": "trip"}}}')).to_equal(1);
    ut.expect(m(c_stored, '{"source": {"$not": "chat"}}')).to_equal(0);
    ut.expect(m(c_stored, '{"source": {"$not": "mail"}}')).to_equal(1);
    ut.expect(m(c_stored, '{"travel": {"$not": {"need": "walk"}}}')).to_equal(1);
    ut.expect(m(c_stored, '{"travel": {"need": {"$not": "transit"}}}')).to_equal(0);
    ut.expect(m(c_stored, '{"source": {"$not": {"$not": "chat"}}}')).to_equal(1);
    ut.expect(m('{"k": "x"}', '{"k": {"$not": "x"}}')).to_equal(0);
    ut.expect(m('{"k": "y"}', '{"k": {"$not": {"$array_contains": "x"}}}')).to_equal(1);
    ut.expect(m('{"k": ["x"]}', '{"k": {"$not": {"$array_contains": "x"}}}')).to_equal(0);
  END negation;

  PROCEDURE lists_and_nesting IS
  BEGIN
    ut.expect(m(c_stored, '{"tags": ["trip", "urgent"]}')).to_equal(1);
    ut.expect(m(c_stored, '{"tags": ["urgent", "trip"]}')).to_equal(0);
    ut.expect(m(c_stored, '{"tags": ["trip"]}')).to_equal(0);
    ut.expect(m(c_stored, '{"travel": {"need": "transit"}}')).to_equal(1);
    ut.expect(m(c_stored, '{"travel": {"city": {"name": "Rome"}}}')).to_equal(1);
    ut.expect(m(c_stored, '{"travel": {"city": {"name": "Paris"}}}')).to_equal(0);
    ut.expect(m(c_stored, '{"source": {"need": "x"}}')).to_equal(0);
    ut.expect(m(c_stored, '{"objects": [{"a": 1}, {"b": [2]}]}')).to_equal(1);
    ut.expect(m(c_stored, '{"objects": [{"a": 1}]}')).to_equal(0);
    ut.expect(m(c_stored, '{"objects": [{"a": 1}, {"b": [2], "c": 3}]}')).to_equal(0);
    ut.expect(m('{"l": [1, 2]}', '{"l": [1, 2]}')).to_equal(1);
    ut.expect(m('{"l": [2, 1]}', '{"l": [1, 2]}')).to_equal(0);
    ut.expect(m('{"l": [1, 2, 3]}', '{"l": [1, 2]}')).to_equal(0);
    ut.expect(m('{"o": {"p": {"q": 1}}}', '{"o": {"p": {"q": 1}}}')).to_equal(1);
    ut.expect(m('{"o": {"p": 1}}', '{"o": {"p": {"q": 1}}}')).to_equal(0);
    ut.expect(m('{"o": {"x": 1}}', '{"o": {}}')).to_equal(1);
  END lists_and_nesting;

  PROCEDURE every_key IS
  BEGIN
    ut.expect(m(c_stored, '{}')).to_equal(1);
    ut.expect(m(c_stored, '{"source": "chat", "travel": {"need": "transit"}, "tags": ["trip", "urgent"]}')).to_equal(1);
    ut.expect(m(c_stored, '{"source": "chat", "count": 4}')).to_equal(0);
  END every_key;

  PROCEDURE invalid_filter_01 IS
  BEGIN
    agent_memory_filter.validate(j('{"tags": {"$contains": "x"}}'));
  END invalid_filter_01;

  PROCEDURE invalid_filter_02 IS
  BEGIN
    agent_memory_filter.validate(j('{"a": {"$gt": 1}}'));
  END invalid_filter_02;

  PROCEDURE invalid_filter_03 IS
  BEGIN
    agent_memory_filter.validate(j('{"$or": [{"a": 1}]}'));
  END invalid_filter_03;

  PROCEDURE invalid_filter_04 IS
  BEGIN
    agent_memory_filter.validate(j('{"$not": {"a": 1}}'));
  END invalid_filter_04;

  PROCEDURE invalid_filter_05 IS
  BEGIN
    agent_memory_filter.validate(j('{"tags": {"$array_contains": "x", "name": "y"}}'));
  END invalid_filter_05;

  PROCEDURE invalid_filter_06 IS
  BEGIN
    agent_memory_filter.validate(j('{"a": {"$not": 1, "b": 2}}'));
  END invalid_filter_06;

  PROCEDURE invalid_filter_07 IS
  BEGIN
    agent_memory_filter.validate(j('{"tags": {"$array_contains_any": "x"}}'));
  END invalid_filter_07;

  PROCEDURE invalid_filter_08 IS
  BEGIN
    agent_memory_filter.validate(j('{"tags": {"$array_contains": []}}'));
  END invalid_filter_08;

  PROCEDURE invalid_filter_09 IS
  BEGIN
    agent_memory_filter.validate(j('{"a": {"$array_contains_any": []}}'));
  END invalid_filter_09;

  PROCEDURE invalid_filter_10 IS
  BEGIN
    agent_memory_filter.validate(j('{"a": {"b": {"$bad": 1}}}'));
  END invalid_filter_10;

  PROCEDURE invalid_filter_11 IS
  BEGIN
    agent_memory_filter.validate(j('{"": 1}'));
  END invalid_filter_11;

  PROCEDURE scope_no_scope IS
  BEGIN
    ut.expect(agent_memory_scope.matches('u1', 'a1', 't1', j('{}'))).to_equal(1);
    ut.expect(agent_memory_scope.affinity('u1', 'a1', 't1', j('{}'))).to_equal(0);
  END scope_no_scope;

  PROCEDURE scope_exact_value IS
  BEGIN
    ut.expect(agent_memory_scope.matches('u1', 'a1', 't1', j('{"user_id": {"value": "u1", "exact": true}}'))).to_equal(1);
    ut.expect(agent_memory_scope.affinity('u1', 'a1', 't1', j('{"user_id": {"value": "u1", "exact": true}}'))).to_equal(0);
  END scope_exact_value;

  PROCEDURE scope_exact_other_value IS
  BEGIN
    ut.expect(agent_memory_scope.matches('u2', 'a1', 't1', j('{"user_id": {"value": "u1", "exact": true}}'))).to_equal(0);
  END scope_exact_other_value;

  PROCEDURE scope_exact_null_matches_null IS
  BEGIN
    ut.expect(agent_memory_scope.matches(NULL, 'a', 'other', j('{"user_id": {"value": null, "exact": true}, "thread_id": {"value": "t1", "exact": false}}'))).to_equal(1);
    ut.expect(agent_memory_scope.affinity(NULL, 'a', 'other', j('{"user_id": {"value": null, "exact": true}, "thread_id": {"value": "t1", "exact": false}}'))).to_equal(0);
  END scope_exact_null_matches_null;

  PROCEDURE scope_exact_null_drops_values IS
  BEGIN
    ut.expect(agent_memory_scope.matches('u1', 'a', 't1', j('{"user_id": {"value": null, "exact": true}, "thread_id": {"value": "t1", "exact": false}}'))).to_equal(0);
  END scope_exact_null_drops_values;

  PROCEDURE scope_exact_value_drops_null IS
  BEGIN
    ut.expect(agent_memory_scope.matches(NULL, 'a1', 't1', j('{"user_id": {"value": "u1", "exact": true}}'))).to_equal(0);
  END scope_exact_value_drops_null;

  PROCEDURE scope_non_exact_never_drops IS
  BEGIN
    ut.expect(agent_memory_scope.matches('u2', 'a1', 't1', j('{"user_id": {"value": "u1", "exact": false}}'))).to_equal(1);
    ut.expect(agent_memory_scope.affinity('u2', 'a1', 't1', j('{"user_id": {"value": "u1", "exact": false}}'))).to_equal(0);
  END scope_non_exact_never_drops;

  PROCEDURE scope_non_exact_affinity IS
  BEGIN
    ut.expect(agent_memory_scope.matches(NULL, 'a', 't1', j('{"user_id": {"value": null, "exact": true}, "thread_id": {"value": "t1", "exact": false}}'))).to_equal(1);
    ut.expect(agent_memory_scope.affinity(NULL, 'a', 't1', j('{"user_id": {"value": null, "exact": true}, "thread_id": {"value": "t1", "exact": false}}'))).to_equal(1);
  END scope_non_exact_affinity;

  PROCEDURE scope_affinity_per_dimension IS
  BEGIN
    ut.expect(agent_memory_scope.matches('u1', 'a1', 't1', j('{"user_id": {"value": "u1", "exact": false}, "agent_id": {"value": "a1", "exact": false}, "thread_id": {"value": "t9", "exact": false}}'))).to_equal(1);
    ut.expect(agent_memory_scope.affinity('u1', 'a1', 't1', j('{"user_id": {"value": "u1", "exact": false}, "agent_id": {"value": "a1", "exact": false}, "thread_id": {"value": "t9", "exact": false}}'))).to_equal(2);
  END scope_affinity_per_dimension;

  PROCEDURE scope_exact_dimensions_add_no_affinity IS
  BEGIN
    ut.expect(agent_memory_scope.matches('u1', 'a1', 't1', j('{"user_id": {"value": "u1", "exact": true}, "agent_id": {"value": "a1", "exact": true}}'))).to_equal(1);
    ut.expect(agent_memory_scope.affinity('u1', 'a1', 't1', j('{"user_id": {"value": "u1", "exact": true}, "agent_id": {"value": "a1", "exact": true}}'))).to_equal(0);
  END scope_exact_dimensions_add_no_affinity;

  PROCEDURE prefilter_whitelist IS
    l_sql VARCHAR2(32767);
  BEGIN
    l_sql := agent_memory_filter.prefilter(j('{"src": "chat-secret", "n": 1}'));
    ut.expect(l_sql).to_be_like('%JSON_EXISTS(r.metadata, ''$.src?(@ == $v0)'' PASSING JSON_VALUE(flt.f, ''$.src'') AS "v0")%');
    ut.expect(l_sql).to_be_like('%JSON_EXISTS(r.metadata, ''$.n'')%');
    ut.expect(INSTR(l_sql, 'chat-secret')).to_equal(0);
    ut.expect(agent_memory_filter.prefilter(j('{"a''b": "x", "c d": 1}'))).to_equal('1 = 1');
    ut.expect(agent_memory_filter.prefilter(j('{"k": {"$not": "x"}}'))).to_equal('1 = 1');
  END prefilter_whitelist;
END ut_agent_memory_filter;
/
