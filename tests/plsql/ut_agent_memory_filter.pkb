CREATE OR REPLACE PACKAGE BODY ut_agent_memory_filter AS
  FUNCTION j(p_text IN VARCHAR2) RETURN JSON IS
  BEGIN
    RETURN JSON_ELEMENT_T.parse(p_text).to_json;
  END j;

  FUNCTION m(p_metadata IN VARCHAR2, p_filter IN VARCHAR2) RETURN NUMBER IS
  BEGIN
    RETURN agent_memory_filter.matches(j(p_metadata), j(p_filter));
  END m;

  PROCEDURE json_equality IS
  BEGIN
    ut.expect(m('{"n": 1.0}', '{"n": 1}')).to_equal(1);
    ut.expect(m('{"b": true}', '{"b": 1}')).to_equal(0);
    ut.expect(m('{"b": 1}', '{"b": true}')).to_equal(0);
    ut.expect(m('{"s": "1"}', '{"s": 1}')).to_equal(0);
    ut.expect(m('{"z": null}', '{"z": null}')).to_equal(1);
    ut.expect(m('{}', '{"z": null}')).to_equal(0);
  END json_equality;

  PROCEDURE not_matches_missing IS
  BEGIN
    ut.expect(m('{}', '{"k": {"$not": "x"}}')).to_equal(1);
    ut.expect(m('{"k": "x"}', '{"k": {"$not": "x"}}')).to_equal(0);
    ut.expect(m('{"k": "y"}', '{"k": {"$not": {"$array_contains": "x"}}}')).to_equal(1);
    ut.expect(m('{"k": ["x"]}', '{"k": {"$not": {"$array_contains": "x"}}}')).to_equal(0);
  END not_matches_missing;

  PROCEDURE array_membership IS
  BEGIN
    ut.expect(m('{"t": ["a", "b"]}', '{"t": {"$array_contains": ["a", "b"]}}')).to_equal(1);
    ut.expect(m('{"t": ["a"]}', '{"t": {"$array_contains": ["a", "b"]}}')).to_equal(0);
    ut.expect(m('{"t": ["a"]}', '{"t": {"$array_contains_any": ["b", "a"]}}')).to_equal(1);
    ut.expect(m('{"t": "a"}', '{"t": {"$array_contains": "a"}}')).to_equal(0);
  END array_membership;

  PROCEDURE lists_and_nesting IS
  BEGIN
    ut.expect(m('{"l": [1, 2]}', '{"l": [1, 2]}')).to_equal(1);
    ut.expect(m('{"l": [2, 1]}', '{"l": [1, 2]}')).to_equal(0);
    ut.expect(m('{"l": [1, 2, 3]}', '{"l": [1, 2]}')).to_equal(0);
    ut.expect(m('{"o": {"p": {"q": 1}}}', '{"o": {"p": {"q": 1}}}')).to_equal(1);
    ut.expect(m('{"o": {"p": 1}}', '{"o": {"p": {"q": 1}}}')).to_equal(0);
    ut.expect(m('{"o": {"x": 1}}', '{"o": {}}')).to_equal(1);
  END lists_and_nesting;

  PROCEDURE operator_as_field IS
  BEGIN
    agent_memory_filter.validate(j('{"$not": {"a": 1}}'));
  END operator_as_field;

  PROCEDURE unknown_operator IS
  BEGIN
    agent_memory_filter.validate(j('{"a": {"$gt": 1}}'));
  END unknown_operator;

  PROCEDURE mixed_operators IS
  BEGIN
    agent_memory_filter.validate(j('{"a": {"$not": 1, "b": 2}}'));
  END mixed_operators;

  PROCEDURE empty_membership_list IS
  BEGIN
    agent_memory_filter.validate(j('{"a": {"$array_contains_any": []}}'));
  END empty_membership_list;

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

  PROCEDURE scope_rules IS
    l_scope JSON := j('{"user_id": {"value": null, "exact": true}, "thread_id": {"value": "t1", "exact": false}}');
  BEGIN
    ut.expect(agent_memory_scope.dimension_matches(NULL, NULL, 1)).to_equal(1);
    ut.expect(agent_memory_scope.dimension_matches('u1', NULL, 1)).to_equal(0);
    ut.expect(agent_memory_scope.dimension_matches('u1', 'u2', 0)).to_equal(1);
    ut.expect(agent_memory_scope.matches(NULL, 'a', 'other', l_scope)).to_equal(1);
    ut.expect(agent_memory_scope.matches('u1', 'a', 't1', l_scope)).to_equal(0);
    ut.expect(agent_memory_scope.affinity(NULL, 'a', 't1', l_scope)).to_equal(1);
    ut.expect(agent_memory_scope.affinity(NULL, 'a', 't2', l_scope)).to_equal(0);
  END scope_rules;
END ut_agent_memory_filter;
/
