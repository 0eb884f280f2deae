CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_ADMIN AS
  FUNCTION meta(p_key IN VARCHAR2) RETURN VARCHAR2 IS
    l_value VARCHAR2(4000 CHAR);
  BEGIN
    SELECT MIN(m.meta_value) INTO l_value FROM AGENT_MEMORY_META m WHERE m.meta_key = p_key;
    RETURN l_value;
  END meta;

  FUNCTION describe RETURN JSON IS
    l_out JSON_OBJECT_T := JSON_OBJECT_T();
    l_jobs NUMBER;
  BEGIN
    SELECT COUNT(*) INTO l_jobs FROM user_scheduler_jobs j WHERE j.job_name = 'AGENT_MEMORY_PURGE_JOB';
    l_out.put('backend', 'oracle');
    l_out.put('store_id', 'AGENT_MEMORY');
    l_out.put('schema_version', TO_NUMBER(meta('schema_version')));
    l_out.put('embedding_dimension', TO_NUMBER(meta('embedding_dimension')));
    l_out.put('search_strategy', meta('search_strategy'));
    l_out.put('vector_index', meta('vector_index'));
    l_out.put('sync_mode', meta('sync_mode'));
    l_out.put('embedding_model', meta('embedding_model'));
    l_out.put('purge_job', l_jobs > 0);
    RETURN l_out.to_json;
  END describe;

  PROCEDURE check_schema(p_dimension IN NUMBER, p_version IN NUMBER) IS
    l_version   NUMBER;
    l_dimension NUMBER;
  BEGIN
    l_version := TO_NUMBER(meta('schema_version'));
    IF l_version IS NULL OR l_version <> NVL(p_version, c_schema_version)
       OR l_version <> c_schema_version THEN
      AGENT_MEMORY_ERRORS.schema_error('store schema version is ' || NVL(TO_CHAR(l_version), 'None')
        || ', this library needs ' || NVL(p_version, c_schema_version));
    END IF;
    l_dimension := TO_NUMBER(meta('embedding_dimension'));
    IF p_dimension IS NOT NULL AND l_dimension <> p_dimension THEN
      AGENT_MEMORY_ERRORS.schema_error('the store holds ' || l_dimension
        || '-dimensional vectors; the embedder gives ' || p_dimension);
    END IF;
  END check_schema;

  PROCEDURE reset_store IS
  BEGIN
    DELETE FROM AGENT_MEMORY_RELATIONS;
    DELETE FROM AGENT_MEMORY_IMAGES;
    DELETE FROM AGENT_MEMORY_RECORDS;
    -- the deep data security policies and grants too, as a recreated embedded file has none
    DELETE FROM AGENT_MEMORY_SEC_GRANTS;
    DELETE FROM AGENT_MEMORY_SEC_POLICIES;
  END reset_store;

  PROCEDURE sync_text_index IS
  BEGIN
    -- Needed when the index was created with SYNC (MANUAL); it commits.
    CTX_DDL.SYNC_INDEX(idx_name => 'AGENT_MEMORY_RECORDS_TIX');
  END sync_text_index;

  PROCEDURE set_schema_version(p_version IN NUMBER) IS
  BEGIN
    UPDATE AGENT_MEMORY_META m SET m.meta_value = TO_CHAR(p_version) WHERE m.meta_key = 'schema_version';
  END set_schema_version;

  FUNCTION fill_keyword_text(p_batch IN PLS_INTEGER) RETURN NUMBER IS
    l_total NUMBER := 0;
    l_rows  PLS_INTEGER;
  BEGIN
    IF p_batch IS NULL OR p_batch < 1 THEN
      AGENT_MEMORY_ERRORS.invalid_argument('fill_keyword_text: p_batch must be at least 1');
    END IF;
    LOOP
      UPDATE AGENT_MEMORY_RECORDS r
         SET r.keyword_text = AGENT_MEMORY_KEYWORD.keyword_text(r.content)
       WHERE r.keyword_text IS NULL
         AND ROWNUM <= p_batch;
      l_rows := SQL%ROWCOUNT;
      l_total := l_total + l_rows;
      COMMIT;
      EXIT WHEN l_rows < p_batch;
    END LOOP;
    RETURN l_total;
  END fill_keyword_text;
  FUNCTION recorded_embedding_model RETURN VARCHAR2 IS
    l_name    VARCHAR2(4000 CHAR) := meta('vector_model');
    l_vectors NUMBER;
  BEGIN
    IF l_name IS NOT NULL THEN
      RETURN l_name;
    END IF;
    -- a store made before models were recorded that holds vectors holds the old default's
    SELECT COUNT(*) INTO l_vectors FROM AGENT_MEMORY_RECORDS r
     WHERE r.embedding IS NOT NULL AND ROWNUM = 1;
    RETURN CASE WHEN l_vectors > 0 THEN 'all-MiniLM-L6-v2' END;
  END recorded_embedding_model;

  -- MERGE ... WHEN NOT MATCHED THEN INSERT: a key already present is left as it is.
  PROCEDURE record_embedding_model(p_name IN VARCHAR2) IS
  BEGIN
    IF p_name IS NULL OR LENGTH(p_name) > 200 THEN
      AGENT_MEMORY_ERRORS.invalid_argument('p_name must be a model name of 1 to 200 characters');
    END IF;
    MERGE INTO AGENT_MEMORY_META m
    USING (SELECT 'vector_model' AS k, p_name AS v FROM dual) s
       ON (m.meta_key = s.k)
     WHEN NOT MATCHED THEN INSERT (meta_key, meta_value) VALUES (s.k, s.v);
  EXCEPTION
    WHEN DUP_VAL_ON_INDEX THEN
      NULL;  -- another session recorded a model between the MERGE's check and its insert
  END record_embedding_model;
END AGENT_MEMORY_ADMIN;
/
