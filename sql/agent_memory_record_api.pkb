CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_RECORD_API AS
  -- The record-type vocabulary, rendered from python/oracleagentmemory/_vocabulary.py.
  c_all_types        CONSTANT VARCHAR2(200 CHAR) := 'memory, fact, guideline, preference, message, image, user_profile, agent_profile, thread, summary';
  c_searchable_types CONSTANT VARCHAR2(200 CHAR) := 'memory, fact, guideline, preference, message, image, user_profile, agent_profile';
  -- Characters embedded in one piece: 1000 characters take at most 4000 bytes in AL32UTF8.
  c_single_max       CONSTANT PLS_INTEGER := 1000;
  -- The contract's size limits, rendered from python/oracleagentmemory/stores/limits.py:
  -- characters of a record's content and of its metadata as JSON text.
  c_max_content      CONSTANT PLS_INTEGER := 1000000;
  c_max_metadata     CONSTANT PLS_INTEGER := 262144;

  -- One record to insert: a checked RecordIn (image already decoded from base64).
  TYPE row_t IS RECORD (
    id          VARCHAR2(512 CHAR),
    id_space    VARCHAR2(16 CHAR),
    record_type VARCHAR2(16 CHAR),
    user_id     VARCHAR2(512 CHAR),
    agent_id    VARCHAR2(512 CHAR),
    thread_id   VARCHAR2(512 CHAR),
    role        VARCHAR2(4000 CHAR),
    content     CLOB,
    keyword_text CLOB,
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
    image       BLOB,
    -- a RecordIn's scope_from: the memory whose scope fills the keys marked 1 below (the
    -- ones the record left out), read in the write (fill_scopes)
    scope_from  VARCHAR2(512 CHAR),
    fill_user   PLS_INTEGER := 0,
    fill_agent  PLS_INTEGER := 0,
    fill_thread PLS_INTEGER := 0
  );
  -- Rows of one batch, indexed 1 .. COUNT (dense, as FORALL needs).
  TYPE rows_t IS TABLE OF row_t INDEX BY PLS_INTEGER;
  TYPE clob_list_t IS TABLE OF CLOB;
  TYPE blob_list_t IS TABLE OF BLOB;
  TYPE seen_t IS TABLE OF BOOLEAN INDEX BY VARCHAR2(32767);

  -- The fields of a RecordChanges document, read and checked before anything is written.
  -- f_x = 1: the field is present and replaces the stored value.
  TYPE change_t IS RECORD (
    f_content   PLS_INTEGER := 0,
    content     CLOB,
    keyword_text CLOB,
    f_embedding PLS_INTEGER := 0,
    embedding   CLOB,
    f_metadata  PLS_INTEGER := 0,
    metadata    CLOB,
    f_timestamp PLS_INTEGER := 0,
    event_ts    VARCHAR2(64 CHAR),
    event_utc   TIMESTAMP(6),
    f_status    PLS_INTEGER := 0,
    status      VARCHAR2(8 CHAR),
    f_expires   PLS_INTEGER := 0,
    expires_at  TIMESTAMP(6),
    f_parts     PLS_INTEGER := 0,
    parts       CLOB,
    f_config    PLS_INTEGER := 0,
    config      CLOB,
    f_mime      PLS_INTEGER := 0,
    mime_type   VARCHAR2(255 CHAR),
    f_images    PLS_INTEGER := 0,
    images      rows_t,              -- replace_images, prepared like RecordIn rows
    keep        AGENT_MEMORY_TEXT_LIST    -- their ids: the attached images that stay
  );

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

  FUNCTION record_types(p_types IN JSON_ARRAY_T, p_searchable IN BOOLEAN)
    RETURN AGENT_MEMORY_TEXT_LIST IS
    l_out  AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST();
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
      l_out.EXTEND;
      l_out(l_out.COUNT) := l_type;
    END LOOP;
    RETURN l_out;
  END record_types;

  FUNCTION types_member(p_json IN JSON, p_searchable IN BOOLEAN) RETURN AGENT_MEMORY_TEXT_LIST IS
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

  -- -20001 when a CLOB argument holds more than p_max characters (NULL passes).
  -- DBMS_LOB.GETLENGTH counts characters; a character beyond the BMP counts two, as
  -- stores/limits.py counts it (docs/oracle.md, "Pages the code rests on": DBMS_LOB.GETLENGTH).
  PROCEDURE check_size(p_text IN CLOB, p_max IN PLS_INTEGER, p_argument IN VARCHAR2) IS
    l_length INTEGER := DBMS_LOB.GETLENGTH(p_text);
  BEGIN
    IF l_length > p_max THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' has ' || l_length
        || ' characters, more than the maximum of ' || p_max);
    END IF;
  END check_size;

  FUNCTION embed_text(p_text IN CLOB, p_is_query IN BOOLEAN DEFAULT FALSE) RETURN CLOB IS
  BEGIN
    -- rendered without an in-database model: callers pass client-side vectors
    RETURN NULL;
  END embed_text;

  -- -- reading ---------------------------------------------------------------------------

  -- One RecordOut from the JSON_OBJECT text records_json selected: a message gains its
  -- seq_no, an image its base64 bytes when asked for.
  FUNCTION record_object(p_seq IN NUMBER, p_record_type IN VARCHAR2, p_doc IN CLOB,
                         p_include_bytes IN BOOLEAN) RETURN JSON_OBJECT_T IS
    l_obj   JSON_OBJECT_T := JSON_OBJECT_T.parse(p_doc);
    l_bytes BLOB;
  BEGIN
    IF p_record_type = 'message' THEN
      l_obj.put('seq_no', p_seq);
    END IF;
    IF p_include_bytes AND p_record_type = 'image' THEN
      BEGIN
        SELECT i.bytes INTO l_bytes FROM AGENT_MEMORY_IMAGES i WHERE i.seq = p_seq;
        l_obj.put('image_bytes', AGENT_MEMORY_CODEC.string_element(AGENT_MEMORY_CODEC.blob_to_base64(l_bytes)));
      EXCEPTION
        WHEN NO_DATA_FOUND THEN
          NULL;
      END;
    END IF;
    RETURN l_obj;
  END record_object;

  FUNCTION records_json(p_seqs IN AGENT_MEMORY_NUMBER_LIST, p_include_bytes IN BOOLEAN)
    RETURN JSON_ARRAY_T IS
    l_out   JSON_ARRAY_T := JSON_ARRAY_T();
    l_seqs  AGENT_MEMORY_NUMBER_LIST;
    l_types AGENT_MEMORY_TEXT_LIST;
    l_docs  clob_list_t;
    l_order AGENT_MEMORY_NUMBER_LIST;
  BEGIN
    IF p_seqs IS NULL OR p_seqs.COUNT = 0 THEN
      RETURN l_out;
    END IF;
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
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.seq IN (SELECT s.COLUMN_VALUE FROM TABLE(p_seqs) s);
    l_order := AGENT_MEMORY_CODEC.positions(l_seqs, p_seqs);
    FOR k IN 1 .. l_order.COUNT LOOP
      l_out.append(record_object(l_seqs(l_order(k)), l_types(l_order(k)), l_docs(l_order(k)),
                                 p_include_bytes));
    END LOOP;
    RETURN l_out;
  END records_json;

  FUNCTION get_records(p_query IN JSON) RETURN JSON IS
    l_query     JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_query, 'query');
    l_now       TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_ids       AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST();
    l_types     AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST();
    l_has_ids   NUMBER := 0;
    l_has_types NUMBER := 0;
    l_el        JSON_ELEMENT_T;
    l_filter    JSON;
    l_filter_doc CLOB;
    l_limit     NUMBER;
    l_newest    BOOLEAN;
    l_flags     AGENT_MEMORY_NUMBER_LIST := AGENT_MEMORY_NUMBER_LIST(0, 0, 0, 0);
    l_values    AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST(NULL, NULL, NULL, NULL);
    l_columns   AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST('user_id', 'agent_id', 'thread_id', 'message_id');
    l_sql       VARCHAR2(32767);
    l_cursor    SYS_REFCURSOR;
    l_seqs      AGENT_MEMORY_NUMBER_LIST;
    l_back      AGENT_MEMORY_NUMBER_LIST;
    l_empty     JSON_ARRAY_T := JSON_ARRAY_T();
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
      l_has_ids := 1;
    END IF;
    IF l_query.has('record_types') THEN
      l_el := l_query.get('record_types');
      IF l_el IS NULL OR NOT l_el.is_array THEN
        AGENT_MEMORY_ERRORS.invalid_argument('record_types must be a list of record type names');
      END IF;
      l_types := record_types(TREAT(l_el AS JSON_ARRAY_T), FALSE);
      l_has_types := 1;
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
    -- newest: the limit keeps the last matching rows (highest seq), still returned oldest
    -- first; the rows are fetched newest first and put back in order below.
    l_newest := NVL(AGENT_MEMORY_CODEC.opt_boolean(l_query, 'newest', 'newest'), FALSE);
    -- Dynamic SQL text of get_records: constant text plus AGENT_MEMORY_FILTER.prefilter(), whose
    -- only variable parts are field names matching AGENT_MEMORY_FILTER.c_safe_key; every value is
    -- a bind, each placeholder appears once (binds are positional). The id and type lists
    -- are bound as collections and read with TABLE().
    l_sql := 'WITH p AS (SELECT :b_now AS now_ts, :b_has_ids AS has_ids, :b_has_types AS has_types,'
          || ' :b_has_user AS has_user, :b_user AS user_id, :b_has_agent AS has_agent,'
          || ' :b_agent AS agent_id, :b_has_thread AS has_thread, :b_thread AS thread_id,'
          || ' :b_has_message AS has_message, :b_message AS message_id, JSON(:b_filter) AS f,'
          || ' :b_newest AS newest FROM dual)'
          || ' SELECT r.seq FROM AGENT_MEMORY_RECORDS r CROSS JOIN p flt'
          || ' WHERE (r.expires_at IS NULL OR r.expires_at > flt.now_ts)'
          || ' AND (flt.has_ids = 0 OR r.id IN (SELECT i.COLUMN_VALUE FROM TABLE(:b_ids) i))'
          || ' AND (flt.has_types = 0 OR r.record_type IN (SELECT t.COLUMN_VALUE FROM TABLE(:b_types) t))'
          || ' AND (flt.has_user = 0 OR DECODE(r.user_id, flt.user_id, 1, 0) = 1)'
          || ' AND (flt.has_agent = 0 OR DECODE(r.agent_id, flt.agent_id, 1, 0) = 1)'
          || ' AND (flt.has_thread = 0 OR DECODE(r.thread_id, flt.thread_id, 1, 0) = 1)'
          || ' AND (flt.has_message = 0 OR DECODE(r.message_id, flt.message_id, 1, 0) = 1)'
          || ' AND (flt.f IS NULL OR (' || AGENT_MEMORY_FILTER.prefilter(l_filter) || '))'
          || ' AND (flt.f IS NULL OR AGENT_MEMORY_FILTER.matches(r.metadata, flt.f) = 1)'
          || ' ORDER BY CASE WHEN flt.newest = 1 THEN -r.seq ELSE r.seq END'
          || ' FETCH FIRST :b_limit ROWS ONLY';
    -- dynamic-sql: get_records candidates (text assembled above: literals + prefilter)
    OPEN l_cursor FOR l_sql
      USING l_now, l_has_ids, l_has_types, l_flags(1), l_values(1), l_flags(2), l_values(2),
            l_flags(3), l_values(3), l_flags(4), l_values(4), l_filter_doc,
            CASE WHEN l_newest THEN 1 ELSE 0 END, l_ids, l_types, NVL(l_limit, 2147483647);
    FETCH l_cursor BULK COLLECT INTO l_seqs;
    CLOSE l_cursor;
    IF l_newest THEN  -- fetched newest first: back to oldest first
      l_back := AGENT_MEMORY_NUMBER_LIST();
      l_back.EXTEND(l_seqs.COUNT);
      FOR i IN 1 .. l_seqs.COUNT LOOP
        l_back(i) := l_seqs(l_seqs.COUNT - i + 1);
      END LOOP;
      l_seqs := l_back;
    END IF;
    RETURN records_json(l_seqs,
                        NVL(AGENT_MEMORY_CODEC.opt_boolean(l_query, 'include_bytes', 'include_bytes'), FALSE)
                       ).to_json;
  END get_records;

  FUNCTION list_messages(p_thread_id IN VARCHAR2, p_start IN NUMBER, p_end IN NUMBER,
                         p_include_bytes IN BOOLEAN) RETURN JSON IS
    l_thread VARCHAR2(512 CHAR) := AGENT_MEMORY_CODEC.check_id(p_thread_id, 'thread_id');
    l_now    TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_all    AGENT_MEMORY_NUMBER_LIST;
    l_pick   AGENT_MEMORY_NUMBER_LIST := AGENT_MEMORY_NUMBER_LIST();
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
    RETURN records_json(l_pick, NVL(p_include_bytes, FALSE)).to_json;
  END list_messages;

  -- -- deleting --------------------------------------------------------------------------

  FUNCTION delete_seqs(p_seqs IN AGENT_MEMORY_NUMBER_LIST) RETURN NUMBER IS
    l_ids      AGENT_MEMORY_TEXT_LIST;
    l_spaces   AGENT_MEMORY_TEXT_LIST;
    l_types    AGENT_MEMORY_TEXT_LIST;
    l_memories AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST();
    l_messages AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST();
    l_links    NUMBER;
  BEGIN
    IF p_seqs IS NULL OR p_seqs.COUNT = 0 THEN
      RETURN 0;
    END IF;
    SELECT r.id, r.id_space, r.record_type
      BULK COLLECT INTO l_ids, l_spaces, l_types
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.seq IN (SELECT s.COLUMN_VALUE FROM TABLE(p_seqs) s);
    FOR i IN 1 .. l_ids.COUNT LOOP
      IF l_spaces(i) = 'memory' THEN
        l_memories.EXTEND;
        l_memories(l_memories.COUNT) := l_ids(i);
      END IF;
      IF l_types(i) = 'message' THEN
        l_messages.EXTEND;
        l_messages(l_messages.COUNT) := l_ids(i);
      END IF;
    END LOOP;
    DELETE FROM AGENT_MEMORY_RELATIONS rel
     WHERE rel.source_id IN (SELECT m.COLUMN_VALUE FROM TABLE(l_memories) m)
        OR rel.target_id IN (SELECT m.COLUMN_VALUE FROM TABLE(l_memories) m);
    l_links := SQL%ROWCOUNT;
    DELETE FROM AGENT_MEMORY_RECORDS r
     WHERE r.seq IN (SELECT s.COLUMN_VALUE FROM TABLE(p_seqs) s);
    IF l_messages.COUNT > 0 THEN
      DELETE FROM AGENT_MEMORY_RECORDS r
       WHERE r.record_type = 'image'
         AND r.message_id IN (SELECT m.COLUMN_VALUE FROM TABLE(l_messages) m);
    END IF;
    RETURN l_links;
  END delete_seqs;

  -- 1 when the session may change every record (UNRESTRICTED), else 0: with
  -- AGENT_MEMORY_SESSION.writable_user, what a statement compares to lock only changeable rows.
  FUNCTION unrestricted RETURN NUMBER IS
  BEGIN
    RETURN CASE WHEN AGENT_MEMORY_SESSION.access_mode = 'UNRESTRICTED' THEN 1 ELSE 0 END;
  END unrestricted;

  FUNCTION delete_records(p_record_ids IN JSON, p_record_types IN JSON,
                          p_thread_id IN VARCHAR2) RETURN NUMBER IS
    l_ids     AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_CODEC.id_list(AGENT_MEMORY_CODEC.to_array(p_record_ids, 'record_ids'),
                                                   'record_id');
    l_types   AGENT_MEMORY_TEXT_LIST := types_member(p_record_types, FALSE);
    l_seqs    AGENT_MEMORY_NUMBER_LIST;
    l_rtypes  AGENT_MEMORY_TEXT_LIST;
    l_msgids  AGENT_MEMORY_TEXT_LIST;
    l_all     NUMBER := unrestricted;
    l_writer  VARCHAR2(512 CHAR) := AGENT_MEMORY_SESSION.writable_user;
    l_links   NUMBER;
  BEGIN
    -- Only the records the session may change are found and locked: one it may only read
    -- (a memory of no user, through GLOBAL_MEMORIES) is left alone, unlocked and not
    -- counted (the rule of AGENT_MEMORY_SESSION.may_change, as values the statement compares).
    SELECT r.seq, r.record_type, r.message_id
      BULK COLLECT INTO l_seqs, l_rtypes, l_msgids
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.id IN (SELECT i.COLUMN_VALUE FROM TABLE(l_ids) i)
       AND r.record_type IN (SELECT t.COLUMN_VALUE FROM TABLE(l_types) t)
       AND (p_thread_id IS NULL OR r.thread_id = p_thread_id)
       AND (l_all = 1 OR r.user_id = l_writer)
       FOR UPDATE;
    FOR i IN 1 .. l_seqs.COUNT LOOP
      IF l_rtypes(i) = 'image' AND l_msgids(i) IS NOT NULL THEN
        AGENT_MEMORY_ERRORS.attached_image(
          'the image is attached to a message; delete or update the message instead');
      END IF;
    END LOOP;
    l_links := delete_seqs(l_seqs);
    RETURN l_seqs.COUNT;
  END delete_records;

  -- In a deep data security context (security_context_bound) an end user deletes only
  -- itself (with USER_OWN_ROWS) or a thread it may change; anything else is -20009, as the
  -- embedded backend refuses it. Other sessions delete what they may change and find the
  -- rest missing.
  PROCEDURE check_cascade(p_owner_type IN VARCHAR2, p_owner_id IN VARCHAR2) IS
    l_thread_user VARCHAR2(512 CHAR);
    l_threads     NUMBER;
    l_owner       VARCHAR2(4000 CHAR);
  BEGIN
    IF NOT AGENT_MEMORY_SESSION.security_context_bound THEN
      RETURN;
    END IF;
    IF p_owner_type = 'user' AND p_owner_id = AGENT_MEMORY_SESSION.end_user_id
       AND AGENT_MEMORY_SESSION.may_change(p_owner_id) THEN
      RETURN;
    END IF;
    IF p_owner_type = 'thread' THEN
      SELECT MIN(r.user_id), COUNT(*) INTO l_thread_user, l_threads
        FROM AGENT_MEMORY_RECORDS r
       WHERE r.record_type = 'thread'
         AND r.id = p_owner_id;
      IF l_threads > 0 AND AGENT_MEMORY_SESSION.may_change(l_thread_user) THEN
        RETURN;
      END IF;
    END IF;
    l_owner := AGENT_MEMORY_CODEC.quoted(p_owner_id);
    AGENT_MEMORY_SESSION.deny('delete ' || p_owner_type || ' ' || l_owner);
  END check_cascade;

  FUNCTION delete_cascade(p_owner_type IN VARCHAR2, p_owner_id IN VARCHAR2) RETURN JSON IS
    l_owner_id   VARCHAR2(512 CHAR);
    l_owner_type VARCHAR2(16 CHAR);
    l_owner      NUMBER;
    l_threads    AGENT_MEMORY_TEXT_LIST;
    l_found      AGENT_MEMORY_NUMBER_LIST;
    l_users      AGENT_MEMORY_TEXT_LIST;
    l_seqs       AGENT_MEMORY_NUMBER_LIST := AGENT_MEMORY_NUMBER_LIST();
    l_all        NUMBER := unrestricted;
    l_writer     VARCHAR2(512 CHAR) := AGENT_MEMORY_SESSION.writable_user;
    l_links      NUMBER := 0;
    l_result     JSON_OBJECT_T := JSON_OBJECT_T();
  BEGIN
    IF p_owner_type IS NULL OR p_owner_type NOT IN ('thread', 'user', 'agent') THEN
      AGENT_MEMORY_ERRORS.invalid_argument('owner_type must be thread, user or agent');
    END IF;
    l_owner_id := AGENT_MEMORY_CODEC.check_id(p_owner_id, 'owner_id');
    check_cascade(p_owner_type, l_owner_id);
    l_owner_type := CASE p_owner_type WHEN 'user' THEN 'user_profile'
                                      WHEN 'agent' THEN 'agent_profile'
                                      ELSE 'thread' END;
    -- The owner's record locked before its rows are read: a write into the thread
    -- (write_records with p_thread_id, see lock_thread) either waits for this deletion and
    -- then finds no thread, or ends before it and its rows are read here. Only rows the
    -- session may change are locked (l_all, l_writer: see delete_records).
    SELECT r.seq BULK COLLECT INTO l_found
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.record_type = l_owner_type
       AND r.id = l_owner_id
       AND (l_all = 1 OR r.user_id = l_writer)
       FOR UPDATE;
    l_owner := l_found.COUNT;
    IF p_owner_type = 'thread' THEN
      l_threads := AGENT_MEMORY_TEXT_LIST(l_owner_id);
    ELSE
      SELECT r.id BULK COLLECT INTO l_threads
        FROM AGENT_MEMORY_RECORDS r
       WHERE r.record_type = 'thread'
         AND ((p_owner_type = 'user' AND r.user_id = l_owner_id)
           OR (p_owner_type = 'agent' AND r.agent_id = l_owner_id))
         AND (l_all = 1 OR r.user_id = l_writer)
         FOR UPDATE;
    END IF;
    SELECT r.seq, r.user_id BULK COLLECT INTO l_found, l_users
      FROM AGENT_MEMORY_RECORDS r
     WHERE (p_owner_type = 'user' AND r.user_id = l_owner_id)
        OR (p_owner_type = 'agent' AND r.agent_id = l_owner_id)
        OR (p_owner_type = 'thread' AND r.thread_id = l_owner_id)
        OR (r.record_type = l_owner_type AND r.id = l_owner_id)
        OR r.thread_id IN (SELECT t.COLUMN_VALUE FROM TABLE(l_threads) t)
     ORDER BY r.seq;
    -- the records the session may only read (memories of no user) stay and are not counted
    FOR i IN 1 .. l_found.COUNT LOOP
      IF l_all = 1 OR l_users(i) = l_writer THEN
        l_seqs.EXTEND;
        l_seqs(l_seqs.COUNT) := l_found(i);
      END IF;
    END LOOP;
    IF l_threads.COUNT > 0 THEN
      DELETE FROM AGENT_MEMORY_RELATIONS rel
       WHERE rel.thread_id IN (SELECT t.COLUMN_VALUE FROM TABLE(l_threads) t);
      l_links := SQL%ROWCOUNT;
    END IF;
    l_links := l_links + delete_seqs(l_seqs);
    l_result.put('owner', l_owner);
    l_result.put('records', l_seqs.COUNT);
    l_result.put('links', l_links);
    RETURN l_result.to_json;
  END delete_cascade;

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
  -- its memory with the caller's document (TREAT/get do not copy).
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
    check_size(l_row.content, c_max_content, p_where || '.content');
    l_row.keyword_text := AGENT_MEMORY_KEYWORD.keyword_text(l_row.content);
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
    -- decoded here, with the rest of the validation, before anything is written
    l_row.image := AGENT_MEMORY_CODEC.base64_to_blob(
                     AGENT_MEMORY_CODEC.opt_clob(p_record, 'image_bytes', p_where || '.image_bytes'));
    IF p_attach THEN
      l_row.user_id := p_message.user_id;
      l_row.agent_id := p_message.agent_id;
      l_row.thread_id := p_message.thread_id;
    ELSE
      l_row.user_id := AGENT_MEMORY_CODEC.opt_id(p_record, 'user_id', p_where || '.user_id');
      l_row.agent_id := AGENT_MEMORY_CODEC.opt_id(p_record, 'agent_id', p_where || '.agent_id');
      l_row.thread_id := AGENT_MEMORY_CODEC.opt_id(p_record, 'thread_id', p_where || '.thread_id');
      IF p_record.has('scope_from') THEN
        l_row.scope_from := AGENT_MEMORY_CODEC.check_id(
          AGENT_MEMORY_CODEC.opt_string(p_record, 'scope_from', p_where || '.scope_from'),
          p_where || '.scope_from');
        l_row.fill_user := CASE WHEN p_record.has('user_id') THEN 0 ELSE 1 END;
        l_row.fill_agent := CASE WHEN p_record.has('agent_id') THEN 0 ELSE 1 END;
        l_row.fill_thread := CASE WHEN p_record.has('thread_id') THEN 0 ELSE 1 END;
      END IF;
    END IF;
    l_row.role := AGENT_MEMORY_CODEC.opt_text(p_record, 'role', p_where || '.role', 4000);
    l_row.metadata := AGENT_MEMORY_CODEC.opt_object_text(p_record, 'metadata', p_where || '.metadata');
    check_size(l_row.metadata, c_max_metadata, p_where || '.metadata as JSON');
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

  -- Every RecordIn of a write_records call checked (the whole batch before anything is
  -- written), as rows 1 .. n; -20003 when the batch names one id of an id space twice.
  FUNCTION prepare_rows(p_records IN JSON, p_now IN TIMESTAMP) RETURN rows_t IS
    l_records JSON_ARRAY_T;
    l_el      JSON_ELEMENT_T;
    l_rows    rows_t;
    l_seen    seen_t;
    l_key     VARCHAR2(600 CHAR);
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
    FOR i IN 0 .. l_records.get_size - 1 LOOP
      l_el := l_records.get(i);
      IF NOT l_el.is_object THEN
        AGENT_MEMORY_ERRORS.invalid_argument('records[' || i || '] must be a dict');
      END IF;
      l_rows(i + 1) := prepare_row(TREAT(l_el AS JSON_OBJECT_T), p_now, 'records[' || i || ']',
                                   FALSE, l_none);
      l_key := l_rows(i + 1).id_space || '/' || l_rows(i + 1).id;
      IF l_seen.EXISTS(l_key) THEN
        AGENT_MEMORY_ERRORS.duplicate_record('records contains the same id twice');
      END IF;
      l_seen(l_key) := TRUE;
    END LOOP;
    RETURN l_rows;
  END prepare_rows;

  -- Insert checked rows (and their image bytes) with one FORALL statement each.
  -- RETURNING ... BULK COLLECT INTO gives one value per iteration, in order; fields are
  -- referenced as rows(i).field (PLS-00674 otherwise).
  PROCEDURE insert_rows(p_rows IN rows_t) IS
    l_seqs       AGENT_MEMORY_NUMBER_LIST;
    l_image_seqs AGENT_MEMORY_NUMBER_LIST := AGENT_MEMORY_NUMBER_LIST();
    l_images     blob_list_t := blob_list_t();
  BEGIN
    IF p_rows.COUNT = 0 THEN
      RETURN;
    END IF;
    FORALL i IN 1 .. p_rows.COUNT
      INSERT INTO AGENT_MEMORY_RECORDS (
        id, id_space, record_type, user_id, agent_id, thread_id, role, content, keyword_text,
        metadata, parts, config, mime_type, event_ts, event_utc, created_at, updated_at,
        expires_at, status, message_id, embedding)
      VALUES (
        p_rows(i).id, p_rows(i).id_space, p_rows(i).record_type, p_rows(i).user_id,
        p_rows(i).agent_id, p_rows(i).thread_id, p_rows(i).role, p_rows(i).content,
        p_rows(i).keyword_text, JSON(p_rows(i).metadata), JSON(p_rows(i).parts), JSON(p_rows(i).config),
        p_rows(i).mime_type, p_rows(i).event_ts, p_rows(i).event_utc, p_rows(i).created_at,
        p_rows(i).updated_at, p_rows(i).expires_at, p_rows(i).status, p_rows(i).message_id,
        TO_VECTOR(p_rows(i).embedding, 384, FLOAT32))
      RETURNING seq BULK COLLECT INTO l_seqs;
    FOR i IN 1 .. p_rows.COUNT LOOP
      IF p_rows(i).image IS NOT NULL THEN
        l_image_seqs.EXTEND;
        l_image_seqs(l_image_seqs.COUNT) := l_seqs(i);
        l_images.EXTEND;
        l_images(l_images.COUNT) := p_rows(i).image;
      END IF;
    END LOOP;
    FORALL i IN 1 .. l_image_seqs.COUNT
      INSERT INTO AGENT_MEMORY_IMAGES (seq, bytes) VALUES (l_image_seqs(i), l_images(i));
  END insert_rows;

  -- Insert rows none of which may exist yet: one lookup for the whole batch, then the
  -- inserts. The first id already used, in input order, is the one reported (-20003), as
  -- if the rows were inserted one by one.
  PROCEDURE insert_new_rows(p_rows IN rows_t) IS
    l_ids    AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST();
    l_spaces AGENT_MEMORY_TEXT_LIST;
    l_found  AGENT_MEMORY_TEXT_LIST;
    l_taken  seen_t;
  BEGIN
    FOR i IN 1 .. p_rows.COUNT LOOP
      l_ids.EXTEND;
      l_ids(i) := p_rows(i).id;
    END LOOP;
    SELECT r.id_space, r.id BULK COLLECT INTO l_spaces, l_found
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.id IN (SELECT i.COLUMN_VALUE FROM TABLE(l_ids) i);
    FOR i IN 1 .. l_found.COUNT LOOP
      l_taken(l_spaces(i) || '/' || l_found(i)) := TRUE;
    END LOOP;
    FOR i IN 1 .. p_rows.COUNT LOOP
      IF l_taken.EXISTS(p_rows(i).id_space || '/' || p_rows(i).id) THEN
        AGENT_MEMORY_ERRORS.duplicate_record('a ' || p_rows(i).id_space || ' record with id '
          || AGENT_MEMORY_CODEC.quoted(p_rows(i).id) || ' already exists');
      END IF;
    END LOOP;
    insert_rows(p_rows);
  END insert_new_rows;

  -- The seq of the record p_row replaces (NULL when its id is free). Only a record of the
  -- same type, scope (user, agent, thread) and message can be replaced: an id held by
  -- anything else (another user's image, an image attached to another message, a
  -- standalone image) is -20003 with the message of a write without replace, so a caller
  -- can neither delete nor take over a record outside its own scope by naming its id.
  -- DECODE treats two NULLs as equal.
  FUNCTION replaced_seq(p_row IN row_t) RETURN NUMBER IS
    l_existing NUMBER;
    l_same     NUMBER;
  BEGIN
    SELECT MIN(r.seq),
           MIN(CASE WHEN r.record_type = p_row.record_type
                     AND DECODE(r.user_id, p_row.user_id, 1, 0) = 1
                     AND DECODE(r.agent_id, p_row.agent_id, 1, 0) = 1
                     AND DECODE(r.thread_id, p_row.thread_id, 1, 0) = 1
                     AND DECODE(r.message_id, p_row.message_id, 1, 0) = 1
                    THEN 1 ELSE 0 END)
      INTO l_existing, l_same
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.id_space = p_row.id_space
       AND r.id = p_row.id;
    IF l_existing IS NOT NULL AND l_same = 0 THEN
      AGENT_MEMORY_ERRORS.duplicate_record('a ' || p_row.id_space || ' record with id '
        || AGENT_MEMORY_CODEC.quoted(p_row.id) || ' already exists');
    END IF;
    RETURN l_existing;
  END replaced_seq;

  -- Insert one row, replacing (with its links) the record that holds its id, if any.
  PROCEDURE replace_row(p_row IN row_t) IS
    l_existing NUMBER := replaced_seq(p_row);
    l_links    NUMBER;
    l_single   rows_t;
  BEGIN
    IF l_existing IS NOT NULL THEN
      l_links := delete_seqs(AGENT_MEMORY_NUMBER_LIST(l_existing));
    END IF;
    l_single(1) := p_row;
    insert_rows(l_single);
  END replace_row;

  -- replace_row for a whole batch: every id checked, then the records replaced deleted,
  -- then every row inserted. Row by row, a message replaced after an image of the same
  -- batch attached to it deleted that image with its old ones, and write_records still
  -- returned the image's id (the embedded store's _replace_rows does the same).
  PROCEDURE replace_rows(p_rows IN rows_t) IS
    l_seqs  AGENT_MEMORY_NUMBER_LIST := AGENT_MEMORY_NUMBER_LIST();
    l_seq   NUMBER;
    l_links NUMBER;
  BEGIN
    FOR i IN 1 .. p_rows.COUNT LOOP
      l_seq := replaced_seq(p_rows(i));
      IF l_seq IS NOT NULL THEN
        l_seqs.EXTEND;
        l_seqs(l_seqs.COUNT) := l_seq;
      END IF;
    END LOOP;
    l_links := delete_seqs(l_seqs);
    insert_rows(p_rows);
  END replace_rows;

  -- Lock the unexpired thread record p_thread_id, or raise -20002. A cascade that deletes
  -- the thread locks the same row first (delete_cascade), so of a write and a deletion
  -- racing, either the write waits and then finds no thread, or the deletion waits and then
  -- deletes what the write added. (FOR UPDATE locks the selected rows until the transaction
  -- ends, and a session that wants a locked row waits for it.)
  PROCEDURE lock_thread(p_thread_id IN VARCHAR2, p_now IN TIMESTAMP) IS
    l_seq NUMBER;
  BEGIN
    SELECT r.seq INTO l_seq
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.record_type = 'thread'
       AND r.id = p_thread_id
       AND (r.expires_at IS NULL OR r.expires_at > p_now)
       FOR UPDATE;
  EXCEPTION
    WHEN NO_DATA_FOUND THEN
      AGENT_MEMORY_ERRORS.record_not_found('thread ' || AGENT_MEMORY_CODEC.quoted(p_thread_id)
        || ' does not exist');
  END lock_thread;

  -- The threads a write names: its p_thread_id, the thread_id of each of its records (of a
  -- thread record only when it names another thread than itself) and the id of each summary
  -- (a summary's id is its thread's), each once. The embedded backend's end-user guard
  -- names the same threads (stores/end_user_guard.py, _check_writes).
  FUNCTION named_threads(p_rows IN rows_t, p_thread_id IN VARCHAR2) RETURN AGENT_MEMORY_TEXT_LIST IS
    l_threads AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST();
    l_seen    seen_t;

    PROCEDURE note(p_thread IN VARCHAR2) IS
    BEGIN
      IF p_thread IS NOT NULL AND NOT l_seen.EXISTS(p_thread) THEN
        l_seen(p_thread) := TRUE;
        l_threads.EXTEND;
        l_threads(l_threads.COUNT) := p_thread;
      END IF;
    END note;
  BEGIN
    note(p_thread_id);
    FOR i IN 1 .. p_rows.COUNT LOOP
      IF p_rows(i).record_type <> 'thread' OR p_rows(i).thread_id <> p_rows(i).id THEN
        note(p_rows(i).thread_id);
      END IF;
      IF p_rows(i).record_type = 'summary' THEN
        note(p_rows(i).id);
      END IF;
    END LOOP;
    RETURN l_threads;
  END named_threads;

  -- Each row naming scope_from takes the scope keys it left out from that visible
  -- memory-like record, read in the write (-20010 when there is none: the read policy hides
  -- another user's from an end user), so a memory linked to a stored one takes its scope
  -- in one call.
  PROCEDURE fill_scopes(p_rows IN OUT NOCOPY rows_t, p_now IN TIMESTAMP) IS
    l_user   VARCHAR2(512 CHAR);
    l_agent  VARCHAR2(512 CHAR);
    l_thread VARCHAR2(512 CHAR);
  BEGIN
    FOR i IN 1 .. p_rows.COUNT LOOP
      IF p_rows(i).scope_from IS NOT NULL THEN
        BEGIN
          SELECT r.user_id, r.agent_id, r.thread_id
            INTO l_user, l_agent, l_thread
            FROM AGENT_MEMORY_RECORDS r
           WHERE r.id_space = 'memory'
             AND r.id = p_rows(i).scope_from
             AND (r.expires_at IS NULL OR r.expires_at > p_now);
        EXCEPTION
          WHEN NO_DATA_FOUND THEN
            AGENT_MEMORY_ERRORS.link_end_not_found('records[' || TO_CHAR(i - 1) || '].scope_from '
              || AGENT_MEMORY_CODEC.quoted(p_rows(i).scope_from) || ' is not a stored memory');
        END;
        IF p_rows(i).fill_user = 1 THEN
          p_rows(i).user_id := l_user;
        END IF;
        IF p_rows(i).fill_agent = 1 THEN
          p_rows(i).agent_id := l_agent;
        END IF;
        IF p_rows(i).fill_thread = 1 THEN
          p_rows(i).thread_id := l_thread;
        END IF;
      END IF;
    END LOOP;
  END fill_scopes;

  -- An end user's write rules, checked before anything is written. It writes only into
  -- threads it may change, whatever the records' user_id (the owner of another user's
  -- thread is looked up past the read policy, which hides it). Bound through a security
  -- context, it is refused a record it may not change (another user's, or no user's), as
  -- by the embedded backend; the VPD write policy (update_check, ORA-28115) enforces the
  -- same rule for every other session.
  PROCEDURE check_end_user_writes(p_rows IN rows_t, p_thread_id IN VARCHAR2) IS
  BEGIN
    AGENT_MEMORY_SESSION.assert_may_write_into(named_threads(p_rows, p_thread_id));
    IF AGENT_MEMORY_SESSION.security_context_bound THEN
      FOR i IN 1 .. p_rows.COUNT LOOP
        IF NOT AGENT_MEMORY_SESSION.may_change(p_rows(i).user_id) THEN
          AGENT_MEMORY_SESSION.deny('write records of another user or of no user');
        END IF;
      END LOOP;
      -- a user profile's id is its user: an end user writes its own profile only
      FOR i IN 1 .. p_rows.COUNT LOOP
        IF p_rows(i).record_type = 'user_profile'
           AND DECODE(p_rows(i).id, AGENT_MEMORY_SESSION.end_user_id, 1, 0) = 0 THEN
          AGENT_MEMORY_SESSION.deny('write the profile of another user');
        END IF;
      END LOOP;
    END IF;
  END check_end_user_writes;

  FUNCTION write_records(p_records IN JSON, p_links IN JSON, p_replace IN BOOLEAN,
                         p_thread_id IN VARCHAR2) RETURN JSON IS
    l_now   TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_rows  rows_t := prepare_rows(p_records, l_now);
    l_links JSON_ARRAY_T := AGENT_MEMORY_CODEC.to_array(p_links, 'links');
    l_ids   JSON_ARRAY_T := JSON_ARRAY_T();
  BEGIN
    fill_scopes(l_rows, l_now);
    check_end_user_writes(l_rows, p_thread_id);
    IF p_thread_id IS NOT NULL THEN
      lock_thread(AGENT_MEMORY_CODEC.check_id(p_thread_id, 'thread_id'), l_now);
    END IF;
    IF NVL(p_replace, FALSE) THEN
      replace_rows(l_rows);
    ELSE
      insert_new_rows(l_rows);
    END IF;
    AGENT_MEMORY_LINK_GRAPH.insert_links(l_links, l_now);
    FOR i IN 1 .. l_rows.COUNT LOOP
      l_ids.append(l_rows(i).id);
    END LOOP;
    RETURN l_ids.to_json;
  END write_records;

  -- -- a thread's messages ----------------------------------------------------------------

  -- The seqs of the thread's last p_count visible messages, ascending. (The row limiting
  -- clause of a subquery takes a bind, as p_count is here.)
  FUNCTION tail_seqs(p_thread_id IN VARCHAR2, p_now IN TIMESTAMP, p_count IN NUMBER)
    RETURN AGENT_MEMORY_NUMBER_LIST IS
    l_seqs AGENT_MEMORY_NUMBER_LIST;
  BEGIN
    SELECT t.seq BULK COLLECT INTO l_seqs
      FROM (SELECT r.seq
              FROM AGENT_MEMORY_RECORDS r
             WHERE r.thread_id = p_thread_id
               AND r.record_type = 'message'
               AND (r.expires_at IS NULL OR r.expires_at > p_now)
             ORDER BY r.seq DESC
             FETCH FIRST p_count ROWS ONLY) t
     ORDER BY t.seq;
    RETURN l_seqs;
  END tail_seqs;

  -- An integer member of a schedule: NULL when absent or null, -20001 when not an integer.
  FUNCTION schedule_integer(p_schedule IN JSON_OBJECT_T, p_key IN VARCHAR2) RETURN NUMBER IS
    l_el    JSON_ELEMENT_T;
    l_value NUMBER;
  BEGIN
    IF NOT AGENT_MEMORY_CODEC.has_key(p_schedule, p_key) THEN
      RETURN NULL;
    END IF;
    l_el := p_schedule.get(p_key);
    IF l_el IS NULL OR l_el.is_null THEN
      RETURN NULL;
    END IF;
    IF NOT l_el.is_number THEN
      AGENT_MEMORY_ERRORS.invalid_argument('schedule.' || p_key || ' must be an integer');
    END IF;
    l_value := p_schedule.get_number(p_key);
    IF l_value <> TRUNC(l_value) THEN
      AGENT_MEMORY_ERRORS.invalid_argument('schedule.' || p_key || ' must be an integer');
    END IF;
    RETURN l_value;
  END schedule_integer;

  -- A counter a thread record keeps (state.extraction): 0 when missing or not a positive
  -- integer.
  FUNCTION stored_count(p_counts IN JSON_OBJECT_T, p_key IN VARCHAR2) RETURN NUMBER IS
    l_el    JSON_ELEMENT_T;
    l_value NUMBER;
  BEGIN
    IF NOT AGENT_MEMORY_CODEC.has_key(p_counts, p_key) THEN
      RETURN 0;
    END IF;
    l_el := p_counts.get(p_key);
    IF l_el IS NULL OR NOT l_el.is_number THEN
      RETURN 0;
    END IF;
    l_value := p_counts.get_number(p_key);
    RETURN CASE WHEN l_value > 0 AND l_value = TRUNC(l_value) THEN l_value ELSE 0 END;
  END stored_count;

  -- Count a batch of p_added messages under p_schedule: what is due, and the counters left.
  -- The rule of python/oracleagentmemory/stores/extraction_schedule.py (count_batch): a
  -- feature is on when its frequency is not null, and its counter is 0 while it is off;
  -- extraction is due at every batch (frequency <= 0) or once the messages since the last
  -- one reach its frequency, over extraction_window messages (> 0) or all of those; the
  -- summary refresh is checked after a due extraction while extraction is on, else at
  -- every batch, and is due likewise; unsummarised messages go back to the summary counter
  -- first, and a call without messages only does that.
  PROCEDURE count_batch(p_schedule IN JSON_OBJECT_T, p_added IN PLS_INTEGER,
                        p_since_extraction IN OUT NOCOPY NUMBER,
                        p_since_summary IN OUT NOCOPY NUMBER,
                        p_extraction_window OUT NUMBER, p_summary_window OUT NUMBER) IS
    l_extraction NUMBER := schedule_integer(p_schedule, 'extraction_frequency');
    l_summary    NUMBER := schedule_integer(p_schedule, 'summary_frequency');
    l_window     NUMBER := NVL(schedule_integer(p_schedule, 'extraction_window'), -1);
    l_back       NUMBER := NVL(schedule_integer(p_schedule, 'unsummarised'), 0);
    l_checked    BOOLEAN;
  BEGIN
    IF l_back < 0 THEN
      AGENT_MEMORY_ERRORS.invalid_argument('schedule.unsummarised must be an integer of at least 0');
    END IF;
    p_extraction_window := 0;
    p_summary_window := 0;
    p_since_summary := p_since_summary + l_back;
    IF p_added <= 0 THEN
      RETURN;
    END IF;
    p_since_extraction := CASE WHEN l_extraction IS NULL THEN 0
                               ELSE p_since_extraction + p_added END;
    p_since_summary := CASE WHEN l_summary IS NULL THEN 0 ELSE p_since_summary + p_added END;
    IF l_extraction IS NOT NULL
       AND (l_extraction <= 0 OR p_since_extraction >= l_extraction) THEN
      p_extraction_window := CASE WHEN l_window > 0 THEN l_window ELSE p_since_extraction END;
      p_since_extraction := 0;
    END IF;
    IF l_extraction IS NOT NULL THEN
      l_checked := p_extraction_window > 0;
    ELSE
      l_checked := l_summary IS NOT NULL;
    END IF;
    IF l_summary IS NOT NULL AND l_checked
       AND (l_summary <= 0 OR p_since_summary >= l_summary) THEN
      p_summary_window := p_since_summary;
      p_since_summary := 0;
    END IF;
  END count_batch;

  -- The counters of the locked thread record p_thread counted for a batch and written
  -- back (state.extraction of its config, its other state and its settings untouched).
  PROCEDURE count_in_thread(p_thread IN NUMBER, p_config IN CLOB, p_schedule IN JSON_OBJECT_T,
                            p_added IN PLS_INTEGER, p_now IN TIMESTAMP,
                            p_extraction_window OUT NUMBER, p_summary_window OUT NUMBER) IS
    l_config JSON_OBJECT_T := JSON_OBJECT_T();
    l_state  JSON_OBJECT_T := JSON_OBJECT_T();
    l_counts JSON_OBJECT_T;
    l_since_extraction NUMBER := 0;
    l_since_summary    NUMBER := 0;
  BEGIN
    IF p_config IS NOT NULL THEN
      l_config := JSON_OBJECT_T.parse(p_config);
    END IF;
    IF l_config.has('state') AND l_config.get('state').is_object THEN
      l_state := l_config.get_object('state');
    END IF;
    IF l_state.has('extraction') AND l_state.get('extraction').is_object THEN
      l_counts := l_state.get_object('extraction');
      l_since_extraction := stored_count(l_counts, 'messages_since_extraction');
      l_since_summary := stored_count(l_counts, 'messages_since_summary');
    END IF;
    count_batch(p_schedule, p_added, l_since_extraction, l_since_summary,
                p_extraction_window, p_summary_window);
    IF p_thread IS NULL THEN
      RETURN;  -- a thread without a record counts from zero and keeps nothing
    END IF;
    l_counts := JSON_OBJECT_T();
    l_counts.put('messages_since_extraction', l_since_extraction);
    l_counts.put('messages_since_summary', l_since_summary);
    l_state.put('extraction', l_counts);
    l_config.put('state', l_state);
    UPDATE AGENT_MEMORY_RECORDS r
       SET r.config = JSON(l_config.to_clob), r.updated_at = p_now
     WHERE r.seq = p_thread;
  END count_in_thread;

  -- The thread's last visible message as a RecordOut (SQL NULL: it has none), and its id.
  FUNCTION last_message(p_thread_id IN VARCHAR2, p_now IN TIMESTAMP,
                        p_id OUT VARCHAR2) RETURN JSON_ELEMENT_T IS
    l_seqs AGENT_MEMORY_NUMBER_LIST := tail_seqs(p_thread_id, p_now, 1);
    l_out  JSON_OBJECT_T;
  BEGIN
    p_id := NULL;
    IF l_seqs.COUNT = 0 THEN
      RETURN NULL;
    END IF;
    l_out := TREAT(records_json(l_seqs, FALSE).get(0) AS JSON_OBJECT_T);
    p_id := l_out.get_string('id');
    RETURN l_out;
  END last_message;

  FUNCTION append_messages(p_batch IN JSON) RETURN JSON IS
    l_batch     JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_batch, 'batch', FALSE);
    l_now       TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_thread_id VARCHAR2(512 CHAR);
    l_required  BOOLEAN;
    l_records   JSON := JSON_ARRAY_T().to_json;
    l_rows      rows_t;
    l_added     PLS_INTEGER := 0;
    l_thread    NUMBER;
    l_config    CLOB;
    l_expected  VARCHAR2(512 CHAR);
    l_last_id   VARCHAR2(512 CHAR);
    l_last      JSON_ELEMENT_T;
    l_schedule  JSON_OBJECT_T;
    l_extraction_window NUMBER := 0;
    l_summary_window    NUMBER := 0;
    l_summary   CLOB;
    l_ids       JSON_ARRAY_T := JSON_ARRAY_T();
    l_result    JSON_OBJECT_T := JSON_OBJECT_T();
  BEGIN
    l_thread_id := AGENT_MEMORY_CODEC.check_id(
      AGENT_MEMORY_CODEC.opt_string(l_batch, 'thread_id', 'batch.thread_id'), 'thread_id');
    l_required := NVL(AGENT_MEMORY_CODEC.opt_boolean(l_batch, 'thread_required',
                                                'batch.thread_required'), TRUE);
    IF l_batch.has('records') THEN
      l_records := l_batch.get('records').to_json;
    END IF;
    l_rows := prepare_rows(l_records, l_now);
    FOR i IN 1 .. l_rows.COUNT LOOP
      IF l_rows(i).record_type NOT IN ('message', 'image') OR l_rows(i).thread_id IS NULL
         OR l_rows(i).thread_id <> l_thread_id THEN
        AGENT_MEMORY_ERRORS.invalid_argument('records[' || (i - 1) || '] must be a message or an'
          || ' image of thread ' || AGENT_MEMORY_CODEC.quoted(l_thread_id));
      END IF;
      IF l_rows(i).scope_from IS NOT NULL THEN
        AGENT_MEMORY_ERRORS.invalid_argument('records[' || (i - 1) || '].scope_from is not taken'
          || ' by append_messages: a batch''s records carry their thread''s scope');
      END IF;
      IF l_rows(i).record_type = 'message' THEN
        l_added := l_added + 1;
      END IF;
    END LOOP;
    IF AGENT_MEMORY_CODEC.has_key(l_batch, 'schedule') AND NOT l_batch.get('schedule').is_null THEN
      IF NOT l_batch.get('schedule').is_object THEN
        AGENT_MEMORY_ERRORS.invalid_argument('schedule must be an object or None');
      END IF;
      l_schedule := l_batch.get_object('schedule');
    END IF;
    check_end_user_writes(l_rows, l_thread_id);
    -- The thread record is locked first, as write_records' lock_thread does, so a deletion
    -- either waits for this batch or comes before it and leaves no thread to write into.
    BEGIN
      SELECT r.seq, JSON_SERIALIZE(r.config RETURNING CLOB) INTO l_thread, l_config
        FROM AGENT_MEMORY_RECORDS r
       WHERE r.record_type = 'thread'
         AND r.id = l_thread_id
         AND (r.expires_at IS NULL OR r.expires_at > l_now)
         FOR UPDATE;
    EXCEPTION
      WHEN NO_DATA_FOUND THEN
        IF l_required THEN
          AGENT_MEMORY_ERRORS.record_not_found('thread ' || AGENT_MEMORY_CODEC.quoted(l_thread_id)
            || ' does not exist');
        END IF;
    END;
    IF AGENT_MEMORY_CODEC.has_key(l_batch, 'after_message_id') THEN
      l_expected := AGENT_MEMORY_CODEC.opt_id(l_batch, 'after_message_id', 'after_message_id');
      l_last := last_message(l_thread_id, l_now, l_last_id);
      IF NOT ((l_last_id IS NULL AND l_expected IS NULL) OR l_last_id = l_expected) THEN
        -- another message is the thread's last: nothing is written
        l_result.put('ids', l_ids);
        l_result.put('written', FALSE);
        IF l_last IS NULL THEN
          l_result.put_null('last_message');
        ELSE
          l_result.put('last_message', l_last);
        END IF;
        l_result.put('extraction_window', 0);
        l_result.put('summary_window', 0);
        l_result.put('messages', JSON_ARRAY_T());
        l_result.put_null('thread_summary');
        RETURN l_result.to_json;
      END IF;
    END IF;
    insert_new_rows(l_rows);
    IF l_schedule IS NOT NULL THEN
      count_in_thread(l_thread, l_config, l_schedule, l_added, l_now, l_extraction_window,
                      l_summary_window);
    END IF;
    FOR i IN 1 .. l_rows.COUNT LOOP
      l_ids.append(l_rows(i).id);
    END LOOP;
    l_result.put('ids', l_ids);
    l_result.put('written', TRUE);
    l_result.put_null('last_message');
    l_result.put('extraction_window', l_extraction_window);
    l_result.put('summary_window', l_summary_window);
    IF GREATEST(l_extraction_window, l_summary_window) > 0 THEN
      l_result.put('messages', records_json(
        tail_seqs(l_thread_id, l_now, GREATEST(l_extraction_window, l_summary_window)), FALSE));
      BEGIN
        SELECT r.content INTO l_summary
          FROM AGENT_MEMORY_RECORDS r
         WHERE r.record_type = 'summary'
           AND r.id = l_thread_id
           AND (r.expires_at IS NULL OR r.expires_at > l_now);
      EXCEPTION
        WHEN NO_DATA_FOUND THEN
          l_summary := NULL;
      END;
    ELSE
      l_result.put('messages', JSON_ARRAY_T());
    END IF;
    IF l_summary IS NULL THEN
      l_result.put_null('thread_summary');
    ELSE
      l_result.put('thread_summary', AGENT_MEMORY_CODEC.string_element(l_summary));
    END IF;
    RETURN l_result.to_json;
  END append_messages;

  -- -- updating --------------------------------------------------------------------------

  PROCEDURE check_change_keys(p_changes IN JSON_OBJECT_T) IS
    l_keys    JSON_KEY_LIST := p_changes.get_keys;
    l_unknown VARCHAR2(4000 CHAR);
  BEGIN
    IF l_keys IS NULL THEN
      RETURN;
    END IF;
    FOR i IN 1 .. l_keys.COUNT LOOP
      IF NVL(l_keys(i), '?') NOT IN ('content', 'embedding', 'metadata', 'timestamp', 'status',
                                     'ttl_days', 'ttl_anchor', 'parts', 'config', 'settings',
                                     'mime_type', 'image_bytes', 'replace_images',
                                     'keep_bookkeeping', 'after_message_id') THEN
        l_unknown := l_unknown || CASE WHEN l_unknown IS NOT NULL THEN ', ' END || l_keys(i);
      END IF;
    END LOOP;
    IF l_unknown IS NOT NULL THEN
      AGENT_MEMORY_ERRORS.invalid_argument('unknown change fields: ' || l_unknown);
    END IF;
  END check_change_keys;

  -- The seq of the visible record p_id among p_types (and of p_thread_id when given), or NULL.
  FUNCTION find_visible(p_id IN VARCHAR2, p_types IN AGENT_MEMORY_TEXT_LIST,
                        p_thread_id IN VARCHAR2, p_now IN TIMESTAMP) RETURN NUMBER IS
    l_seq NUMBER;
  BEGIN
    SELECT MIN(r.seq) INTO l_seq
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.id = p_id
       AND r.record_type IN (SELECT t.COLUMN_VALUE FROM TABLE(p_types) t)
       AND (r.expires_at IS NULL OR r.expires_at > p_now)
       AND (p_thread_id IS NULL OR r.thread_id = p_thread_id);
    RETURN l_seq;
  END find_visible;

  -- The record to update, locked: its id, type, scope, message, metadata, config and the
  -- times its expiry counts from;
  -- NO_DATA_FOUND when the session may read it but not change it (a memory of no user, read
  -- through GLOBAL_MEMORIES), which is then neither locked nor updated.
  FUNCTION locked_row(p_seq IN NUMBER) RETURN row_t IS
    l_row    row_t;
    l_all    NUMBER := unrestricted;
    l_writer VARCHAR2(512 CHAR) := AGENT_MEMORY_SESSION.writable_user;
  BEGIN
    SELECT r.id, r.record_type, r.user_id, r.agent_id, r.thread_id, r.created_at, r.event_ts,
           r.event_utc, JSON_SERIALIZE(r.config RETURNING CLOB),
           JSON_SERIALIZE(r.metadata RETURNING CLOB), r.message_id
      INTO l_row.id, l_row.record_type, l_row.user_id, l_row.agent_id, l_row.thread_id,
           l_row.created_at, l_row.event_ts, l_row.event_utc, l_row.config,
           l_row.metadata, l_row.message_id
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.seq = p_seq
       AND (l_all = 1 OR r.user_id = l_writer)
       FOR UPDATE;
    RETURN l_row;
  END locked_row;

  -- content, and the embedding: given, or (new content without an "embedding" key)
  -- computed in the database when a model is configured.
  PROCEDURE read_content(p_changes IN JSON_OBJECT_T, p_change IN OUT NOCOPY change_t) IS
  BEGIN
    IF p_changes.has('content') THEN
      p_change.content := AGENT_MEMORY_CODEC.opt_clob(p_changes, 'content', 'content');
      IF p_change.content IS NULL AND NOT p_changes.get('content').is_string THEN
        AGENT_MEMORY_ERRORS.invalid_argument('content must be a string');
      END IF;
      p_change.content := NVL(p_change.content, EMPTY_CLOB());
      check_size(p_change.content, c_max_content, 'content');
      p_change.keyword_text := AGENT_MEMORY_KEYWORD.keyword_text(p_change.content);
      p_change.f_content := 1;
    END IF;
    IF p_changes.has('embedding') THEN
      p_change.embedding := AGENT_MEMORY_CODEC.vector_text(p_changes, 'embedding', 'embedding');
      p_change.f_embedding := 1;
    ELSIF p_change.f_content = 1 THEN
      p_change.embedding := embed_text(p_change.content);
      p_change.f_embedding := CASE WHEN p_change.embedding IS NULL THEN 0 ELSE 1 END;
    END IF;
  END read_content;

  -- New metadata p_new with the LangGraph store's bookkeeping of the stored p_stored kept,
  -- when p_new is an object without that key (the rule of
  -- python/oracleagentmemory/stores/record_changes.py: a caller replacing the metadata it
  -- sees never saw it).
  FUNCTION kept_bookkeeping(p_stored IN CLOB, p_new IN CLOB) RETURN CLOB IS
    l_new      JSON_OBJECT_T;
    l_envelope JSON_ELEMENT_T;
  BEGIN
    IF p_stored IS NULL OR p_new IS NULL THEN
      RETURN p_new;
    END IF;
    l_new := JSON_OBJECT_T.parse(p_new);
    IF l_new.has('langgraph') THEN
      RETURN p_new;
    END IF;
    l_envelope := JSON_OBJECT_T.parse(p_stored).get('langgraph');
    IF l_envelope IS NULL OR NOT l_envelope.is_object THEN
      RETURN p_new;
    END IF;
    IF NOT TREAT(l_envelope AS JSON_OBJECT_T).has('kind')
       OR NOT TREAT(l_envelope AS JSON_OBJECT_T).get('kind').is_string
       OR TREAT(l_envelope AS JSON_OBJECT_T).get_string('kind') <> 'langgraph_store_item' THEN
      RETURN p_new;
    END IF;
    l_new.put('langgraph', l_envelope);
    RETURN l_new.to_clob;
  END kept_bookkeeping;

  -- metadata (whole), timestamp, status, and the expiry when ttl_days or ttl_anchor is
  -- present (anchored on the original creation time or the new or stored event time).
  PROCEDURE read_state(p_changes IN JSON_OBJECT_T, p_target IN row_t, p_keep IN BOOLEAN,
                       p_change IN OUT NOCOPY change_t) IS
    l_status VARCHAR2(4000 CHAR);
  BEGIN
    IF p_changes.has('metadata') THEN
      p_change.metadata := AGENT_MEMORY_CODEC.opt_object_text(p_changes, 'metadata', 'metadata');
      IF p_keep THEN
        p_change.metadata := kept_bookkeeping(p_target.metadata, p_change.metadata);
      END IF;
      check_size(p_change.metadata, c_max_metadata, 'metadata as JSON');
      p_change.f_metadata := 1;
    END IF;
    p_change.event_utc := p_target.event_utc;
    IF p_changes.has('timestamp') THEN
      p_change.event_ts := AGENT_MEMORY_CODEC.opt_timestamp(p_changes, 'timestamp', 'timestamp');
      p_change.event_utc := CASE WHEN p_change.event_ts IS NULL THEN NULL
                                 ELSE AGENT_MEMORY_CODEC.parse_iso(p_change.event_ts, 'timestamp') END;
      p_change.f_timestamp := 1;
    END IF;
    IF p_changes.has('status') THEN
      l_status := AGENT_MEMORY_CODEC.opt_text(p_changes, 'status', 'status', 4000);
      IF l_status IS NULL OR l_status NOT IN ('VALID', 'INVALID') THEN
        AGENT_MEMORY_ERRORS.invalid_argument('status must be VALID or INVALID');
      END IF;
      p_change.status := l_status;
      p_change.f_status := 1;
    END IF;
    IF p_changes.has('ttl_days') OR p_changes.has('ttl_anchor') THEN
      p_change.expires_at := AGENT_MEMORY_RETENTION.expires_at(p_changes, p_target.created_at,
                                                          p_change.event_utc, 'changes');
      p_change.f_expires := 1;
    END IF;
  END read_state;

  -- A thread's settings p_given layered over its stored settings p_stored (the rule of
  -- python/oracleagentmemory/stores/record_changes.py): each key given replaces the stored
  -- one, except memory_extraction_config, whose fields given replace the stored fields.
  FUNCTION layered_settings(p_stored IN JSON_ELEMENT_T, p_given IN JSON_OBJECT_T)
    RETURN JSON_OBJECT_T IS
    l_out    JSON_OBJECT_T := JSON_OBJECT_T();
    l_keys   JSON_KEY_LIST;
    l_below  JSON_ELEMENT_T;
    l_value  JSON_ELEMENT_T;
    l_merged JSON_OBJECT_T;
    l_fields JSON_KEY_LIST;
  BEGIN
    IF p_stored IS NOT NULL AND p_stored.is_object THEN
      l_out := TREAT(p_stored AS JSON_OBJECT_T);
    END IF;
    l_keys := p_given.get_keys;
    IF l_keys IS NULL THEN
      RETURN l_out;
    END IF;
    FOR i IN 1 .. l_keys.COUNT LOOP
      l_value := p_given.get(l_keys(i));
      l_below := l_out.get(l_keys(i));
      IF l_keys(i) = 'memory_extraction_config' AND l_value.is_object
         AND l_below IS NOT NULL AND l_below.is_object THEN
        l_merged := TREAT(l_below AS JSON_OBJECT_T);
        l_fields := TREAT(l_value AS JSON_OBJECT_T).get_keys;
        IF l_fields IS NOT NULL THEN
          FOR j IN 1 .. l_fields.COUNT LOOP
            l_merged.put(l_fields(j), TREAT(l_value AS JSON_OBJECT_T).get(l_fields(j)));
          END LOOP;
        END IF;
        l_out.put(l_keys(i), l_merged);
      ELSE
        l_out.put(l_keys(i), l_value);
      END IF;
    END LOOP;
    RETURN l_out;
  END layered_settings;

  -- parts, config, mime_type; "settings" are layered over the settings of the (locked)
  -- record's config, whose rest is kept (a thread's counters, which append_messages
  -- changes).
  PROCEDURE read_extras(p_changes IN JSON_OBJECT_T, p_target IN row_t,
                        p_change IN OUT NOCOPY change_t) IS
    l_config JSON_OBJECT_T := JSON_OBJECT_T();
  BEGIN
    IF p_changes.has('parts') THEN
      p_change.parts := AGENT_MEMORY_CODEC.opt_array_text(p_changes, 'parts', 'parts');
      p_change.f_parts := 1;
    END IF;
    IF p_changes.has('config') AND p_changes.has('settings') THEN
      AGENT_MEMORY_ERRORS.invalid_argument('give config or settings, not both');
    END IF;
    IF p_changes.has('config') THEN
      p_change.config := AGENT_MEMORY_CODEC.opt_object_text(p_changes, 'config', 'config');
      p_change.f_config := 1;
    END IF;
    IF p_changes.has('settings') THEN
      IF NOT p_changes.get('settings').is_object THEN
        AGENT_MEMORY_ERRORS.invalid_argument('settings must be a JSON object');
      END IF;
      IF p_target.config IS NOT NULL THEN
        l_config := JSON_OBJECT_T.parse(p_target.config);
      END IF;
      l_config.put('settings', layered_settings(l_config.get('settings'),
                                                p_changes.get_object('settings')));
      p_change.config := l_config.to_clob;
      p_change.f_config := 1;
    END IF;
    IF p_changes.has('mime_type') THEN
      p_change.mime_type := AGENT_MEMORY_CODEC.opt_text(p_changes, 'mime_type', 'mime_type', 255);
      p_change.f_mime := 1;
    END IF;
  END read_extras;

  -- replace_images of a message: each listed image prepared like a RecordIn of
  -- write_records, with the message's id and scope (see prepare_row). A record that is not
  -- a message ignores the key, as the embedded store does.
  PROCEDURE read_images(p_changes IN JSON_OBJECT_T, p_target IN row_t, p_now IN TIMESTAMP,
                        p_change IN OUT NOCOPY change_t) IS
    l_el     JSON_ELEMENT_T;
    l_listed JSON_ARRAY_T;
  BEGIN
    IF NOT p_changes.has('replace_images') OR p_target.record_type <> 'message' THEN
      RETURN;
    END IF;
    l_el := p_changes.get('replace_images');
    IF l_el IS NULL OR l_el.is_null THEN
      l_listed := JSON_ARRAY_T();
    ELSIF l_el.is_array THEN
      l_listed := TREAT(l_el AS JSON_ARRAY_T);
    ELSE
      AGENT_MEMORY_ERRORS.invalid_argument('replace_images must be a list of record objects');
    END IF;
    p_change.keep := AGENT_MEMORY_TEXT_LIST();
    FOR i IN 0 .. l_listed.get_size - 1 LOOP
      l_el := l_listed.get(i);
      IF NOT l_el.is_object THEN
        AGENT_MEMORY_ERRORS.invalid_argument('records[' || i || '] must be a dict');
      END IF;
      p_change.images(i + 1) := prepare_row(TREAT(l_el AS JSON_OBJECT_T), p_now,
                                            'records[' || i || ']', TRUE, p_target);
      p_change.keep.EXTEND;
      p_change.keep(i + 1) := p_change.images(i + 1).id;
    END LOOP;
    p_change.f_images := 1;
  END read_images;

  -- A RecordChanges document, every field checked before anything is written (p_keep: its
  -- keep_bookkeeping, already checked).
  FUNCTION read_changes(p_changes IN JSON_OBJECT_T, p_target IN row_t, p_keep IN BOOLEAN,
                        p_now IN TIMESTAMP) RETURN change_t IS
    l_change change_t;
  BEGIN
    read_content(p_changes, l_change);
    read_state(p_changes, p_target, p_keep, l_change);
    read_extras(p_changes, p_target, l_change);
    read_images(p_changes, p_target, p_now, l_change);
    RETURN l_change;
  END read_changes;

  -- Replace the present fields of the record in one UPDATE (updated_at too).
  PROCEDURE apply_changes(p_seq IN NUMBER, p_change IN change_t, p_now IN TIMESTAMP) IS
  BEGIN
    IF p_change.f_content + p_change.f_embedding + p_change.f_metadata + p_change.f_timestamp
       + p_change.f_status + p_change.f_expires + p_change.f_parts + p_change.f_config
       + p_change.f_mime = 0 THEN
      RETURN;
    END IF;
    UPDATE AGENT_MEMORY_RECORDS r
       SET r.content    = CASE WHEN p_change.f_content = 1 THEN p_change.content ELSE r.content END,
           -- the text index reads keyword_text: it changes with the content
           r.keyword_text = CASE WHEN p_change.f_content = 1 THEN p_change.keyword_text
                                 ELSE r.keyword_text END,
           r.embedding  = CASE WHEN p_change.f_embedding = 1
                               THEN TO_VECTOR(p_change.embedding, 384, FLOAT32)
                               ELSE r.embedding END,
           r.metadata   = CASE WHEN p_change.f_metadata = 1 THEN JSON(p_change.metadata) ELSE r.metadata END,
           r.event_ts   = CASE WHEN p_change.f_timestamp = 1 THEN p_change.event_ts ELSE r.event_ts END,
           r.event_utc  = CASE WHEN p_change.f_timestamp = 1 THEN p_change.event_utc ELSE r.event_utc END,
           r.status     = CASE WHEN p_change.f_status = 1 THEN p_change.status ELSE r.status END,
           r.expires_at = CASE WHEN p_change.f_expires = 1 THEN p_change.expires_at ELSE r.expires_at END,
           r.parts      = CASE WHEN p_change.f_parts = 1 THEN JSON(p_change.parts) ELSE r.parts END,
           r.config     = CASE WHEN p_change.f_config = 1 THEN JSON(p_change.config) ELSE r.config END,
           r.mime_type  = CASE WHEN p_change.f_mime = 1 THEN p_change.mime_type ELSE r.mime_type END,
           r.updated_at = p_now
     WHERE r.seq = p_seq;
  END apply_changes;

  -- image_bytes of the changes: stored as the record's image (inserted or replaced).
  PROCEDURE store_image_bytes(p_seq IN NUMBER, p_changes IN JSON_OBJECT_T) IS
    l_image CLOB;
    l_bytes BLOB;
  BEGIN
    IF NOT p_changes.has('image_bytes') THEN
      RETURN;
    END IF;
    l_image := AGENT_MEMORY_CODEC.opt_clob(p_changes, 'image_bytes', 'image_bytes');
    IF l_image IS NULL THEN
      RETURN;
    END IF;
    l_bytes := AGENT_MEMORY_CODEC.base64_to_blob(l_image);  -- not inside SQL: ACCESSIBLE BY
    -- UPDATE, then INSERT when no row was there, not MERGE: the table has a read and a
    -- write VPD policy, and MERGE INTO refuses a table any of whose policies does not cover
    -- INSERT, UPDATE and DELETE (DIA-28132; docs/oracle.md, "reads and writes under different
    -- rules").
    -- The static gate's vpd-merge check keeps MERGE off such tables. The record's row is
    -- locked by the caller (locked_row), so no other session inserts its image meanwhile.
    UPDATE AGENT_MEMORY_IMAGES i SET i.bytes = l_bytes WHERE i.seq = p_seq;
    IF SQL%ROWCOUNT = 0 THEN
      INSERT INTO AGENT_MEMORY_IMAGES (seq, bytes) VALUES (p_seq, l_bytes);
    END IF;
  END store_image_bytes;

  -- A message's attached images after replace_images: (a) attached images not listed go,
  -- through the common delete path (their bytes go with them: AGENT_MEMORY_IMAGES references
  -- the record ON DELETE CASCADE); (b) listed images with bytes are inserted, or replace the
  -- image of that id; listed ids without bytes are kept as stored.
  PROCEDURE replace_attached_images(p_message_id IN VARCHAR2, p_change IN change_t) IS
    l_keep  AGENT_MEMORY_TEXT_LIST := p_change.keep;
    l_stale AGENT_MEMORY_NUMBER_LIST;
    l_links NUMBER;
  BEGIN
    SELECT r.seq BULK COLLECT INTO l_stale
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.record_type = 'image'
       AND r.message_id = p_message_id
       AND NOT EXISTS (SELECT 1 FROM TABLE(l_keep) k WHERE k.COLUMN_VALUE = r.id)
     ORDER BY r.seq;
    l_links := delete_seqs(l_stale);
    FOR i IN 1 .. p_change.images.COUNT LOOP
      IF p_change.images(i).image IS NOT NULL THEN
        replace_row(p_change.images(i));
      END IF;
    END LOOP;
  END replace_attached_images;

  -- (c) attached images always carry their message's expiry.
  PROCEDURE follow_message_expiry(p_seq IN NUMBER, p_message_id IN VARCHAR2,
                                  p_now IN TIMESTAMP) IS
    l_follow TIMESTAMP;
  BEGIN
    SELECT r.expires_at INTO l_follow FROM AGENT_MEMORY_RECORDS r WHERE r.seq = p_seq;
    UPDATE AGENT_MEMORY_RECORDS r
       SET r.expires_at = l_follow,
           r.updated_at = p_now
     WHERE r.record_type = 'image'
       AND r.message_id = p_message_id;
  END follow_message_expiry;

  -- Inside the update of the locked record p_target (seq p_seq): an image attached to a
  -- message keeps its message's expiry (-20008 for a change of its own), and a message's
  -- after_message_id must be the thread's visible message right before it (-20011 when
  -- another one, or none, is: its new vector was made against that message).
  -- FIRST/LAST aggregate (KEEP DENSE_RANK LAST):
  -- https://docs.oracle.com/cd/G47991_01/sqlrf/img_text/last.html
  -- p_expected: the after_message_id of p_changes, already checked (update_record).
  PROCEDURE check_context(p_seq IN NUMBER, p_target IN row_t, p_changes IN JSON_OBJECT_T,
                          p_expected IN VARCHAR2, p_now IN TIMESTAMP) IS
    l_before   VARCHAR2(512 CHAR);
  BEGIN
    IF p_target.record_type = 'image' AND p_target.message_id IS NOT NULL
       AND (p_changes.has('ttl_days') OR p_changes.has('ttl_anchor')) THEN
      AGENT_MEMORY_ERRORS.attached_image(
        'the image is attached to a message: change its expiry with the message''s');
    END IF;
    IF NOT p_changes.has('after_message_id') THEN
      RETURN;
    END IF;
    IF p_target.record_type <> 'message' THEN
      AGENT_MEMORY_ERRORS.invalid_argument('after_message_id is only for a message');
    END IF;
    SELECT MAX(r.id) KEEP (DENSE_RANK LAST ORDER BY r.seq)
      INTO l_before
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.thread_id = p_target.thread_id
       AND r.record_type = 'message'
       AND r.seq < p_seq
       AND (r.expires_at IS NULL OR r.expires_at > p_now);
    IF NOT ((l_before IS NULL AND p_expected IS NULL) OR l_before = p_expected) THEN
      AGENT_MEMORY_ERRORS.message_context_changed('the message before '
        || AGENT_MEMORY_CODEC.quoted(p_target.id) || ' is not ' || AGENT_MEMORY_CODEC.quoted(p_expected)
        || ' any more');
    END IF;
  END check_context;

  FUNCTION update_record(p_record_id IN VARCHAR2, p_record_types IN JSON, p_changes IN JSON,
                         p_thread_id IN VARCHAR2) RETURN JSON IS
    l_id      VARCHAR2(512 CHAR) := AGENT_MEMORY_CODEC.check_id(p_record_id, 'record_id');
    l_types   AGENT_MEMORY_TEXT_LIST := types_member(p_record_types, FALSE);
    l_changes JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_changes, 'changes');
    l_now     TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_seq     NUMBER;
    l_target  row_t;
    l_change  change_t;
    l_expected VARCHAR2(512 CHAR);
    l_keep    BOOLEAN;
  BEGIN
    check_change_keys(l_changes);
    -- checked before the record is looked for, as the embedded store does: malformed, they
    -- are -20001 whether the record exists or not
    l_expected := AGENT_MEMORY_CODEC.opt_id(l_changes, 'after_message_id', 'after_message_id');
    l_keep := NVL(AGENT_MEMORY_CODEC.opt_boolean(l_changes, 'keep_bookkeeping', 'keep_bookkeeping'),
                  FALSE);
    l_seq := find_visible(l_id, l_types, p_thread_id, l_now);
    IF l_seq IS NULL THEN
      RETURN NULL;
    END IF;
    -- A record the session may read but not change (a memory of no user, read through
    -- GLOBAL_MEMORIES) is not found for an update, as a record it cannot see.
    BEGIN
      l_target := locked_row(l_seq);
    EXCEPTION
      WHEN NO_DATA_FOUND THEN
        RETURN NULL;
    END;
    check_context(l_seq, l_target, l_changes, l_expected, l_now);
    l_change := read_changes(l_changes, l_target, l_keep, l_now);
    apply_changes(l_seq, l_change, l_now);
    store_image_bytes(l_seq, l_changes);
    IF l_change.f_images = 1 THEN
      replace_attached_images(l_target.id, l_change);
    END IF;
    IF l_target.record_type = 'message' AND l_change.f_images + l_change.f_expires > 0 THEN
      follow_message_expiry(l_seq, l_target.id, l_now);
    END IF;
    RETURN TREAT(records_json(AGENT_MEMORY_NUMBER_LIST(l_seq), FALSE).get(0) AS JSON_OBJECT_T).to_json;
  END update_record;
END AGENT_MEMORY_RECORD_API;
/
