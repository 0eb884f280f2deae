CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_SEARCH AS
  TYPE seen_t IS TABLE OF BOOLEAN INDEX BY VARCHAR2(32767);

  -- A SearchRequest, checked and defaulted (check_search_request of the embedded backend),
  -- with what the ranking statement binds: filter_doc is the filter as text (bound, made
  -- JSON in SQL), query_vector the TO_VECTOR text (VECTOR, HYBRID), text_query the Oracle
  -- Text query (KEYWORD, HYBRID; NULL when no word is left), near the approximate
  -- preselection (NULL: none).
  TYPE request_t IS RECORD (
    strategy        VARCHAR2(8 CHAR),
    query_text      CLOB,
    types           AGENT_MEMORY_TEXT_LIST,
    max_results     NUMBER,
    num_hops        NUMBER,
    max_linked      NUMBER,
    include_invalid BOOLEAN,
    scope           AGENT_MEMORY_SCOPE.scope_t,
    filter_json     JSON,
    filter_doc      CLOB,
    query_vector    CLOB,
    text_query      VARCHAR2(4000 CHAR),
    near            AGENT_MEMORY_NUMBER_LIST
  );

  -- The keyword stoplist, rendered from oracleagentmemory/stores/stoplist.py (the embedded
  -- backend uses the same list), each word between spaces. It holds every word of Oracle
  -- Text's documented default English stoplists (up to 11g and from 12.2), so a query does
  -- not ask for a word the default index leaves out; tests/oracle_store checks the list of
  -- the actual database.
  c_stop_words CONSTANT VARCHAR2(4000 CHAR) := ' '
    || 'a about above after again ai ainsi all almost also although am '
    || 'an and any are as at au aussi aux avaient avait avec '
    || 'avoir be because been before being below between both but by c '
    || 'can ce ceci cela celle celles celui ces cet cette ceux chez '
    || 'co combien corp could d dans de des did do does doing '
    || 'donc dont down du during each either elle elles en entre est '
    || 'et eu few for from further fut had has have having he '
    || 'her here hers herself him himself his how however i if il '
    || 'ils in inc into is it its itself j je just l '
    || 'la laquelle last le lequel les lesquels leur leurs ll lors lui '
    || 'm ma mais me mes might moi mon more most mr mrs '
    || 'ms my myself mz n ne no non nor nos not notre '
    || 'nous now of off on once one only ont onto or other '
    || 'ou our ours ourselves out over own par pas plus pour pourquoi '
    || 'qu quand que quel quelle quelles quels qui quoi s sa same '
    || 'sans says se sera seront ses shall she should si since so '
    || 'some sont still such sur t ta te tes than that the '
    || 'their theirs them themselves then there therefore these they this those though '
    || 'through thus to toi too tu un under une until up ve '
    || 'vers very vos votre vous was we were what when where whether '
    || 'which while who whom whose why will with would y yet you '
    || 'your yours yourself yourselves '
    || TO_CHAR(UNISTR('o\00f9 \00e0 \00e9taient \00e9tait \00e9t\00e9 \00eatre '))
    ;

  FUNCTION text_query(p_text IN VARCHAR2) RETURN VARCHAR2 IS
    -- The query cut as the index is: Han and Hangul runs as character bigrams.
    l_text  CLOB := LOWER(AGENT_MEMORY_KEYWORD.keyword_text(p_text, 1));
    l_word  VARCHAR2(32767);
    l_query VARCHAR2(4000 CHAR);
    l_seen  seen_t;
    l_start PLS_INTEGER := 1;
    l_end   PLS_INTEGER;
  BEGIN
    -- Each word is found from where the last one ended (REGEXP_INSTR's position; return
    -- option 1 gives the position after the match), so the text is read once: time linear
    -- in the query's length, where asking for the n-th occurrence rescanned it per word.
    LOOP
      l_start := REGEXP_INSTR(l_text, '\w+', l_start);
      EXIT WHEN NVL(l_start, 0) = 0;
      l_end := REGEXP_INSTR(l_text, '\w+', l_start, 1, 1);
      l_word := SUBSTR(l_text, l_start, l_end - l_start);
      IF INSTR(c_stop_words, ' ' || l_word || ' ') = 0 AND NOT l_seen.EXISTS(l_word)
         AND NVL(LENGTHB(l_query), 0) + LENGTHB(l_word) < 3000 THEN  -- bytes: l_query holds 4000
        l_seen(l_word) := TRUE;
        l_query := l_query || CASE WHEN l_query IS NOT NULL THEN ' OR ' END
                || '{' || l_word || '}';
      END IF;
      l_start := l_end;
    END LOOP;
    RETURN l_query;
  END text_query;

  -- 1 when the scope dimension is present and exact (it filters), else 0.
  FUNCTION dim_exact(p_dim IN AGENT_MEMORY_SCOPE.dimension_t) RETURN NUMBER IS
  BEGIN
    RETURN CASE WHEN p_dim.present AND p_dim.exact THEN 1 ELSE 0 END;
  END dim_exact;

  -- 1 when the scope dimension is present and not exact (it ranks by affinity), else 0.
  FUNCTION dim_affinity(p_dim IN AGENT_MEMORY_SCOPE.dimension_t) RETURN NUMBER IS
  BEGIN
    RETURN CASE WHEN p_dim.present AND NOT p_dim.exact THEN 1 ELSE 0 END;
  END dim_affinity;

  -- -- parse -------------------------------------------------------------------------------

  -- record_types of a request: every searchable type when absent, null or empty.
  FUNCTION requested_types(p_request IN JSON_OBJECT_T) RETURN AGENT_MEMORY_TEXT_LIST IS
    l_el JSON_ELEMENT_T;
  BEGIN
    l_el := CASE WHEN p_request.has('record_types') THEN p_request.get('record_types') END;
    IF l_el IS NULL OR l_el.is_null OR (l_el.is_array AND TREAT(l_el AS JSON_ARRAY_T).get_size = 0) THEN
      RETURN AGENT_MEMORY_TEXT_LIST('memory', 'fact', 'guideline', 'preference', 'message', 'image', 'user_profile', 'agent_profile');
    ELSIF NOT l_el.is_array THEN
      AGENT_MEMORY_ERRORS.invalid_argument('record_types must be a list of record type names');
    END IF;
    RETURN AGENT_MEMORY_RECORD_API.record_types(TREAT(l_el AS JSON_ARRAY_T), TRUE);
  END requested_types;

  -- The query's strategy, types, limits, scope, filter and invalid flag, checked.
  FUNCTION parse_request(p_request IN JSON) RETURN request_t IS
    l_request  JSON_OBJECT_T := AGENT_MEMORY_CODEC.to_object(p_request, 'search request', FALSE);
    l_req      request_t;
    l_strategy VARCHAR2(4000 CHAR);
    l_el       JSON_ELEMENT_T;
  BEGIN
    l_strategy := NVL(AGENT_MEMORY_CODEC.opt_string(l_request, 'strategy', 'strategy'), 'VECTOR');
    IF l_strategy NOT IN ('VECTOR', 'KEYWORD', 'HYBRID') THEN
      AGENT_MEMORY_ERRORS.invalid_argument('strategy must be one of VECTOR, KEYWORD, HYBRID');
    END IF;
    l_req.strategy := l_strategy;
    IF l_request.has('query_text') AND NOT l_request.get('query_text').is_string
       AND NOT l_request.get('query_text').is_null THEN
      AGENT_MEMORY_ERRORS.invalid_argument('query must be a string');
    END IF;
    l_req.query_text := AGENT_MEMORY_CODEC.opt_clob(l_request, 'query_text', 'query');
    l_req.types := requested_types(l_request);
    l_req.max_results := AGENT_MEMORY_CODEC.opt_integer(l_request, 'max_results', 'max_results', 1, 10);
    l_req.num_hops := AGENT_MEMORY_CODEC.opt_integer(l_request, 'num_hops', 'num_hops', 0, 0);
    IF l_req.num_hops > c_max_hops THEN
      AGENT_MEMORY_ERRORS.invalid_argument('num_hops must be between 0 and ' || c_max_hops);
    END IF;
    l_req.max_linked := AGENT_MEMORY_CODEC.opt_integer(l_request, 'max_linked_results',
                                                  'max_linked_results', 0, 100);
    IF l_request.has('scope') AND NOT l_request.get('scope').is_null THEN
      l_el := l_request.get('scope');
      IF NOT l_el.is_object THEN
        AGENT_MEMORY_ERRORS.invalid_argument('scope must be an object of dimensions');
      END IF;
      l_req.scope := AGENT_MEMORY_SCOPE.parse(TREAT(l_el AS JSON_OBJECT_T));
    END IF;
    IF l_request.has('metadata_filter') AND NOT l_request.get('metadata_filter').is_null THEN
      l_req.filter_json := l_request.get('metadata_filter').to_json;
      AGENT_MEMORY_FILTER.validate(l_req.filter_json);
      l_req.filter_doc := l_request.get('metadata_filter').to_clob;
    END IF;
    l_req.include_invalid := TRUE;
    IF l_request.has('include_invalid') AND NOT l_request.get('include_invalid').is_null THEN
      l_req.include_invalid := AGENT_MEMORY_CODEC.opt_boolean(l_request, 'include_invalid', 'include_invalid');
    END IF;
    IF l_req.strategy IN ('VECTOR', 'HYBRID') THEN
      l_req.query_vector := AGENT_MEMORY_CODEC.vector_text(l_request, 'query_vector', 'embedding');
      IF l_req.query_vector IS NULL THEN
        l_req.query_vector := AGENT_MEMORY_RECORD_API.embed_text(l_req.query_text, p_is_query => TRUE);
      END IF;
      IF l_req.query_vector IS NULL THEN
        AGENT_MEMORY_ERRORS.invalid_argument('VECTOR and HYBRID search need a query vector');
      END IF;
    END IF;
    IF l_req.strategy IN ('KEYWORD', 'HYBRID') THEN
      -- the keyword side reads the first characters only (stores/limits.py)
      l_req.text_query := text_query(DBMS_LOB.SUBSTR(l_req.query_text,
                                                     4000, 1));
    END IF;
    RETURN l_req;
  END parse_request;

  -- Approximate preselection for a large, loosely scoped VECTOR search, else NULL.
  -- Exact VECTOR_DISTANCE over the candidates is kept whenever a scope dimension is exact or
  -- a metadata filter narrows the rows (few candidates). Without either, on a store of more
  -- than c_approx_min_rows rows (optimizer statistics), the vector index preselects the
  -- c_approx_pool_factor * max_results nearest visible records with
  -- FETCH APPROX FIRST ... WITH TARGET ACCURACY, and the exact ranking (affinity included)
  -- runs over those. The preselection already keeps to the requested record types and, when
  -- invalid records are excluded, to valid ones: a pool of other types (messages, say, when
  -- memories are asked for) would leave the ranking fewer than max_results records while
  -- matching ones exist. USER_TABLES.NUM_ROWS is NULL before statistics are first gathered.
  FUNCTION preselect(p_req IN request_t, p_now IN TIMESTAMP) RETURN AGENT_MEMORY_NUMBER_LIST IS
    l_rows    NUMBER;
    l_near    AGENT_MEMORY_NUMBER_LIST;
    l_types   AGENT_MEMORY_TEXT_LIST := p_req.types;
    l_invalid NUMBER := CASE WHEN p_req.include_invalid THEN 1 ELSE 0 END;
  BEGIN
    IF p_req.strategy <> 'VECTOR' OR p_req.filter_json IS NOT NULL
       OR dim_exact(p_req.scope.user_dim) + dim_exact(p_req.scope.agent_dim)
          + dim_exact(p_req.scope.thread_dim) > 0 THEN
      RETURN NULL;
    END IF;
    SELECT NVL(MAX(t.num_rows), 0) INTO l_rows
      FROM user_tables t
     WHERE t.table_name = 'AGENT_MEMORY_RECORDS';
    IF l_rows <= c_approx_min_rows THEN
      RETURN NULL;
    END IF;
    l_rows := p_req.max_results * c_approx_pool_factor;
    SELECT r.seq BULK COLLECT INTO l_near
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.embedding IS NOT NULL
       AND (r.expires_at IS NULL OR r.expires_at > p_now)
       AND r.record_type IN (SELECT t.COLUMN_VALUE FROM TABLE(l_types) t)
       AND (l_invalid = 1 OR r.status = 'VALID')
     ORDER BY VECTOR_DISTANCE(r.embedding, TO_VECTOR(p_req.query_vector, 384, FLOAT32), COSINE)
     FETCH APPROX FIRST l_rows ROWS ONLY WITH TARGET ACCURACY 95;
    RETURN l_near;
  END preselect;

  -- -- build -------------------------------------------------------------------------------
  -- The one statement that filters the candidates, scores and ranks them: constant
  -- fragments chosen by strategy plus AGENT_MEMORY_FILTER.prefilter() (field names matching
  -- AGENT_MEMORY_FILTER.c_safe_key only). Every value is a bind, each placeholder appears once
  -- and in the same order whatever the strategy (binds are positional; fetch_ranked holds the
  -- one bind list): the text query placeholder stands in the empty keyword fragment too.
  -- Every query name is referenced in every variant (ORA-32035 otherwise). JSON documents
  -- are bound as CLOB text and made JSON in SQL with JSON(:b) (a PL/SQL JSON value in USING
  -- is not documented, the constructor is); lists are bound as the store's collection types
  -- and read with TABLE().
  -- The candidates (cand) carry the vector distance (vd, a number), never the VECTOR
  -- column: cand is referenced several times, and the optimizer may then treat a query name
  -- as a temporary table, while VECTOR columns are not supported in global temporary tables
  -- (docs/oracle.md, "Pages the code rests on": query names in WITH).
  -- Each query name yields scored rows (seq, rv, d): rv ranks (scope affinity subtracted
  -- in the final ORDER BY), d is the distance reported.
  FUNCTION ranking_sql(p_req IN request_t) RETURN VARCHAR2 IS
    l_vd      VARCHAR2(4000 CHAR);
    l_kw_cte  VARCHAR2(4000 CHAR);
    l_scored  VARCHAR2(4000 CHAR);
    l_sql     VARCHAR2(32767);
  BEGIN
    l_vd := CASE WHEN p_req.strategy IN ('VECTOR', 'HYBRID') THEN
        ' CASE WHEN r.embedding IS NOT NULL'
        || ' THEN VECTOR_DISTANCE(r.embedding, TO_VECTOR(flt.qv, 384, FLOAT32), COSINE) END AS vd'
      ELSE
        ' CAST(NULL AS NUMBER) AS vd'
      END;
    l_kw_cte := CASE WHEN p_req.strategy IN ('KEYWORD', 'HYBRID') AND p_req.text_query IS NOT NULL THEN
        ' kw AS (SELECT r.seq, 1 / (1 + ABS(SCORE(1))) AS d FROM AGENT_MEMORY_RECORDS r'
        || ' WHERE CONTAINS(r.keyword_text, :b_text, 1) > 0 AND r.seq IN (SELECT c.seq FROM cand c)),'
      ELSE
        ' kw AS (SELECT CAST(NULL AS NUMBER) AS seq, CAST(NULL AS NUMBER) AS d FROM dual'
        || ' WHERE :b_text IS NOT NULL AND 1 = 0),'
      END;
    l_scored := CASE p_req.strategy
      WHEN 'VECTOR' THEN ' scored AS (SELECT vr.seq, vr.d AS rv, vr.d FROM vr'
        || ' UNION ALL SELECT kr.seq, kr.d, kr.d FROM kr WHERE 1 = 0)'
      WHEN 'KEYWORD' THEN ' scored AS (SELECT kr.seq, kr.d AS rv, kr.d FROM kr'
        || ' UNION ALL SELECT vr.seq, vr.d, vr.d FROM vr WHERE 1 = 0)'
      -- HYBRID (oracleagentmemory/stores/ranking.py, the embedded backend's rule): every
      -- candidate with a vector or in the keyword window, at its vector distance (1 without
      -- a vector; for a row of the keyword window at most the vector window's edge wd)
      -- less c_keyword_weight x its keyword part x spread / c_v^2. vs is the vector
      -- side in one row: its best distance lo, its distance at rank p.win wd (the edge;
      -- NULL when it has fewer rows: 1), mean and STDDEV_POP; spread = wd - lo (1 when not positive);
      -- c_v = (mean - lo) / STDDEV_POP, the z-score of its best similarity (1 when
      -- STDDEV_POP is 0 or there is no vector). kt is the keyword window: the confidence
      -- (MAX - AVG) / STDDEV_POP of the Text scores, squared, times each row's share of
      -- the window's range (fusion_part). The reported distance is never below 0.
      -- An aggregate without GROUP BY returns one row, NULL over no rows; CASE stops at the
      -- first true condition, so the divisions below are reached only when their divisor is
      -- not 0; LEAST of numbers returns the least (its arguments are never NULL here: NVL).
      ELSE ' scored AS (SELECT h.seq, h.rv, GREATEST(0, h.rv) AS d FROM (SELECT c.seq,'
        || ' CASE WHEN kt.seq IS NULL THEN NVL(c.vd, 1)'
        || ' ELSE LEAST(NVL(c.vd, 1), NVL(vs.wd, 1)) END - 0.1 * NVL(kt.part, 0)'
        || ' * CASE WHEN NVL(vs.wd, 1) - NVL(vs.lo, 1) > 0 THEN NVL(vs.wd, 1) - NVL(vs.lo, 1) ELSE 1 END'
        || ' / CASE WHEN vs.sd > 0 THEN (vs.mu - vs.lo) * (vs.mu - vs.lo) / (vs.sd * vs.sd) ELSE 1 END AS rv'
        || ' FROM cand c CROSS JOIN (SELECT MIN(vr.d) AS lo, AVG(vr.d) AS mu, STDDEV_POP(vr.d) AS sd,'
        || ' MAX(CASE WHEN vr.rk = pw.win THEN vr.d END) AS wd FROM vr CROSS JOIN p pw) vs'
        || ' LEFT OUTER JOIN (' || 'SELECT w.seq, CASE WHEN w.sd > 0 THEN (w.hi - w.mu) * (w.hi - w.mu) / (w.sd * w.sd) ELSE 1 END'
        || ' * CASE WHEN w.hi <= NVL(w.wlast, 0) THEN 1'
        || ' ELSE GREATEST(0, LEAST(1, (w.x - NVL(w.wlast, 0)) / (w.hi - NVL(w.wlast, 0)))) END AS part'
        || ' FROM (SELECT r.seq, r.rk, 1 / r.d - 1 AS x, MAX(1 / r.d - 1) OVER () AS hi,'
        || ' AVG(1 / r.d - 1) OVER () AS mu, STDDEV_POP(1 / r.d - 1) OVER () AS sd,'
        || ' MAX(CASE WHEN r.rk = pw.win THEN 1 / r.d - 1 END) OVER () AS wlast'
        || ' FROM kr r CROSS JOIN p pw) w CROSS JOIN p pl WHERE w.rk <= pl.win' || ') kt ON kt.seq = c.seq'
        || ' WHERE c.vd IS NOT NULL OR kt.seq IS NOT NULL) h)'
      END;
    l_sql := 'WITH p AS (SELECT :b_now AS now_ts, :b_invalid AS incl_invalid,'
          || ' :b_ue AS u_exact, :b_un AS u_nonexact, :b_uv AS u_val,'
          || ' :b_ae AS a_exact, :b_an AS a_nonexact, :b_av AS a_val,'
          || ' :b_te AS t_exact, :b_tn AS t_nonexact, :b_tv AS t_val,'
          || ' JSON(:b_filter) AS f, :b_qv AS qv, :b_win AS win, :b_has_near AS has_near FROM dual),'
          || ' cand AS (SELECT r.seq, r.user_id, r.agent_id, r.thread_id,' || l_vd
          || ' FROM AGENT_MEMORY_RECORDS r CROSS JOIN p flt'
          || ' WHERE r.record_type IN (SELECT t.COLUMN_VALUE FROM TABLE(:b_types) t)'
          || ' AND (r.expires_at IS NULL OR r.expires_at > flt.now_ts)'
          || ' AND (flt.incl_invalid = 1 OR r.status = ''VALID'')'
          || ' AND (flt.has_near = 0 OR r.seq IN (SELECT n.COLUMN_VALUE FROM TABLE(:b_near) n))'
          || ' AND (flt.u_exact = 0 OR DECODE(r.user_id, flt.u_val, 1, 0) = 1)'
          || ' AND (flt.a_exact = 0 OR DECODE(r.agent_id, flt.a_val, 1, 0) = 1)'
          || ' AND (flt.t_exact = 0 OR DECODE(r.thread_id, flt.t_val, 1, 0) = 1)'
          || ' AND (flt.f IS NULL OR (' || AGENT_MEMORY_FILTER.prefilter(p_req.filter_json) || '))'
          || ' AND (flt.f IS NULL OR AGENT_MEMORY_FILTER.matches(r.metadata, flt.f) = 1)),'
          || ' vec AS (SELECT c.seq, c.vd AS d FROM cand c WHERE c.vd IS NOT NULL),'
          || l_kw_cte
          || ' vr AS (SELECT vec.seq, vec.d, ROW_NUMBER() OVER (ORDER BY vec.d, vec.seq) AS rk FROM vec),'
          || ' kr AS (SELECT kw.seq, kw.d, ROW_NUMBER() OVER (ORDER BY kw.d, kw.seq) AS rk FROM kw),'
          || l_scored
          || ' SELECT s.seq, s.d FROM scored s JOIN cand c ON c.seq = s.seq CROSS JOIN p prm'
          || ' ORDER BY s.rv - ' || TO_CHAR(AGENT_MEMORY_SCOPE.c_affinity, 'FM0.999999') || ' * ('
          || ' CASE WHEN prm.u_nonexact = 1 AND DECODE(c.user_id, prm.u_val, 1, 0) = 1 THEN 1 ELSE 0 END'
          || ' + CASE WHEN prm.a_nonexact = 1 AND DECODE(c.agent_id, prm.a_val, 1, 0) = 1 THEN 1 ELSE 0 END'
          || ' + CASE WHEN prm.t_nonexact = 1 AND DECODE(c.thread_id, prm.t_val, 1, 0) = 1 THEN 1 ELSE 0 END),'
          || ' s.seq FETCH FIRST :b_max ROWS ONLY';
    RETURN l_sql;
  END ranking_sql;

  -- -- fetch -------------------------------------------------------------------------------

  -- The ranked hits: record seqs best first, with their reported distances. The one bind
  -- list of ranking_sql, by position.
  PROCEDURE fetch_ranked(p_req IN request_t, p_now IN TIMESTAMP,
                         p_seqs OUT AGENT_MEMORY_NUMBER_LIST, p_dists OUT AGENT_MEMORY_NUMBER_LIST) IS
    l_types  AGENT_MEMORY_TEXT_LIST := p_req.types;
    l_near   AGENT_MEMORY_NUMBER_LIST := AGENT_MEMORY_NUMBER_LIST();
    l_cursor SYS_REFCURSOR;
  BEGIN
    IF p_req.near IS NOT NULL THEN
      l_near := p_req.near;
    END IF;
    -- dynamic-sql: search candidates and scores (ranking_sql: literals + prefilter)
    OPEN l_cursor FOR ranking_sql(p_req)
      USING p_now, CASE WHEN p_req.include_invalid THEN 1 ELSE 0 END,
            dim_exact(p_req.scope.user_dim), dim_affinity(p_req.scope.user_dim), p_req.scope.user_dim.value,
            dim_exact(p_req.scope.agent_dim), dim_affinity(p_req.scope.agent_dim), p_req.scope.agent_dim.value,
            dim_exact(p_req.scope.thread_dim), dim_affinity(p_req.scope.thread_dim), p_req.scope.thread_dim.value,
            p_req.filter_doc, p_req.query_vector, GREATEST(p_req.max_results, c_fusion_window),
            CASE WHEN p_req.near IS NULL THEN 0 ELSE 1 END, l_types, l_near,
            p_req.text_query, p_req.max_results;
    FETCH l_cursor BULK COLLECT INTO p_seqs, p_dists;
    CLOSE l_cursor;
  END fetch_ranked;

  -- The hits as SearchHit documents, each memory-like hit with its linked records.
  FUNCTION hits_json(p_req IN request_t, p_now IN TIMESTAMP, p_seqs IN AGENT_MEMORY_NUMBER_LIST,
                     p_dists IN AGENT_MEMORY_NUMBER_LIST) RETURN JSON_ARRAY_T IS
    l_records JSON_ARRAY_T := AGENT_MEMORY_RECORD_API.records_json(p_seqs, FALSE);
    l_record  JSON_OBJECT_T;
    l_hit     JSON_OBJECT_T;
    l_hits    JSON_ARRAY_T := JSON_ARRAY_T();
    l_linked  JSON_ARRAY_T;
  BEGIN
    FOR i IN 1 .. p_seqs.COUNT LOOP
      l_record := TREAT(l_records.get(i - 1) AS JSON_OBJECT_T);
      l_linked := JSON_ARRAY_T();
      IF p_req.num_hops > 0 AND p_req.max_linked > 0
         AND AGENT_MEMORY_RECORD_API.is_memory_type(l_record.get_string('record_type')) THEN
        l_linked := AGENT_MEMORY_LINK_GRAPH.expand(l_record.get_string('id'), p_req.num_hops,
                                             p_req.max_linked, p_req.include_invalid, p_now);
      END IF;
      l_hit := JSON_OBJECT_T();
      l_hit.put('record', l_record);
      l_hit.put('distance', p_dists(i));
      l_hit.put('linked', l_linked);
      l_hits.append(l_hit);
    END LOOP;
    RETURN l_hits;
  END hits_json;

  FUNCTION search(p_request IN JSON) RETURN JSON IS
    l_now   TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_req   request_t := parse_request(p_request);
    l_seqs  AGENT_MEMORY_NUMBER_LIST;
    l_dists AGENT_MEMORY_NUMBER_LIST;
  BEGIN
    l_req.near := preselect(l_req, l_now);
    fetch_ranked(l_req, l_now, l_seqs, l_dists);
    RETURN hits_json(l_req, l_now, l_seqs, l_dists).to_json;
  END search;
END AGENT_MEMORY_SEARCH;
/
