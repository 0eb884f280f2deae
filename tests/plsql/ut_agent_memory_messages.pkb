CREATE OR REPLACE PACKAGE BODY ut_agent_memory_messages AS
  g_seq PLS_INTEGER := 0;  -- the number of the last message made (reset by seed_thread)

  FUNCTION j(p_text IN CLOB) RETURN JSON IS
  BEGIN
    RETURN JSON_ELEMENT_T.parse(p_text).to_json;
  END j;

  PROCEDURE seed_thread(p_config IN VARCHAR2 DEFAULT '{"settings": {}, "state": {}}') IS
    l_ids JSON;
  BEGIN
    g_seq := 0;
    l_ids := agent_memory.write_records(
      p_records => j('[{"record_type": "thread", "id": "t1", "thread_id": "t1", "user_id": "u1",'
        || ' "config": ' || p_config || '}]'),
      p_commit => FALSE);
  END seed_thread;

  -- p_count messages of t1 (no vector), as RecordIn text.
  FUNCTION messages(p_count IN PLS_INTEGER, p_thread IN VARCHAR2 DEFAULT 't1') RETURN CLOB IS
    l_out CLOB := '[';
  BEGIN
    FOR i IN 1 .. p_count LOOP
      g_seq := g_seq + 1;
      l_out := l_out || CASE WHEN i > 1 THEN ',' END || '{"record_type": "message", "id": "m'
        || g_seq || '", "thread_id": "' || p_thread || '", "user_id": "u1", "role": "user",'
        || ' "content": "message ' || g_seq || '", "embedding": null}';
    END LOOP;
    RETURN l_out || ']';
  END messages;

  FUNCTION append(p_batch IN CLOB) RETURN JSON_OBJECT_T IS
  BEGIN
    RETURN TREAT(JSON_ELEMENT_T.load(agent_memory.append_messages(p_batch => j(p_batch),
                                                                  p_commit => FALSE))
                 AS JSON_OBJECT_T);
  END append;

  -- The windows of one batch of p_count messages under p_schedule, as 'extraction/summary'.
  FUNCTION windows(p_count IN PLS_INTEGER, p_schedule IN VARCHAR2) RETURN VARCHAR2 IS
    l_out JSON_OBJECT_T;
  BEGIN
    l_out := append('{"thread_id": "t1", "records": ' || messages(p_count)
      || ', "schedule": ' || p_schedule || '}');
    RETURN l_out.get_number('extraction_window') || '/' || l_out.get_number('summary_window');
  END windows;

  FUNCTION counters RETURN VARCHAR2 IS
    l_config JSON_OBJECT_T;
    l_counts JSON_OBJECT_T;
  BEGIN
    l_config := TREAT(TREAT(JSON_ELEMENT_T.load(agent_memory.get_records(
      p_query => j('{"ids": ["t1"], "record_types": ["thread"]}'))) AS JSON_ARRAY_T).get(0)
      AS JSON_OBJECT_T).get_object('config');
    l_counts := l_config.get_object('state').get_object('extraction');
    RETURN l_counts.get_number('messages_since_extraction') || '/'
      || l_counts.get_number('messages_since_summary');
  END counters;

  PROCEDURE counts_and_returns_the_window IS
    c_schedule CONSTANT VARCHAR2(200 CHAR) :=
      '{"extraction_frequency": 3, "extraction_window": -1, "summary_frequency": null}';
    l_out JSON_OBJECT_T;
  BEGIN
    seed_thread;
    l_out := append('{"thread_id": "t1", "records": ' || messages(2) || ', "schedule": '
      || c_schedule || '}');
    ut.expect(l_out.get_boolean('written')).to_be_true();
    ut.expect(l_out.get_array('ids').get_size).to_equal(2);
    ut.expect(l_out.get_number('extraction_window')).to_equal(0);
    ut.expect(l_out.get_array('messages').get_size).to_equal(0);
    ut.expect(counters).to_equal('2/0');
    l_out := append('{"thread_id": "t1", "records": ' || messages(2) || ', "schedule": '
      || c_schedule || '}');
    ut.expect(l_out.get_number('extraction_window')).to_equal(4);
    ut.expect(l_out.get_array('messages').get_size).to_equal(4);
    ut.expect(counters).to_equal('0/0');
  END counts_and_returns_the_window;

  PROCEDURE summary_checked_after_extraction IS
    c_schedule CONSTANT VARCHAR2(200 CHAR) :=
      '{"extraction_frequency": 2, "extraction_window": -1, "summary_frequency": 3}';
    l_seen VARCHAR2(200 CHAR);
  BEGIN
    seed_thread;
    FOR i IN 1 .. 6 LOOP
      l_seen := l_seen || CASE WHEN i > 1 THEN ',' END || windows(1, c_schedule);
    END LOOP;
    -- due after 3 messages, but checked only at the extractions after messages 2, 4 and 6
    ut.expect(l_seen).to_equal('0/0,2/0,0/0,2/4,0/0,2/0');
    ut.expect(counters).to_equal('0/2');
  END summary_checked_after_extraction;

  PROCEDURE summary_without_extraction IS
    c_schedule CONSTANT VARCHAR2(200 CHAR) :=
      '{"extraction_frequency": null, "extraction_window": -1, "summary_frequency": 3}';
  BEGIN
    seed_thread;
    ut.expect(windows(1, c_schedule) || ',' || windows(1, c_schedule) || ','
      || windows(1, c_schedule) || ',' || windows(2, c_schedule) || ','
      || windows(1, c_schedule)).to_equal('0/0,0/0,0/3,0/0,0/3');
  END summary_without_extraction;

  PROCEDURE positive_window IS
    c_schedule CONSTANT VARCHAR2(200 CHAR) :=
      '{"extraction_frequency": 3, "extraction_window": 10, "summary_frequency": null}';
  BEGIN
    seed_thread;
    ut.expect(windows(1, c_schedule) || ',' || windows(1, c_schedule) || ','
      || windows(1, c_schedule)).to_equal('0/0,0/0,10/0');
  END positive_window;

  PROCEDURE unsummarised_given_back IS
    l_out JSON_OBJECT_T;
  BEGIN
    seed_thread;
    l_out := append('{"thread_id": "t1", "schedule": {"extraction_frequency": 5,'
      || ' "extraction_window": -1, "summary_frequency": 5, "unsummarised": 4}}');
    ut.expect(l_out.get_array('ids').get_size).to_equal(0);
    ut.expect(counters).to_equal('0/4');
  END unsummarised_given_back;

  PROCEDURE missing_thread IS
    l_out JSON_OBJECT_T;
  BEGIN
    l_out := append('{"thread_id": "nope", "records": ' || messages(1, 'nope') || '}');
  END missing_thread;

  PROCEDURE thread_not_required IS
    l_out JSON_OBJECT_T;
    l_n   NUMBER;
  BEGIN
    l_out := append('{"thread_id": "loose", "thread_required": false, "records": '
      || messages(2, 'loose') || ', "schedule": {"extraction_frequency": -1,'
      || ' "extraction_window": -1, "summary_frequency": null}}');
    ut.expect(l_out.get_number('extraction_window')).to_equal(2);
    SELECT COUNT(*) INTO l_n FROM agent_memory_records WHERE thread_id = 'loose';
    ut.expect(l_n).to_equal(2);
  END thread_not_required;

  PROCEDURE stale_last_message IS
    l_out JSON_OBJECT_T;
    l_n   NUMBER;
  BEGIN
    seed_thread;
    l_out := append('{"thread_id": "t1", "records": ' || messages(2) || '}');
    l_out := append('{"thread_id": "t1", "after_message_id": "m1", "records": '
      || messages(1) || '}');
    ut.expect(l_out.get_boolean('written')).to_be_false();
    ut.expect(l_out.get_object('last_message').get_string('id')).to_equal('m2');
    SELECT COUNT(*) INTO l_n FROM agent_memory_records WHERE thread_id = 't1'
       AND record_type = 'message';
    ut.expect(l_n).to_equal(2);
    l_out := append('{"thread_id": "t1", "after_message_id": "m2", "records": '
      || messages(1) || '}');
    ut.expect(l_out.get_boolean('written')).to_be_true();
  END stale_last_message;

  PROCEDURE record_of_another_thread IS
    l_out JSON_OBJECT_T;
  BEGIN
    seed_thread;
    l_out := append('{"thread_id": "t1", "records": ' || messages(1, 'elsewhere') || '}');
  END record_of_another_thread;

  PROCEDURE settings_kept IS
    l_config JSON_OBJECT_T;
    l_out    JSON_OBJECT_T;
  BEGIN
    seed_thread('{"settings": {"max_message_token_length": 99}, "state": {"other": 1}}');
    l_out := append('{"thread_id": "t1", "records": ' || messages(1) || ', "schedule":'
      || ' {"extraction_frequency": 9, "extraction_window": -1, "summary_frequency": null}}');
    l_config := TREAT(TREAT(JSON_ELEMENT_T.load(agent_memory.get_records(
      p_query => j('{"ids": ["t1"], "record_types": ["thread"]}'))) AS JSON_ARRAY_T).get(0)
      AS JSON_OBJECT_T).get_object('config');
    ut.expect(l_config.get_object('settings').get_number('max_message_token_length'))
      .to_equal(99);
    ut.expect(l_config.get_object('state').get_number('other')).to_equal(1);
    ut.expect(counters).to_equal('1/0');
  END settings_kept;

  PROCEDURE counters_kept IS
    l_out JSON_OBJECT_T;
    l_updated JSON;
  BEGIN
    seed_thread('{"settings": {"a": 1}, "state": {}}');
    l_out := append('{"thread_id": "t1", "records": ' || messages(2) || ', "schedule":'
      || ' {"extraction_frequency": 9, "extraction_window": -1, "summary_frequency": null}}');
    l_updated := agent_memory.update_record(p_record_id => 't1',
      p_record_types => j('["thread"]'), p_changes => j('{"settings": {"b": 2}}'),
      p_commit => FALSE);
    ut.expect(TREAT(JSON_ELEMENT_T.load(l_updated) AS JSON_OBJECT_T).get_object('config')
      .get_object('settings').get_number('b')).to_equal(2);
    ut.expect(counters).to_equal('2/0');
  END counters_kept;
END ut_agent_memory_messages;
/
