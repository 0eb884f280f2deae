CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY AS
  -- Every write member: savepoint, work, commit unless told not to; on error roll back to
  -- the savepoint and re-raise (a unique-key race is reported as the contract's -20003).

  PROCEDURE finish(p_commit IN BOOLEAN) IS
  BEGIN
    IF NVL(p_commit, TRUE) THEN
      COMMIT;
    END IF;
  END finish;

  FUNCTION describe RETURN JSON IS
  BEGIN
    RETURN AGENT_MEMORY_ADMIN.describe;
  END describe;

  FUNCTION recorded_embedding_model RETURN VARCHAR2 IS
  BEGIN
    RETURN AGENT_MEMORY_ADMIN.recorded_embedding_model;
  END recorded_embedding_model;

  PROCEDURE record_embedding_model(p_name IN VARCHAR2, p_commit IN BOOLEAN DEFAULT TRUE) IS
  BEGIN
    SAVEPOINT am_record_embedding_model;
    AGENT_MEMORY_ADMIN.record_embedding_model(p_name);
    finish(p_commit);
  EXCEPTION
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_record_embedding_model;
      RAISE;
  END record_embedding_model;

  FUNCTION write_records(p_records IN JSON, p_links IN JSON DEFAULT NULL,
                         p_replace IN BOOLEAN DEFAULT FALSE, p_commit IN BOOLEAN DEFAULT TRUE,
                         p_thread_id IN VARCHAR2 DEFAULT NULL)
    RETURN JSON IS
    l_out JSON;
  BEGIN
    SAVEPOINT am_write_records;
    l_out := AGENT_MEMORY_RECORD_API.write_records(p_records, p_links, p_replace, p_thread_id);
    finish(p_commit);
    RETURN l_out;
  EXCEPTION
    WHEN DUP_VAL_ON_INDEX THEN
      ROLLBACK TO SAVEPOINT am_write_records;
      AGENT_MEMORY_ERRORS.duplicate_record('an id or endpoint pair of this batch is already used');
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_write_records;
      RAISE;
  END write_records;

  FUNCTION get_records(p_query IN JSON DEFAULT NULL) RETURN JSON IS
  BEGIN
    RETURN AGENT_MEMORY_RECORD_API.get_records(p_query);
  END get_records;

  FUNCTION list_messages(p_thread_id IN VARCHAR2, p_start IN NUMBER DEFAULT NULL,
                         p_end IN NUMBER DEFAULT NULL, p_include_bytes IN BOOLEAN DEFAULT FALSE)
    RETURN JSON IS
  BEGIN
    RETURN AGENT_MEMORY_RECORD_API.list_messages(p_thread_id, p_start, p_end, p_include_bytes);
  END list_messages;

  FUNCTION update_record(p_record_id IN VARCHAR2, p_record_types IN JSON, p_changes IN JSON,
                         p_thread_id IN VARCHAR2 DEFAULT NULL, p_commit IN BOOLEAN DEFAULT TRUE)
    RETURN JSON IS
    l_out JSON;
  BEGIN
    SAVEPOINT am_update_record;
    l_out := AGENT_MEMORY_RECORD_API.update_record(p_record_id, p_record_types, p_changes, p_thread_id);
    finish(p_commit);
    RETURN l_out;
  EXCEPTION
    WHEN DUP_VAL_ON_INDEX THEN
      -- an image of replace_images whose id is taken where this session cannot see it
      ROLLBACK TO SAVEPOINT am_update_record;
      AGENT_MEMORY_ERRORS.duplicate_record('an image id of replace_images is already used');
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_update_record;
      RAISE;
  END update_record;

  FUNCTION delete_records(p_record_ids IN JSON, p_record_types IN JSON,
                          p_thread_id IN VARCHAR2 DEFAULT NULL, p_commit IN BOOLEAN DEFAULT TRUE)
    RETURN NUMBER IS
    l_count NUMBER;
  BEGIN
    SAVEPOINT am_delete_records;
    l_count := AGENT_MEMORY_RECORD_API.delete_records(p_record_ids, p_record_types, p_thread_id);
    finish(p_commit);
    RETURN l_count;
  EXCEPTION
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_delete_records;
      RAISE;
  END delete_records;

  FUNCTION delete_cascade(p_owner_type IN VARCHAR2, p_owner_id IN VARCHAR2,
                          p_commit IN BOOLEAN DEFAULT TRUE) RETURN JSON IS
    l_out JSON;
  BEGIN
    SAVEPOINT am_delete_cascade;
    l_out := AGENT_MEMORY_RECORD_API.delete_cascade(p_owner_type, p_owner_id);
    finish(p_commit);
    RETURN l_out;
  EXCEPTION
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_delete_cascade;
      RAISE;
  END delete_cascade;

  FUNCTION search(p_request IN JSON) RETURN JSON IS
  BEGIN
    RETURN AGENT_MEMORY_SEARCH.search(p_request);
  END search;

  FUNCTION search_rows(p_request IN JSON) RETURN search_rows_t PIPELINED IS
    l_hits   JSON_ARRAY_T := TREAT(JSON_ELEMENT_T.load(AGENT_MEMORY_SEARCH.search(p_request)) AS JSON_ARRAY_T);
    l_hit    JSON_OBJECT_T;
    l_record JSON_OBJECT_T;
    l_row    search_row_t;
  BEGIN
    FOR i IN 0 .. l_hits.get_size - 1 LOOP
      l_hit := TREAT(l_hits.get(i) AS JSON_OBJECT_T);
      l_record := l_hit.get_object('record');
      l_row.rank := i + 1;
      l_row.record_id := l_record.get_string('id');
      l_row.record_type := l_record.get_string('record_type');
      l_row.distance := l_hit.get_number('distance');
      l_row.record_json := l_record.to_clob;
      l_row.linked_json := l_hit.get_array('linked').to_clob;
      PIPE ROW (l_row);
    END LOOP;
    RETURN;
  END search_rows;

  FUNCTION update_link(p_relation_id IN VARCHAR2, p_thread_id IN VARCHAR2, p_changes IN JSON,
                       p_commit IN BOOLEAN DEFAULT TRUE) RETURN NUMBER IS
    l_count NUMBER;
  BEGIN
    SAVEPOINT am_update_link;
    l_count := AGENT_MEMORY_LINK_GRAPH.update_link(p_relation_id, p_thread_id, p_changes);
    finish(p_commit);
    RETURN l_count;
  EXCEPTION
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_update_link;
      RAISE;
  END update_link;

  FUNCTION delete_links(p_selector IN JSON, p_thread_id IN VARCHAR2,
                        p_commit IN BOOLEAN DEFAULT TRUE) RETURN NUMBER IS
    l_count NUMBER;
  BEGIN
    SAVEPOINT am_delete_links;
    l_count := AGENT_MEMORY_LINK_GRAPH.delete_links(p_selector, p_thread_id);
    finish(p_commit);
    RETURN l_count;
  EXCEPTION
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_delete_links;
      RAISE;
  END delete_links;

  FUNCTION list_links(p_query IN JSON DEFAULT NULL) RETURN JSON IS
  BEGIN
    RETURN AGENT_MEMORY_LINK_GRAPH.list_links(p_query);
  END list_links;

  FUNCTION purge_expired(p_commit IN BOOLEAN DEFAULT TRUE) RETURN NUMBER IS
    l_count NUMBER;
  BEGIN
    SAVEPOINT am_purge_expired;
    l_count := AGENT_MEMORY_RETENTION.purge_expired;
    finish(p_commit);
    RETURN l_count;
  EXCEPTION
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_purge_expired;
      RAISE;
  END purge_expired;

  PROCEDURE check_schema(p_dimension IN NUMBER DEFAULT NULL, p_version IN NUMBER DEFAULT NULL) IS
  BEGIN
    AGENT_MEMORY_ADMIN.check_schema(p_dimension, p_version);
  END check_schema;

  PROCEDURE reset_store(p_commit IN BOOLEAN DEFAULT TRUE) IS
  BEGIN
    AGENT_MEMORY_SESSION.assert_unrestricted('reset_store');
    SAVEPOINT am_reset_store;
    AGENT_MEMORY_ADMIN.reset_store;
    finish(p_commit);
  EXCEPTION
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_reset_store;
      RAISE;
  END reset_store;

  PROCEDURE sync_text_index IS
  BEGIN
    AGENT_MEMORY_SESSION.assert_unrestricted('sync_text_index');
    AGENT_MEMORY_ADMIN.sync_text_index;
  END sync_text_index;

  FUNCTION ensure_purge_job(p_repeat_interval IN VARCHAR2 DEFAULT 'FREQ=HOURLY;INTERVAL=1')
    RETURN BOOLEAN IS
  BEGIN
    AGENT_MEMORY_SESSION.assert_unrestricted('ensure_purge_job');
    RETURN AGENT_MEMORY_RETENTION.ensure_purge_job(p_repeat_interval);
  END ensure_purge_job;

  PROCEDURE drop_purge_job IS
  BEGIN
    AGENT_MEMORY_SESSION.assert_unrestricted('drop_purge_job');
    AGENT_MEMORY_RETENTION.drop_purge_job;
  END drop_purge_job;

  PROCEDURE set_schema_version(p_version IN NUMBER) IS
  BEGIN
    AGENT_MEMORY_SESSION.assert_unrestricted('set_schema_version');
    AGENT_MEMORY_ADMIN.set_schema_version(p_version);
    COMMIT;
  END set_schema_version;

  FUNCTION fill_keyword_text(p_batch IN PLS_INTEGER DEFAULT 1000) RETURN NUMBER IS
  BEGIN
    AGENT_MEMORY_SESSION.assert_unrestricted('fill_keyword_text');
    RETURN AGENT_MEMORY_ADMIN.fill_keyword_text(p_batch);
  END fill_keyword_text;
END AGENT_MEMORY;
/
