CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_LINK_GRAPH AS
  TYPE clob_list_t IS TABLE OF CLOB;
  -- Relation ids by a key (an id, or an endpoint pair) for the links of one batch.
  TYPE owner_t IS TABLE OF VARCHAR2(512 CHAR) INDEX BY VARCHAR2(32767);

  -- One relation to insert: a checked LinkIn.
  TYPE link_t IS RECORD (
    id            VARCHAR2(512 CHAR),
    thread_id     VARCHAR2(512 CHAR),
    source_id     VARCHAR2(512 CHAR),
    source_type   VARCHAR2(16 CHAR),
    target_id     VARCHAR2(512 CHAR),
    target_type   VARCHAR2(16 CHAR),
    relation_type VARCHAR2(128 CHAR),
    opposite      VARCHAR2(128 CHAR),
    event_ts      VARCHAR2(64 CHAR),
    metadata      CLOB,
    created_at    TIMESTAMP(6)
  );
  -- Links of one batch, indexed 1 .. COUNT (dense, as FORALL needs).
  TYPE links_t IS TABLE OF link_t INDEX BY PLS_INTEGER;

  -- The keys of a LinkQuery besides "ids": has_x = 1 when key x is present (its value,
  -- NULL included, must then match exactly).
  TYPE link_query_t IS RECORD (
    has_thread        NUMBER := 0,
    thread_id         VARCHAR2(512 CHAR),
    has_source        NUMBER := 0,
    source_id         VARCHAR2(512 CHAR),
    has_source_type   NUMBER := 0,
    source_type       VARCHAR2(512 CHAR),
    has_target        NUMBER := 0,
    target_id         VARCHAR2(512 CHAR),
    has_target_type   NUMBER := 0,
    target_type       VARCHAR2(512 CHAR),
    has_relation_type NUMBER := 0,
    relation_type     VARCHAR2(512 CHAR),
    filter_doc        CLOB,
    limit_rows        NUMBER
  );

  -- An optional id argument: NULL stays NULL, anything else is checked (1 to 512 characters).
  FUNCTION optional_id(p_value IN VARCHAR2, p_argument IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    IF p_value IS NULL THEN
      RETURN NULL;
    END IF;
    RETURN AGENT_MEMORY_CODEC.check_id(p_value, p_argument);
  END optional_id;

  FUNCTION check_label(p_name IN VARCHAR2, p_label IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    IF p_label IS NULL OR TRIM(p_label) IS NULL THEN
      AGENT_MEMORY_ERRORS.invalid_link(p_name || ' must be a non-empty string');
    END IF;
    IF LENGTH(p_label) > 128 THEN
      AGENT_MEMORY_ERRORS.invalid_link(p_name || ' must be at most 128 characters');
    END IF;
    RETURN p_label;
  END check_label;

  FUNCTION label_member(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2) RETURN VARCHAR2 IS
    l_el JSON_ELEMENT_T;
  BEGIN
    IF NOT p_obj.has(p_key) THEN
      RETURN NULL;
    END IF;
    l_el := p_obj.get(p_key);
    IF l_el IS NULL OR l_el.is_null THEN
      RETURN NULL;
    END IF;
    IF NOT l_el.is_string THEN
      AGENT_MEMORY_ERRORS.invalid_link(p_key || ' must be a non-empty string');
    END IF;
    RETURN p_obj.get_string(p_key);
  END label_member;

  FUNCTION opposite_label(p_relation_type IN VARCHAR2, p_opposite IN VARCHAR2,
                          p_opposite_given IN BOOLEAN) RETURN VARCHAR2 IS
    l_type VARCHAR2(128 CHAR) := check_label('relation_type', p_relation_type);
  BEGIN
    CASE l_type
      WHEN 'supersedes' THEN RETURN 'is_superseded_by';
      WHEN 'refines' THEN RETURN 'is_refined_by';
      WHEN 'supports' THEN RETURN 'is_supported_by';
      WHEN 'contradicts' THEN RETURN 'contradicts';
      WHEN 'duplicates' THEN RETURN 'duplicates';
      ELSE NULL;
    END CASE;
    IF NOT p_opposite_given OR p_opposite IS NULL THEN
      RETURN l_type;
    END IF;
    RETURN check_label('opposite_relation_type', p_opposite);
  END opposite_label;

  -- Check one endpoint of a new link and return its record's thread: a visible memory-like
  -- record of the stated type (p_stated; an end given without a type is of its stored type,
  -- returned in p_type), and of p_thread_id when that is given (-20005 otherwise).
  -- An end user of a deep data security context may link only records it may change: any
  -- other endpoint, found or not, is -20009, as the embedded backend refuses it.
  FUNCTION require_linkable(p_id IN VARCHAR2, p_type IN OUT NOCOPY VARCHAR2,
                            p_stated IN BOOLEAN, p_thread_id IN VARCHAR2,
                            p_side IN VARCHAR2, p_now IN TIMESTAMP) RETURN VARCHAR2 IS
    l_type   VARCHAR2(16 CHAR);
    l_thread VARCHAR2(512 CHAR);
    l_user   VARCHAR2(512 CHAR);
  BEGIN
    BEGIN
      SELECT r.record_type, r.thread_id, r.user_id
        INTO l_type, l_thread, l_user
        FROM AGENT_MEMORY_RECORDS r
       WHERE r.id_space = 'memory'
         AND r.id = p_id
         AND (r.expires_at IS NULL OR r.expires_at > p_now);
    EXCEPTION
      WHEN NO_DATA_FOUND THEN
        l_thread := NULL;
        l_type := NULL;
        l_user := NULL;
    END;
    IF AGENT_MEMORY_SESSION.security_context_bound
       AND (l_type IS NULL OR NOT AGENT_MEMORY_SESSION.may_change(l_user)) THEN
      AGENT_MEMORY_SESSION.deny('link records it does not own');
    END IF;
    IF p_stated AND (p_type IS NULL OR NOT AGENT_MEMORY_RECORD_API.is_memory_type(p_type)) THEN
      AGENT_MEMORY_ERRORS.invalid_link(p_side || '_record_type must be one of memory, fact, guideline, preference, got '
        || AGENT_MEMORY_CODEC.quoted(p_type));
    END IF;
    IF l_type IS NULL
       OR (p_thread_id IS NOT NULL AND (l_thread IS NULL OR l_thread <> p_thread_id)) THEN
      AGENT_MEMORY_ERRORS.link_end_not_found(p_side || ' record ' || AGENT_MEMORY_CODEC.quoted(p_id)
        || ' does not exist'
        || CASE WHEN p_thread_id IS NOT NULL
                THEN ' in thread ' || AGENT_MEMORY_CODEC.quoted(p_thread_id) END);
    END IF;
    IF p_stated AND l_type <> p_type THEN
      AGENT_MEMORY_ERRORS.invalid_link(p_side || ' record ' || AGENT_MEMORY_CODEC.quoted(p_id) || ' is a '
        || l_type || ', not a ' || p_type);
    END IF;
    p_type := l_type;
    RETURN l_thread;
  END require_linkable;

  -- One LinkIn checked: endpoints, labels, timestamp, metadata, creation time. Without a
  -- thread_id the link takes its endpoints' thread when both have the same one.
  FUNCTION prepare_link(p_link IN JSON_OBJECT_T, p_now IN TIMESTAMP) RETURN link_t IS
    l_link        link_t;
    l_source_type VARCHAR2(4000 CHAR);
    l_target_type VARCHAR2(4000 CHAR);
    l_threads     AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST(NULL, NULL);
    l_created     VARCHAR2(4000 CHAR);
  BEGIN
    l_link.id := AGENT_MEMORY_CODEC.check_id(
                   NVL(AGENT_MEMORY_CODEC.opt_string(p_link, 'id', 'relation_id'), AGENT_MEMORY_CODEC.new_id),
                   'relation_id');
    l_link.thread_id := AGENT_MEMORY_CODEC.opt_id(p_link, 'thread_id', 'thread_id');
    l_link.source_id := AGENT_MEMORY_CODEC.check_id(
                          AGENT_MEMORY_CODEC.opt_string(p_link, 'source_id', 'source_record_id'),
                          'source_record_id');
    l_link.target_id := AGENT_MEMORY_CODEC.check_id(
                          AGENT_MEMORY_CODEC.opt_string(p_link, 'target_id', 'target_record_id'),
                          'target_record_id');
    IF l_link.source_id = l_link.target_id THEN
      AGENT_MEMORY_ERRORS.invalid_link('a record cannot be linked to itself');
    END IF;
    l_source_type := AGENT_MEMORY_CODEC.opt_string(p_link, 'source_type', 'source_record_type');
    l_target_type := AGENT_MEMORY_CODEC.opt_string(p_link, 'target_type', 'target_record_type');
    l_threads(1) := require_linkable(l_link.source_id, l_source_type, p_link.has('source_type'),
                                     l_link.thread_id, 'source', p_now);
    l_threads(2) := require_linkable(l_link.target_id, l_target_type, p_link.has('target_type'),
                                     l_link.thread_id, 'target', p_now);
    l_link.source_type := l_source_type;
    l_link.target_type := l_target_type;
    IF l_link.thread_id IS NULL AND l_threads(1) = l_threads(2) THEN
      l_link.thread_id := l_threads(1);  -- both ends in one thread: the thread owns the link
    END IF;
    l_link.relation_type := check_label('relation_type', label_member(p_link, 'relation_type'));
    l_link.opposite := opposite_label(l_link.relation_type,
                                      label_member(p_link, 'opposite_relation_type'),
                                      p_link.has('opposite_relation_type'));
    l_link.event_ts := AGENT_MEMORY_CODEC.opt_timestamp(p_link, 'timestamp', 'timestamp');
    l_link.metadata := AGENT_MEMORY_CODEC.opt_object_text(p_link, 'metadata', 'metadata');
    -- An import may restore the creation time (kept as given, no zone = UTC); else the clock.
    l_created := AGENT_MEMORY_CODEC.opt_timestamp(p_link, 'created_at', 'link.created_at');
    l_link.created_at := CASE WHEN l_created IS NULL THEN p_now
                              ELSE AGENT_MEMORY_CODEC.parse_iso(l_created, 'link.created_at') END;
    RETURN l_link;
  END prepare_link;

  -- The endpoint pair of a link as one key, whatever its direction.
  FUNCTION pair_key(p_link IN link_t) RETURN VARCHAR2 IS
  BEGIN
    IF p_link.source_id < p_link.target_id THEN
      RETURN p_link.source_id || CHR(0) || p_link.target_id;
    END IF;
    RETURN p_link.target_id || CHR(0) || p_link.source_id;
  END pair_key;

  -- -20003 when the link's endpoint pair is linked by another relation, or its id is used,
  -- stored or by an earlier link of the batch (p_ids, p_pairs).
  PROCEDURE check_unused(p_link IN link_t, p_ids IN owner_t, p_pairs IN owner_t) IS
    l_pair_owner VARCHAR2(512 CHAR);
    l_id_used    NUMBER;
  BEGIN
    SELECT MIN(CASE WHEN rel.pair_low = LEAST(p_link.source_id, p_link.target_id)
                     AND rel.pair_high = GREATEST(p_link.source_id, p_link.target_id)
                    THEN rel.id END),
           COUNT(CASE WHEN rel.id = p_link.id THEN 1 END)
      INTO l_pair_owner, l_id_used
      FROM AGENT_MEMORY_RELATIONS rel
     WHERE rel.id = p_link.id
        OR (rel.pair_low = LEAST(p_link.source_id, p_link.target_id)
            AND rel.pair_high = GREATEST(p_link.source_id, p_link.target_id));
    IF l_pair_owner IS NULL AND p_pairs.EXISTS(pair_key(p_link)) THEN
      l_pair_owner := p_pairs(pair_key(p_link));
    END IF;
    IF l_pair_owner IS NOT NULL AND l_pair_owner <> p_link.id THEN
      AGENT_MEMORY_ERRORS.duplicate_record('relation ' || AGENT_MEMORY_CODEC.quoted(l_pair_owner)
        || ' already links these records (one direction per pair)');
    END IF;
    IF l_id_used > 0 OR p_ids.EXISTS(p_link.id) THEN
      AGENT_MEMORY_ERRORS.duplicate_record('a relation with id ' || AGENT_MEMORY_CODEC.quoted(p_link.id)
        || ' already exists');
    END IF;
  END check_unused;

  PROCEDURE insert_links(p_links IN JSON_ARRAY_T, p_now IN TIMESTAMP) IS
    l_el    JSON_ELEMENT_T;
    l_links links_t;
    l_ids   owner_t;
    l_pairs owner_t;
  BEGIN
    IF p_links IS NULL THEN
      RETURN;
    END IF;
    FOR i IN 0 .. p_links.get_size - 1 LOOP
      l_el := p_links.get(i);
      IF NOT l_el.is_object THEN
        AGENT_MEMORY_ERRORS.invalid_link('each link must be a dict');
      END IF;
      l_links(i + 1) := prepare_link(TREAT(l_el AS JSON_OBJECT_T), p_now);
      check_unused(l_links(i + 1), l_ids, l_pairs);
      l_ids(l_links(i + 1).id) := l_links(i + 1).id;
      l_pairs(pair_key(l_links(i + 1))) := l_links(i + 1).id;
    END LOOP;
    FORALL i IN 1 .. l_links.COUNT
      INSERT INTO AGENT_MEMORY_RELATIONS (
        id, thread_id, source_id, source_type, target_id, target_type, relation_type,
        opposite_relation_type, event_ts, metadata, created_at)
      VALUES (
        l_links(i).id, l_links(i).thread_id, l_links(i).source_id, l_links(i).source_type,
        l_links(i).target_id, l_links(i).target_type, l_links(i).relation_type,
        l_links(i).opposite, l_links(i).event_ts, JSON(l_links(i).metadata),
        l_links(i).created_at);
  END insert_links;

  FUNCTION update_link(p_relation_id IN VARCHAR2, p_thread_id IN VARCHAR2, p_changes IN JSON)
    RETURN NUMBER IS
    l_id        VARCHAR2(512 CHAR) := AGENT_MEMORY_CODEC.check_id(p_relation_id, 'relation_id');
    l_thread    VARCHAR2(512 CHAR) := optional_id(p_thread_id, 'thread_id');
    l_changes   JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_changes, 'changes');
    l_type      VARCHAR2(128 CHAR);
    l_opposite  VARCHAR2(128 CHAR);
    l_new_type  VARCHAR2(4000 CHAR);
    l_new_opp   VARCHAR2(4000 CHAR);
    l_timestamp VARCHAR2(64 CHAR);
    l_metadata  CLOB;
    f_labels    NUMBER := 0;
    f_timestamp NUMBER := 0;
    f_metadata  NUMBER := 0;
  BEGIN
    -- Locked by an UPDATE that changes nothing, not by SELECT ... FOR UPDATE: an UPDATE
    -- gets the write policy's predicate, so a relation the session may only read (between
    -- memories of no user, read through GLOBAL_MEMORIES) is neither locked nor found. The
    -- RETURNING values are read only when a row was updated (they are undefined otherwise).
    UPDATE AGENT_MEMORY_RELATIONS rel
       SET rel.relation_type = rel.relation_type
     WHERE rel.id = l_id
       AND (l_thread IS NULL OR rel.thread_id = l_thread)
    RETURNING rel.relation_type, rel.opposite_relation_type INTO l_type, l_opposite;
    IF SQL%ROWCOUNT = 0 THEN
      RETURN 0;
    END IF;
    IF l_changes.has('relation_type') THEN
      l_new_type := check_label('relation_type', label_member(l_changes, 'relation_type'));
      IF l_changes.has('opposite_relation_type') THEN
        l_new_opp := opposite_label(l_new_type, label_member(l_changes, 'opposite_relation_type'), TRUE);
      ELSE
        l_new_opp := opposite_label(l_new_type, l_opposite, TRUE);
      END IF;
      f_labels := 1;
    ELSIF l_changes.has('opposite_relation_type') THEN
      l_new_type := l_type;
      l_new_opp := opposite_label(l_type, label_member(l_changes, 'opposite_relation_type'), TRUE);
      f_labels := 1;
    END IF;
    IF l_changes.has('timestamp') THEN
      l_timestamp := AGENT_MEMORY_CODEC.opt_timestamp(l_changes, 'timestamp', 'timestamp');
      f_timestamp := 1;
    END IF;
    IF l_changes.has('metadata') THEN
      l_metadata := AGENT_MEMORY_CODEC.opt_object_text(l_changes, 'metadata', 'metadata');
      f_metadata := 1;
    END IF;
    -- Always one UPDATE (without changes it rewrites the same values): its row count says
    -- whether the session may change the relation. One it may only read (its endpoints are
    -- memories of no user, read through GLOBAL_MEMORIES) counts 0, as a missing one.
    UPDATE AGENT_MEMORY_RELATIONS rel
       SET rel.relation_type          = CASE WHEN f_labels = 1 THEN l_new_type ELSE rel.relation_type END,
           rel.opposite_relation_type = CASE WHEN f_labels = 1 THEN l_new_opp ELSE rel.opposite_relation_type END,
           rel.event_ts               = CASE WHEN f_timestamp = 1 THEN l_timestamp ELSE rel.event_ts END,
           rel.metadata               = CASE WHEN f_metadata = 1 THEN JSON(l_metadata) ELSE rel.metadata END
     WHERE rel.id = l_id;
    RETURN SQL%ROWCOUNT;
  END update_link;

  FUNCTION delete_links(p_selector IN JSON, p_thread_id IN VARCHAR2) RETURN NUMBER IS
    l_thread   VARCHAR2(512 CHAR) := optional_id(p_thread_id, 'thread_id');
    l_selector JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_selector, 'selector');
    l_keys     AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST('source_id', 'source_type', 'target_id',
                                                      'target_type', 'relation_type');
    l_values   AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST(NULL, NULL, NULL, NULL, NULL);
    l_missing  VARCHAR2(4000 CHAR);
    l_any_key  BOOLEAN := FALSE;
    l_id       VARCHAR2(512 CHAR);
  BEGIN
    FOR i IN 1 .. l_keys.COUNT LOOP
      l_any_key := l_any_key OR l_selector.has(l_keys(i));
    END LOOP;
    IF l_selector.has('id') THEN
      IF l_any_key THEN
        AGENT_MEMORY_ERRORS.invalid_argument(
          'give relation_id alone, or the endpoint tuple without relation_id');
      END IF;
      l_id := AGENT_MEMORY_CODEC.check_id(AGENT_MEMORY_CODEC.opt_string(l_selector, 'id', 'relation_id'), 'relation_id');
      DELETE FROM AGENT_MEMORY_RELATIONS rel
       WHERE rel.id = l_id
         AND (l_thread IS NULL OR rel.thread_id = l_thread);
      RETURN SQL%ROWCOUNT;
    END IF;
    FOR i IN 1 .. l_keys.COUNT LOOP
      l_values(i) := SUBSTR(AGENT_MEMORY_CODEC.opt_string(l_selector, l_keys(i), l_keys(i)), 1, 512);
      IF l_values(i) IS NULL THEN
        l_missing := l_missing || CASE WHEN l_missing IS NOT NULL THEN ', ' END || l_keys(i);
      END IF;
    END LOOP;
    IF l_missing IS NOT NULL THEN
      AGENT_MEMORY_ERRORS.invalid_argument('deleting a relation by endpoints needs ' || l_missing);
    END IF;
    DELETE FROM AGENT_MEMORY_RELATIONS rel
     WHERE rel.source_id = l_values(1)
       AND rel.source_type = l_values(2)
       AND rel.target_id = l_values(3)
       AND rel.target_type = l_values(4)
       AND rel.relation_type = l_values(5)
       AND (l_thread IS NULL OR rel.thread_id = l_thread);
    RETURN SQL%ROWCOUNT;
  END delete_links;

  FUNCTION links_json(p_seqs IN AGENT_MEMORY_NUMBER_LIST) RETURN JSON_ARRAY_T IS
    l_out   JSON_ARRAY_T := JSON_ARRAY_T();
    l_seqs  AGENT_MEMORY_NUMBER_LIST;
    l_docs  clob_list_t;
    l_order AGENT_MEMORY_NUMBER_LIST;
  BEGIN
    IF p_seqs IS NULL OR p_seqs.COUNT = 0 THEN
      RETURN l_out;
    END IF;
    SELECT rel.seq,
           JSON_OBJECT(
             'id'                     VALUE rel.id,
             'thread_id'              VALUE rel.thread_id,
             'source_id'              VALUE rel.source_id,
             'source_type'            VALUE rel.source_type,
             'target_id'              VALUE rel.target_id,
             'target_type'            VALUE rel.target_type,
             'relation_type'          VALUE rel.relation_type,
             'opposite_relation_type' VALUE rel.opposite_relation_type,
             'timestamp'              VALUE rel.event_ts,
             'metadata'               VALUE rel.metadata,
             'created_at'             VALUE TO_CHAR(rel.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.FF6"Z"')
             NULL ON NULL RETURNING CLOB)
      BULK COLLECT INTO l_seqs, l_docs
      FROM AGENT_MEMORY_RELATIONS rel
     WHERE rel.seq IN (SELECT s.COLUMN_VALUE FROM TABLE(p_seqs) s);
    l_order := AGENT_MEMORY_CODEC.positions(l_seqs, p_seqs);
    FOR k IN 1 .. l_order.COUNT LOOP
      l_out.append(JSON_OBJECT_T.parse(l_docs(l_order(k))));
    END LOOP;
    RETURN l_out;
  END links_json;

  -- One optional key of a LinkQuery: p_has = 1 and the checked value when present.
  PROCEDURE query_key(p_query IN JSON_OBJECT_T, p_key IN VARCHAR2, p_has OUT NUMBER,
                      p_value OUT VARCHAR2) IS
  BEGIN
    p_has := CASE WHEN p_query.has(p_key) THEN 1 ELSE 0 END;
    p_value := CASE WHEN p_has = 1 THEN AGENT_MEMORY_CODEC.opt_id(p_query, p_key, p_key) END;
  END query_key;

  -- The keys of a LinkQuery besides "ids", checked: the exact-match keys, the metadata
  -- filter (-20004) and the limit.
  FUNCTION read_link_query(p_query IN JSON_OBJECT_T) RETURN link_query_t IS
    l_sel link_query_t;
    l_el  JSON_ELEMENT_T;
  BEGIN
    query_key(p_query, 'thread_id', l_sel.has_thread, l_sel.thread_id);
    query_key(p_query, 'source_id', l_sel.has_source, l_sel.source_id);
    query_key(p_query, 'source_type', l_sel.has_source_type, l_sel.source_type);
    query_key(p_query, 'target_id', l_sel.has_target, l_sel.target_id);
    query_key(p_query, 'target_type', l_sel.has_target_type, l_sel.target_type);
    query_key(p_query, 'relation_type', l_sel.has_relation_type, l_sel.relation_type);
    IF p_query.has('metadata_filter') THEN
      l_el := p_query.get('metadata_filter');
      IF l_el IS NOT NULL AND NOT l_el.is_null THEN
        AGENT_MEMORY_FILTER.validate(l_el.to_json);
        l_sel.filter_doc := l_el.to_clob;
      END IF;
    END IF;
    IF p_query.has('limit') AND NOT p_query.get('limit').is_null THEN
      l_sel.limit_rows := AGENT_MEMORY_CODEC.opt_integer(p_query, 'limit', 'limit', 1, NULL);
    END IF;
    RETURN l_sel;
  END read_link_query;

  FUNCTION list_links(p_query IN JSON) RETURN JSON IS
    l_query   JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_query, 'query');
    l_ids     AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST();
    l_has_ids NUMBER := 0;
    l_el      JSON_ELEMENT_T;
    l_sel     link_query_t;
    l_limit   NUMBER;
    l_seqs    AGENT_MEMORY_NUMBER_LIST;
    l_empty   JSON_ARRAY_T := JSON_ARRAY_T();
  BEGIN
    IF l_query.has('ids') THEN
      l_el := l_query.get('ids');
      IF l_el IS NULL OR NOT l_el.is_array THEN
        AGENT_MEMORY_ERRORS.invalid_argument('ids must be a list of ids');
      END IF;
      l_ids := AGENT_MEMORY_CODEC.id_list(TREAT(l_el AS JSON_ARRAY_T), 'relation_ids');
      IF l_ids.COUNT = 0 THEN
        RETURN l_empty.to_json;
      END IF;
      l_has_ids := 1;
    END IF;
    l_sel := read_link_query(l_query);
    l_limit := NVL(l_sel.limit_rows, 2147483647);
    -- A present key matches exactly, NULL included (DECODE treats two NULLs as equal).
    SELECT rel.seq BULK COLLECT INTO l_seqs
      FROM AGENT_MEMORY_RELATIONS rel
     WHERE (l_has_ids = 0 OR rel.id IN (SELECT i.COLUMN_VALUE FROM TABLE(l_ids) i))
       AND (l_sel.has_thread = 0 OR DECODE(rel.thread_id, l_sel.thread_id, 1, 0) = 1)
       AND (l_sel.has_source = 0 OR DECODE(rel.source_id, l_sel.source_id, 1, 0) = 1)
       AND (l_sel.has_source_type = 0 OR DECODE(rel.source_type, l_sel.source_type, 1, 0) = 1)
       AND (l_sel.has_target = 0 OR DECODE(rel.target_id, l_sel.target_id, 1, 0) = 1)
       AND (l_sel.has_target_type = 0 OR DECODE(rel.target_type, l_sel.target_type, 1, 0) = 1)
       AND (l_sel.has_relation_type = 0
            OR DECODE(rel.relation_type, l_sel.relation_type, 1, 0) = 1)
       AND (l_sel.filter_doc IS NULL
            OR AGENT_MEMORY_FILTER.matches(rel.metadata, JSON(l_sel.filter_doc)) = 1)
     ORDER BY rel.seq
     FETCH FIRST l_limit ROWS ONLY;
    RETURN links_json(l_seqs).to_json;
  END list_links;

  FUNCTION expand(p_start_id IN VARCHAR2, p_num_hops IN NUMBER, p_max_linked IN NUMBER,
                  p_include_invalid IN BOOLEAN, p_now IN TIMESTAMP) RETURN JSON_ARRAY_T IS
    l_out       JSON_ARRAY_T := JSON_ARRAY_T();
    l_records   JSON_ARRAY_T;
    l_hit       JSON_OBJECT_T;
    l_invalid   NUMBER := CASE WHEN p_include_invalid THEN 1 ELSE 0 END;
    l_seqs      AGENT_MEMORY_NUMBER_LIST;
    l_eseqs     AGENT_MEMORY_NUMBER_LIST;
    l_relations AGENT_MEMORY_TEXT_LIST;
    l_labels    AGENT_MEMORY_TEXT_LIST;
    l_vias      AGENT_MEMORY_TEXT_LIST;
    l_hops      AGENT_MEMORY_NUMBER_LIST;
    l_links     JSON_ARRAY_T;
  BEGIN
    IF NVL(p_num_hops, 0) <= 0 OR NVL(p_max_linked, 0) <= 0 THEN
      RETURN l_out;
    END IF;
    -- Recursive subquery factoring: every walk from the start over visible memory-like
    -- records, both directions, up to p_num_hops; CYCLE stops walks that revisit a node.
    -- A record's first row by (hops, relation seq, direction) is the breadth-first step that
    -- reaches it, as in the embedded backend.
    WITH edges AS (
           SELECT rel.seq AS eseq, rel.id AS rid, rel.source_id AS from_id,
                  rel.target_id AS to_id, rel.relation_type AS label, 0 AS dir
             FROM AGENT_MEMORY_RELATIONS rel
           UNION ALL
           SELECT rel.seq, rel.id, rel.target_id, rel.source_id, rel.opposite_relation_type, 1
             FROM AGENT_MEMORY_RELATIONS rel
         ),
         visible AS (
           SELECT r.id, r.seq
             FROM AGENT_MEMORY_RECORDS r
            WHERE r.id_space = 'memory'
              AND (r.expires_at IS NULL OR r.expires_at > p_now)
              AND (l_invalid = 1 OR r.status = 'VALID')
         ),
         walk (node_id, via_id, rid, label, eseq, dir, hops) AS (
           SELECT p_start_id, CAST(NULL AS VARCHAR2(512 CHAR)), CAST(NULL AS VARCHAR2(512 CHAR)),
                  CAST(NULL AS VARCHAR2(128 CHAR)), CAST(NULL AS NUMBER), CAST(NULL AS NUMBER), 0
             FROM dual
           UNION ALL
           SELECT e.to_id, w.node_id, e.rid, e.label, e.eseq, e.dir, w.hops + 1
             FROM walk w
             JOIN edges e ON e.from_id = w.node_id
             JOIN visible v ON v.id = e.to_id
            WHERE w.hops < p_num_hops
         ) CYCLE node_id SET is_cycle TO 'Y' DEFAULT 'N',
         firsts AS (
           SELECT w.node_id, w.via_id, w.rid, w.label, w.eseq, w.dir, w.hops,
                  ROW_NUMBER() OVER (PARTITION BY w.node_id ORDER BY w.hops, w.eseq, w.dir) AS rn
             FROM walk w
            WHERE w.hops > 0
              AND w.is_cycle = 'N'
              AND w.node_id <> p_start_id
         )
    SELECT v.seq, f.eseq, f.rid, f.label, f.via_id, f.hops
      BULK COLLECT INTO l_seqs, l_eseqs, l_relations, l_labels, l_vias, l_hops
      FROM firsts f
      JOIN visible v ON v.id = f.node_id
     WHERE f.rn = 1
     ORDER BY f.hops, f.eseq, f.dir
     FETCH FIRST p_max_linked ROWS ONLY;
    l_records := AGENT_MEMORY_RECORD_API.records_json(l_seqs, FALSE);
    l_links := links_json(l_eseqs);
    FOR i IN 1 .. l_seqs.COUNT LOOP
      l_hit := JSON_OBJECT_T();
      l_hit.put('record', l_records.get(i - 1));
      l_hit.put('relation', l_links.get(i - 1));
      l_hit.put('relation_id', l_relations(i));
      l_hit.put('relation_type', l_labels(i));
      l_hit.put('via_record_id', l_vias(i));
      l_hit.put('hops', l_hops(i));
      l_out.append(l_hit);
    END LOOP;
    RETURN l_out;
  END expand;
END AGENT_MEMORY_LINK_GRAPH;
/
