CREATE OR REPLACE PACKAGE BODY ut_agent_memory_deepsec AS
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

  FUNCTION mem(p_id IN VARCHAR2, p_user IN VARCHAR2, p_thread IN VARCHAR2, p_axis IN PLS_INTEGER)
    RETURN CLOB IS
  BEGIN
    RETURN '{"record_type": "memory", "id": "' || p_id || '", "user_id": '
      || CASE WHEN p_user IS NULL THEN 'null' ELSE '"' || p_user || '"' END
      || ', "thread_id": "' || p_thread || '", "content": "' || p_id || '", "embedding": '
      || unit(p_axis) || '}';
  END mem;

  FUNCTION link(p_id IN VARCHAR2, p_source IN VARCHAR2, p_target IN VARCHAR2) RETURN CLOB IS
  BEGIN
    RETURN '{"id": "' || p_id || '", "source_id": "' || p_source
      || '", "source_type": "memory", "target_id": "' || p_target || '", "target_type": "memory",'
      || ' "relation_type": "supports"}';
  END link;

  -- The store of every test (see the spec), written unbound by the owner; the policies and
  -- grants are changed without commit (utPLSQL rolls them back).
  PROCEDURE seed IS
    l_ids JSON;
  BEGIN
    agent_memory_session.clear_end_user;
    l_ids := agent_memory.write_records(
      p_records => j('[' || mem('a1', 'alice', 'tA', 1) || ',' || mem('b1', 'bob', 'tB', 1) || ','
        || mem('d1', 'dave', 'tD', 2) || ',' || mem('e1', 'erin', 'tE', 3) || ','
        || mem('g1', NULL, 'tG', 1) || ',' || mem('g2', NULL, 'tG', 2) || ','
        || '{"record_type": "message", "id": "ma", "user_id": "alice", "thread_id": "tA", "role": "user", "content": "hi"},'
        || '{"record_type": "message", "id": "gm", "user_id": null, "thread_id": "tG", "role": "user", "content": "hi all"}]'),
      p_links => j('[' || link('lg', 'g1', 'g2') || ',' || link('la', 'a1', 'g1') || ']'),
      p_commit => FALSE);
    agent_memory_security.add_policies(j('["USER_OWN_ROWS", "GLOBAL_MEMORIES"]'), p_commit => FALSE);
    agent_memory_security.grant_policies(j('[{"kind": "LOCAL_USER", "name": "alice"}, {"kind": "GROUP", "name": "staff"}]'),
                                         j('["USER_OWN_ROWS"]'), p_commit => FALSE);
    agent_memory_security.grant_policies(j('[{"kind": "GROUP", "name": "readers"}]'),
                                         j('["GLOBAL_MEMORIES"]'), p_commit => FALSE);
    agent_memory_security.grant_policies(j('[{"kind": "LOCAL_USER", "name": "dave"}]'),
                                         j('["USER_OWN_ROWS", "GLOBAL_MEMORIES"]'), p_commit => FALSE);
  END seed;

  PROCEDURE bind(p_user IN VARCHAR2, p_groups IN VARCHAR2 DEFAULT NULL) IS
  BEGIN
    IF p_groups IS NULL THEN
      agent_memory_session.set_end_user_context(p_username => p_user);
    ELSE
      agent_memory_session.set_end_user_context(p_username => p_user, p_groups => j(p_groups));
    END IF;
  END bind;

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

  FUNCTION link_count RETURN NUMBER IS
  BEGIN
    RETURN TREAT(JSON_ELEMENT_T.load(agent_memory.list_links(p_query => j('{}'))) AS JSON_ARRAY_T).get_size;
  END link_count;

  FUNCTION content_of(p_id IN VARCHAR2) RETURN VARCHAR2 IS
    l_content VARCHAR2(4000 CHAR);
  BEGIN
    SELECT DBMS_LOB.SUBSTR(r.content, 1000, 1) INTO l_content
      FROM agent_memory_records r WHERE r.id = p_id;
    RETURN l_content;
  END content_of;

  PROCEDURE unbind IS
  BEGIN
    agent_memory_session.clear_end_user;
  END unbind;

  PROCEDURE own_rows_only IS
  BEGIN
    seed;
    bind('alice');
    ut.expect(agent_memory_session.access_mode).to_equal('BOUND');
    ut.expect(agent_memory_session.end_user_policies).to_equal('USER_OWN_ROWS');
    ut.expect(all_ids).to_equal('a1,ma');
    ut.expect(ids(agent_memory.get_records(p_query => j('{"ids": ["b1", "g1", "gm"]}')))).to_be_null();
    ut.expect(agent_memory.update_record(p_record_id => 'a1', p_record_types => j('["memory"]'),
                                         p_changes => j('{"content": "mine"}'), p_commit => FALSE) IS NOT NULL).to_be_true();
  END own_rows_only;

  PROCEDURE global_memories_readable IS
    l_n NUMBER;
  BEGIN
    seed;
    bind('carol', '["readers"]');
    ut.expect(agent_memory_session.end_user_policies).to_equal('GLOBAL_MEMORIES');
    -- the memories of no user; not the message of no user, not alice's rows
    ut.expect(all_ids).to_equal('g1,g2');
    ut.expect(ids(agent_memory.get_records(p_query => j('{"user_id": "alice"}')))).to_be_null();
    SELECT COUNT(*) INTO l_n FROM agent_memory_records_v;
    ut.expect(l_n).to_equal(2);
    SELECT COUNT(*) INTO l_n FROM agent_memory_records WHERE id = 'gm';
    ut.expect(l_n).to_equal(0);
  END global_memories_readable;

  PROCEDURE global_memories_read_only IS
    l_out JSON;
    l_n   NUMBER;
  BEGIN
    seed;
    bind('carol', '["readers"]');
    l_out := agent_memory.update_record(p_record_id => 'g1', p_record_types => j('["memory"]'),
                                        p_changes => j('{"content": "hacked"}'), p_commit => FALSE);
    ut.expect(l_out IS NULL).to_be_true();
    ut.expect(agent_memory.delete_records(p_record_ids => j('["g1", "g2"]'),
                                          p_record_types => j('["memory"]'), p_commit => FALSE)).to_equal(0);
    UPDATE agent_memory_records SET content = 'hacked' WHERE id = 'g1';
    ut.expect(SQL%ROWCOUNT).to_equal(0);
    DELETE FROM agent_memory_records WHERE user_id IS NULL;
    ut.expect(SQL%ROWCOUNT).to_equal(0);
    unbind;
    ut.expect(content_of('g1')).to_equal('g1');
    SELECT COUNT(*) INTO l_n FROM agent_memory_records WHERE user_id IS NULL;
    ut.expect(l_n).to_equal(3);
  END global_memories_read_only;

  PROCEDURE global_memory_write_refused IS
    l_ids JSON;
  BEGIN
    seed;
    bind('carol', '["readers"]');
    l_ids := agent_memory.write_records(p_records => j('[' || mem('g3', NULL, 'tG', 4) || ']'),
                                        p_commit => FALSE);
  END global_memory_write_refused;

  PROCEDURE both_policies IS
    -- Requests as CLOB text made JSON in SQL: j and unit are private to this body, and a
    -- function declared only in a body cannot be called in SQL (PLS-00231).
    l_all    CLOB := '{"query_vector": ' || unit(1) || ', "strategy": "VECTOR", "max_results": 10}';
    l_global CLOB := '{"query_vector": ' || unit(1) || ', "strategy": "VECTOR", "max_results": 10,'
                     || ' "scope": {"user_id": {"value": null, "exact": true}}}';
    l_n      NUMBER;
  BEGIN
    seed;
    bind('dave');
    ut.expect(agent_memory_session.end_user_policies).to_equal('USER_OWN_ROWS,GLOBAL_MEMORIES');
    ut.expect(all_ids).to_equal('d1,g1,g2');
    ut.expect(agent_memory.update_record(p_record_id => 'd1', p_record_types => j('["memory"]'),
                                         p_changes => j('{"content": "mine"}'), p_commit => FALSE) IS NOT NULL).to_be_true();
    ut.expect(agent_memory.update_record(p_record_id => 'g2', p_record_types => j('["memory"]'),
                                         p_changes => j('{"content": "mine"}'), p_commit => FALSE) IS NULL).to_be_true();
    SELECT COUNT(*) INTO l_n
      FROM agent_memory.search_rows(JSON(l_all)) h
     WHERE h.record_id NOT IN ('d1', 'g1', 'g2');
    ut.expect(l_n).to_equal(0);
    SELECT COUNT(*) INTO l_n
      FROM agent_memory.search_rows(JSON(l_all)) h;
    ut.expect(l_n).to_equal(3);
    -- the memories of no user, asked for by an exact scope
    SELECT COUNT(*) INTO l_n
      FROM agent_memory.search_rows(JSON(l_global)) h;
    ut.expect(l_n).to_equal(2);
  END both_policies;

  PROCEDURE nothing_granted_sees_nothing IS
    l_n NUMBER;
  BEGIN
    seed;
    bind('mallory', '["nobody"]');
    ut.expect(agent_memory_session.access_mode).to_equal('BOUND');
    ut.expect(agent_memory_session.end_user_policies).to_be_null();
    ut.expect(all_ids).to_be_null();
    ut.expect(link_count).to_equal(0);
    SELECT COUNT(*) INTO l_n FROM agent_memory_records;
    ut.expect(l_n).to_equal(0);
    SELECT COUNT(*) INTO l_n FROM agent_memory_records_v;
    ut.expect(l_n).to_equal(0);
    SELECT COUNT(*) INTO l_n FROM agent_memory_relations;
    ut.expect(l_n).to_equal(0);
  END nothing_granted_sees_nothing;

  PROCEDURE nothing_granted_writes_nothing IS
    l_ids JSON;
  BEGIN
    seed;
    bind('mallory');
    l_ids := agent_memory.write_records(p_records => j('[' || mem('m1', 'mallory', 'tM', 1) || ']'),
                                        p_commit => FALSE);
  END nothing_granted_writes_nothing;

  PROCEDURE nothing_granted_direct_insert IS
  BEGIN
    seed;
    bind('mallory');
    -- ORA-28115: the write policy (update_check) refuses a row the session may not change
    INSERT INTO agent_memory_records (id, id_space, record_type, user_id, created_at, updated_at)
    VALUES ('m2', 'memory', 'memory', 'mallory', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
  END nothing_granted_direct_insert;

  PROCEDURE group_grant_applies IS
  BEGIN
    seed;
    bind('erin', '["staff", "unknown"]');
    ut.expect(agent_memory_session.end_user_policies).to_equal('USER_OWN_ROWS');
    ut.expect(all_ids).to_equal('e1');
    bind('erin');  -- without the group: nothing
    ut.expect(all_ids).to_be_null();
  END group_grant_applies;

  PROCEDURE revoke_takes_effect_on_next_bind IS
  BEGIN
    seed;
    bind('alice');
    ut.expect(all_ids).to_equal('a1,ma');
    agent_memory_security.revoke_policies(j('[{"kind": "LOCAL_USER", "name": "alice"}]'),
                                          j('["USER_OWN_ROWS"]'), p_commit => FALSE);
    ut.expect(all_ids).to_equal('a1,ma');  -- the policies were resolved when alice was bound
    bind('alice');
    ut.expect(agent_memory_session.end_user_policies).to_be_null();
    ut.expect(all_ids).to_be_null();
  END revoke_takes_effect_on_next_bind;

  PROCEDURE remove_policy_withdraws_grants IS
    l_grants JSON_ARRAY_T;
  BEGIN
    seed;
    agent_memory_security.remove_policies(j('["GLOBAL_MEMORIES"]'), p_commit => FALSE);
    ut.expect(JSON_ELEMENT_T.load(agent_memory_security.list_policies).to_string).to_equal('["USER_OWN_ROWS"]');
    l_grants := TREAT(JSON_ELEMENT_T.load(agent_memory_security.list_grants) AS JSON_ARRAY_T);
    FOR i IN 0 .. l_grants.get_size - 1 LOOP
      ut.expect(TREAT(l_grants.get(i) AS JSON_OBJECT_T).get_array('policies').to_string)
        .to_equal('["USER_OWN_ROWS"]');
    END LOOP;
    bind('carol', '["readers"]');
    ut.expect(all_ids).to_be_null();
    bind('dave');
    ut.expect(all_ids).to_equal('d1');
  END remove_policy_withdraws_grants;

  PROCEDURE links_follow_their_ends IS
  BEGIN
    seed;
    bind('carol', '["readers"]');
    ut.expect(link_count).to_equal(1);  -- lg: both ends are memories of no user
    ut.expect(agent_memory.update_link(p_relation_id => 'lg', p_thread_id => NULL,
                                       p_changes => j('{"relation_type": "refutes"}'), p_commit => FALSE)).to_equal(0);
    ut.expect(agent_memory.update_link(p_relation_id => 'lg', p_thread_id => NULL,
                                       p_changes => j('{}'), p_commit => FALSE)).to_equal(0);
    ut.expect(agent_memory.delete_links(p_selector => j('{"id": "lg"}'), p_thread_id => NULL,
                                        p_commit => FALSE)).to_equal(0);
    bind('alice');
    ut.expect(link_count).to_equal(0);  -- la: g1 is not readable with USER_OWN_ROWS alone
    bind('dave');
    ut.expect(link_count).to_equal(1);
    unbind;
    ut.expect(link_count).to_equal(2);
    ut.expect(JSON_VALUE(agent_memory.list_links(p_query => j('{"ids": ["lg"]}')), '$[0].relation_type'))
      .to_equal('supports');
  END links_follow_their_ends;

  PROCEDURE link_to_global_refused IS
    l_ids JSON;
  BEGIN
    seed;
    bind('dave');
    l_ids := agent_memory.write_records(p_records => j('[]'), p_links => j('[' || link('ld', 'd1', 'g1') || ']'),
                                        p_commit => FALSE);
  END link_to_global_refused;

  PROCEDURE purge_refused IS
    l_n NUMBER;
  BEGIN
    seed;
    bind('alice');
    l_n := agent_memory.purge_expired(p_commit => FALSE);
  END purge_refused;

  PROCEDURE delete_other_user_refused IS
    l_out JSON;
  BEGIN
    seed;
    bind('alice');
    l_out := agent_memory.delete_cascade(p_owner_type => 'user', p_owner_id => 'bob', p_commit => FALSE);
  END delete_other_user_refused;

  PROCEDURE delete_own_user IS
    l_out JSON;
    l_n   NUMBER;
  BEGIN
    seed;
    bind('alice');
    l_out := agent_memory.delete_cascade(p_owner_type => 'user', p_owner_id => 'alice', p_commit => FALSE);
    ut.expect(JSON_VALUE(l_out, '$.records' RETURNING NUMBER)).to_equal(2);
    unbind;
    SELECT COUNT(*) INTO l_n FROM agent_memory_records WHERE user_id = 'alice';
    ut.expect(l_n).to_equal(0);
    SELECT COUNT(*) INTO l_n FROM agent_memory_records WHERE id IN ('b1', 'g1', 'g2');
    ut.expect(l_n).to_equal(3);
  END delete_own_user;

  PROCEDURE set_end_user_unchanged IS
  BEGIN
    seed;
    -- erin has no grant of her own: set_end_user does not consult the grants
    agent_memory_session.set_end_user('erin');
    ut.expect(agent_memory_session.end_user_policies).to_equal('USER_OWN_ROWS');
    ut.expect(agent_memory_session.security_context_bound).to_be_false();
    ut.expect(all_ids).to_equal('e1');
    ut.expect(agent_memory.purge_expired(p_commit => FALSE)).to_equal(0);  -- not refused
  END set_end_user_unchanged;

  PROCEDURE grant_unregistered_refused IS
  BEGIN
    seed;
    agent_memory_security.remove_policies(j('["GLOBAL_MEMORIES"]'), p_commit => FALSE);
    agent_memory_security.grant_policies(j('[{"kind": "GROUP", "name": "x"}]'),
                                         j('["GLOBAL_MEMORIES"]'), p_commit => FALSE);
  END grant_unregistered_refused;

  -- The grants of list_grants as 'kind name policies;...', read member by member: the
  -- order of an object's members after a trip through the JSON type is not promised (only
  -- array order is), so the document text is not compared.
  FUNCTION grants_text(p_grants IN JSON) RETURN VARCHAR2 IS
    l_arr   JSON_ARRAY_T := TREAT(JSON_ELEMENT_T.load(p_grants) AS JSON_ARRAY_T);
    l_entry JSON_OBJECT_T;
    l_out   VARCHAR2(4000 CHAR);
  BEGIN
    FOR i IN 0 .. l_arr.get_size - 1 LOOP
      l_entry := TREAT(l_arr.get(i) AS JSON_OBJECT_T);
      l_out := l_out || l_entry.get_string('kind') || ' ' || l_entry.get_string('name') || ' '
            || l_entry.get_array('policies').to_string || ';';
    END LOOP;
    RETURN l_out;
  END grants_text;

  PROCEDURE listing IS
  BEGIN
    seed;
    ut.expect(JSON_ELEMENT_T.load(agent_memory_security.list_policies).to_string)
      .to_equal('["GLOBAL_MEMORIES","USER_OWN_ROWS"]');
    ut.expect(grants_text(agent_memory_security.list_grants)).to_equal(
      'GROUP readers ["GLOBAL_MEMORIES"];'
      || 'GROUP staff ["USER_OWN_ROWS"];'
      || 'LOCAL_USER alice ["USER_OWN_ROWS"];'
      || 'LOCAL_USER dave ["GLOBAL_MEMORIES","USER_OWN_ROWS"];');
  END listing;

  -- Every other case runs unchanged on both paths: the binding and its rules are the same;
  -- on a 26ai database the store also keeps its grants as data roles and data grants
  -- (mirrored after committed changes, which this suite does not make).
  PROCEDURE mode_follows_the_database IS
    l_views NUMBER;
    l_mode  VARCHAR2(30 CHAR) := agent_memory_security.deep_data_security;
  BEGIN
    SELECT COUNT(*) INTO l_views FROM all_views v
     WHERE v.owner = 'SYS' AND v.view_name = 'USER_DATA_GRANTS';
    IF l_mode = 'NATIVE' THEN
      ut.expect(l_views).to_equal(1);
    ELSE
      ut.expect(l_mode).to_equal('VPD');
    END IF;
  END mode_follows_the_database;

  -- The thread records of alice (tA) and bob (tB), written unbound (the seed has none).
  PROCEDURE seed_threads IS
    l_ids JSON;
  BEGIN
    seed;
    l_ids := agent_memory.write_records(
      p_records => j('[{"record_type": "thread", "id": "tA", "user_id": "alice", "thread_id": "tA"},'
        || '{"record_type": "thread", "id": "tB", "user_id": "bob", "thread_id": "tB"}]'),
      p_commit => FALSE);
  END seed_threads;

  FUNCTION alices_message(p_id IN VARCHAR2, p_thread IN VARCHAR2) RETURN JSON IS
  BEGIN
    RETURN j('[{"record_type": "message", "id": "' || p_id || '", "user_id": "alice", '
      || '"thread_id": "' || p_thread || '", "role": "user", "content": "planted"}]');
  END alices_message;

  PROCEDURE write_into_other_thread_refused IS
    l_ids JSON;
  BEGIN
    seed_threads;
    bind('alice');
    -- the record is alice's own; the thread it goes into is bob's, which she cannot see
    l_ids := agent_memory.write_records(p_records => alices_message('planted', 'tB'),
                                        p_commit => FALSE);
  END write_into_other_thread_refused;

  PROCEDURE write_naming_other_thread_refused IS
    l_ids JSON;
  BEGIN
    seed_threads;
    bind('alice');
    l_ids := agent_memory.write_records(p_records => alices_message('planted', 'tB'),
                                        p_commit => FALSE, p_thread_id => 'tB');
  END write_naming_other_thread_refused;

  PROCEDURE bound_write_into_other_thread_refused IS
    l_ids JSON;
  BEGIN
    seed_threads;
    agent_memory_session.set_end_user('alice');
    l_ids := agent_memory.write_records(p_records => alices_message('planted', 'tB'),
                                        p_commit => FALSE);
  END bound_write_into_other_thread_refused;

  PROCEDURE write_into_own_thread_allowed IS
    l_ids JSON;
    l_n   NUMBER;
  BEGIN
    seed_threads;
    bind('alice');
    l_ids := agent_memory.write_records(p_records => alices_message('m1', 'tA'),
                                        p_commit => FALSE, p_thread_id => 'tA');
    l_ids := agent_memory.write_records(p_records => alices_message('m2', 'tNone'),
                                        p_commit => FALSE);
    BEGIN
      l_ids := agent_memory.write_records(p_records => alices_message('m3', 'tB'),
                                          p_commit => FALSE);
      ut.fail('a write into bob''s thread was accepted');
    EXCEPTION
      WHEN OTHERS THEN
        ut.expect(SQLCODE).to_equal(-20009);
    END;
    -- the lookup's attribute is gone, and alice still sees exactly her own rows
    ut.expect(SYS_CONTEXT('AGENT_MEMORY_CTX', 'OWNER_LOOKUP', 4000)).to_be_null();
    ut.expect(ids(agent_memory.get_records(p_query => j('{"record_types": ["thread"]}')))).to_equal('tA');
    ut.expect(all_ids).to_equal('a1,ma,m1,m2');
    unbind;
    SELECT COUNT(*) INTO l_n FROM agent_memory_records WHERE thread_id = 'tB' AND record_type = 'message';
    ut.expect(l_n).to_equal(0);
  END write_into_own_thread_allowed;
END ut_agent_memory_deepsec;
/
