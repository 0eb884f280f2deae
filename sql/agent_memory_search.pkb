CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_SEARCH AS
  TYPE seen_t IS TABLE OF BOOLEAN INDEX BY VARCHAR2(32767);

  -- The keyword stoplist, rendered from oracleagentmemory/stores/stoplist.py (the embedded
  -- backend uses the same list), each word between spaces. It holds every word of Oracle
  -- Text's documented default English stoplists (up to 11g and from 12.2), so a query does
  -- not ask for a word the default index leaves out; tests/oracle_store checks the list of
  -- the actual database.
  c_stop_words CONSTANT VARCHAR2(4000 CHAR) := ' '
    || 'a about above after again all almost also although am an and '
    || 'any are as at be because been before being below between both '
    || 'but by can co corp could d did do does doing down '
    || 'during each either few for from further had has have having he '
    || 'her here hers herself him himself his how however i if in '
    || 'inc into is it its itself just last ll me might more '
    || 'most mr mrs ms my myself mz no non nor not now '
    || 'of off on once one only onto or other our ours ourselves '
    || 'out over own s same says shall she should since so some '
    || 'still such t than that the their theirs them themselves then there '
    || 'therefore these they this those though through thus to too under until '
    || 'up ve very was we were what when where whether which while '
    || 'who whom whose why will with would yet you your yours yourself '
    || 'yourselves '
    ;

  FUNCTION text_query(p_text IN VARCHAR2) RETURN VARCHAR2 IS
    l_word  VARCHAR2(32767);
    l_query VARCHAR2(4000 CHAR);
    l_seen  seen_t;
    l_i     PLS_INTEGER := 1;
  BEGIN
    LOOP
      l_word := REGEXP_SUBSTR(LOWER(p_text), '\w+', 1, l_i);
      EXIT WHEN l_word IS NULL;
      IF INSTR(c_stop_words, ' ' || l_word || ' ') = 0 AND NOT l_seen.EXISTS(l_word)
         AND NVL(LENGTHB(l_query), 0) + LENGTHB(l_word) < 3000 THEN  -- bytes: l_query holds 4000
        l_seen(l_word) := TRUE;
        l_query := l_query || CASE WHEN l_query IS NOT NULL THEN ' OR ' END
                || '{' || l_word || '}';
      END IF;
      l_i := l_i + 1;
    END LOOP;
    RETURN l_query;
  END text_query;

  FUNCTION search(p_request IN JSON) RETURN JSON IS
    l_request    JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_request, 'search request', FALSE);
    l_now        TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_strategy   VARCHAR2(4000 CHAR);
    l_query_text CLOB;
    l_types      CLOB;
    l_el         JSON_ELEMENT_T;
    l_max        NUMBER;
    l_hops       NUMBER;
    l_max_linked NUMBER;
    l_invalid    BOOLEAN;
    l_scope      AGENT_MEMORY_SCOPE.scope_t;
    l_filter     JSON;
    l_filter_doc CLOB;
    l_near       AGENT_MEMORY_CODEC.number_list_t;
    l_near_doc   CLOB;
    l_rows       NUMBER;
    l_vector     CLOB;
    l_text       VARCHAR2(4000 CHAR);
    l_use_vector BOOLEAN;
    l_use_text   BOOLEAN;
    l_vec_cte    VARCHAR2(4000 CHAR);
    l_kw_cte     VARCHAR2(4000 CHAR);
    l_scored     VARCHAR2(4000 CHAR);
    l_sql        VARCHAR2(32767);
    l_cursor     SYS_REFCURSOR;
    l_seqs       AGENT_MEMORY_CODEC.number_list_t;
    l_dists      AGENT_MEMORY_CODEC.number_list_t;
    l_records    JSON_ARRAY_T;
    l_record     JSON_OBJECT_T;
    l_hit        JSON_OBJECT_T;
    l_hits       JSON_ARRAY_T := JSON_ARRAY_T();
    l_linked     JSON_ARRAY_T;
  BEGIN
    -- -- validate and default, as check_search_request ------------------------------------
    l_strategy := NVL(AGENT_MEMORY_CODEC.opt_string(l_request, 'strategy', 'strategy'), 'VECTOR');
    IF l_strategy NOT IN ('VECTOR', 'KEYWORD', 'HYBRID') THEN
      AGENT_MEMORY_ERRORS.invalid_argument('strategy must be one of VECTOR, KEYWORD, HYBRID');
    END IF;
    IF l_request.has('query_text') AND NOT l_request.get('query_text').is_string
       AND NOT l_request.get('query_text').is_null THEN
      AGENT_MEMORY_ERRORS.invalid_argument('query must be a string');
    END IF;
    l_query_text := AGENT_MEMORY_CODEC.opt_clob(l_request, 'query_text', 'query');
    l_el := CASE WHEN l_request.has('record_types') THEN l_request.get('record_types') END;
    IF l_el IS NULL OR l_el.is_null OR (l_el.is_array AND TREAT(l_el AS JSON_ARRAY_T).get_size = 0) THEN
      l_types := '["memory","fact","guideline","preference","message","image","user_profile","agent_profile"]';
    ELSIF NOT l_el.is_array THEN
      AGENT_MEMORY_ERRORS.invalid_argument('record_types must be a list of record type names');
    ELSE
      l_types := AGENT_MEMORY_RECORD_API.record_types(TREAT(l_el AS JSON_ARRAY_T), TRUE);
    END IF;
    l_max := AGENT_MEMORY_CODEC.opt_integer(l_request, 'max_results', 'max_results', 1, 10);
    l_hops := AGENT_MEMORY_CODEC.opt_integer(l_request, 'num_hops', 'num_hops', 0, 0);
    IF l_hops > c_max_hops THEN
      AGENT_MEMORY_ERRORS.invalid_argument('num_hops must be between 0 and ' || c_max_hops);
    END IF;
    l_max_linked := AGENT_MEMORY_CODEC.opt_integer(l_request, 'max_linked_results', 'max_linked_results', 0, 100);
    IF l_request.has('scope') AND NOT l_request.get('scope').is_null THEN
      l_el := l_request.get('scope');
      IF NOT l_el.is_object THEN
        AGENT_MEMORY_ERRORS.invalid_argument('scope must be an object of dimensions');
      END IF;
      l_scope := AGENT_MEMORY_SCOPE.parse(TREAT(l_el AS JSON_OBJECT_T));
    END IF;
    IF l_request.has('metadata_filter') AND NOT l_request.get('metadata_filter').is_null THEN
      l_filter := l_request.get('metadata_filter').to_json;
      AGENT_MEMORY_FILTER.validate(l_filter);
      l_filter_doc := l_request.get('metadata_filter').to_clob;
    END IF;
    l_invalid := TRUE;
    IF l_request.has('include_invalid') AND NOT l_request.get('include_invalid').is_null THEN
      l_invalid := AGENT_MEMORY_CODEC.opt_boolean(l_request, 'include_invalid', 'include_invalid');
    END IF;
    l_use_vector := l_strategy IN ('VECTOR', 'HYBRID');
    l_use_text := l_strategy IN ('KEYWORD', 'HYBRID');
    IF l_use_vector THEN
      l_vector := AGENT_MEMORY_CODEC.vector_text(l_request, 'query_vector', 'embedding');
      IF l_vector IS NULL THEN
        l_vector := AGENT_MEMORY_RECORD_API.embed_text(l_query_text);
      END IF;
      IF l_vector IS NULL THEN
        AGENT_MEMORY_ERRORS.invalid_argument('VECTOR and HYBRID search need a query vector');
      END IF;
    END IF;
    IF l_use_text THEN
      l_text := text_query(DBMS_LOB.SUBSTR(l_query_text, 4000, 1));
    END IF;

    -- -- approximate preselection for a large, loosely scoped VECTOR search ---------------------
    -- Exact VECTOR_DISTANCE over the candidates is kept whenever a scope dimension is exact
    -- or a metadata filter narrows the rows (few candidates). Without either, on a store of
    -- more than c_approx_min_rows rows (optimizer statistics), the vector index preselects
    -- the c_approx_pool_factor * max_results nearest visible records with
    -- FETCH APPROX FIRST ... WITH TARGET ACCURACY, and the exact ranking (affinity included)
    -- runs over those. Checked: approximate search with a vector index,
    --   https://docs.oracle.com/en/database/oracle/oracle-database/23/vecse/approximate-search-using-ivf.html
    --   row limiting clause FETCH APPROX[IMATE] FIRST ... WITH TARGET ACCURACY,
    --   https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/SELECT.html
    IF l_strategy = 'VECTOR' AND l_filter IS NULL
       AND NOT (l_scope.user_dim.present AND l_scope.user_dim.exact)
       AND NOT (l_scope.agent_dim.present AND l_scope.agent_dim.exact)
       AND NOT (l_scope.thread_dim.present AND l_scope.thread_dim.exact) THEN
      SELECT NVL(MAX(t.num_rows), 0) INTO l_rows
        FROM user_tables t
       WHERE t.table_name = 'AGENT_MEMORY_RECORDS';
      IF l_rows > c_approx_min_rows THEN
        l_rows := l_max * c_approx_pool_factor;
        SELECT r.seq BULK COLLECT INTO l_near
          FROM AGENT_MEMORY_RECORDS r
         WHERE r.embedding IS NOT NULL
           AND (r.expires_at IS NULL OR r.expires_at > l_now)
         ORDER BY VECTOR_DISTANCE(r.embedding, TO_VECTOR(l_vector, 384, FLOAT32), COSINE)
         FETCH APPROX FIRST l_rows ROWS ONLY WITH TARGET ACCURACY 95;
        l_near_doc := AGENT_MEMORY_CODEC.number_list_json(l_near);
      END IF;
    END IF;

    -- -- candidates, scores, ranking: one statement -------------------------------------------
    l_vec_cte := CASE WHEN l_use_vector THEN
        ' vec AS (SELECT c.seq, VECTOR_DISTANCE(c.embedding, TO_VECTOR(prm.qv, 384, FLOAT32), COSINE) AS d'
        || ' FROM cand c CROSS JOIN p prm WHERE c.embedding IS NOT NULL),'
      ELSE
        ' vec AS (SELECT CAST(NULL AS NUMBER) AS seq, CAST(NULL AS NUMBER) AS d FROM dual WHERE 1 = 0),'
      END;
    l_kw_cte := CASE WHEN l_use_text AND l_text IS NOT NULL THEN
        ' kw AS (SELECT r.seq, 1 / (1 + ABS(SCORE(1))) AS d FROM AGENT_MEMORY_RECORDS r'
        || ' WHERE CONTAINS(r.content, :b_text, 1) > 0 AND r.seq IN (SELECT c.seq FROM cand c)),'
      ELSE
        ' kw AS (SELECT CAST(NULL AS NUMBER) AS seq, CAST(NULL AS NUMBER) AS d FROM dual WHERE 1 = 0),'
      END;
    l_scored := CASE l_strategy
      WHEN 'VECTOR' THEN ' scored AS (SELECT vr.seq, vr.d FROM vr)'
      WHEN 'KEYWORD' THEN ' scored AS (SELECT kr.seq, kr.d FROM kr)'
      -- HYBRID: each ranking takes part with its best p.win rows (the window).
      ELSE ' scored AS (SELECT NVL(vt.seq, kt.seq) AS seq,'
        || ' 1 - (NVL(1 / (' || c_rrf_k || ' + vt.rk), 0) + NVL(1 / (' || c_rrf_k
        || ' + kt.rk), 0)) / (2 / (' || (c_rrf_k + 1) || ')) AS d'
        || ' FROM (SELECT v1.seq, v1.rk FROM vr v1 CROSS JOIN p p1 WHERE v1.rk <= p1.win) vt'
        || ' FULL OUTER JOIN (SELECT k1.seq, k1.rk FROM kr k1 CROSS JOIN p p2'
        || ' WHERE k1.rk <= p2.win) kt ON vt.seq = kt.seq)'
      END;
    -- Dynamic SQL text of search: constant fragments chosen by strategy plus
    -- AGENT_MEMORY_FILTER.prefilter() (field names matching AGENT_MEMORY_FILTER.c_safe_key only); every
    -- value is a bind, each placeholder appears once. JSON documents are bound as CLOB text
    -- and made JSON in SQL with JSON(:b) (a PL/SQL JSON value in USING is not documented;
    -- the JSON constructor is: https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/JSON-Type-Constructor.html).
    l_sql := 'WITH p AS (SELECT :b_now AS now_ts, :b_types AS types, :b_invalid AS incl_invalid,'
          || ' :b_ue AS u_exact, :b_un AS u_nonexact, :b_uv AS u_val,'
          || ' :b_ae AS a_exact, :b_an AS a_nonexact, :b_av AS a_val,'
          || ' :b_te AS t_exact, :b_tn AS t_nonexact, :b_tv AS t_val,'
          || ' JSON(:b_filter) AS f, :b_qv AS qv, :b_win AS win, :b_near AS near FROM dual),'
          || ' cand AS (SELECT r.seq, r.user_id, r.agent_id, r.thread_id, r.embedding'
          || ' FROM AGENT_MEMORY_RECORDS r CROSS JOIN p flt'
          || ' WHERE r.record_type IN (SELECT jt.v FROM p p2, JSON_TABLE(p2.types, ''$[*]'''
          || ' COLUMNS (v VARCHAR2(16 CHAR) PATH ''$'')) jt)'
          || ' AND (r.expires_at IS NULL OR r.expires_at > flt.now_ts)'
          || ' AND (flt.incl_invalid = 1 OR r.status = ''VALID'')'
          || ' AND (flt.near IS NULL OR r.seq IN (SELECT jn.seq FROM p pn, JSON_TABLE(pn.near,'
          || ' ''$[*]'' COLUMNS (seq NUMBER PATH ''$'')) jn))'
          || ' AND (flt.u_exact = 0 OR DECODE(r.user_id, flt.u_val, 1, 0) = 1)'
          || ' AND (flt.a_exact = 0 OR DECODE(r.agent_id, flt.a_val, 1, 0) = 1)'
          || ' AND (flt.t_exact = 0 OR DECODE(r.thread_id, flt.t_val, 1, 0) = 1)'
          || ' AND (flt.f IS NULL OR (' || AGENT_MEMORY_FILTER.prefilter(l_filter) || '))'
          || ' AND (flt.f IS NULL OR AGENT_MEMORY_FILTER.matches(r.metadata, flt.f) = 1)),'
          || l_vec_cte
          || l_kw_cte
          || ' vr AS (SELECT vec.seq, vec.d, ROW_NUMBER() OVER (ORDER BY vec.d, vec.seq) AS rk FROM vec),'
          || ' kr AS (SELECT kw.seq, kw.d, ROW_NUMBER() OVER (ORDER BY kw.d, kw.seq) AS rk FROM kw),'
          || l_scored
          || ' SELECT s.seq, s.d FROM scored s JOIN cand c ON c.seq = s.seq CROSS JOIN p prm'
          || ' ORDER BY s.d - ' || TO_CHAR(AGENT_MEMORY_SCOPE.c_affinity, 'FM0.999999') || ' * ('
          || ' CASE WHEN prm.u_nonexact = 1 AND DECODE(c.user_id, prm.u_val, 1, 0) = 1 THEN 1 ELSE 0 END'
          || ' + CASE WHEN prm.a_nonexact = 1 AND DECODE(c.agent_id, prm.a_val, 1, 0) = 1 THEN 1 ELSE 0 END'
          || ' + CASE WHEN prm.t_nonexact = 1 AND DECODE(c.thread_id, prm.t_val, 1, 0) = 1 THEN 1 ELSE 0 END),'
          || ' s.seq FETCH FIRST :b_max ROWS ONLY';
    IF l_use_text AND l_text IS NOT NULL THEN
      -- dynamic-sql: search candidates and scores, with the Oracle Text query bind
      OPEN l_cursor FOR l_sql
        USING l_now, l_types, CASE WHEN l_invalid THEN 1 ELSE 0 END,
              CASE WHEN l_scope.user_dim.present AND l_scope.user_dim.exact THEN 1 ELSE 0 END,
              CASE WHEN l_scope.user_dim.present AND NOT l_scope.user_dim.exact THEN 1 ELSE 0 END,
              l_scope.user_dim.value,
              CASE WHEN l_scope.agent_dim.present AND l_scope.agent_dim.exact THEN 1 ELSE 0 END,
              CASE WHEN l_scope.agent_dim.present AND NOT l_scope.agent_dim.exact THEN 1 ELSE 0 END,
              l_scope.agent_dim.value,
              CASE WHEN l_scope.thread_dim.present AND l_scope.thread_dim.exact THEN 1 ELSE 0 END,
              CASE WHEN l_scope.thread_dim.present AND NOT l_scope.thread_dim.exact THEN 1 ELSE 0 END,
              l_scope.thread_dim.value,
              l_filter_doc, l_vector, GREATEST(l_max, c_rrf_window), l_near_doc, l_text, l_max;
    ELSE
      -- dynamic-sql: search candidates and scores, without a text query
      OPEN l_cursor FOR l_sql
        USING l_now, l_types, CASE WHEN l_invalid THEN 1 ELSE 0 END,
              CASE WHEN l_scope.user_dim.present AND l_scope.user_dim.exact THEN 1 ELSE 0 END,
              CASE WHEN l_scope.user_dim.present AND NOT l_scope.user_dim.exact THEN 1 ELSE 0 END,
              l_scope.user_dim.value,
              CASE WHEN l_scope.agent_dim.present AND l_scope.agent_dim.exact THEN 1 ELSE 0 END,
              CASE WHEN l_scope.agent_dim.present AND NOT l_scope.agent_dim.exact THEN 1 ELSE 0 END,
              l_scope.agent_dim.value,
              CASE WHEN l_scope.thread_dim.present AND l_scope.thread_dim.exact THEN 1 ELSE 0 END,
              CASE WHEN l_scope.thread_dim.present AND NOT l_scope.thread_dim.exact THEN 1 ELSE 0 END,
              l_scope.thread_dim.value,
              l_filter_doc, l_vector, GREATEST(l_max, c_rrf_window), l_near_doc, l_max;
    END IF;
    FETCH l_cursor BULK COLLECT INTO l_seqs, l_dists;
    CLOSE l_cursor;

    -- -- hits with their linked records ------------------------------------------------------
    l_records := AGENT_MEMORY_RECORD_API.records_json(AGENT_MEMORY_CODEC.number_list_json(l_seqs), FALSE);
    FOR i IN 1 .. l_seqs.COUNT LOOP
      l_record := TREAT(l_records.get(i - 1) AS JSON_OBJECT_T);
      l_linked := JSON_ARRAY_T();
      IF l_hops > 0 AND l_max_linked > 0
         AND AGENT_MEMORY_RECORD_API.is_memory_type(l_record.get_string('record_type')) THEN
        l_linked := AGENT_MEMORY_LINK_GRAPH.expand(l_record.get_string('id'), l_hops, l_max_linked,
                                             l_invalid, l_now);
      END IF;
      l_hit := JSON_OBJECT_T();
      l_hit.put('record', l_record);
      l_hit.put('distance', l_dists(i));
      l_hit.put('linked', l_linked);
      l_hits.append(l_hit);
    END LOOP;
    RETURN l_hits.to_json;
  END search;
END AGENT_MEMORY_SEARCH;
/
