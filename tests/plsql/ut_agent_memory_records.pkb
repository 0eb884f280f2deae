CREATE OR REPLACE PACKAGE BODY ut_agent_memory_records AS
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

  FUNCTION write(p_records IN CLOB, p_links IN CLOB DEFAULT NULL, p_replace IN BOOLEAN DEFAULT FALSE)
    RETURN JSON_ARRAY_T IS
  BEGIN
    RETURN TREAT(JSON_ELEMENT_T.load(agent_memory.write_records(
             p_records => j(p_records), p_links => CASE WHEN p_links IS NOT NULL THEN j(p_links) END,
             p_replace => p_replace, p_commit => FALSE)) AS JSON_ARRAY_T);
  END write;

  FUNCTION get(p_query IN CLOB) RETURN JSON_ARRAY_T IS
  BEGIN
    RETURN TREAT(JSON_ELEMENT_T.load(agent_memory.get_records(p_query => j(p_query))) AS JSON_ARRAY_T);
  END get;

  FUNCTION mem(p_id IN VARCHAR2, p_extra IN VARCHAR2 DEFAULT NULL) RETURN CLOB IS
  BEGIN
    RETURN '{"record_type": "memory", "id": "' || p_id || '", "content": "' || p_id
      || '", "thread_id": "t1", "embedding": ' || unit(1) || p_extra || '}';
  END mem;

  PROCEDURE round_trip IS
    l_rec JSON_OBJECT_T;
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[{"record_type": "fact", "id": "f-1", "user_id": "u1", "agent_id": null, "thread_id": "t1",'
      || ' "content": "Paris is in France", "metadata": {"source": "chat", "tags": ["geo"], "n": 1.5, "ok": true},'
      || ' "timestamp": "2026-01-02T03:04:05+02:00", "status": "INVALID", "embedding": ' || unit(1) || '},'
      || ' {"record_type": "memory", "content": "generated id", "embedding": null}]');
    ut.expect(l_ids.get_string(0)).to_equal('f-1');
    ut.expect(LENGTH(l_ids.get_string(1))).to_equal(32);
    l_rec := TREAT(get('{"ids": ["f-1"]}').get(0) AS JSON_OBJECT_T);
    ut.expect(l_rec.get_string('record_type')).to_equal('fact');
    ut.expect(l_rec.get_string('user_id')).to_equal('u1');
    ut.expect(l_rec.get('agent_id').is_null).to_be_true();
    ut.expect(l_rec.get_string('content')).to_equal('Paris is in France');
    ut.expect(l_rec.get_object('metadata').get_number('n')).to_equal(1.5);
    ut.expect(l_rec.get_string('timestamp')).to_equal('2026-01-02T03:04:05+02:00');
    ut.expect(l_rec.get_string('status')).to_equal('INVALID');
    ut.expect(l_rec.get('expires_at').is_null).to_be_true();
    ut.expect(l_rec.get_string('created_at')).to_be_like('____-__-__T__:__:__.______Z');
  END round_trip;

  PROCEDURE duplicate_id IS
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[' || mem('m1') || ']');
    l_ids := write('[' || mem('m1') || ']');
  END duplicate_id;

  PROCEDURE memory_types_share_ids IS
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[' || mem('m1') || ']');
    l_ids := write('[{"record_type": "fact", "id": "m1", "content": "x", "embedding": null}]');
  END memory_types_share_ids;

  PROCEDURE failed_batch_is_atomic IS
    l_ids JSON_ARRAY_T;
  BEGIN
    BEGIN
      l_ids := write('[' || mem('ok-1') || ', {"record_type": "memory", "id": "bad", "status": "MAYBE"}]');
      ut.fail('the invalid status was accepted');
    EXCEPTION
      WHEN agent_memory_errors.e_invalid_argument THEN
        NULL;
    END;
    ut.expect(get('{"ids": ["ok-1", "bad"]}').get_size).to_equal(0);
  END failed_batch_is_atomic;

  PROCEDURE replace_record IS
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[' || mem('m1') || ']');
    l_ids := write('[{"record_type": "memory", "id": "m1", "content": "new", "embedding": null}]', NULL, TRUE);
    ut.expect(TREAT(get('{"ids": ["m1"]}').get(0) AS JSON_OBJECT_T).get_string('content')).to_equal('new');
  END replace_record;

  PROCEDURE expiry IS
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[' || mem('gone', ', "ttl_days": 0') || ', ' || mem('kept', ', "ttl_days": 30') || ']');
    ut.expect(get('{"ids": ["gone", "kept"]}').get_size).to_equal(1);
    ut.expect(agent_memory.purge_expired(p_commit => FALSE)).to_equal(1);
    ut.expect(TREAT(get('{"ids": ["kept"]}').get(0) AS JSON_OBJECT_T).get_string('expires_at')).to_be_not_null();
  END expiry;

  PROCEDURE timestamp_anchor_needs_timestamp IS
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[' || mem('m1', ', "ttl_days": 1, "ttl_anchor": "TIMESTAMP"') || ']');
  END timestamp_anchor_needs_timestamp;

  PROCEDURE dimension_mismatch IS
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[{"record_type": "memory", "id": "m1", "embedding": [1, 0, 0]}]');
  END dimension_mismatch;

  PROCEDURE update_record IS
    l_ids JSON_ARRAY_T;
    l_out JSON;
  BEGIN
    l_ids := write('[' || mem('m1', ', "metadata": {"a": 1, "b": 2}') || ']');
    l_out := agent_memory.update_record(p_record_id => 'm1', p_record_types => j('["memory"]'),
                                        p_changes => j('{"metadata": {"c": 3}, "status": "INVALID"}'),
                                        p_commit => FALSE);
    ut.expect(JSON_SERIALIZE(JSON_QUERY(l_out, '$.metadata') RETURNING VARCHAR2)).to_equal('{"c":3}');
    ut.expect(JSON_VALUE(l_out, '$.status')).to_equal('INVALID');
    l_out := agent_memory.update_record(p_record_id => 'm1', p_record_types => j('["fact"]'),
                                        p_changes => j('{"content": "x"}'), p_commit => FALSE);
    ut.expect(l_out IS NULL).to_be_true();
  END update_record;

  PROCEDURE attached_image IS
    l_ids   JSON_ARRAY_T;
    l_count NUMBER;
  BEGIN
    l_ids := write('[{"record_type": "message", "id": "msg1", "thread_id": "t1", "role": "user", "content": "hi", "embedding": null},'
      || ' {"record_type": "image", "id": "img1", "thread_id": "t1", "message_id": "msg1", "image_bytes": "aGVsbG8=", "embedding": null}]');
    l_count := agent_memory.delete_records(p_record_ids => j('["img1"]'), p_record_types => j('["image"]'),
                                           p_commit => FALSE);
  END attached_image;

  PROCEDURE cascade_thread IS
    l_ids JSON_ARRAY_T;
    l_out JSON;
  BEGIN
    l_ids := write('[{"record_type": "thread", "id": "t1", "user_id": "u1"}, ' || mem('m1') || ', ' || mem('m2')
      || ', {"record_type": "message", "id": "msg1", "thread_id": "t1", "content": "hi", "embedding": null}]',
      '[{"thread_id": "t1", "source_id": "m1", "source_type": "memory", "target_id": "m2",'
      || ' "target_type": "memory", "relation_type": "supports"}]');
    l_out := agent_memory.delete_cascade(p_owner_type => 'thread', p_owner_id => 't1', p_commit => FALSE);
    ut.expect(JSON_VALUE(l_out, '$.owner' RETURNING NUMBER)).to_equal(1);
    ut.expect(JSON_VALUE(l_out, '$.records' RETURNING NUMBER)).to_equal(4);
    ut.expect(JSON_VALUE(l_out, '$.links' RETURNING NUMBER)).to_equal(1);
    ut.expect(get('{"thread_id": "t1"}').get_size).to_equal(0);
  END cascade_thread;

  PROCEDURE list_messages_slices IS
    l_ids  JSON_ARRAY_T;
    l_msgs JSON_ARRAY_T;
  BEGIN
    FOR i IN 1 .. 4 LOOP
      l_ids := write('[{"record_type": "message", "id": "msg' || i || '", "thread_id": "t9", "content": "m'
        || i || '", "embedding": null}]');
    END LOOP;
    l_msgs := TREAT(JSON_ELEMENT_T.load(agent_memory.list_messages(p_thread_id => 't9', p_start => -2))
                    AS JSON_ARRAY_T);
    ut.expect(l_msgs.get_size).to_equal(2);
    ut.expect(TREAT(l_msgs.get(0) AS JSON_OBJECT_T).get_string('id')).to_equal('msg3');
    l_msgs := TREAT(JSON_ELEMENT_T.load(agent_memory.list_messages(p_thread_id => 't9', p_start => 1, p_end => -2))
                    AS JSON_ARRAY_T);
    ut.expect(l_msgs.get_size).to_equal(1);
    ut.expect(TREAT(l_msgs.get(0) AS JSON_OBJECT_T).get_string('id')).to_equal('msg2');
  END list_messages_slices;
END ut_agent_memory_records;
/
