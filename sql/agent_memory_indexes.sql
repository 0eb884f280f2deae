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
-- The lexer of the text index: a BASIC_LEXER (whitespace-delimited words), whatever the
-- database's language (CTXSYS.DEFAULT_LEXER follows the language chosen at install, which
-- may be a Chinese or Japanese lexer), because the indexed column already holds Han and
-- Hangul as space-separated bigrams (AGENT_MEMORY_KEYWORD.keyword_text). Created once; a second
-- install run keeps it.
-- Checked: CTX_DDL.CREATE_PREFERENCE(preference_name, object_name), BASIC_LEXER example,
--   https://docs.oracle.com/en/database/oracle/oracle-database/26/ccref/create_preference.html
--   CTX_USER_PREFERENCES (PRE_NAME), https://docs.oracle.com/cd/A91202_01/901_doc/text.901/a90121/aviews38.htm
--   Document Language (BASIC_LEXER for whitespace-delimited languages; CHINESE_VGRAM_LEXER
--   and KOREAN_MORPH_LEXER for one language each, WORLD_LEXER with its own per-script rules),
--   https://docs.oracle.com/en/database/oracle/oracle-database/23/ccapp/document-language.html
DECLARE
  l_count PLS_INTEGER;
BEGIN
  SELECT COUNT(*) INTO l_count FROM ctx_user_preferences WHERE pre_name = 'AGENT_MEMORY_LEXER';
  IF l_count = 0 THEN
    CTX_DDL.CREATE_PREFERENCE('AGENT_MEMORY_LEXER', 'BASIC_LEXER');
  END IF;
END;
/
-- Oracle Text CONTEXT index on keyword_text for SearchStrategy.KEYWORD and the keyword half of
-- HYBRID (HYBRID fuses this CONTAINS ranking with the exact vector ranking in SQL, so it
-- needs no hybrid vector index, which the documentation queries with
-- DBMS_HYBRID_VECTOR.SEARCH rather than CONTAINS). A CONTEXT index is created with
-- CREATE INDEX ... INDEXTYPE IS CTXSYS.CONTEXT on every 23ai/26ai update, where
-- CREATE SEARCH INDEX ... FOR TEXT is not accepted by the early 23ai releases.
-- SearchIndexSyncMode ON_COMMIT -> 'MAINTENANCE MANUAL SYNC (ON COMMIT)'.
-- Checked: CREATE INDEX (Oracle Text), https://docs.oracle.com/en/database/oracle/oracle-database/26/ccref/create-index.html
--   automatic maintenance (the 23ai default; MAINTENANCE MANUAL keeps SYNC (ON COMMIT)),
--   https://docs.oracle.com/cd/G11854_01/ccapp/using-automatic-maintenance-index.html
-- The stoplist is the default one (CTXSYS.DEFAULT_STOPLIST, the database language's supplied
-- list): the shared query stoplist (stores/stoplist.py) holds every word of the English one,
-- so no query asks for a word the index left out (docs/oracle.md for other languages).
--   https://docs.oracle.com/en/database/oracle/oracle-database/26/ccref/supplied-stoplists.html
CREATE INDEX AGENT_MEMORY_RECORDS_TIX ON AGENT_MEMORY_RECORDS (keyword_text)
  INDEXTYPE IS CTXSYS.CONTEXT
  PARAMETERS ('LEXER AGENT_MEMORY_LEXER MAINTENANCE MANUAL SYNC (ON COMMIT)');
