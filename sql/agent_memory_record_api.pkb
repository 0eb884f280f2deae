CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_RECORD_API AS
  -- The record-type vocabulary, rendered from python/oracleagentmemory/_vocabulary.py.
  c_all_types        CONSTANT VARCHAR2(200 CHAR) := 'memory, fact, guideline, preference, message, image, user_profile, agent_profile, thread, summary';
  c_searchable_types CONSTANT VARCHAR2(200 CHAR) := 'memory, fact, guideline, preference, message, image, user_profile, agent_profile';
  -- Characters embedded in one piece: 1000 characters take at most 4000 bytes in AL32UTF8.
  c_single_max       CONSTANT PLS_INTEGER := 1000;

  TYPE row_t IS RECORD (
    id          VARCHAR2(512 CHAR),
    id_space    VARCHAR2(16 CHAR),
    record_type VARCHAR2(16 CHAR),
    user_id     VARCHAR2(512 CHAR),
    agent_id    VARCHAR2(512 CHAR),
    thread_id   VARCHAR2(512 CHAR),
    role        VARCHAR2(4000 CHAR),
    content     CLOB,
    metadata    CLOB,
    parts       CLOB,
    config      CLOB,
    mime_type   VARCHAR2(255 CHAR),
    event_ts    VARCHAR2(64 CHAR),
    event_utc   TIMESTAMP(6),
    created_at  TIMESTAMP(6),
    updated_at  TIMESTAMP(6),
    expires_at  TIMESTAMP(6),
    status      VARCHAR2(8 CHAR),
    message_id  VARCHAR2(512 CHAR),
    embedding   CLOB,
    image_b64   CLOB
  );
  TYPE rows_t IS TABLE OF row_t INDEX BY PLS_INTEGER;
  TYPE text_list_t IS TABLE OF VARCHAR2(512 CHAR);
  TYPE clob_list_t IS TABLE OF CLOB;
  TYPE seen_t IS TABLE OF BOOLEAN INDEX BY VARCHAR2(32767);

  FUNCTION is_memory_type(p_record_type IN VARCHAR2) RETURN BOOLEAN IS
  BEGIN
    RETURN p_record_type IN ('memory', 'fact', 'guideline', 'preference');
  END is_memory_type;

  FUNCTION id_space_of(p_record_type IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN CASE WHEN is_memory_type(p_record_type) THEN 'memory' ELSE p_record_type END;
  END id_space_of;

  FUNCTION is_known_type(p_record_type IN VARCHAR2, p_searchable IN BOOLEAN) RETURN BOOLEAN IS
  BEGIN
    IF p_searchable THEN
      RETURN p_record_type IN ('memory', 'fact', 'guideline', 'preference', 'message', 'image', 'user_profile', 'agent_profile');
    END IF;
    RETURN p_record_type IN ('memory', 'fact', 'guideline', 'preference', 'message', 'image', 'user_profile', 'agent_profile', 'thread', 'summary');
  END is_known_type;

  FUNCTION record_types(p_types IN JSON_ARRAY_T, p_searchable IN BOOLEAN) RETURN CLOB IS
    l_out  JSON_ARRAY_T := JSON_ARRAY_T();
    l_el   JSON_ELEMENT_T;
    l_type VARCHAR2(4000 CHAR);
  BEGIN
    IF p_types IS NULL THEN
      AGENT_MEMORY_ERRORS.invalid_argument('record_types must be a list of record type names');
    END IF;
    FOR i IN 0 .. p_types.get_size - 1 LOOP
      l_el := p_types.get(i);
      l_type := CASE WHEN l_el.is_string THEN p_types.get_string(i) ELSE l_el.to_string END;
      IF NOT l_el.is_string OR NOT is_known_type(l_type, p_searchable) THEN
        IF p_searchable THEN
          AGENT_MEMORY_ERRORS.invalid_argument('record_types contains unknown or unsearchable record type '
            || AGENT_MEMORY_CODEC.quoted(l_type) || '; allowed: ' || c_searchable_types);
        END IF;
        AGENT_MEMORY_ERRORS.invalid_argument('record_types contains unknown record type '
          || AGENT_MEMORY_CODEC.quoted(l_type) || '; allowed: ' || c_all_types);
      END IF;
      l_out.append(l_type);
    END LOOP;
    RETURN l_out.to_clob;
  END record_types;

  FUNCTION types_member(p_json IN JSON, p_searchable IN BOOLEAN) RETURN CLOB IS
    l_el JSON_ELEMENT_T;
  BEGIN
    IF p_json IS NULL THEN
      AGENT_MEMORY_ERRORS.invalid_argument('record_types must be a list of record type names');
    END IF;
    l_el := JSON_ELEMENT_T.load(p_json);
    IF NOT l_el.is_array THEN
      AGENT_MEMORY_ERRORS.invalid_argument('record_types must be a list of record type names');
    END IF;
    RETURN record_types(TREAT(l_el AS JSON_ARRAY_T), p_searchable);
  END types_member;

  FUNCTION embed_text(p_text IN CLOB) RETURN CLOB IS
  BEGIN
    -- rendered without an in-database model: callers pass client-side vectors
    RETURN NULL;
  END embed_text;

  -- -- reading ---------------------------------------------------------------------------

  FUNCTION records_json(p_seqs IN CLOB, p_include_bytes IN BOOLEAN) RETURN JSON_ARRAY_T IS
    l_out   JSON_ARRAY_T := JSON_ARRAY_T();
    l_seqs  AGENT_MEMORY_CODEC.number_list_t;
    l_types text_list_t;
    l_docs  clob_list_t;
    l_obj   JSON_OBJECT_T;
    l_bytes BLOB;
  BEGIN
    IF p_seqs IS NULL THEN
      RETURN l_out;
    END IF;
    -- Checked: JSON_OBJECT ... RETURNING CLOB, JSON_TABLE FOR ORDINALITY,
    --   https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/JSON_OBJECT.html
    --   https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/JSON_TABLE.html
    SELECT r.seq, r.record_type,
           JSON_OBJECT(
             'id'          VALUE r.id,
             'record_type' VALUE r.record_type,
             'user_id'     VALUE r.user_id,
             'agent_id'    VALUE r.agent_id,
             'thread_id'   VALUE r.thread_id,
             'role'        VALUE r.role,
             'content'     VALUE r.content,
             'metadata'    VALUE r.metadata,
             'timestamp'   VALUE r.event_ts,
             'created_at'  VALUE TO_CHAR(r.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.FF6"Z"'),
             'updated_at'  VALUE TO_CHAR(r.updated_at, 'YYYY-MM-DD"T"HH24:MI:SS.FF6"Z"'),
             'expires_at'  VALUE TO_CHAR(r.expires_at, 'YYYY-MM-DD"T"HH24:MI:SS.FF6"Z"'),
             'status'      VALUE r.status,
             'parts'       VALUE r.parts,
             'mime_type'   VALUE r.mime_type,
             'message_id'  VALUE r.message_id,
             'config'      VALUE r.config
             NULL ON NULL RETURNING CLOB)
      BULK COLLECT INTO l_seqs, l_types, l_docs
      FROM JSON_TABLE(p_seqs, '$[*]' COLUMNS (pos FOR ORDINALITY, seq NUMBER PATH '$')) s
      JOIN AGENT_MEMORY_RECORDS r ON r.seq = s.seq
     ORDER BY s.pos;
    FOR i IN 1 .. l_docs.COUNT LOOP
      l_obj := JSON_OBJECT_T.parse(l_docs(i));
      IF p_include_bytes AND l_types(i) = 'image' THEN
        BEGIN
          SELECT i.bytes INTO l_bytes FROM AGENT_MEMORY_IMAGES i WHERE i.seq = l_seqs(i);
          l_obj.put('image_bytes', AGENT_MEMORY_CODEC.string_element(AGENT_MEMORY_CODEC.blob_to_base64(l_bytes)));
        EXCEPTION
          WHEN NO_DATA_FOUND THEN
            NULL;
        END;
      END IF;
      l_out.append(l_obj);
    END LOOP;
    RETURN l_out;
  END records_json;

  FUNCTION get_records(p_query IN JSON) RETURN JSON IS
    l_query   JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_query, 'query');
    l_now     TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_ids     CLOB;
    l_types   CLOB;
    l_el      JSON_ELEMENT_T;
    l_filter  JSON;
    l_filter_doc CLOB;
    l_limit   NUMBER;
    l_flags   AGENT_MEMORY_CODEC.number_list_t := AGENT_MEMORY_CODEC.number_list_t(0, 0, 0, 0);
    l_values  text_list_t := text_list_t(NULL, NULL, NULL, NULL);
    l_columns text_list_t := text_list_t('user_id', 'agent_id', 'thread_id', 'message_id');
    l_sql     VARCHAR2(32767);
    l_cursor  SYS_REFCURSOR;
    l_seqs    AGENT_MEMORY_CODEC.number_list_t;
    l_empty   JSON_ARRAY_T := JSON_ARRAY_T();
  BEGIN
    IF l_query.has('ids') THEN
      l_el := l_query.get('ids');
      IF l_el IS NULL OR NOT l_el.is_array THEN
        AGENT_MEMORY_ERRORS.invalid_argument('ids must be a list of ids');
      END IF;
      IF TREAT(l_el AS JSON_ARRAY_T).get_size = 0 THEN
        RETURN l_empty.to_json;
      END IF;
      l_ids := AGENT_MEMORY_CODEC.id_list(TREAT(l_el AS JSON_ARRAY_T), 'ids');
    END IF;
    IF l_query.has('record_types') THEN
      l_el := l_query.get('record_types');
      IF l_el IS NULL OR NOT l_el.is_array THEN
        AGENT_MEMORY_ERRORS.invalid_argument('record_types must be a list of record type names');
      END IF;
      l_types := record_types(TREAT(l_el AS JSON_ARRAY_T), FALSE);
    END IF;
    FOR i IN 1 .. l_columns.COUNT LOOP
      IF l_query.has(l_columns(i)) THEN
        l_flags(i) := 1;
        l_values(i) := AGENT_MEMORY_CODEC.opt_id(l_query, l_columns(i), l_columns(i));
      END IF;
    END LOOP;
    IF l_query.has('metadata_filter') THEN
      l_el := l_query.get('metadata_filter');
      IF l_el IS NOT NULL AND NOT l_el.is_null THEN
        l_filter := l_el.to_json;
        AGENT_MEMORY_FILTER.validate(l_filter);
        l_filter_doc := l_el.to_clob;  -- bound as text, JSON(:b_filter) in the SQL
      END IF;
    END IF;
    IF l_query.has('limit') AND NOT l_query.get('limit').is_null THEN
      l_limit := AGENT_MEMORY_CODEC.opt_integer(l_query, 'limit', 'limit', 1, NULL);
    END IF;
    -- Dynamic SQL text of get_records: constant text plus AGENT_MEMORY_FILTER.prefilter(), whose
    -- only variable parts are field names matching AGENT_MEMORY_FILTER.c_safe_key; every value is
    -- a bind (the p CTE binds each once, in order).
    l_sql := 'WITH p AS (SELECT :b_now AS now_ts, :b_ids AS ids, :b_types AS types,'
          || ' :b_has_user AS has_user, :b_user AS user_id, :b_has_agent AS has_agent,'
          || ' :b_agent AS agent_id, :b_has_thread AS has_thread, :b_thread AS thread_id,'
          || ' :b_has_message AS has_message, :b_message AS message_id, JSON(:b_filter) AS f'
          || ' FROM dual)'
          || ' SELECT r.seq FROM AGENT_MEMORY_RECORDS r CROSS JOIN p flt'
          || ' WHERE (r.expires_at IS NULL OR r.expires_at > flt.now_ts)'
          || ' AND (flt.ids IS NULL OR r.id IN (SELECT jt.v FROM p p2, JSON_TABLE(p2.ids, ''$[*]'''
          || ' COLUMNS (v VARCHAR2(512 CHAR) PATH ''$'')) jt))'
          || ' AND (flt.types IS NULL OR r.record_type IN (SELECT jt.v FROM p p3,'
          || ' JSON_TABLE(p3.types, ''$[*]'' COLUMNS (v VARCHAR2(16 CHAR) PATH ''$'')) jt))'
          || ' AND (flt.has_user = 0 OR DECODE(r.user_id, flt.user_id, 1, 0) = 1)'
          || ' AND (flt.has_agent = 0 OR DECODE(r.agent_id, flt.agent_id, 1, 0) = 1)'
          || ' AND (flt.has_thread = 0 OR DECODE(r.thread_id, flt.thread_id, 1, 0) = 1)'
          || ' AND (flt.has_message = 0 OR DECODE(r.message_id, flt.message_id, 1, 0) = 1)'
          || ' AND (flt.f IS NULL OR (' || AGENT_MEMORY_FILTER.prefilter(l_filter) || '))'
          || ' AND (flt.f IS NULL OR AGENT_MEMORY_FILTER.matches(r.metadata, flt.f) = 1)'
          || ' ORDER BY r.seq FETCH FIRST :b_limit ROWS ONLY';
    -- dynamic-sql: get_records candidates (text assembled above: literals + prefilter)
    OPEN l_cursor FOR l_sql
      USING l_now, l_ids, l_types, l_flags(1), l_values(1), l_flags(2), l_values(2),
            l_flags(3), l_values(3), l_flags(4), l_values(4), l_filter_doc,
            NVL(l_limit, 2147483647);
    FETCH l_cursor BULK COLLECT INTO l_seqs;
    CLOSE l_cursor;
    RETURN records_json(AGENT_MEMORY_CODEC.number_list_json(l_seqs),
                        NVL(AGENT_MEMORY_CODEC.opt_boolean(l_query, 'include_bytes', 'include_bytes'), FALSE)
                       ).to_json;
  END get_records;

  FUNCTION list_messages(p_thread_id IN VARCHAR2, p_start IN NUMBER, p_end IN NUMBER,
                         p_include_bytes IN BOOLEAN) RETURN JSON IS
    l_thread VARCHAR2(512 CHAR) := AGENT_MEMORY_CODEC.check_id(p_thread_id, 'thread_id');
    l_now    TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_all    AGENT_MEMORY_CODEC.number_list_t;
    l_pick   AGENT_MEMORY_CODEC.number_list_t := AGENT_MEMORY_CODEC.number_list_t();
    l_len    PLS_INTEGER;
    l_from   PLS_INTEGER;
    l_to     PLS_INTEGER;
  BEGIN
    IF (p_start IS NOT NULL AND p_start <> TRUNC(p_start))
       OR (p_end IS NOT NULL AND p_end <> TRUNC(p_end)) THEN
      AGENT_MEMORY_ERRORS.invalid_argument('start and end must be integers or None');
    END IF;
    SELECT r.seq BULK COLLECT INTO l_all
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.thread_id = l_thread
       AND r.record_type = 'message'
       AND (r.expires_at IS NULL OR r.expires_at > l_now)
     ORDER BY r.seq;
    -- Python slice semantics on 0-based positions [from, to)
    l_len := l_all.COUNT;
    l_from := CASE WHEN p_start IS NULL THEN 0
                   WHEN p_start < 0 THEN GREATEST(l_len + p_start, 0)
                   ELSE LEAST(p_start, l_len) END;
    l_to := CASE WHEN p_end IS NULL THEN l_len
                 WHEN p_end < 0 THEN GREATEST(l_len + p_end, 0)
                 ELSE LEAST(p_end, l_len) END;
    FOR i IN l_from + 1 .. l_to LOOP
      l_pick.EXTEND;
      l_pick(l_pick.COUNT) := l_all(i);
    END LOOP;
    RETURN records_json(AGENT_MEMORY_CODEC.number_list_json(l_pick), NVL(p_include_bytes, FALSE)).to_json;
  END list_messages;

  -- -- writing ---------------------------------------------------------------------------

  -- A bookkeeping time an import passes (created_at, updated_at, expires_at): parsed like
  -- every ISO-8601 value (no zone = UTC) and kept as given; NULL when absent or JSON null.
  -- Mirrors restored_time in python/oracleagentmemory/stores/embedded/store.py.
  FUNCTION restored_time(p_values IN JSON_OBJECT_T, p_key IN VARCHAR2, p_where IN VARCHAR2)
    RETURN TIMESTAMP IS
    l_text VARCHAR2(4000 CHAR);
  BEGIN
    l_text := AGENT_MEMORY_CODEC.opt_timestamp(p_values, p_key, p_where || '.' || p_key);
    IF l_text IS NULL THEN
      RETURN NULL;
    END IF;
    RETURN AGENT_MEMORY_CODEC.parse_iso(l_text, p_where || '.' || p_key);
  END restored_time;

  -- A RecordIn as a row to insert. p_attach: the record is an image listed in replace_images
  -- of the message p_message: its record_type, message_id and scope (user, agent, thread) are
  -- the message's whatever the image says (as in _follow_message of the embedded store).
  -- The overrides go into the row, not into p_record: an element got from an array shares
  -- its memory with the caller's document (TREAT/get do not copy; checked:
  --   https://docs.oracle.com/database/122/ADJSN/using-PLSQL-object-types-for-JSON.htm).
  FUNCTION prepare_row(p_record IN JSON_OBJECT_T, p_now IN TIMESTAMP, p_where IN VARCHAR2,
                       p_attach IN BOOLEAN, p_message IN row_t)
    RETURN row_t IS
    l_row    row_t;
    l_status VARCHAR2(4000 CHAR);
    l_given  VARCHAR2(4000 CHAR);
    l_type   VARCHAR2(4000 CHAR);
  BEGIN
    IF p_attach THEN
      l_type := 'image';
    ELSE
      l_type := AGENT_MEMORY_CODEC.opt_text(p_record, 'record_type', p_where || '.record_type', 4000);
    END IF;
    IF l_type IS NULL OR NOT is_known_type(l_type, FALSE) THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_where || '.record_type must be one of ' || c_all_types
        || ', got ' || AGENT_MEMORY_CODEC.quoted(l_type));
    END IF;
    l_row.record_type := l_type;
    l_given := AGENT_MEMORY_CODEC.opt_text(p_record, 'id', p_where || '.id', 4000);
    l_row.id := AGENT_MEMORY_CODEC.check_id(NVL(l_given, AGENT_MEMORY_CODEC.new_id), p_where || '.id');
    l_row.id_space := id_space_of(l_row.record_type);
    IF p_record.has('content') AND NOT p_record.get('content').is_string THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_where || '.content must be a string');
    END IF;
    l_row.content := NVL(AGENT_MEMORY_CODEC.opt_clob(p_record, 'content', p_where || '.content'), EMPTY_CLOB());
    l_row.event_ts := AGENT_MEMORY_CODEC.opt_timestamp(p_record, 'timestamp', p_where || '.timestamp');
    IF l_row.event_ts IS NOT NULL THEN
      l_row.event_utc := AGENT_MEMORY_CODEC.parse_iso(l_row.event_ts, p_where || '.timestamp');
    END IF;
    l_status := NVL(AGENT_MEMORY_CODEC.opt_text(p_record, 'status', p_where || '.status', 4000), 'VALID');
    IF l_status NOT IN ('VALID', 'INVALID') THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_where || '.status must be VALID or INVALID');
    END IF;
    l_row.status := l_status;
    l_row.parts := AGENT_MEMORY_CODEC.opt_array_text(p_record, 'parts', p_where || '.parts');
    l_row.mime_type := AGENT_MEMORY_CODEC.opt_text(p_record, 'mime_type', p_where || '.mime_type', 255);
    l_row.config := AGENT_MEMORY_CODEC.opt_object_text(p_record, 'config', p_where || '.config');
    l_row.image_b64 := AGENT_MEMORY_CODEC.opt_clob(p_record, 'image_bytes', p_where || '.image_bytes');
    IF p_attach THEN
      l_row.user_id := p_message.user_id;
      l_row.agent_id := p_message.agent_id;
      l_row.thread_id := p_message.thread_id;
    ELSE
      l_row.user_id := AGENT_MEMORY_CODEC.opt_id(p_record, 'user_id', p_where || '.user_id');
      l_row.agent_id := AGENT_MEMORY_CODEC.opt_id(p_record, 'agent_id', p_where || '.agent_id');
      l_row.thread_id := AGENT_MEMORY_CODEC.opt_id(p_record, 'thread_id', p_where || '.thread_id');
    END IF;
    l_row.role := AGENT_MEMORY_CODEC.opt_text(p_record, 'role', p_where || '.role', 4000);
    l_row.metadata := AGENT_MEMORY_CODEC.opt_object_text(p_record, 'metadata', p_where || '.metadata');
    -- Imports may restore the bookkeeping times: created_at (also the CREATED_AT anchor of
    -- the TTL), updated_at (defaults to created_at) and expires_at, which, when the key is
    -- present (null = never), is kept verbatim and replaces the ttl_days computation.
    l_row.created_at := NVL(restored_time(p_record, 'created_at', p_where), p_now);
    l_row.updated_at := NVL(restored_time(p_record, 'updated_at', p_where), l_row.created_at);
    IF AGENT_MEMORY_CODEC.has_key(p_record, 'expires_at') THEN
      l_row.expires_at := restored_time(p_record, 'expires_at', p_where);
    ELSE
      l_row.expires_at := AGENT_MEMORY_RETENTION.expires_at(p_record, l_row.created_at, l_row.event_utc,
                                                       p_where);
    END IF;
    IF p_attach THEN
      l_row.message_id := p_message.id;
    ELSE
      l_row.message_id := AGENT_MEMORY_CODEC.opt_id(p_record, 'message_id', p_where || '.message_id');
    END IF;
    IF p_record.has('embedding') THEN
      l_row.embedding := AGENT_MEMORY_CODEC.vector_text(p_record, 'embedding', 'embedding');
    ELSIF l_row.record_type NOT IN ('thread', 'summary') THEN
      -- no "embedding" key at all: the database computes it when a model is configured
      l_row.embedding := embed_text(l_row.content);
    END IF;
    RETURN l_row;
  END prepare_row;

  PROCEDURE insert_row(p_row IN row_t, p_replace IN BOOLEAN) IS
    l_existing NUMBER;
    l_seq      NUMBER;
    l_links    NUMBER;
    l_bytes    BLOB;
  BEGIN
    SELECT MIN(r.seq) INTO l_existing
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.id_space = p_row.id_space
       AND r.id = p_row.id;
    IF l_existing IS NOT NULL THEN
      IF NOT p_replace THEN
        AGENT_MEMORY_ERRORS.duplicate_record('a ' || p_row.id_space || ' record with id '
          || AGENT_MEMORY_CODEC.quoted(p_row.id) || ' already exists');
      END IF;
      l_links := delete_seqs('[' || TO_CHAR(l_existing) || ']');
    END IF;
    -- Checked: TO_VECTOR(text, dimensions, FLOAT32),
    --   https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/to_vector.html
    INSERT INTO AGENT_MEMORY_RECORDS (
      id, id_space, record_type, user_id, agent_id, thread_id, role, content, metadata,
      parts, config, mime_type, event_ts, event_utc, created_at, updated_at, expires_at,
      status, message_id, embedding)
    VALUES (
      p_row.id, p_row.id_space, p_row.record_type, p_row.user_id, p_row.agent_id,
      p_row.thread_id, p_row.role, p_row.content, JSON(p_row.metadata), JSON(p_row.parts),
      JSON(p_row.config), p_row.mime_type, p_row.event_ts, p_row.event_utc, p_row.created_at,
      p_row.updated_at, p_row.expires_at, p_row.status, p_row.message_id,
      TO_VECTOR(p_row.embedding, 384, FLOAT32))
    RETURNING seq INTO l_seq;
    IF p_row.image_b64 IS NOT NULL THEN
      -- Decoded here, not inside the INSERT: an ACCESSIBLE BY unit cannot be called from SQL
      -- (the accessor check fails for calls through static or dynamic SQL). Checked:
      --   https://docs.oracle.com/en/database/oracle/oracle-database/23/lnpls/ACCESSIBLE-BY-clause.html
      l_bytes := AGENT_MEMORY_CODEC.base64_to_blob(p_row.image_b64);
      INSERT INTO AGENT_MEMORY_IMAGES (seq, bytes) VALUES (l_seq, l_bytes);
    END IF;
  END insert_row;

  FUNCTION write_records(p_records IN JSON, p_links IN JSON, p_replace IN BOOLEAN) RETURN JSON IS
    l_records JSON_ARRAY_T;
    l_links   JSON_ARRAY_T;
    l_el      JSON_ELEMENT_T;
    l_rows    rows_t;
    l_seen    seen_t;
    l_key     VARCHAR2(600 CHAR);
    l_ids     JSON_ARRAY_T := JSON_ARRAY_T();
    l_now     TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_link_id VARCHAR2(512 CHAR);
    l_none    row_t;
  BEGIN
    IF p_records IS NULL THEN
      AGENT_MEMORY_ERRORS.invalid_argument('records must be a list of record objects');
    END IF;
    l_el := JSON_ELEMENT_T.load(p_records);
    IF NOT l_el.is_array THEN
      AGENT_MEMORY_ERRORS.invalid_argument('records must be a list of record objects');
    END IF;
    l_records := TREAT(l_el AS JSON_ARRAY_T);
    -- validate the whole batch before writing anything
    FOR i IN 0 .. l_records.get_size - 1 LOOP
      l_el := l_records.get(i);
      IF NOT l_el.is_object THEN
        AGENT_MEMORY_ERRORS.invalid_argument('records[' || i || '] must be a dict');
      END IF;
      l_rows(i) := prepare_row(TREAT(l_el AS JSON_OBJECT_T), l_now, 'records[' || i || ']',
                               FALSE, l_none);
      l_key := l_rows(i).id_space || '/' || l_rows(i).id;
      IF l_seen.EXISTS(l_key) THEN
        AGENT_MEMORY_ERRORS.duplicate_record('records contains the same id twice');
      END IF;
      l_seen(l_key) := TRUE;
    END LOOP;
    l_links := AGENT_MEMORY_CODEC.to_array(p_links, 'links');
    IF l_rows.COUNT > 0 THEN
      FOR i IN l_rows.FIRST .. l_rows.LAST LOOP
        insert_row(l_rows(i), NVL(p_replace, FALSE));
        l_ids.append(l_rows(i).id);
      END LOOP;
    END IF;
    FOR i IN 0 .. l_links.get_size - 1 LOOP
      l_el := l_links.get(i);
      IF NOT l_el.is_object THEN
        AGENT_MEMORY_ERRORS.invalid_link('each link must be a dict');
      END IF;
      l_link_id := AGENT_MEMORY_LINK_GRAPH.insert_link(TREAT(l_el AS JSON_OBJECT_T), l_now);
    END LOOP;
    RETURN l_ids.to_json;
  END write_records;

  -- -- updating --------------------------------------------------------------------------

  FUNCTION update_record(p_record_id IN VARCHAR2, p_record_types IN JSON, p_changes IN JSON,
                         p_thread_id IN VARCHAR2) RETURN JSON IS
    l_id        VARCHAR2(512 CHAR) := AGENT_MEMORY_CODEC.check_id(p_record_id, 'record_id');
    l_types     CLOB := types_member(p_record_types, FALSE);
    l_changes   JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_changes, 'changes');
    l_now       TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_keys      JSON_KEY_LIST;
    l_unknown   VARCHAR2(4000 CHAR);
    l_seq       NUMBER;
    l_created   TIMESTAMP;
    l_event_ts  VARCHAR2(64 CHAR);
    l_event_utc TIMESTAMP;
    l_content   CLOB;
    l_embedding CLOB;
    l_metadata  CLOB;
    l_status    VARCHAR2(4000 CHAR);
    l_expires   TIMESTAMP;
    l_parts     CLOB;
    l_config    CLOB;
    l_mime      VARCHAR2(255 CHAR);
    l_image     CLOB;
    l_bytes     BLOB;
    l_any       BOOLEAN := FALSE;
    l_message   row_t;
    l_el        JSON_ELEMENT_T;
    l_listed    JSON_ARRAY_T;
    l_images    rows_t;
    l_keep      JSON_ARRAY_T := JSON_ARRAY_T();
    l_keep_text CLOB;
    l_stale     AGENT_MEMORY_CODEC.number_list_t;
    l_links     NUMBER;
    l_follow    TIMESTAMP;
    f_images    NUMBER := 0;
    f_content   NUMBER := 0;
    f_embedding NUMBER := 0;
    f_metadata  NUMBER := 0;
    f_timestamp NUMBER := 0;
    f_status    NUMBER := 0;
    f_expires   NUMBER := 0;
    f_parts     NUMBER := 0;
    f_config    NUMBER := 0;
    f_mime      NUMBER := 0;
  BEGIN
    l_keys := l_changes.get_keys;
    IF l_keys IS NOT NULL THEN
      FOR i IN 1 .. l_keys.COUNT LOOP
        IF NVL(l_keys(i), '?') NOT IN ('content', 'embedding', 'metadata', 'timestamp', 'status',
                                       'ttl_days', 'ttl_anchor', 'parts', 'config', 'mime_type',
                                       'image_bytes', 'replace_images') THEN
          l_unknown := l_unknown || CASE WHEN l_unknown IS NOT NULL THEN ', ' END || l_keys(i);
        END IF;
      END LOOP;
    END IF;
    IF l_unknown IS NOT NULL THEN
      AGENT_MEMORY_ERRORS.invalid_argument('unknown change fields: ' || l_unknown);
    END IF;
    SELECT MIN(r.seq) INTO l_seq
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.id = l_id
       AND r.record_type IN (SELECT jt.v FROM JSON_TABLE(l_types, '$[*]' COLUMNS (v VARCHAR2(16 CHAR) PATH '$')) jt)
       AND (r.expires_at IS NULL OR r.expires_at > l_now)
       AND (p_thread_id IS NULL OR r.thread_id = p_thread_id);
    IF l_seq IS NULL THEN
      RETURN NULL;
    END IF;
    SELECT r.created_at, r.event_ts, r.event_utc, r.id, r.record_type, r.user_id, r.agent_id,
           r.thread_id
      INTO l_created, l_event_ts, l_event_utc, l_message.id, l_message.record_type,
           l_message.user_id, l_message.agent_id, l_message.thread_id
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.seq = l_seq
       FOR UPDATE;
    IF l_changes.has('content') THEN
      l_content := AGENT_MEMORY_CODEC.opt_clob(l_changes, 'content', 'content');
      IF l_content IS NULL AND NOT l_changes.get('content').is_string THEN
        AGENT_MEMORY_ERRORS.invalid_argument('content must be a string');
      END IF;
      l_content := NVL(l_content, EMPTY_CLOB());
      f_content := 1;
    END IF;
    IF l_changes.has('embedding') THEN
      l_embedding := AGENT_MEMORY_CODEC.vector_text(l_changes, 'embedding', 'embedding');
      f_embedding := 1;
    ELSIF f_content = 1 AND AGENT_MEMORY_CODEC.has_key(l_changes, 'content') THEN
      -- new content without an "embedding" key: re-embed in the database when a model exists
      l_embedding := embed_text(l_content);
      f_embedding := CASE WHEN l_embedding IS NULL THEN 0 ELSE 1 END;
    END IF;
    IF l_changes.has('metadata') THEN
      l_metadata := AGENT_MEMORY_CODEC.opt_object_text(l_changes, 'metadata', 'metadata');
      f_metadata := 1;
    END IF;
    IF l_changes.has('timestamp') THEN
      l_event_ts := AGENT_MEMORY_CODEC.opt_timestamp(l_changes, 'timestamp', 'timestamp');
      l_event_utc := CASE WHEN l_event_ts IS NULL THEN NULL
                          ELSE AGENT_MEMORY_CODEC.parse_iso(l_event_ts, 'timestamp') END;
      f_timestamp := 1;
    END IF;
    IF l_changes.has('status') THEN
      l_status := AGENT_MEMORY_CODEC.opt_text(l_changes, 'status', 'status', 4000);
      IF l_status IS NULL OR l_status NOT IN ('VALID', 'INVALID') THEN
        AGENT_MEMORY_ERRORS.invalid_argument('status must be VALID or INVALID');
      END IF;
      f_status := 1;
    END IF;
    IF l_changes.has('ttl_days') OR l_changes.has('ttl_anchor') THEN
      l_expires := AGENT_MEMORY_RETENTION.expires_at(l_changes, l_created, l_event_utc, 'changes');
      f_expires := 1;
    END IF;
    IF l_changes.has('parts') THEN
      l_parts := AGENT_MEMORY_CODEC.opt_array_text(l_changes, 'parts', 'parts');
      f_parts := 1;
    END IF;
    IF l_changes.has('config') THEN
      l_config := AGENT_MEMORY_CODEC.opt_object_text(l_changes, 'config', 'config');
      f_config := 1;
    END IF;
    IF l_changes.has('mime_type') THEN
      l_mime := AGENT_MEMORY_CODEC.opt_text(l_changes, 'mime_type', 'mime_type', 255);
      f_mime := 1;
    END IF;
    IF l_changes.has('replace_images') AND l_message.record_type = 'message' THEN
      -- A message's attached images (validated before anything is written; a non-message
      -- ignores the key, as the embedded store does). Each image is prepared like a RecordIn
      -- of write_records, with the message's id and scope (see prepare_row).
      l_el := l_changes.get('replace_images');
      IF l_el IS NULL OR l_el.is_null THEN
        l_listed := JSON_ARRAY_T();
      ELSIF l_el.is_array THEN
        l_listed := TREAT(l_el AS JSON_ARRAY_T);
      ELSE
        AGENT_MEMORY_ERRORS.invalid_argument('replace_images must be a list of record objects');
      END IF;
      FOR i IN 0 .. l_listed.get_size - 1 LOOP
        l_el := l_listed.get(i);
        IF NOT l_el.is_object THEN
          AGENT_MEMORY_ERRORS.invalid_argument('records[' || i || '] must be a dict');
        END IF;
        l_images(i) := prepare_row(TREAT(l_el AS JSON_OBJECT_T), l_now, 'records[' || i || ']',
                                   TRUE, l_message);
        l_keep.append(l_images(i).id);
      END LOOP;
      l_keep_text := l_keep.to_clob;
      f_images := 1;
    END IF;
    l_any := f_content + f_embedding + f_metadata + f_timestamp + f_status + f_expires
           + f_parts + f_config + f_mime > 0;
    IF l_any THEN
      UPDATE AGENT_MEMORY_RECORDS r
         SET r.content    = CASE WHEN f_content = 1 THEN l_content ELSE r.content END,
             r.embedding  = CASE WHEN f_embedding = 1
                                 THEN TO_VECTOR(l_embedding, 384, FLOAT32)
                                 ELSE r.embedding END,
             r.metadata   = CASE WHEN f_metadata = 1 THEN JSON(l_metadata) ELSE r.metadata END,
             r.event_ts   = CASE WHEN f_timestamp = 1 THEN l_event_ts ELSE r.event_ts END,
             r.event_utc  = CASE WHEN f_timestamp = 1 THEN l_event_utc ELSE r.event_utc END,
             r.status     = CASE WHEN f_status = 1 THEN l_status ELSE r.status END,
             r.expires_at = CASE WHEN f_expires = 1 THEN l_expires ELSE r.expires_at END,
             r.parts      = CASE WHEN f_parts = 1 THEN JSON(l_parts) ELSE r.parts END,
             r.config     = CASE WHEN f_config = 1 THEN JSON(l_config) ELSE r.config END,
             r.mime_type  = CASE WHEN f_mime = 1 THEN l_mime ELSE r.mime_type END,
             r.updated_at = l_now
       WHERE r.seq = l_seq;
    END IF;
    IF l_changes.has('image_bytes') THEN
      l_image := AGENT_MEMORY_CODEC.opt_clob(l_changes, 'image_bytes', 'image_bytes');
      IF l_image IS NOT NULL THEN
        l_bytes := AGENT_MEMORY_CODEC.base64_to_blob(l_image);  -- not inside SQL: ACCESSIBLE BY
        MERGE INTO AGENT_MEMORY_IMAGES i
        USING (SELECT l_seq AS seq FROM dual) s
           ON (i.seq = s.seq)
         WHEN MATCHED THEN UPDATE SET i.bytes = l_bytes
         WHEN NOT MATCHED THEN INSERT (seq, bytes) VALUES (s.seq, l_bytes);
      END IF;
    END IF;
    IF f_images = 1 THEN
      -- (a) attached images not listed go, through the common delete path (their bytes rows
      --     go with them: AGENT_MEMORY_IMAGES references the record ON DELETE CASCADE)
      SELECT r.seq BULK COLLECT INTO l_stale
        FROM AGENT_MEMORY_RECORDS r
       WHERE r.record_type = 'image'
         AND r.message_id = l_message.id
         AND NOT EXISTS (SELECT 1
                           FROM JSON_TABLE(l_keep_text, '$[*]' COLUMNS (v VARCHAR2(512 CHAR) PATH '$')) k
                          WHERE k.v = r.id)
       ORDER BY r.seq;
      IF l_stale.COUNT > 0 THEN
        l_links := delete_seqs(AGENT_MEMORY_CODEC.number_list_json(l_stale));
      END IF;
      -- (b) listed images with bytes are inserted, or replace the image of that id; listed
      --     ids without bytes are kept as stored
      IF l_images.COUNT > 0 THEN
        FOR i IN l_images.FIRST .. l_images.LAST LOOP
          IF l_images(i).image_b64 IS NOT NULL THEN
            insert_row(l_images(i), TRUE);
          END IF;
        END LOOP;
      END IF;
    END IF;
    IF l_message.record_type = 'message' AND f_images + f_expires > 0 THEN
      -- (c) attached images always carry their message's expiry
      SELECT r.expires_at INTO l_follow FROM AGENT_MEMORY_RECORDS r WHERE r.seq = l_seq;
      UPDATE AGENT_MEMORY_RECORDS r
         SET r.expires_at = l_follow,
             r.updated_at = l_now
       WHERE r.record_type = 'image'
         AND r.message_id = l_message.id;
    END IF;
    RETURN TREAT(records_json('[' || TO_CHAR(l_seq) || ']', FALSE).get(0) AS JSON_OBJECT_T).to_json;
  END update_record;

  -- -- deleting --------------------------------------------------------------------------

  FUNCTION delete_seqs(p_seqs IN CLOB) RETURN NUMBER IS
    l_links    NUMBER := 0;
    l_messages CLOB;
  BEGIN
    IF p_seqs IS NULL THEN
      RETURN 0;
    END IF;
    DELETE FROM AGENT_MEMORY_RELATIONS rel
     WHERE rel.source_id IN (SELECT r.id
                               FROM AGENT_MEMORY_RECORDS r
                               JOIN JSON_TABLE(p_seqs, '$[*]' COLUMNS (seq NUMBER PATH '$')) s
                                 ON r.seq = s.seq
                              WHERE r.id_space = 'memory')
        OR rel.target_id IN (SELECT r.id
                               FROM AGENT_MEMORY_RECORDS r
                               JOIN JSON_TABLE(p_seqs, '$[*]' COLUMNS (seq NUMBER PATH '$')) s
                                 ON r.seq = s.seq
                              WHERE r.id_space = 'memory');
    l_links := SQL%ROWCOUNT;
    SELECT JSON_ARRAYAGG(r.id RETURNING CLOB)
      INTO l_messages
      FROM AGENT_MEMORY_RECORDS r
      JOIN JSON_TABLE(p_seqs, '$[*]' COLUMNS (seq NUMBER PATH '$')) s ON r.seq = s.seq
     WHERE r.record_type = 'message';
    DELETE FROM AGENT_MEMORY_RECORDS r
     WHERE r.seq IN (SELECT s.seq FROM JSON_TABLE(p_seqs, '$[*]' COLUMNS (seq NUMBER PATH '$')) s);
    IF l_messages IS NOT NULL THEN
      DELETE FROM AGENT_MEMORY_RECORDS r
       WHERE r.record_type = 'image'
         AND r.message_id IN (SELECT m.id FROM JSON_TABLE(l_messages, '$[*]'
                                COLUMNS (id VARCHAR2(512 CHAR) PATH '$')) m);
    END IF;
    RETURN l_links;
  END delete_seqs;

  FUNCTION delete_records(p_record_ids IN JSON, p_record_types IN JSON,
                          p_thread_id IN VARCHAR2) RETURN NUMBER IS
    l_ids     CLOB := AGENT_MEMORY_CODEC.id_list(AGENT_MEMORY_CODEC.to_array(p_record_ids, 'record_ids'), 'record_id');
    l_types   CLOB := types_member(p_record_types, FALSE);
    l_seqs    AGENT_MEMORY_CODEC.number_list_t;
    l_rtypes  text_list_t;
    l_msgids  text_list_t;
    l_links   NUMBER;
  BEGIN
    SELECT r.seq, r.record_type, r.message_id
      BULK COLLECT INTO l_seqs, l_rtypes, l_msgids
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.id IN (SELECT jt.v FROM JSON_TABLE(l_ids, '$[*]' COLUMNS (v VARCHAR2(512 CHAR) PATH '$')) jt)
       AND r.record_type IN (SELECT jt.v FROM JSON_TABLE(l_types, '$[*]' COLUMNS (v VARCHAR2(16 CHAR) PATH '$')) jt)
       AND (p_thread_id IS NULL OR r.thread_id = p_thread_id)
       FOR UPDATE;
    FOR i IN 1 .. l_seqs.COUNT LOOP
      IF l_rtypes(i) = 'image' AND l_msgids(i) IS NOT NULL THEN
        AGENT_MEMORY_ERRORS.attached_image(
          'the image is attached to a message; delete or update the message instead');
      END IF;
    END LOOP;
    IF l_seqs.COUNT > 0 THEN
      l_links := delete_seqs(AGENT_MEMORY_CODEC.number_list_json(l_seqs));
    END IF;
    RETURN l_seqs.COUNT;
  END delete_records;

  FUNCTION delete_cascade(p_owner_type IN VARCHAR2, p_owner_id IN VARCHAR2) RETURN JSON IS
    l_owner_id   VARCHAR2(512 CHAR);
    l_owner_type VARCHAR2(16 CHAR);
    l_owner      NUMBER;
    l_threads    CLOB;
    l_seqs       AGENT_MEMORY_CODEC.number_list_t;
    l_links      NUMBER := 0;
    l_result     JSON_OBJECT_T := JSON_OBJECT_T();
  BEGIN
    IF p_owner_type IS NULL OR p_owner_type NOT IN ('thread', 'user', 'agent') THEN
      AGENT_MEMORY_ERRORS.invalid_argument('owner_type must be thread, user or agent');
    END IF;
    l_owner_id := AGENT_MEMORY_CODEC.check_id(p_owner_id, 'owner_id');
    l_owner_type := CASE p_owner_type WHEN 'user' THEN 'user_profile'
                                      WHEN 'agent' THEN 'agent_profile'
                                      ELSE 'thread' END;
    SELECT COUNT(*) INTO l_owner
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.record_type = l_owner_type
       AND r.id = l_owner_id;
    IF p_owner_type = 'thread' THEN
      SELECT JSON_ARRAY(l_owner_id RETURNING CLOB) INTO l_threads FROM dual;
    ELSE
      SELECT JSON_ARRAYAGG(r.id RETURNING CLOB)
        INTO l_threads
        FROM AGENT_MEMORY_RECORDS r
       WHERE r.record_type = 'thread'
         AND ((p_owner_type = 'user' AND r.user_id = l_owner_id)
           OR (p_owner_type = 'agent' AND r.agent_id = l_owner_id));
    END IF;
    SELECT r.seq BULK COLLECT INTO l_seqs
      FROM AGENT_MEMORY_RECORDS r
     WHERE (p_owner_type = 'user' AND r.user_id = l_owner_id)
        OR (p_owner_type = 'agent' AND r.agent_id = l_owner_id)
        OR (p_owner_type = 'thread' AND r.thread_id = l_owner_id)
        OR (r.record_type = l_owner_type AND r.id = l_owner_id)
        OR r.thread_id IN (SELECT t.id FROM JSON_TABLE(NVL(l_threads, '[]'), '$[*]'
                             COLUMNS (id VARCHAR2(512 CHAR) PATH '$')) t)
     ORDER BY r.seq;
    IF l_threads IS NOT NULL THEN
      DELETE FROM AGENT_MEMORY_RELATIONS rel
       WHERE rel.thread_id IN (SELECT t.id FROM JSON_TABLE(l_threads, '$[*]'
                                 COLUMNS (id VARCHAR2(512 CHAR) PATH '$')) t);
      l_links := SQL%ROWCOUNT;
    END IF;
    IF l_seqs.COUNT > 0 THEN
      l_links := l_links + delete_seqs(AGENT_MEMORY_CODEC.number_list_json(l_seqs));
    END IF;
    l_result.put('owner', l_owner);
    l_result.put('records', l_seqs.COUNT);
    l_result.put('links', l_links);
    RETURN l_result.to_json;
  END delete_cascade;
END AGENT_MEMORY_RECORD_API;
/
