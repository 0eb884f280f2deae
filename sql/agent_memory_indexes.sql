-- Search indexes of the agent-memory store "AGENT_MEMORY".
-- Rendered from sql/templates/indexes.sql.j2. Scoped searches compute exact VECTOR_DISTANCE
-- over the filtered candidates; unscoped or loosely scoped VECTOR searches ask the vector
-- index for an approximate top-k (FETCH APPROX FIRST ... WITH TARGET ACCURACY, see the
-- search package). The installer creates an index only when it is missing.
-- IVF (the default) works without the vector memory pool: its centroids are cached in the
-- vector pool, else the large pool, else not at all (Size the Vector Pool,
-- https://docs.oracle.com/en/database/oracle/oracle-database/26/vecse/size-vector-pool.html).
-- IVF computes its centroids from the rows present when it is built, so after the first
-- bulk load rebuild it: ALTER INDEX AGENT_MEMORY_RECORDS_VIX REBUILD ONLINE
-- (https://docs.oracle.com/cd/G47991_01/vecse/inverted-file-flat-alter-index.html).
-- Checked: CREATE VECTOR INDEX,
--   https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/create-vector-index.html
CREATE VECTOR INDEX AGENT_MEMORY_RECORDS_VIX ON AGENT_MEMORY_RECORDS (embedding)
  ORGANIZATION NEIGHBOR PARTITIONS
  DISTANCE COSINE
  WITH TARGET ACCURACY 95;
-- Oracle Text CONTEXT index on content for SearchStrategy.KEYWORD and the keyword half of
-- HYBRID (HYBRID fuses this CONTAINS ranking with the exact vector ranking in SQL, so it
-- needs no hybrid vector index, which the documentation queries with
-- DBMS_HYBRID_VECTOR.SEARCH rather than CONTAINS). A CONTEXT index is created with
-- CREATE INDEX ... INDEXTYPE IS CTXSYS.CONTEXT on every 23ai/26ai update, where
-- CREATE SEARCH INDEX ... FOR TEXT is not accepted by the early 23ai releases.
-- SearchIndexSyncMode ON_COMMIT -> 'MAINTENANCE MANUAL SYNC (ON COMMIT)'.
-- Checked: CREATE INDEX (Oracle Text), https://docs.oracle.com/en/database/oracle/oracle-database/26/ccref/create-index.html
--   automatic maintenance (the 23ai default; MAINTENANCE MANUAL keeps SYNC (ON COMMIT)),
--   https://docs.oracle.com/cd/G11854_01/ccapp/using-automatic-maintenance-index.html
CREATE INDEX AGENT_MEMORY_RECORDS_TIX ON AGENT_MEMORY_RECORDS (content)
  INDEXTYPE IS CTXSYS.CONTEXT
  PARAMETERS ('MAINTENANCE MANUAL SYNC (ON COMMIT)');
