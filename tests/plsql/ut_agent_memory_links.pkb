CREATE OR REPLACE PACKAGE BODY ut_agent_memory_links AS
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

  FUNCTION link(p_id IN VARCHAR2, p_source IN VARCHAR2, p_target IN VARCHAR2, p_type IN VARCHAR2,
                p_extra IN VARCHAR2 DEFAULT NULL) RETURN CLOB IS
  BEGIN
    RETURN '{"id": "' || p_id || '", "thread_id": "t1", "source_id": "' || p_source
      || '", "source_type": "memory", "target_id": "' || p_target || '", "target_type": "memory",'
      || ' "relation_type": "' || p_type || '"' || p_extra || '}';
  END link;

  -- a link without thread_id (a client-level link)
  FUNCTION free_link(p_id IN VARCHAR2, p_source IN VARCHAR2, p_target IN VARCHAR2,
                     p_type IN VARCHAR2, p_extra IN VARCHAR2 DEFAULT NULL) RETURN CLOB IS
  BEGIN
    RETURN '{"id": "' || p_id || '", "source_id": "' || p_source
      || '", "source_type": "memory", "target_id": "' || p_target || '", "target_type": "memory",'
      || ' "relation_type": "' || p_type || '"' || p_extra || '}';
  END free_link;

  FUNCTION links(p_query IN CLOB) RETURN JSON_ARRAY_T IS
  BEGIN
    RETURN TREAT(JSON_ELEMENT_T.load(agent_memory.list_links(p_query => j(p_query))) AS JSON_ARRAY_T);
  END links;

  FUNCTION link_ids(p_links IN JSON_ARRAY_T) RETURN VARCHAR2 IS
    l_out VARCHAR2(4000 CHAR);
  BEGIN
    FOR i IN 0 .. p_links.get_size - 1 LOOP
      l_out := l_out || CASE WHEN i > 0 THEN ',' END
            || TREAT(p_links.get(i) AS JSON_OBJECT_T).get_string('id');
    END LOOP;
    RETURN l_out;
  END link_ids;

  PROCEDURE add_links(p_links IN CLOB) IS
    l_ids JSON;
  BEGIN
    l_ids := agent_memory.write_records(p_records => j('[]'), p_links => j(p_links), p_commit => FALSE);
  END add_links;

  PROCEDURE seed IS
    l_ids JSON;
  BEGIN
    l_ids := agent_memory.write_records(p_records => j('['
      || '{"record_type": "memory", "id": "a", "thread_id": "t1", "content": "a", "embedding": ' || unit(1) || '},'
      || '{"record_type": "memory", "id": "b", "thread_id": "t1", "content": "b", "embedding": ' || unit(2) || '},'
      || '{"record_type": "memory", "id": "c", "thread_id": "t1", "content": "c", "embedding": ' || unit(3) || '},'
      || '{"record_type": "memory", "id": "x", "thread_id": "t2", "content": "x", "embedding": ' || unit(4) || '}]'),
      p_commit => FALSE);
  END seed;

  PROCEDURE one_direction_per_pair IS
  BEGIN
    add_links('[' || link('r1', 'a', 'b', 'supports') || ']');
    add_links('[' || link('r2', 'b', 'a', 'refines') || ']');
  END one_direction_per_pair;

  PROCEDURE labels IS
    l_links JSON_ARRAY_T;
  BEGIN
    add_links('[' || link('r1', 'a', 'b', 'supersedes', ', "opposite_relation_type": "ignored"') || ','
      || link('r2', 'b', 'c', 'inspires', ', "opposite_relation_type": "is_inspired_by"') || ']');
    l_links := TREAT(JSON_ELEMENT_T.load(agent_memory.list_links(p_query => j('{"thread_id": "t1"}'))) AS JSON_ARRAY_T);
    ut.expect(l_links.get_size).to_equal(2);
    ut.expect(TREAT(l_links.get(0) AS JSON_OBJECT_T).get_string('opposite_relation_type')).to_equal('is_superseded_by');
    ut.expect(TREAT(l_links.get(1) AS JSON_OBJECT_T).get_string('opposite_relation_type')).to_equal('is_inspired_by');
  END labels;

  PROCEDURE expansion IS
    l_hits   JSON_ARRAY_T;
    l_linked JSON_ARRAY_T;
    l_first  JSON_OBJECT_T;
    l_second JSON_OBJECT_T;
  BEGIN
    -- a <-supports- b, b -refines-> c : from a, b is one hop (target->source label), c two
    add_links('[' || link('r1', 'b', 'a', 'supports') || ',' || link('r2', 'b', 'c', 'refines') || ']');
    l_hits := TREAT(JSON_ELEMENT_T.load(agent_memory.search(p_request => j(
      '{"query_vector": ' || unit(1) || ', "max_results": 1, "num_hops": 2}'))) AS JSON_ARRAY_T);
    l_linked := TREAT(l_hits.get(0) AS JSON_OBJECT_T).get_array('linked');
    ut.expect(l_linked.get_size).to_equal(2);
    l_first := TREAT(l_linked.get(0) AS JSON_OBJECT_T);
    l_second := TREAT(l_linked.get(1) AS JSON_OBJECT_T);
    ut.expect(l_first.get_object('record').get_string('id')).to_equal('b');
    ut.expect(l_first.get_string('relation_type')).to_equal('is_supported_by');
    ut.expect(l_first.get_string('via_record_id')).to_equal('a');
    ut.expect(l_first.get_number('hops')).to_equal(1);
    ut.expect(l_second.get_object('record').get_string('id')).to_equal('c');
    ut.expect(l_second.get_string('relation_type')).to_equal('refines');
    ut.expect(l_second.get_number('hops')).to_equal(2);
  END expansion;

  PROCEDURE expansion_cap IS
    l_hits JSON_ARRAY_T;
  BEGIN
    add_links('[' || link('r1', 'a', 'b', 'supports') || ',' || link('r2', 'a', 'c', 'supports') || ']');
    l_hits := TREAT(JSON_ELEMENT_T.load(agent_memory.search(p_request => j(
      '{"query_vector": ' || unit(1) || ', "max_results": 1, "num_hops": 1, "max_linked_results": 1}')))
      AS JSON_ARRAY_T);
    ut.expect(TREAT(l_hits.get(0) AS JSON_OBJECT_T).get_array('linked').get_size).to_equal(1);
  END expansion_cap;

  PROCEDURE other_thread IS
  BEGIN
    add_links('[' || link('r1', 'a', 'x', 'supports') || ']');
  END other_thread;

  PROCEDURE delete_by_selector IS
  BEGIN
    add_links('[' || link('r1', 'a', 'b', 'supports') || ',' || link('r2', 'b', 'c', 'supports') || ']');
    ut.expect(agent_memory.delete_links(p_selector => j('{"id": "r1"}'), p_thread_id => 't1', p_commit => FALSE))
      .to_equal(1);
    ut.expect(agent_memory.delete_links(p_selector => j('{"source_id": "c", "source_type": "memory",'
      || ' "target_id": "b", "target_type": "memory", "relation_type": "supports"}'),
      p_thread_id => 't1', p_commit => FALSE)).to_equal(0);
    ut.expect(agent_memory.delete_links(p_selector => j('{"source_id": "b", "source_type": "memory",'
      || ' "target_id": "c", "target_type": "memory", "relation_type": "supports"}'),
      p_thread_id => 't1', p_commit => FALSE)).to_equal(1);
  END delete_by_selector;
  PROCEDURE client_level_link IS
    l_found JSON_ARRAY_T;
  BEGIN
    add_links('[' || free_link('rx', 'a', 'x', 'supports') || ']');  -- a is in t1, x in t2
    l_found := links('{"ids": ["rx"]}');
    ut.expect(l_found.get_size).to_equal(1);
    ut.expect(TREAT(l_found.get(0) AS JSON_OBJECT_T).get('thread_id').is_null).to_be_true();
    ut.expect(link_ids(links('{"ids": ["rx"], "thread_id": null}'))).to_equal('rx');
    ut.expect(links('{"ids": ["rx"], "thread_id": "t1"}').get_size).to_equal(0);
  END client_level_link;

  PROCEDURE client_level_link_in_one_thread IS
    l_found JSON_ARRAY_T;
  BEGIN
    add_links('[' || free_link('rab', 'a', 'b', 'supports') || ']');
    l_found := links('{"ids": ["rab"]}');
    ut.expect(TREAT(l_found.get(0) AS JSON_OBJECT_T).get_string('thread_id')).to_equal('t1');
    ut.expect(link_ids(links('{"ids": ["rab"], "thread_id": "t1"}'))).to_equal('rab');
  END client_level_link_in_one_thread;

  PROCEDURE client_level_link_to_nothing IS
  BEGIN
    add_links('[' || free_link('r0', 'a', 'no-such-memory', 'supports') || ']');
  END client_level_link_to_nothing;

  PROCEDURE link_query IS
  BEGIN
    add_links('[' || link('r1', 'a', 'b', 'supports', ', "metadata": {"tags": ["x"]}') || ','
      || link('r2', 'b', 'c', 'refines') || ','
      || free_link('r3', 'c', 'x', 'supports', ', "metadata": {"tags": ["x", "y"]}') || ']');
    ut.expect(link_ids(links('{"ids": ["r3", "r2", "r1"]}'))).to_equal('r1,r2,r3');
    ut.expect(link_ids(links('{"ids": ["r1", "r2", "r3"], "relation_type": "supports"}'))).to_equal('r1,r3');
    ut.expect(link_ids(links('{"ids": ["r1", "r2", "r3"], "source_id": "b"}'))).to_equal('r2');
    ut.expect(link_ids(links('{"ids": ["r1", "r2", "r3"], "target_id": "x", "target_type": "memory"}')))
      .to_equal('r3');
    ut.expect(link_ids(links('{"ids": ["r1", "r2", "r3"],'
      || ' "metadata_filter": {"tags": {"$array_contains": "x"}}}'))).to_equal('r1,r3');
    ut.expect(link_ids(links('{"ids": ["r1", "r2", "r3"], "limit": 2}'))).to_equal('r1,r2');
    ut.expect(links('{"ids": []}').get_size).to_equal(0);
  END link_query;

  PROCEDURE null_thread_means_any IS
  BEGIN
    add_links('[' || link('r1', 'a', 'b', 'supports') || ',' || free_link('rx', 'a', 'x', 'supports') || ']');
    ut.expect(agent_memory.update_link(p_relation_id => 'rx', p_thread_id => 't1',
      p_changes => j('{"relation_type": "refines"}'), p_commit => FALSE)).to_equal(0);
    ut.expect(agent_memory.update_link(p_relation_id => 'rx', p_thread_id => NULL,
      p_changes => j('{"relation_type": "refines"}'), p_commit => FALSE)).to_equal(1);
    ut.expect(TREAT(links('{"ids": ["rx"]}').get(0) AS JSON_OBJECT_T).get_string('opposite_relation_type'))
      .to_equal('is_refined_by');
    ut.expect(agent_memory.delete_links(p_selector => j('{"id": "rx"}'), p_thread_id => 't1',
      p_commit => FALSE)).to_equal(0);
    ut.expect(agent_memory.delete_links(p_selector => j('{"id": "rx"}'), p_thread_id => NULL,
      p_commit => FALSE)).to_equal(1);
    ut.expect(agent_memory.delete_links(p_selector => j('{"id": "r1"}'), p_thread_id => NULL,
      p_commit => FALSE)).to_equal(1);
  END null_thread_means_any;

  PROCEDURE linked_hit_relation IS
    l_hits     JSON_ARRAY_T;
    l_linked   JSON_OBJECT_T;
    l_relation JSON_OBJECT_T;
  BEGIN
    add_links('[' || link('r1', 'b', 'a', 'supports', ', "metadata": {"why": "test"}') || ']');
    l_hits := TREAT(JSON_ELEMENT_T.load(agent_memory.search(p_request => j(
      '{"query_vector": ' || unit(1) || ', "max_results": 1, "num_hops": 1}'))) AS JSON_ARRAY_T);
    l_linked := TREAT(TREAT(l_hits.get(0) AS JSON_OBJECT_T).get_array('linked').get(0) AS JSON_OBJECT_T);
    l_relation := l_linked.get_object('relation');
    ut.expect(l_linked.get_string('relation_type')).to_equal('is_supported_by');  -- walking direction
    ut.expect(l_relation.get_string('id')).to_equal('r1');
    ut.expect(l_relation.get_string('thread_id')).to_equal('t1');
    ut.expect(l_relation.get_string('source_id')).to_equal('b');
    ut.expect(l_relation.get_string('target_id')).to_equal('a');
    ut.expect(l_relation.get_string('relation_type')).to_equal('supports');  -- as stored
    ut.expect(l_relation.get_string('opposite_relation_type')).to_equal('is_supported_by');
    ut.expect(l_relation.get_object('metadata').get_string('why')).to_equal('test');
    ut.expect(l_relation.get_string('created_at')).to_be_like('____-__-__T__:__:__.______Z');
  END linked_hit_relation;
END ut_agent_memory_links;
/
