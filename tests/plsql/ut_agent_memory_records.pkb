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

  FUNCTION ids(p_records IN JSON_ARRAY_T) RETURN VARCHAR2 IS
    l_out VARCHAR2(4000 CHAR);
  BEGIN
    FOR i IN 0 .. p_records.get_size - 1 LOOP
      l_out := l_out || CASE WHEN i > 0 THEN ',' END
            || TREAT(p_records.get(i) AS JSON_OBJECT_T).get_string('id');
    END LOOP;
    RETURN l_out;
  END ids;

  FUNCTION one(p_id IN VARCHAR2, p_type IN VARCHAR2 DEFAULT 'memory') RETURN JSON_OBJECT_T IS
  BEGIN
    RETURN TREAT(get('{"ids": ["' || p_id || '"], "record_types": ["' || p_type
                     || '"], "include_bytes": true}').get(0) AS JSON_OBJECT_T);
  END one;

  FUNCTION upd(p_id IN VARCHAR2, p_type IN VARCHAR2, p_changes IN CLOB) RETURN JSON_OBJECT_T IS
    l_out JSON;
  BEGIN
    l_out := agent_memory.update_record(p_record_id => p_id, p_record_types => j('["' || p_type || '"]'),
                                        p_changes => j(p_changes), p_commit => FALSE);
    IF l_out IS NULL THEN
      RETURN NULL;
    END IF;
    RETURN TREAT(JSON_ELEMENT_T.load(l_out) AS JSON_OBJECT_T);
  END upd;

  -- message msg1 of u1/a1/t1 (p_extra: more RecordIn members) with images attached to it
  PROCEDURE seed_message(p_extra IN VARCHAR2, p_images IN VARCHAR2) IS
    l_ids JSON_ARRAY_T;
    l_all VARCHAR2(32767);
  BEGIN
    l_all := '[{"record_type": "message", "id": "msg1", "user_id": "u1", "agent_id": "a1",'
      || ' "thread_id": "t1", "role": "user", "content": "hi", "embedding": null' || p_extra || '}';
    FOR i IN 1 .. REGEXP_COUNT(p_images, '[^,]+') LOOP
      l_all := l_all || ', {"record_type": "image", "id": "' || REGEXP_SUBSTR(p_images, '[^,]+', 1, i)
        || '", "user_id": "u1", "agent_id": "a1", "thread_id": "t1", "message_id": "msg1",'
        || ' "content": "old", "image_bytes": "aGVsbG8=", "embedding": null}';
    END LOOP;
    l_ids := write(l_all || ']');
  END seed_message;

  PROCEDURE round_trip IS
    l_rec JSON_OBJECT_T;
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[{"record_type": "fact", "id": "f-1", "user_id": "u1", "agent_id": null, "thread_id": "t1",'
      || ' "content": "Paris is in France", "metadata": {"source": "chat", "tags": ["geo"], "n": 1.5, "ok": true},'
      || ' "timestamp": "2026-01-02T03:04:05+02:00", "status": "INVALID", "embedding": ' || unit(1) || '},'
      || ' {"record_type": "memory", "content": "generated id", "embedding": null}]');
    ut.expect(l_ids.get_string(0)).to_equal('f-1');
    -- a generated id is a dashed version 7 UUID
    ut.expect(l_ids.get_string(1)).to_match('^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$');
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
    l_ids := write('[{"record_type": "memory", "id": "m1", "content": "new", "thread_id": "t1",'
      || ' "embedding": null}]', NULL, TRUE);
    ut.expect(TREAT(get('{"ids": ["m1"]}').get(0) AS JSON_OBJECT_T).get_string('content')).to_equal('new');
  END replace_record;

  -- the record holding the id is of another scope (thread t2)
  PROCEDURE replace_keeps_other_scope IS
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[' || mem('m1') || ']');
    BEGIN
      l_ids := write('[{"record_type": "memory", "id": "m1", "content": "taken", "thread_id": "t2",'
        || ' "embedding": null}]', NULL, TRUE);
      ut.fail('a record of another scope was replaced');
    EXCEPTION
      WHEN agent_memory_errors.e_duplicate_record THEN
        ut.expect(SQLERRM).to_be_like('%record with id ''m1'' already exists%');
    END;
    ut.expect(TREAT(get('{"ids": ["m1"]}').get(0) AS JSON_OBJECT_T).get_string('content')).to_equal('m1');
  END replace_keeps_other_scope;

  -- replace_images naming an image attached to another user's message
  PROCEDURE replace_images_keeps_other_users_image IS
    l_ids JSON_ARRAY_T;
    l_msg JSON_OBJECT_T;
    l_rec JSON_OBJECT_T;
  BEGIN
    l_ids := write('[{"record_type": "message", "id": "bob-msg", "user_id": "bob", "agent_id": "a1",'
      || ' "thread_id": "bob-t", "role": "user", "content": "look", "embedding": null},'
      || ' {"record_type": "image", "id": "bob-img", "user_id": "bob", "agent_id": "a1",'
      || ' "thread_id": "bob-t", "message_id": "bob-msg", "image_bytes": "Ym9i", "embedding": null}]');
    seed_message(NULL, 'img1');
    BEGIN
      l_msg := upd('msg1', 'message', '{"content": "mine", "replace_images": ['
        || '{"id": "bob-img", "image_bytes": "YWxpY2U=", "embedding": null}]}');
      ut.fail('another user''s image was replaced');
    EXCEPTION
      WHEN agent_memory_errors.e_duplicate_record THEN
        NULL;
    END;
    l_rec := one('bob-img', 'image');
    ut.expect(l_rec.get_string('user_id')).to_equal('bob');
    ut.expect(l_rec.get_string('message_id')).to_equal('bob-msg');
    ut.expect(l_rec.get_string('image_bytes')).to_equal('Ym9i');
    ut.expect(one('msg1', 'message').get_string('content')).to_equal('hi');
  END replace_images_keeps_other_users_image;

  -- content over the contract's limit is refused before anything is written
  PROCEDURE oversized_content IS
    l_ids  JSON_ARRAY_T;
    l_big  CLOB;
  BEGIN
    DBMS_LOB.CREATETEMPORARY(l_big, TRUE);
    FOR i IN 1 .. 1001 LOOP
      DBMS_LOB.WRITEAPPEND(l_big, 1000, RPAD('x', 1000, 'x'));
    END LOOP;
    l_ids := write('[{"record_type": "memory", "id": "big", "content": "' || l_big
      || '", "embedding": null}]');
  END oversized_content;

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

  PROCEDURE restored_times IS
    l_ids     JSON_ARRAY_T;
    l_rec     JSON_OBJECT_T;
    l_expires TIMESTAMP;
  BEGIN
    l_ids := write('['
      || mem('r1', ', "created_at": "2020-01-02T03:04:05.123456+02:00", "ttl_days": 36525') || ','
      || mem('r2', ', "created_at": "2021-05-06T07:08:09", "updated_at": "2022-01-01T00:00:00Z",'
               || ' "expires_at": "2999-12-31T23:59:59.5+01:00", "ttl_days": 1') || ','
      || mem('r3', ', "created_at": "2020-01-01T00:00:00Z", "expires_at": null, "ttl_days": 0') || ','
      || mem('r4', ', "created_at": "2020-01-01T00:00:00Z", "ttl_days": 1') || ']');
    -- zone converted to UTC; updated_at defaults to created_at; the TTL counts from created_at
    l_rec := one('r1');
    ut.expect(l_rec.get_string('created_at')).to_equal('2020-01-02T01:04:05.123456Z');
    ut.expect(l_rec.get_string('updated_at')).to_equal('2020-01-02T01:04:05.123456Z');
    ut.expect(l_rec.get_string('expires_at')).to_equal('2120-01-03T01:04:05.123456Z');
    -- zone-less text is UTC; a given expires_at wins over ttl_days
    l_rec := one('r2');
    ut.expect(l_rec.get_string('created_at')).to_equal('2021-05-06T07:08:09.000000Z');
    ut.expect(l_rec.get_string('updated_at')).to_equal('2022-01-01T00:00:00.000000Z');
    ut.expect(l_rec.get_string('expires_at')).to_equal('2999-12-31T22:59:59.500000Z');
    -- "expires_at": null never expires, whatever ttl_days says
    ut.expect(one('r3').get('expires_at').is_null).to_be_true();
    -- anchored on the restored created_at, r4 expired in 2020: stored but invisible
    ut.expect(get('{"ids": ["r4"]}').get_size).to_equal(0);
    SELECT r.expires_at INTO l_expires FROM agent_memory_records r
     WHERE r.id_space = 'memory' AND r.id = 'r4';
    ut.expect(l_expires).to_equal(TIMESTAMP '2020-01-02 00:00:00');
  END restored_times;

  PROCEDURE restored_link_time IS
    l_ids   JSON_ARRAY_T;
    l_links JSON_ARRAY_T;
  BEGIN
    l_ids := write('[' || mem('m1') || ', ' || mem('m2') || ', ' || mem('m3') || ']',
      '[{"id": "old", "thread_id": "t1", "source_id": "m1", "source_type": "memory", "target_id": "m2",'
      || ' "target_type": "memory", "relation_type": "supports", "created_at": "2019-03-04T05:06:07+01:00"},'
      || ' {"id": "new", "thread_id": "t1", "source_id": "m2", "source_type": "memory", "target_id": "m3",'
      || ' "target_type": "memory", "relation_type": "supports"}]');
    l_links := TREAT(JSON_ELEMENT_T.load(agent_memory.list_links(p_query => j('{"thread_id": "t1"}'))) AS JSON_ARRAY_T);
    ut.expect(TREAT(l_links.get(0) AS JSON_OBJECT_T).get_string('created_at')).to_equal('2019-03-04T04:06:07.000000Z');
    ut.expect(TREAT(l_links.get(1) AS JSON_OBJECT_T).get_string('created_at')).to_be_like('____-__-__T__:__:__.______Z');
    ut.expect(TREAT(l_links.get(1) AS JSON_OBJECT_T).get_string('created_at')).not_to_equal('2019-03-04T04:06:07.000000Z');
  END restored_link_time;

  PROCEDURE restored_time_invalid IS
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[' || mem('m1', ', "updated_at": "yesterday"') || ']');
  END restored_time_invalid;

  PROCEDURE replace_images IS
    l_rec   JSON_OBJECT_T;
    l_msg   JSON_OBJECT_T;
    l_seq3  NUMBER;
    l_count NUMBER;
  BEGIN
    seed_message(', "ttl_days": 30', 'img1,img2,img3');
    SELECT r.seq INTO l_seq3 FROM agent_memory_records r WHERE r.id_space = 'image' AND r.id = 'img3';
    l_msg := upd('msg1', 'message', '{"content": "edited", "replace_images": ['
      || '{"id": "img1"},'
      || '{"id": "img2", "content": "new desc", "image_bytes": "bmV3", "embedding": null},'
      || '{"id": "img4", "content": "added", "image_bytes": "aGk=", "user_id": "intruder", "agent_id": null,'
      || ' "thread_id": "elsewhere", "message_id": "other", "ttl_days": 0, "embedding": null}]}');
    ut.expect(l_msg.get_string('content')).to_equal('edited');
    ut.expect(ids(get('{"record_types": ["image"], "message_id": "msg1"}'))).to_equal('img1,img2,img4');
    -- listed without bytes: kept as stored
    l_rec := one('img1', 'image');
    ut.expect(l_rec.get_string('content')).to_equal('old');
    ut.expect(l_rec.get_string('image_bytes')).to_equal('aGVsbG8=');
    -- listed with bytes: replaced
    l_rec := one('img2', 'image');
    ut.expect(l_rec.get_string('content')).to_equal('new desc');
    ut.expect(l_rec.get_string('image_bytes')).to_equal('bmV3');
    -- inserted with the message's id, scope and expiry, whatever the image said
    l_rec := one('img4', 'image');
    ut.expect(l_rec.get_string('image_bytes')).to_equal('aGk=');
    ut.expect(l_rec.get_string('message_id')).to_equal('msg1');
    ut.expect(l_rec.get_string('user_id')).to_equal('u1');
    ut.expect(l_rec.get_string('agent_id')).to_equal('a1');
    ut.expect(l_rec.get_string('thread_id')).to_equal('t1');
    ut.expect(l_rec.get_string('expires_at')).to_equal(l_msg.get_string('expires_at'));
    -- unlisted: deleted with its bytes row
    ut.expect(get('{"ids": ["img3"]}').get_size).to_equal(0);
    SELECT COUNT(*) INTO l_count FROM agent_memory_records r WHERE r.id_space = 'image' AND r.id = 'img3';
    ut.expect(l_count).to_equal(0);
    SELECT COUNT(*) INTO l_count FROM agent_memory_images i WHERE i.seq = l_seq3;
    ut.expect(l_count).to_equal(0);
    SELECT COUNT(*) INTO l_count
      FROM agent_memory_images i JOIN agent_memory_records r ON r.seq = i.seq
     WHERE r.record_type = 'image' AND r.message_id = 'msg1';
    ut.expect(l_count).to_equal(3);
  END replace_images;

  PROCEDURE images_follow_expiry IS
    l_msg JSON_OBJECT_T;
  BEGIN
    seed_message(NULL, 'img1,img2');
    ut.expect(one('img1', 'image').get('expires_at').is_null).to_be_true();
    l_msg := upd('msg1', 'message', '{"ttl_days": 10}');
    ut.expect(l_msg.get_string('expires_at')).to_be_not_null();
    ut.expect(one('img1', 'image').get_string('expires_at')).to_equal(l_msg.get_string('expires_at'));
    ut.expect(one('img2', 'image').get_string('expires_at')).to_equal(l_msg.get_string('expires_at'));
    l_msg := upd('msg1', 'message', '{"ttl_days": null}');
    ut.expect(one('img2', 'image').get('expires_at').is_null).to_be_true();
    -- an expiry in the past hides the message and its images alike
    l_msg := upd('msg1', 'message', '{"ttl_days": 0}');
    ut.expect(get('{"ids": ["msg1", "img1", "img2"]}').get_size).to_equal(0);
  END images_follow_expiry;

  PROCEDURE replace_images_validation IS
    l_msg JSON_OBJECT_T;
    l_ids JSON_ARRAY_T;
  BEGIN
    seed_message(NULL, 'img1');
    BEGIN
      l_msg := upd('msg1', 'message', '{"content": "edited", "replace_images": '
        || '[{"id": "img9", "image_bytes": "aGk=", "status": "MAYBE"}]}');
      ut.fail('the invalid image was accepted');
    EXCEPTION
      WHEN agent_memory_errors.e_invalid_argument THEN
        NULL;
    END;
    ut.expect(one('msg1', 'message').get_string('content')).to_equal('hi');
    ut.expect(ids(get('{"record_types": ["image"], "message_id": "msg1"}'))).to_equal('img1');
    -- a record that is not a message ignores replace_images
    l_ids := write('[' || mem('m1') || ']');
    l_msg := upd('m1', 'memory', '{"replace_images": []}');
    ut.expect(l_msg.get_string('id')).to_equal('m1');
    ut.expect(ids(get('{"record_types": ["image"], "message_id": "msg1"}'))).to_equal('img1');
    -- null (like []) deletes every attached image
    l_msg := upd('msg1', 'message', '{"replace_images": null}');
    ut.expect(get('{"record_types": ["image"], "message_id": "msg1"}').get_size).to_equal(0);
  END replace_images_validation;

  -- p_count characters of 3 bytes each in AL32UTF8 (U+4E2D): 512 of them are 1536 bytes,
  -- which a byte-sized VARCHAR2(512) could not hold. A loop, not RPAD: RPAD counts display
  -- width, and CJK characters are two columns wide.
  FUNCTION cjk(p_count IN PLS_INTEGER) RETURN VARCHAR2 IS
    l_text VARCHAR2(32767);
  BEGIN
    FOR i IN 1 .. p_count LOOP
      l_text := l_text || TO_CHAR(UNISTR('\4E2D'));
    END LOOP;
    RETURN l_text;
  END cjk;

  PROCEDURE non_ascii_ids IS
    l_ids  JSON_ARRAY_T;
    l_id   VARCHAR2(512 CHAR) := cjk(512);
    l_rec  JSON_OBJECT_T;
  BEGIN
    l_ids := write('[{"record_type": "memory", "id": "' || l_id || '", "user_id": "' || l_id
      || '", "agent_id": "' || l_id || '", "thread_id": "' || l_id || '", "content": "x",'
      || ' "embedding": ' || unit(1) || '}]');
    ut.expect(l_ids.get_string(0)).to_equal(l_id);
    l_rec := one(l_id);
    ut.expect(l_rec.get_string('user_id')).to_equal(l_id);
    ut.expect(l_rec.get_string('thread_id')).to_equal(l_id);
    ut.expect(get('{"user_id": "' || l_id || '"}').get_size).to_equal(1);
  END non_ascii_ids;

  PROCEDURE overlong_id IS
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[' || mem(cjk(513)) || ']');
  END overlong_id;

  PROCEDURE overlong_timestamp IS
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[' || mem('m1', ', "timestamp": "2024-01-01T00:00:00' || RPAD('0', 300, '0') || '"') || ']');
  END overlong_timestamp;

  PROCEDURE overlong_record_type IS
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[{"record_type": "' || RPAD('m', 5000, 'm') || '"}]');
  END overlong_record_type;

  PROCEDURE large_image IS
    l_b64 CLOB;
    l_ids JSON_ARRAY_T;
    l_out CLOB;
  BEGIN
    -- 40000 base64 characters (30000 bytes): more than a VARCHAR2 of PL/SQL holds
    DBMS_LOB.CREATETEMPORARY(l_b64, TRUE);
    FOR i IN 1 .. 40 LOOP
      DBMS_LOB.WRITEAPPEND(l_b64, 1000, RPAD('AAAA', 1000, 'AAAA'));
    END LOOP;
    l_ids := write('[{"record_type": "image", "id": "big1", "embedding": null, "image_bytes": "'
      || l_b64 || '"}]');
    l_out := one('big1', 'image').get_clob('image_bytes');
    ut.expect(DBMS_LOB.GETLENGTH(l_out)).to_equal(40000);
    ut.expect(DBMS_LOB.COMPARE(l_out, l_b64)).to_equal(0);
  END large_image;
  PROCEDURE message_seq_no IS
    l_ids  JSON_ARRAY_T;
    l_msgs JSON_ARRAY_T;
    l_rec  JSON_OBJECT_T;
  BEGIN
    l_ids := write('[{"record_type": "message", "id": "q1", "thread_id": "t1", "role": "user",'
      || ' "content": "one", "embedding": null}, ' || mem('m1') || ']');
    l_ids := write('[{"record_type": "message", "id": "q2", "thread_id": "t1", "role": "assistant",'
      || ' "content": "two", "embedding": null}]');
    l_msgs := TREAT(JSON_ELEMENT_T.load(agent_memory.list_messages(p_thread_id => 't1')) AS JSON_ARRAY_T);
    ut.expect(l_msgs.get_size).to_equal(2);
    ut.expect(TREAT(l_msgs.get(1) AS JSON_OBJECT_T).get_number('seq_no'))
      .to_be_greater_than(TREAT(l_msgs.get(0) AS JSON_OBJECT_T).get_number('seq_no'));
    l_rec := one('m1');
    ut.expect(l_rec.has('seq_no')).to_be_false();  -- only messages carry it
    l_rec := upd('q1', 'message', '{"content": "one, edited"}');
    ut.expect(l_rec.get_number('seq_no')).to_equal(TREAT(l_msgs.get(0) AS JSON_OBJECT_T).get_number('seq_no'));
  END message_seq_no;

  PROCEDURE batch_keeps_order_and_bytes IS
    l_ids JSON_ARRAY_T;
    l_got JSON_ARRAY_T;
  BEGIN
    l_ids := write('[{"record_type": "image", "id": "i1", "content": "a", "image_bytes": "aGVsbG8=", "embedding": null},'
      || mem('m1') || ','
      || ' {"record_type": "image", "id": "i2", "content": "b", "image_bytes": "d29ybGQ=", "embedding": null}]');
    ut.expect(l_ids.get_string(0) || ',' || l_ids.get_string(1) || ',' || l_ids.get_string(2)).to_equal('i1,m1,i2');
    l_got := get('{"ids": ["i2", "m1", "i1"], "include_bytes": true}');
    ut.expect(ids(l_got)).to_equal('i1,m1,i2');  -- oldest first: the batch order
    ut.expect(TREAT(l_got.get(0) AS JSON_OBJECT_T).get_string('image_bytes')).to_equal('aGVsbG8=');
    ut.expect(TREAT(l_got.get(1) AS JSON_OBJECT_T).has('image_bytes')).to_be_false();
    ut.expect(TREAT(l_got.get(2) AS JSON_OBJECT_T).get_string('image_bytes')).to_equal('d29ybGQ=');
  END batch_keeps_order_and_bytes;

  PROCEDURE first_used_id_is_reported IS
    l_ids JSON_ARRAY_T;
  BEGIN
    l_ids := write('[' || mem('a') || ', ' || mem('b') || ']');
    BEGIN
      l_ids := write('[' || mem('new') || ', ' || mem('b') || ', ' || mem('a') || ']');
      ut.fail('an id already used was accepted');
    EXCEPTION
      WHEN agent_memory_errors.e_duplicate_record THEN
        ut.expect(SQLERRM).to_be_like('%record with id ''b'' already exists%');
    END;
    ut.expect(get('{"ids": ["new"]}').get_size).to_equal(0);
  END first_used_id_is_reported;
END ut_agent_memory_records;
/
