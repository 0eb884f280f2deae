CREATE OR REPLACE PACKAGE BODY ut_agent_memory_search AS
  c_dim CONSTANT PLS_INTEGER := 384;

  FUNCTION j(p_text IN CLOB) RETURN JSON IS
  BEGIN
    RETURN JSON_ELEMENT_T.parse(p_text).to_json;
  END j;

  -- cos(angle) = p_x on axes 1 and 2
  FUNCTION vec(p_x IN NUMBER, p_y IN NUMBER) RETURN CLOB IS
    l_text CLOB := '[' || TO_CHAR(p_x, 'FM0.000000') || ',' || TO_CHAR(p_y, 'FM0.000000');
  BEGIN
    FOR i IN 3 .. c_dim LOOP
      l_text := l_text || ',0';
    END LOOP;
    RETURN l_text || ']';
  END vec;

  FUNCTION ids(p_request IN CLOB) RETURN VARCHAR2 IS
    l_hits JSON_ARRAY_T := TREAT(JSON_ELEMENT_T.load(agent_memory.search(p_request => j(p_request))) AS JSON_ARRAY_T);
    l_out  VARCHAR2(4000 CHAR);
  BEGIN
    FOR i IN 0 .. l_hits.get_size - 1 LOOP
      l_out := l_out || CASE WHEN i > 0 THEN ',' END
            || TREAT(l_hits.get(i) AS JSON_OBJECT_T).get_object('record').get_string('id');
    END LOOP;
    RETURN l_out;
  END ids;

  PROCEDURE seed IS
    l_ids JSON;
  BEGIN
    l_ids := agent_memory.write_records(p_records => j('['
      || '{"record_type": "memory", "id": "near", "user_id": "u1", "thread_id": "t1", "content": "a", "embedding": ' || vec(1, 0) || '},'
      || '{"record_type": "fact", "id": "mid", "user_id": null, "thread_id": "t2", "content": "b", "metadata": {"src": "chat"}, "embedding": ' || vec(0.96, 0.28) || '},'
      || '{"record_type": "memory", "id": "far", "user_id": "u2", "thread_id": "t1", "content": "c", "status": "INVALID", "embedding": ' || vec(0, 1) || '}'
      || ']'), p_commit => FALSE);
  END seed;

  PROCEDURE vector_ranking IS
  BEGIN
    ut.expect(ids('{"query_vector": ' || vec(1, 0) || ', "strategy": "VECTOR"}')).to_equal('near,mid,far');
    ut.expect(ids('{"query_vector": ' || vec(1, 0) || ', "max_results": 1}')).to_equal('near');
  END vector_ranking;

  PROCEDURE exact_scope IS
  BEGIN
    ut.expect(ids('{"query_vector": ' || vec(1, 0) || ', "scope": {"user_id": {"value": null, "exact": true}}}'))
      .to_equal('mid');
    ut.expect(ids('{"query_vector": ' || vec(1, 0) || ', "scope": {"thread_id": {"value": "t1", "exact": true}}}'))
      .to_equal('near,far');
  END exact_scope;

  PROCEDURE scope_affinity IS
  BEGIN
    -- mid is 0.04 farther than near: affinity (0.05) on thread t2 lifts it above near
    ut.expect(ids('{"query_vector": ' || vec(1, 0) || ', "scope": {"thread_id": {"value": "t2", "exact": false}}}'))
      .to_equal('mid,near,far');
  END scope_affinity;

  PROCEDURE status_and_filter IS
  BEGIN
    ut.expect(ids('{"query_vector": ' || vec(1, 0) || ', "include_invalid": false}')).to_equal('near,mid');
    ut.expect(ids('{"query_vector": ' || vec(1, 0) || ', "metadata_filter": {"src": "chat"}}')).to_equal('mid');
    ut.expect(ids('{"query_vector": ' || vec(1, 0) || ', "metadata_filter": {"src": {"$not": "chat"}}}'))
      .to_equal('near,far');
  END status_and_filter;

  PROCEDURE search_rows_from_sql IS
    -- CLOB text made JSON in SQL: j and vec are private to this body (PLS-00231 in SQL)
    l_request CLOB := '{"query_vector": ' || vec(1, 0) || '}';
    l_ids     VARCHAR2(4000 CHAR);
  BEGIN
    SELECT LISTAGG(h.record_id, ',') WITHIN GROUP (ORDER BY h.rank)
      INTO l_ids
      FROM agent_memory.search_rows(JSON(l_request)) h;
    ut.expect(l_ids).to_equal('near,mid,far');
  END search_rows_from_sql;

  PROCEDURE unknown_strategy IS
  BEGIN
    ut.expect(ids('{"query_vector": ' || vec(1, 0) || ', "strategy": "FUZZY"}')).to_be_null();
  END unknown_strategy;

  PROCEDURE query_dimension IS
  BEGIN
    ut.expect(ids('{"query_vector": [1, 0]}')).to_be_null();
  END query_dimension;

  PROCEDURE keyword_search IS
    l_ids JSON;
  BEGIN
    agent_memory.reset_store(p_commit => TRUE);
    l_ids := agent_memory.write_records(p_records => j('['
      || '{"record_type": "memory", "id": "k1", "content": "User likes pizza", "embedding": null},'
      || '{"record_type": "memory", "id": "k2", "content": "User lives in Paris", "embedding": null},'
      || '{"record_type": "message", "id": "k3", "role": "assistant", "content": "Here''s what is new", "embedding": null}]'));
    ut.expect(ids('{"query_text": "pizza OR ; DROP", "strategy": "KEYWORD"}')).to_equal('k1');
    ut.expect(ids('{"query_text": "Paris", "strategy": "KEYWORD"}')).to_equal('k2');
    -- Stopwords (the shared list) never match: "what", "is", "my" and the "s" of "spouse's".
    ut.expect(ids('{"query_text": "What is my spouse''s name?", "strategy": "KEYWORD"}')).to_be_null();
    agent_memory.reset_store(p_commit => TRUE);
  EXCEPTION
    WHEN OTHERS THEN
      agent_memory.reset_store(p_commit => TRUE);
      RAISE;
  END keyword_search;
END ut_agent_memory_search;
/
