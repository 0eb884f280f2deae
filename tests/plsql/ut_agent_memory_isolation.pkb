CREATE OR REPLACE PACKAGE BODY ut_agent_memory_isolation AS
  c_dim CONSTANT PLS_INTEGER := 384;

  FUNCTION j(p_text IN CLOB) RETURN JSON IS
  BEGIN
    RETURN JSON_ELEMENT_T.parse(p_text).to_json;
  END j;

  FUNCTION unit(p_axis IN PLS_INTEGER) RETURN CLOB IS
    l_text CLOB := '[';
  BEGIN
    FOR i IN 1 .. c_dim LOOP
      l_text := l_text || CASE WHEN i = p_axis THEN '1' ELSE '0' END || CASE WHEN i < c_dim THEN ',' END;
    END LOOP;
    RETURN l_text || ']';
  END unit;

  FUNCTION mem(p_id IN VARCHAR2, p_user IN VARCHAR2, p_thread IN VARCHAR2, p_axis IN PLS_INTEGER,
               p_extra IN VARCHAR2 DEFAULT NULL) RETURN CLOB IS
  BEGIN
    RETURN '{"record_type": "memory", "id": "' || p_id || '", "user_id": '
      || CASE WHEN p_user IS NULL THEN 'null' ELSE '"' || p_user || '"' END
      || ', "thread_id": "' || p_thread || '", "content": "' || p_id || '", "embedding": '
      || unit(p_axis) || p_extra || '}';
  END mem;

  FUNCTION link(p_id IN VARCHAR2, p_thread IN VARCHAR2, p_source IN VARCHAR2, p_target IN VARCHAR2)
    RETURN CLOB IS
  BEGIN
    RETURN '{"id": "' || p_id || '", "thread_id": "' || p_thread || '", "source_id": "' || p_source
      || '", "source_type": "memory", "target_id": "' || p_target || '", "target_type": "memory",'
      || ' "relation_type": "supports"}';
  END link;

  -- Two users with two records, a link and a message each, plus a record of no user; written
  -- unbound (the owner is unrestricted).
  PROCEDURE seed IS
    l_ids JSON;
  BEGIN
    agent_memory_session.clear_end_user;
    l_ids := agent_memory.write_records(
      p_records => j('[' || mem('a1', 'A', 'tA', 1) || ',' || mem('a2', 'A', 'tA', 2) || ','
        || mem('b1', 'B', 'tB', 1) || ',' || mem('b2', 'B', 'tB', 2) || ','
        || mem('n1', NULL, 'tN', 1) || ','
        || '{"record_type": "message", "id": "ma", "user_id": "A", "thread_id": "tA", "role": "user", "content": "hi A"},'
        || '{"record_type": "message", "id": "mb", "user_id": "B", "thread_id": "tB", "role": "user", "content": "hi B"}]'),
      p_links => j('[' || link('la', 'tA', 'a1', 'a2') || ',' || link('lb', 'tB', 'b1', 'b2') || ']'),
      p_commit => FALSE);
  END seed;

  FUNCTION ids(p_records IN JSON) RETURN VARCHAR2 IS
    l_arr JSON_ARRAY_T := TREAT(JSON_ELEMENT_T.load(p_records) AS JSON_ARRAY_T);
    l_out VARCHAR2(4000 CHAR);
  BEGIN
    FOR i IN 0 .. l_arr.get_size - 1 LOOP
      l_out := l_out || CASE WHEN i > 0 THEN ',' END
            || TREAT(l_arr.get(i) AS JSON_OBJECT_T).get_string('id');
    END LOOP;
    RETURN l_out;
  END ids;

  FUNCTION all_ids RETURN VARCHAR2 IS
  BEGIN
    RETURN ids(agent_memory.get_records(p_query => j('{"record_types": ["memory", "message"]}')));
  END all_ids;

  FUNCTION count_user(p_user IN VARCHAR2) RETURN NUMBER IS
    l_n NUMBER;
  BEGIN
    SELECT COUNT(*) INTO l_n FROM agent_memory_records WHERE user_id = p_user;
    RETURN l_n;
  END count_user;

  PROCEDURE unbind IS
  BEGIN
    agent_memory_session.clear_end_user;
  END unbind;

  PROCEDURE unbound_owner_sees_all IS
  BEGIN
    seed;
    ut.expect(agent_memory_session.access_mode).to_equal('UNRESTRICTED');
    ut.expect(all_ids).to_equal('a1,a2,b1,b2,n1,ma,mb');
    ut.expect(count_user('B')).to_equal(3);
  END unbound_owner_sees_all;

  PROCEDURE get_records_only_own IS
  BEGIN
    seed;
    agent_memory_session.set_end_user('A');
    ut.expect(agent_memory_session.access_mode).to_equal('BOUND');
    ut.expect(agent_memory_session.end_user_id).to_equal('A');
    ut.expect(all_ids).to_equal('a1,a2,ma');
    -- asking for B explicitly, by scope or by id, returns nothing
    ut.expect(ids(agent_memory.get_records(p_query => j('{"user_id": "B"}')))).to_be_null();
    ut.expect(ids(agent_memory.get_records(p_query => j('{"ids": ["b1", "b2", "mb"]}')))).to_be_null();
    ut.expect(ids(agent_memory.get_records(p_query => j('{"metadata_filter": {}}')))).to_equal('a1,a2,ma');
  END get_records_only_own;

  PROCEDURE search_only_own IS
    -- CLOB text made JSON in SQL: j and unit are private to this body (PLS-00231 in SQL)
    l_request CLOB := '{"query_vector": ' || unit(1) || ', "strategy": "VECTOR", "max_results": 10}';
    l_hits    JSON_ARRAY_T;
    l_count   NUMBER;
  BEGIN
    seed;
    agent_memory_session.set_end_user('A');
    l_hits := TREAT(JSON_ELEMENT_T.load(agent_memory.search(p_request => j(
      '{"query_vector": ' || unit(1) || ', "strategy": "VECTOR", "max_results": 10,'
      || ' "scope": {"user_id": {"value": "B", "exact": true}}}'))) AS JSON_ARRAY_T);
    ut.expect(l_hits.get_size).to_equal(0);
    SELECT COUNT(*) INTO l_count
      FROM agent_memory.search_rows(JSON(l_request)) h
     WHERE h.record_id NOT IN ('a1', 'a2');
    ut.expect(l_count).to_equal(0);
    SELECT COUNT(*) INTO l_count
      FROM agent_memory.search_rows(JSON(l_request)) h;
    ut.expect(l_count).to_equal(2);
  END search_only_own;

  PROCEDURE list_messages_only_own IS
  BEGIN
    seed;
    agent_memory_session.set_end_user('A');
    ut.expect(ids(agent_memory.list_messages(p_thread_id => 'tB'))).to_be_null();
    ut.expect(ids(agent_memory.list_messages(p_thread_id => 'tA'))).to_equal('ma');
  END list_messages_only_own;

  PROCEDURE cannot_update_other IS
    l_out JSON;
  BEGIN
    seed;
    agent_memory_session.set_end_user('A');
    l_out := agent_memory.update_record(p_record_id => 'b1', p_record_types => j('["memory"]'),
                                        p_changes => j('{"content": "hacked"}'), p_commit => FALSE);
    ut.expect(l_out IS NULL).to_be_true();
    l_out := agent_memory.update_record(p_record_id => 'a1', p_record_types => j('["memory"]'),
                                        p_changes => j('{"content": "mine"}'), p_commit => FALSE);
    ut.expect(l_out IS NOT NULL).to_be_true();
    agent_memory_session.clear_end_user;
    ut.expect(JSON_VALUE(agent_memory.get_records(p_query => j('{"ids": ["b1"]}')), '$[0].content'))
      .to_equal('b1');
  END cannot_update_other;

  PROCEDURE cannot_delete_other IS
    l_count NUMBER;
    l_out   JSON;
  BEGIN
    seed;
    agent_memory_session.set_end_user('A');
    l_count := agent_memory.delete_records(p_record_ids => j('["b1", "b2"]'),
                                           p_record_types => j('["memory"]'), p_commit => FALSE);
    ut.expect(l_count).to_equal(0);
    l_out := agent_memory.delete_cascade(p_owner_type => 'user', p_owner_id => 'B', p_commit => FALSE);
    ut.expect(JSON_VALUE(l_out, '$.records' RETURNING NUMBER)).to_equal(0);
    l_out := agent_memory.delete_cascade(p_owner_type => 'thread', p_owner_id => 'tB', p_commit => FALSE);
    ut.expect(JSON_VALUE(l_out, '$.records' RETURNING NUMBER)).to_equal(0);
    agent_memory_session.clear_end_user;
    ut.expect(count_user('B')).to_equal(3);
  END cannot_delete_other;

  PROCEDURE cannot_write_for_other IS
    l_ids JSON;
  BEGIN
    agent_memory_session.set_end_user('A');
    -- ORA-28115: policy with check option violation (update_check => TRUE)
    l_ids := agent_memory.write_records(p_records => j('[' || mem('forged', 'B', 'tB', 3) || ']'),
                                        p_commit => FALSE);
  END cannot_write_for_other;

  PROCEDURE links_only_own IS
    l_links JSON_ARRAY_T;
  BEGIN
    seed;
    agent_memory_session.set_end_user('A');
    l_links := TREAT(JSON_ELEMENT_T.load(agent_memory.list_links(p_query => j('{"thread_id": "tB"}'))) AS JSON_ARRAY_T);
    ut.expect(l_links.get_size).to_equal(0);
    ut.expect(agent_memory.update_link(p_relation_id => 'lb', p_thread_id => 'tB',
                                       p_changes => j('{"relation_type": "refutes"}'), p_commit => FALSE)).to_equal(0);
    ut.expect(agent_memory.delete_links(p_selector => j('{"id": "lb"}'), p_thread_id => 'tB',
                                        p_commit => FALSE)).to_equal(0);
    -- a NULL thread means any relation: still only the bound user's
    ut.expect(agent_memory.update_link(p_relation_id => 'lb', p_thread_id => NULL,
                                       p_changes => j('{"relation_type": "refutes"}'), p_commit => FALSE)).to_equal(0);
    ut.expect(agent_memory.delete_links(p_selector => j('{"id": "lb"}'), p_thread_id => NULL,
                                        p_commit => FALSE)).to_equal(0);
    l_links := TREAT(JSON_ELEMENT_T.load(agent_memory.list_links(p_query => j('{}'))) AS JSON_ARRAY_T);
    ut.expect(l_links.get_size).to_equal(1);
    l_links := TREAT(JSON_ELEMENT_T.load(agent_memory.list_links(p_query => j('{"thread_id": "tA"}'))) AS JSON_ARRAY_T);
    ut.expect(l_links.get_size).to_equal(1);
    agent_memory_session.clear_end_user;
    l_links := TREAT(JSON_ELEMENT_T.load(agent_memory.list_links(p_query => j('{"thread_id": "tB"}'))) AS JSON_ARRAY_T);
    ut.expect(l_links.get_size).to_equal(1);
    ut.expect(TREAT(l_links.get(0) AS JSON_OBJECT_T).get_string('relation_type')).to_equal('supports');
  END links_only_own;

  PROCEDURE views_only_own IS
    l_n NUMBER;
  BEGIN
    seed;
    agent_memory_session.set_end_user('A');
    SELECT COUNT(*) INTO l_n FROM agent_memory_records_v WHERE user_id = 'B' OR user_id IS NULL;
    ut.expect(l_n).to_equal(0);
    SELECT COUNT(*) INTO l_n FROM agent_memory_records_v;
    ut.expect(l_n).to_equal(3);
    SELECT COUNT(*) INTO l_n FROM agent_memory_relations_v;
    ut.expect(l_n).to_equal(1);
    SELECT COUNT(*) INTO l_n FROM agent_memory_records WHERE user_id <> 'A' OR user_id IS NULL;
    ut.expect(l_n).to_equal(0);
    SELECT COUNT(*) INTO l_n FROM agent_memory_relations WHERE id = 'lb';
    ut.expect(l_n).to_equal(0);
    -- direct DML on the table is bound by the same policy
    UPDATE agent_memory_records SET content = 'hacked' WHERE id = 'b1';
    ut.expect(SQL%ROWCOUNT).to_equal(0);
    DELETE FROM agent_memory_records WHERE user_id = 'B';
    ut.expect(SQL%ROWCOUNT).to_equal(0);
  END views_only_own;

  PROCEDURE null_user_invisible_when_bound IS
  BEGIN
    seed;
    agent_memory_session.set_end_user('A');
    ut.expect(ids(agent_memory.get_records(p_query => j('{"ids": ["n1"]}')))).to_be_null();
    ut.expect(agent_memory.delete_records(p_record_ids => j('["n1"]'), p_record_types => j('["memory"]'),
                                          p_commit => FALSE)).to_equal(0);
  END null_user_invisible_when_bound;

  PROCEDURE purge_only_own IS
    l_ids JSON;
    l_n   NUMBER;
  BEGIN
    seed;
    -- expired records of both users (a TTL in the past is set directly, unbound)
    l_ids := agent_memory.write_records(
      p_records => j('[' || mem('ax', 'A', 'tA', 3) || ',' || mem('bx', 'B', 'tB', 3) || ']'), p_commit => FALSE);
    UPDATE agent_memory_records SET expires_at = SYS_EXTRACT_UTC(SYSTIMESTAMP) - INTERVAL '1' DAY
     WHERE id IN ('ax', 'bx');
    agent_memory_session.set_end_user('A');
    ut.expect(agent_memory.purge_expired(p_commit => FALSE)).to_equal(1);
    agent_memory_session.clear_end_user;
    SELECT COUNT(*) INTO l_n FROM agent_memory_records WHERE id = 'bx';
    ut.expect(l_n).to_equal(1);
  END purge_only_own;

  PROCEDURE reset_store_refused_when_bound IS
  BEGIN
    agent_memory_session.set_end_user('A');
    agent_memory.reset_store(p_commit => FALSE);
  END reset_store_refused_when_bound;

  PROCEDURE null_end_user_refused IS
  BEGIN
    agent_memory_session.set_end_user(NULL);
  END null_end_user_refused;

  PROCEDURE clear_restores_owner_view IS
  BEGIN
    seed;
    agent_memory_session.set_end_user('B');
    ut.expect(all_ids).to_equal('b1,b2,mb');
    agent_memory_session.clear_end_user;
    ut.expect(agent_memory_session.end_user_id).to_be_null();
    ut.expect(all_ids).to_equal('a1,a2,b1,b2,n1,ma,mb');
  END clear_restores_owner_view;

  PROCEDURE replace_images_only_own IS
    l_ids     JSON;
    l_out     JSON;
    l_expires TIMESTAMP;
    l_n       NUMBER;
  BEGIN
    seed;
    -- unbound: an image of B that names A's message as its message
    l_ids := agent_memory.write_records(p_records => j('[{"record_type": "image", "id": "ib",'
      || ' "user_id": "B", "thread_id": "tA", "message_id": "ma", "image_bytes": "aGk=", "embedding": null}]'),
      p_commit => FALSE);
    agent_memory_session.set_end_user('A');
    -- an empty list and an expiry change of A's message do not reach B's image
    l_out := agent_memory.update_record(p_record_id => 'ma', p_record_types => j('["message"]'),
                                        p_changes => j('{"replace_images": [], "ttl_days": 1}'),
                                        p_commit => FALSE);
    ut.expect(l_out IS NOT NULL).to_be_true();
    -- listing B's image id with bytes cannot replace it: the id is taken (-20003)
    BEGIN
      l_out := agent_memory.update_record(p_record_id => 'ma', p_record_types => j('["message"]'),
                                          p_changes => j('{"replace_images": [{"id": "ib", "image_bytes": "bmV3"}]}'),
                                          p_commit => FALSE);
      ut.fail('B''s image id was taken over');
    EXCEPTION
      WHEN agent_memory_errors.e_duplicate_record THEN
        NULL;
    END;
    agent_memory_session.clear_end_user;
    SELECT r.expires_at INTO l_expires FROM agent_memory_records r
     WHERE r.id_space = 'image' AND r.id = 'ib' AND r.user_id = 'B';
    ut.expect(l_expires IS NULL).to_be_true();
    SELECT COUNT(*) INTO l_n
      FROM agent_memory_images i JOIN agent_memory_records r ON r.seq = i.seq
     WHERE r.id_space = 'image' AND r.id = 'ib' AND DBMS_LOB.GETLENGTH(i.bytes) = 2;
    ut.expect(l_n).to_equal(1);
  END replace_images_only_own;
END ut_agent_memory_isolation;
/
