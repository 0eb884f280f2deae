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
    image       BLOB
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
  -- Checked: DBMS_LOB.GETLENGTH returns the length of a CLOB in characters, NULL for a NULL
  -- LOB, https://docs.oracle.com/cd/A91202_01/901_doc/appdev.901/a89852/dbms_16b.htm ; in a
  -- multibyte database a CLOB is stored in AL16UTF16 and a supplementary character counts
  -- two, as stores/limits.py counts it, https://asktom.oracle.com/pls/asktom/f?p=100:11:0::::P11_QUESTION_ID:9545915000346623127
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
    -- Checked: JSON_OBJECT ... RETURNING CLOB,
    --   https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/JSON_OBJECT.html
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

  FUNCTION delete_records(p_record_ids IN JSON, p_record_types IN JSON,
                          p_thread_id IN VARCHAR2) RETURN NUMBER IS
    l_ids     AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_CODEC.id_list(AGENT_MEMORY_CODEC.to_array(p_record_ids, 'record_ids'),
                                                   'record_id');
    l_types   AGENT_MEMORY_TEXT_LIST := types_member(p_record_types, FALSE);
    l_seqs    AGENT_MEMORY_NUMBER_LIST;
    l_rtypes  AGENT_MEMORY_TEXT_LIST;
    l_msgids  AGENT_MEMORY_TEXT_LIST;
    l_users   AGENT_MEMORY_TEXT_LIST;
    l_keep    AGENT_MEMORY_NUMBER_LIST := AGENT_MEMORY_NUMBER_LIST();
    l_unrestricted BOOLEAN;
    l_links   NUMBER;
  BEGIN
    SELECT r.seq, r.record_type, r.message_id, r.user_id
      BULK COLLECT INTO l_seqs, l_rtypes, l_msgids, l_users
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.id IN (SELECT i.COLUMN_VALUE FROM TABLE(l_ids) i)
       AND r.record_type IN (SELECT t.COLUMN_VALUE FROM TABLE(l_types) t)
       AND (p_thread_id IS NULL OR r.thread_id = p_thread_id)
       FOR UPDATE;
    -- Only the records the session may change are found: one it may only read (a memory
    -- of no user, through GLOBAL_MEMORIES) is left alone and not counted.
    l_unrestricted := AGENT_MEMORY_SESSION.access_mode = 'UNRESTRICTED';  -- once, not per row
    FOR i IN 1 .. l_seqs.COUNT LOOP
      IF l_unrestricted OR AGENT_MEMORY_SESSION.may_change(l_users(i)) THEN
        IF l_rtypes(i) = 'image' AND l_msgids(i) IS NOT NULL THEN
          AGENT_MEMORY_ERRORS.attached_image(
            'the image is attached to a message; delete or update the message instead');
        END IF;
        l_keep.EXTEND;
        l_keep(l_keep.COUNT) := l_seqs(i);
      END IF;
    END LOOP;
    l_links := delete_seqs(l_keep);
    RETURN l_keep.COUNT;
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
    l_unrestricted BOOLEAN;
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
    -- then finds no thread, or ends before it and its rows are read here.
    SELECT r.seq BULK COLLECT INTO l_found
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.record_type = l_owner_type
       AND r.id = l_owner_id
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
    l_unrestricted := AGENT_MEMORY_SESSION.access_mode = 'UNRESTRICTED';  -- once, not per row
    FOR i IN 1 .. l_found.COUNT LOOP
      IF l_unrestricted OR AGENT_MEMORY_SESSION.may_change(l_users(i)) THEN
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
  -- Checked: FORALL ... INSERT ... RETURNING ... BULK COLLECT INTO (one returned value per
  -- iteration, in order), fields referenced as rows(i).field,
  --   https://docs.oracle.com/en/database/oracle/oracle-database/26/lnpls/FORALL-statement.html
  --   https://docs.oracle.com/en/database/oracle/oracle-database/23/lnpls/bulk-sql-and-bulk-binding.html
  --   https://docs.oracle.com/en/error-help/db/pls-00674
  --   TO_VECTOR(text, dimensions, FLOAT32),
  --   https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/to_vector.html
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

  -- Insert one row, replacing (with its links) the record that holds its id, if any. Only
  -- a record of the same type, scope (user, agent, thread) and message can be replaced: an
  -- id held by anything else (another user's image, an image attached to another message,
  -- a standalone image) is -20003 with the message of a write without replace, so a caller
  -- can neither delete nor take over a record outside its own scope by naming its id.
  -- Checked: DECODE treats two nulls as equal,
  --   https://docs.oracle.com/cd/B10500_01/server.920/a96540/functions33a.htm
  PROCEDURE replace_row(p_row IN row_t) IS
    l_existing NUMBER;
    l_same     NUMBER;
    l_links    NUMBER;
    l_single   rows_t;
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
    IF l_existing IS NOT NULL THEN
      l_links := delete_seqs(AGENT_MEMORY_NUMBER_LIST(l_existing));
    END IF;
    l_single(1) := p_row;
    insert_rows(l_single);
  END replace_row;

  -- Lock the unexpired thread record p_thread_id, or raise -20002. A cascade that deletes
  -- the thread locks the same row first (delete_cascade), so of a write and a deletion
  -- racing, either the write waits and then finds no thread, or the deletion waits and then
  -- deletes what the write added. (FOR UPDATE locks the selected rows until the transaction
  -- ends, and a session that wants a locked row waits for it: SQL Language Reference, SELECT,
  -- for_update_clause, https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/SELECT.html)
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

  FUNCTION write_records(p_records IN JSON, p_links IN JSON, p_replace IN BOOLEAN,
                         p_thread_id IN VARCHAR2) RETURN JSON IS
    l_now   TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_rows  rows_t := prepare_rows(p_records, l_now);
    l_links JSON_ARRAY_T := AGENT_MEMORY_CODEC.to_array(p_links, 'links');
    l_ids   JSON_ARRAY_T := JSON_ARRAY_T();
  BEGIN
    IF p_thread_id IS NOT NULL THEN
      lock_thread(AGENT_MEMORY_CODEC.check_id(p_thread_id, 'thread_id'), l_now);
    END IF;
    -- An end user bound through a security context is refused a record it may not change
    -- (another user's, or no user's) before anything is written, as by the embedded
    -- backend; the VPD write policy (update_check, ORA-28115) enforces the same rule for
    -- every other session.
    IF AGENT_MEMORY_SESSION.security_context_bound THEN
      FOR i IN 1 .. l_rows.COUNT LOOP
        IF NOT AGENT_MEMORY_SESSION.may_change(l_rows(i).user_id) THEN
          AGENT_MEMORY_SESSION.deny('write records of another user or of no user');
        END IF;
      END LOOP;
    END IF;
    IF NVL(p_replace, FALSE) THEN
      -- one by one, as the embedded store: replacing a message also removes the images
      -- attached to it that earlier rows of the batch wrote
      FOR i IN 1 .. l_rows.COUNT LOOP
        replace_row(l_rows(i));
      END LOOP;
    ELSE
      insert_new_rows(l_rows);
    END IF;
    AGENT_MEMORY_LINK_GRAPH.insert_links(l_links, l_now);
    FOR i IN 1 .. l_rows.COUNT LOOP
      l_ids.append(l_rows(i).id);
    END LOOP;
    RETURN l_ids.to_json;
  END write_records;

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
                                     'ttl_days', 'ttl_anchor', 'parts', 'config', 'mime_type',
                                     'image_bytes', 'replace_images') THEN
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

  -- The record to update, locked: its id, type, scope and the times its expiry counts from.
  FUNCTION locked_row(p_seq IN NUMBER) RETURN row_t IS
    l_row row_t;
  BEGIN
    SELECT r.id, r.record_type, r.user_id, r.agent_id, r.thread_id, r.created_at, r.event_ts,
           r.event_utc
      INTO l_row.id, l_row.record_type, l_row.user_id, l_row.agent_id, l_row.thread_id,
           l_row.created_at, l_row.event_ts, l_row.event_utc
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.seq = p_seq
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

  -- metadata (whole), timestamp, status, and the expiry when ttl_days or ttl_anchor is
  -- present (anchored on the original creation time or the new or stored event time).
  PROCEDURE read_state(p_changes IN JSON_OBJECT_T, p_target IN row_t,
                       p_change IN OUT NOCOPY change_t) IS
    l_status VARCHAR2(4000 CHAR);
  BEGIN
    IF p_changes.has('metadata') THEN
      p_change.metadata := AGENT_MEMORY_CODEC.opt_object_text(p_changes, 'metadata', 'metadata');
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

  -- parts, config, mime_type.
  PROCEDURE read_extras(p_changes IN JSON_OBJECT_T, p_change IN OUT NOCOPY change_t) IS
  BEGIN
    IF p_changes.has('parts') THEN
      p_change.parts := AGENT_MEMORY_CODEC.opt_array_text(p_changes, 'parts', 'parts');
      p_change.f_parts := 1;
    END IF;
    IF p_changes.has('config') THEN
      p_change.config := AGENT_MEMORY_CODEC.opt_object_text(p_changes, 'config', 'config');
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

  -- A RecordChanges document, every field checked before anything is written.
  FUNCTION read_changes(p_changes IN JSON_OBJECT_T, p_target IN row_t, p_now IN TIMESTAMP)
    RETURN change_t IS
    l_change change_t;
  BEGIN
    read_content(p_changes, l_change);
    read_state(p_changes, p_target, l_change);
    read_extras(p_changes, l_change);
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
    MERGE INTO AGENT_MEMORY_IMAGES i
    USING (SELECT p_seq AS seq FROM dual) s
       ON (i.seq = s.seq)
     WHEN MATCHED THEN UPDATE SET i.bytes = l_bytes
     WHEN NOT MATCHED THEN INSERT (seq, bytes) VALUES (s.seq, l_bytes);
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

  FUNCTION update_record(p_record_id IN VARCHAR2, p_record_types IN JSON, p_changes IN JSON,
                         p_thread_id IN VARCHAR2) RETURN JSON IS
    l_id      VARCHAR2(512 CHAR) := AGENT_MEMORY_CODEC.check_id(p_record_id, 'record_id');
    l_types   AGENT_MEMORY_TEXT_LIST := types_member(p_record_types, FALSE);
    l_changes JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_changes, 'changes');
    l_now     TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_seq     NUMBER;
    l_target  row_t;
    l_change  change_t;
  BEGIN
    check_change_keys(l_changes);
    l_seq := find_visible(l_id, l_types, p_thread_id, l_now);
    IF l_seq IS NULL THEN
      RETURN NULL;
    END IF;
    l_target := locked_row(l_seq);
    -- A record the session may read but not change (a memory of no user, read through
    -- GLOBAL_MEMORIES) is not found for an update, as a record it cannot see.
    IF NOT AGENT_MEMORY_SESSION.may_change(l_target.user_id) THEN
      RETURN NULL;
    END IF;
    l_change := read_changes(l_changes, l_target, l_now);
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
