CREATE OR REPLACE PACKAGE AGENT_MEMORY_SEARCH AUTHID DEFINER
  ACCESSIBLE BY (PACKAGE AGENT_MEMORY)
AS
  /*
   * AGENT_MEMORY_SEARCH: scoped, filtered VECTOR / KEYWORD / HYBRID search with link expansion,
   * the semantics of python/oracleagentmemory/stores/embedded/search.py:
   *   1. candidates: requested types, not expired, VALID unless include_invalid, every exact
   *      scope dimension IS its value, then the metadata filter;
   *   2. scoring: VECTOR cosine distance (VECTOR_DISTANCE ... COSINE, exact over the
   *      candidates; on a large store without an exact scope or filter over the records
   *      the vector index preselects approximately, see c_approx_min_rows); KEYWORD Oracle Text CONTAINS over the query's words ORed, distance
   *      1 / (1 + score); HYBRID the vector distance (1 without a vector; for a record of
   *      the keyword window, the best GREATEST(max_results, c_fusion_window), at most the
   *      vector window's edge, its distance at that rank) less a keyword pull:
   *      c_keyword_weight x the keyword side's confidence squared x the record's share of
   *      the keyword window x the vector window's spread / the vector side's confidence
   *      squared (confidences: z-scores of each side's best score;
   *      oracleagentmemory/stores/ranking.py), never below 0;
   *   3. non-exact scope dimensions matching the record rank it c_affinity closer;
   *   4. links walked by AGENT_MEMORY_LINK_GRAPH.expand for memory-like hits.
   * Without a query_vector the in-database model embeds query_text (when one is configured).
   * The body runs in four steps: parse (the request, checked and defaulted), preselect (the
   * approximate candidates of a large unscoped VECTOR search), build and fetch (one
   * statement, one bind list, for every strategy), hits (records and linked records).
   *
   * AUTHID DEFINER / ACCESSIBLE BY the facade, which exposes it to SQL and PL/SQL.
   */
  -- HYBRID fuses the best GREATEST(max_results, c_fusion_window) of each ranking, the
  -- keyword side moving a record (once brought to the vector window's edge) by up to
  -- c_keyword_weight spreads of the vector window
  -- (both rendered from oracleagentmemory/stores/ranking.py; the ranking statement carries
  -- c_keyword_weight as the same literal). num_hops is at most c_max_hops
  -- (oracleagentmemory/stores/limits.py MAX_HOPS).
  c_fusion_window  CONSTANT PLS_INTEGER := 10;
  c_keyword_weight CONSTANT NUMBER := 0.1;
  c_max_hops       CONSTANT PLS_INTEGER := 5;
  -- A VECTOR search without an exact scope dimension or metadata filter on a store of more
  -- than c_approx_min_rows rows lets the vector index preselect c_approx_pool_factor times
  -- max_results records (FETCH APPROX FIRST ... WITH TARGET ACCURACY 95).
  c_approx_min_rows    CONSTANT PLS_INTEGER := 100000;
  c_approx_pool_factor CONSTANT PLS_INTEGER := 20;

  -- The SearchRequest -> [SearchHit] operation (documented in AGENT_MEMORY).
  FUNCTION search(p_request IN JSON) RETURN JSON;

  -- An Oracle Text query ORing the distinct lower-cased words of free text's keyword text
  -- (AGENT_MEMORY_KEYWORD.keyword_text: Han and Hangul as character bigrams, as the index holds
  -- them) that are not in the shared keyword stoplist, each escaped in braces (no operator
  -- injection); NULL when no such word remains.
  FUNCTION text_query(p_text IN VARCHAR2) RETURN VARCHAR2;
END AGENT_MEMORY_SEARCH;
/
