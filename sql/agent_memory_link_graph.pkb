CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_LINK_GRAPH AS
  TYPE text_list_t IS TABLE OF VARCHAR2(512 CHAR);
  TYPE label_list_t IS TABLE OF VARCHAR2(128 CHAR);
  TYPE number_list_t IS TABLE OF NUMBER;

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

  PROCEDURE require_linkable(p_id IN VARCHAR2, p_type IN VARCHAR2, p_thread_id IN VARCHAR2,
                             p_side IN VARCHAR2, p_now IN TIMESTAMP) IS
    l_type   VARCHAR2(16 CHAR);
    l_thread VARCHAR2(512 CHAR);
  BEGIN
    IF p_type IS NULL OR NOT AGENT_MEMORY_RECORD_API.is_memory_type(p_type) THEN
      AGENT_MEMORY_ERRORS.invalid_link(p_side || '_record_type must be one of memory, fact, guideline, preference, got '
        || AGENT_MEMORY_CODEC.quoted(p_type));
    END IF;
    BEGIN
      SELECT r.record_type, r.thread_id
        INTO l_type, l_thread
        FROM AGENT_MEMORY_RECORDS r
       WHERE r.id_space = 'memory'
         AND r.id = p_id
         AND (r.expires_at IS NULL OR r.expires_at > p_now);
    EXCEPTION
      WHEN NO_DATA_FOUND THEN
        l_thread := NULL;
        l_type := NULL;
    END;
    IF l_type IS NULL OR l_thread IS NULL OR l_thread <> p_thread_id THEN
      AGENT_MEMORY_ERRORS.invalid_link(p_side || ' record ' || AGENT_MEMORY_CODEC.quoted(p_id)
        || ' does not exist in thread ' || AGENT_MEMORY_CODEC.quoted(p_thread_id));
    END IF;
    IF l_type <> p_type THEN
      AGENT_MEMORY_ERRORS.invalid_link(p_side || ' record ' || AGENT_MEMORY_CODEC.quoted(p_id) || ' is a '
        || l_type || ', not a ' || p_type);
    END IF;
  END require_linkable;

  FUNCTION insert_link(p_link IN JSON_OBJECT_T, p_now IN TIMESTAMP) RETURN VARCHAR2 IS
    l_id          VARCHAR2(512 CHAR);
    l_thread      VARCHAR2(512 CHAR);
    l_source      VARCHAR2(512 CHAR);
    l_target      VARCHAR2(512 CHAR);
    l_source_type VARCHAR2(4000 CHAR);
    l_target_type VARCHAR2(4000 CHAR);
    l_type        VARCHAR2(4000 CHAR);
    l_opposite    VARCHAR2(4000 CHAR);
    l_timestamp   VARCHAR2(64 CHAR);
    l_utc         TIMESTAMP;
    l_metadata    CLOB;
    l_clash       VARCHAR2(512 CHAR);
    l_created     VARCHAR2(4000 CHAR);
    l_created_at  TIMESTAMP;
  BEGIN
    l_id := AGENT_MEMORY_CODEC.check_id(
              NVL(AGENT_MEMORY_CODEC.opt_string(p_link, 'id', 'relation_id'), AGENT_MEMORY_CODEC.new_id),
              'relation_id');
    l_thread := AGENT_MEMORY_CODEC.check_id(AGENT_MEMORY_CODEC.opt_string(p_link, 'thread_id', 'thread_id'), 'thread_id');
    l_source := AGENT_MEMORY_CODEC.check_id(AGENT_MEMORY_CODEC.opt_string(p_link, 'source_id', 'source_record_id'),
                                       'source_record_id');
    l_target := AGENT_MEMORY_CODEC.check_id(AGENT_MEMORY_CODEC.opt_string(p_link, 'target_id', 'target_record_id'),
                                       'target_record_id');
    IF l_source = l_target THEN
      AGENT_MEMORY_ERRORS.invalid_link('a record cannot be linked to itself');
    END IF;
    l_source_type := AGENT_MEMORY_CODEC.opt_string(p_link, 'source_type', 'source_record_type');
    l_target_type := AGENT_MEMORY_CODEC.opt_string(p_link, 'target_type', 'target_record_type');
    require_linkable(l_source, l_source_type, l_thread, 'source', p_now);
    require_linkable(l_target, l_target_type, l_thread, 'target', p_now);
    l_type := check_label('relation_type', label_member(p_link, 'relation_type'));
    l_opposite := opposite_label(l_type, label_member(p_link, 'opposite_relation_type'),
                                 p_link.has('opposite_relation_type'));
    l_timestamp := AGENT_MEMORY_CODEC.opt_timestamp(p_link, 'timestamp', 'timestamp');
    IF l_timestamp IS NOT NULL THEN
      l_utc := AGENT_MEMORY_CODEC.parse_iso(l_timestamp, 'timestamp');
    END IF;
    l_metadata := AGENT_MEMORY_CODEC.opt_object_text(p_link, 'metadata', 'metadata');
    -- An import may restore the creation time (kept as given, no zone = UTC); else the clock.
    l_created := AGENT_MEMORY_CODEC.opt_timestamp(p_link, 'created_at', 'link.created_at');
    l_created_at := CASE WHEN l_created IS NULL THEN p_now
                         ELSE AGENT_MEMORY_CODEC.parse_iso(l_created, 'link.created_at') END;
    SELECT MIN(rel.id) KEEP (DENSE_RANK FIRST ORDER BY CASE WHEN rel.id = l_id THEN 1 ELSE 0 END)
      INTO l_clash
      FROM AGENT_MEMORY_RELATIONS rel
     WHERE rel.id = l_id
        OR (rel.pair_low = LEAST(l_source, l_target) AND rel.pair_high = GREATEST(l_source, l_target));
    IF l_clash IS NOT NULL THEN
      IF l_clash <> l_id THEN
        AGENT_MEMORY_ERRORS.duplicate_record('relation ' || AGENT_MEMORY_CODEC.quoted(l_clash)
          || ' already links these records (one direction per pair)');
      END IF;
      AGENT_MEMORY_ERRORS.duplicate_record('a relation with id ' || AGENT_MEMORY_CODEC.quoted(l_id) || ' already exists');
    END IF;
    INSERT INTO AGENT_MEMORY_RELATIONS (
      id, thread_id, source_id, source_type, target_id, target_type, relation_type,
      opposite_relation_type, event_ts, metadata, created_at)
    VALUES (
      l_id, l_thread, l_source, l_source_type, l_target, l_target_type, l_type, l_opposite,
      l_timestamp, JSON(l_metadata), l_created_at);
    RETURN l_id;
  END insert_link;

  FUNCTION update_link(p_relation_id IN VARCHAR2, p_thread_id IN VARCHAR2, p_changes IN JSON)
    RETURN NUMBER IS
    l_id        VARCHAR2(512 CHAR) := AGENT_MEMORY_CODEC.check_id(p_relation_id, 'relation_id');
    l_thread    VARCHAR2(512 CHAR) := AGENT_MEMORY_CODEC.check_id(p_thread_id, 'thread_id');
    l_changes   JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_changes, 'changes');
    l_type      VARCHAR2(128 CHAR);
    l_opposite  VARCHAR2(128 CHAR);
    l_new_type  VARCHAR2(4000 CHAR);
    l_new_opp   VARCHAR2(4000 CHAR);
    l_timestamp VARCHAR2(64 CHAR);
    l_utc       TIMESTAMP;
    l_metadata  CLOB;
    f_labels    NUMBER := 0;
    f_timestamp NUMBER := 0;
    f_metadata  NUMBER := 0;
  BEGIN
    BEGIN
      SELECT rel.relation_type, rel.opposite_relation_type
        INTO l_type, l_opposite
        FROM AGENT_MEMORY_RELATIONS rel
       WHERE rel.id = l_id
         AND rel.thread_id = l_thread
         FOR UPDATE;
    EXCEPTION
      WHEN NO_DATA_FOUND THEN
        RETURN 0;
    END;
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
      IF l_timestamp IS NOT NULL THEN
        l_utc := AGENT_MEMORY_CODEC.parse_iso(l_timestamp, 'timestamp');
      END IF;
      f_timestamp := 1;
    END IF;
    IF l_changes.has('metadata') THEN
      l_metadata := AGENT_MEMORY_CODEC.opt_object_text(l_changes, 'metadata', 'metadata');
      f_metadata := 1;
    END IF;
    IF f_labels + f_timestamp + f_metadata > 0 THEN
      UPDATE AGENT_MEMORY_RELATIONS rel
         SET rel.relation_type          = CASE WHEN f_labels = 1 THEN l_new_type ELSE rel.relation_type END,
             rel.opposite_relation_type = CASE WHEN f_labels = 1 THEN l_new_opp ELSE rel.opposite_relation_type END,
             rel.event_ts               = CASE WHEN f_timestamp = 1 THEN l_timestamp ELSE rel.event_ts END,
             rel.metadata               = CASE WHEN f_metadata = 1 THEN JSON(l_metadata) ELSE rel.metadata END
       WHERE rel.id = l_id;
    END IF;
    RETURN 1;
  END update_link;

  FUNCTION delete_links(p_selector IN JSON, p_thread_id IN VARCHAR2) RETURN NUMBER IS
    l_thread   VARCHAR2(512 CHAR) := AGENT_MEMORY_CODEC.check_id(p_thread_id, 'thread_id');
    l_selector JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_selector, 'selector');
    l_keys     text_list_t := text_list_t('source_id', 'source_type', 'target_id', 'target_type',
                                          'relation_type');
    l_values   text_list_t := text_list_t(NULL, NULL, NULL, NULL, NULL);
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
         AND rel.thread_id = l_thread;
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
       AND rel.thread_id = l_thread;
    RETURN SQL%ROWCOUNT;
  END delete_links;

  FUNCTION list_links(p_thread_id IN VARCHAR2) RETURN JSON IS
    l_thread VARCHAR2(512 CHAR) := AGENT_MEMORY_CODEC.check_id(p_thread_id, 'thread_id');
    l_out    JSON;
    l_empty  JSON_ARRAY_T := JSON_ARRAY_T();
  BEGIN
    SELECT JSON_ARRAYAGG(
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
               NULL ON NULL RETURNING JSON)
             ORDER BY rel.seq RETURNING JSON)
      INTO l_out
      FROM AGENT_MEMORY_RELATIONS rel
     WHERE rel.thread_id = l_thread;
    IF l_out IS NULL THEN
      RETURN l_empty.to_json;
    END IF;
    RETURN l_out;
  END list_links;

  FUNCTION expand(p_start_id IN VARCHAR2, p_num_hops IN NUMBER, p_max_linked IN NUMBER,
                  p_include_invalid IN BOOLEAN, p_now IN TIMESTAMP) RETURN JSON_ARRAY_T IS
    l_out       JSON_ARRAY_T := JSON_ARRAY_T();
    l_records   JSON_ARRAY_T;
    l_hit       JSON_OBJECT_T;
    l_invalid   NUMBER := CASE WHEN p_include_invalid THEN 1 ELSE 0 END;
    l_seqs      number_list_t;
    l_relations text_list_t;
    l_labels    label_list_t;
    l_vias      text_list_t;
    l_hops      number_list_t;
    l_seq_array JSON_ARRAY_T := JSON_ARRAY_T();
  BEGIN
    IF NVL(p_num_hops, 0) <= 0 OR NVL(p_max_linked, 0) <= 0 THEN
      RETURN l_out;
    END IF;
    -- Recursive subquery factoring: every walk from the start over visible memory-like
    -- records, both directions, up to p_num_hops; CYCLE stops walks that revisit a node.
    -- A record's first row by (hops, relation seq, direction) is the breadth-first step that
    -- reaches it, as in the embedded backend.
    -- Checked: WITH ... recursive member, CYCLE c_alias SET mark TO 'Y' DEFAULT 'N',
    --   https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/SELECT.html
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
    SELECT v.seq, f.rid, f.label, f.via_id, f.hops
      BULK COLLECT INTO l_seqs, l_relations, l_labels, l_vias, l_hops
      FROM firsts f
      JOIN visible v ON v.id = f.node_id
     WHERE f.rn = 1
     ORDER BY f.hops, f.eseq, f.dir
     FETCH FIRST p_max_linked ROWS ONLY;
    FOR i IN 1 .. l_seqs.COUNT LOOP
      l_seq_array.append(l_seqs(i));
    END LOOP;
    l_records := AGENT_MEMORY_RECORD_API.records_json(l_seq_array.to_clob, FALSE);
    FOR i IN 1 .. l_seqs.COUNT LOOP
      l_hit := JSON_OBJECT_T();
      l_hit.put('record', l_records.get(i - 1));
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
