-- Search indexes of the agent-memory store "AGENT_MEMORY".
-- Rendered from sql/templates/indexes.sql.j2. Searches compute exact VECTOR_DISTANCE over the
-- filtered candidates (the contract's exact semantics); the vector index serves approximate
-- top-k queries written by other applications against AGENT_MEMORY_RECORDS.
-- HNSW needs the vector memory pool (VECTOR_MEMORY_SIZE). Checked: CREATE VECTOR INDEX,
--   https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/create-vector-index.html
--   https://docs.oracle.com/en/database/oracle/oracle-database/23/vecse/hierarchical-navigable-small-world-index-syntax-and-parameters.html
CREATE VECTOR INDEX AGENT_MEMORY_RECORDS_VIX ON AGENT_MEMORY_RECORDS (embedding)
  ORGANIZATION INMEMORY NEIGHBOR GRAPH
  DISTANCE COSINE
  WITH TARGET ACCURACY 95
  PARAMETERS (TYPE HNSW, NEIGHBORS 32, EFCONSTRUCTION 200);
-- Oracle Text search index on content for SearchStrategy.KEYWORD (and the keyword half of
-- HYBRID). SearchIndexSyncMode ON_COMMIT -> 'MAINTENANCE MANUAL SYNC (ON COMMIT)'.
-- Checked: CREATE SEARCH INDEX (FOR TEXT, PARAMETERS SYNC / MAINTENANCE),
--   https://docs.oracle.com/en/database/oracle/oracle-database/23/ccref/create-search-index.html
CREATE SEARCH INDEX AGENT_MEMORY_RECORDS_TIX ON AGENT_MEMORY_RECORDS (content) FOR TEXT
  PARAMETERS ('MAINTENANCE MANUAL SYNC (ON COMMIT)');
