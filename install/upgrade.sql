-- Upgrade the agent-memory store AGENT_MEMORY in the current schema to the schema version of
-- these scripts (5). Run as the store owner:   sql owner/password@db @upgrade.sql
-- Rendered from sql/templates/upgrade.sql.j2 and the migration list
-- python/oracleagentmemory/stores/oracle_sql/migrations.py, the same list the Python upgrade
-- (oracleagentmemory upgrade) runs: python -m oracleagentmemory.stores.oracle_sql
-- writes it again, and tests/oracle_sql/test_upgrade_script.py checks it is current.
-- Steps: refuse a store newer than the scripts or installed with other choices than these
-- default scripts (dimension, model, sync mode: use `oracleagentmemory upgrade`), run the
-- table steps of every missing version, create the collection types and re-create every
-- package (CREATE OR REPLACE keeps grants), (re)create the isolation views and policies,
-- run the steps that need the new packages, record the version. Version 2 needs the CREATE
-- TYPE privilege and EXECUTE on SYS.DBMS_CRYPTO: a DBA re-runs grants_owner.sql first
-- (granting again is harmless). Each step that ran before is skipped or changes nothing, so
-- an interrupted upgrade runs again.
--   2: relations.thread_id may be NULL (client-level links)
--   3: deep data security: the registered policies and the grants
--   4: records.keyword_text (Han and Hangul as character bigrams) and the text index over it with the store's BASIC_LEXER
--   5: keyword_text cut again (NFKC, single Han and Hangul characters, Han apart from Hangul, Han beyond the Basic Multilingual Plane): emptied, then filled by the new packages; the new packages also record the model of the store's vectors (record_embedding_model, META key vector_model; no table step: a store that holds vectors and records no model is read as one of all-MiniLM-L6-v2)
SET SERVEROUTPUT ON
SET DEFINE OFF
WHENEVER SQLERROR EXIT FAILURE ROLLBACK

PROMPT == reading the installed schema version, running the table steps
DECLARE
  c_target CONSTANT PLS_INTEGER := 5;
  l_current NUMBER;
BEGIN
  SELECT TO_NUMBER(MIN(meta_value)) INTO l_current
    FROM agent_memory_meta
   WHERE meta_key = 'schema_version';
  IF l_current IS NULL THEN
    RAISE_APPLICATION_ERROR(-20007, 'no agent-memory store here; run install.sql');
  END IF;
  IF l_current > c_target THEN
    RAISE_APPLICATION_ERROR(-20007, 'the store has schema version ' || l_current
      || ', newer than these scripts (' || c_target || ')');
  END IF;
  -- These scripts carry the default rendering (dimension 384, no in-database model, SYNC ON
  -- COMMIT). A store installed with other choices is upgraded with its own rendering
  -- (oracleagentmemory upgrade reads them from the store), never with these packages.
  FOR m IN (SELECT meta_key, meta_value FROM agent_memory_meta
             WHERE (meta_key = 'embedding_dimension' AND meta_value <> '384')
                OR (meta_key = 'embedding_model' AND meta_value IS NOT NULL)
                OR (meta_key = 'sync_mode' AND meta_value <> 'ON_COMMIT')) LOOP
    RAISE_APPLICATION_ERROR(-20007, 'the store was installed with ' || m.meta_key || ' '
      || m.meta_value || '; these scripts render the defaults: run oracleagentmemory upgrade'
      || ' (it keeps the store''s own choices) instead');
  END LOOP;
  DBMS_OUTPUT.PUT_LINE('installed schema version ' || l_current || ', target ' || c_target);
  IF l_current < 2 THEN
    BEGIN
      -- dynamic-sql: constant DDL of version 2 (DDL cannot be static PL/SQL)
      EXECUTE IMMEDIATE 'ALTER TABLE AGENT_MEMORY_RELATIONS MODIFY (thread_id NULL)';
    EXCEPTION
      WHEN OTHERS THEN
        IF SQLCODE NOT IN (-1451) THEN  -- ORA-01451: already nullable, the step ran
          RAISE;
        END IF;
    END;
    DBMS_OUTPUT.PUT_LINE('version 2: relations.thread_id may be NULL (client-level links)');
  END IF;
  IF l_current < 3 THEN
    BEGIN
      -- dynamic-sql: constant DDL of version 3 (DDL cannot be static PL/SQL)
      EXECUTE IMMEDIATE 'CREATE TABLE IF NOT EXISTS AGENT_MEMORY_SEC_POLICIES (policy_name VARCHAR2(30 CHAR) NOT NULL, created_at TIMESTAMP(6) NOT NULL, CONSTRAINT AGENT_MEMORY_SEC_POLICIES_PK PRIMARY KEY (policy_name), CONSTRAINT AGENT_MEMORY_SEC_POLICIES_NAME_CK CHECK (policy_name IN (''USER_OWN_ROWS'', ''GLOBAL_MEMORIES'')))';
    END;
    BEGIN
      -- dynamic-sql: constant DDL of version 3 (DDL cannot be static PL/SQL)
      EXECUTE IMMEDIATE 'CREATE TABLE IF NOT EXISTS AGENT_MEMORY_SEC_GRANTS (principal_kind VARCHAR2(16 CHAR) NOT NULL, principal_name VARCHAR2(512 CHAR) NOT NULL, policy_name VARCHAR2(30 CHAR) NOT NULL, created_at TIMESTAMP(6) NOT NULL, CONSTRAINT AGENT_MEMORY_SEC_GRANTS_PK PRIMARY KEY (principal_kind, principal_name, policy_name), CONSTRAINT AGENT_MEMORY_SEC_GRANTS_KIND_CK CHECK (principal_kind IN (''LOCAL_USER'', ''GROUP'')), CONSTRAINT AGENT_MEMORY_SEC_GRANTS_POLICY_FK FOREIGN KEY (policy_name) REFERENCES AGENT_MEMORY_SEC_POLICIES (policy_name) ON DELETE CASCADE)';
    END;
    BEGIN
      -- dynamic-sql: constant DDL of version 3 (DDL cannot be static PL/SQL)
      EXECUTE IMMEDIATE 'CREATE INDEX IF NOT EXISTS AGENT_MEMORY_SEC_GRANTS_POLICY_IX ON AGENT_MEMORY_SEC_GRANTS (policy_name)';
    END;
    DBMS_OUTPUT.PUT_LINE('version 3: deep data security: the registered policies and the grants');
  END IF;
  IF l_current < 4 THEN
    BEGIN
      -- dynamic-sql: constant DDL of version 4 (DDL cannot be static PL/SQL)
      EXECUTE IMMEDIATE 'ALTER TABLE AGENT_MEMORY_RECORDS ADD (keyword_text CLOB)';
    EXCEPTION
      WHEN OTHERS THEN
        IF SQLCODE NOT IN (-1430) THEN  -- ORA-01430: the column exists, the step ran
          RAISE;
        END IF;
    END;
    BEGIN
      -- dynamic-sql: constant DDL of version 4 (DDL cannot be static PL/SQL)
      EXECUTE IMMEDIATE 'DROP INDEX IF EXISTS AGENT_MEMORY_RECORDS_TIX FORCE';
    END;
    DBMS_OUTPUT.PUT_LINE('version 4: records.keyword_text (Han and Hangul as character bigrams) and the text index over it with the store''s BASIC_LEXER');
  END IF;
  IF l_current < 5 THEN
    BEGIN
      -- dynamic-sql: constant DDL of version 5 (DDL cannot be static PL/SQL)
      EXECUTE IMMEDIATE 'UPDATE AGENT_MEMORY_RECORDS SET keyword_text = NULL WHERE keyword_text IS NOT NULL';
    END;
    DBMS_OUTPUT.PUT_LINE('version 5: keyword_text cut again (NFKC, single Han and Hangul characters, Han apart from Hangul, Han beyond the Basic Multilingual Plane): emptied, then filled by the new packages; the new packages also record the model of the store''s vectors (record_embedding_model, META key vector_model; no table step: a store that holds vectors and records no model is read as one of all-MiniLM-L6-v2)');
  END IF;
END;
/

PROMPT == re-creating the packages
@@packages.sql

PROMPT == end-user isolation: views and VPD policies (idempotent; needs EXECUTE ON SYS.DBMS_RLS
PROMPT    and CREATE VIEW, see grants_owner.sql). Database users other than the owner now see
PROMPT    nothing until they bind an end user or the owner trusts them:
PROMPT      EXEC AGENT_MEMORY_SESSION.trust_service('APP_USER')
@@../sql/agent_memory_isolation.sql

PROMPT == the steps that need the new packages
DECLARE
  l_current NUMBER;
  l_filled NUMBER;
BEGIN
  SELECT TO_NUMBER(MIN(meta_value)) INTO l_current FROM agent_memory_meta
   WHERE meta_key = 'schema_version';
  IF l_current < 5 THEN
    l_filled := AGENT_MEMORY.fill_keyword_text(p_batch => 1000);
    DBMS_OUTPUT.PUT_LINE('keyword text set for ' || l_filled || ' record(s)');
  END IF;
END;
/
DECLARE
  l_count PLS_INTEGER;
BEGIN
  SELECT COUNT(*) INTO l_count FROM ctx_user_preferences WHERE pre_name = 'AGENT_MEMORY_LEXER';
  IF l_count = 0 THEN
    CTX_DDL.CREATE_PREFERENCE('AGENT_MEMORY_LEXER', 'BASIC_LEXER');
  END IF;
END;
/
DECLARE
  l_count PLS_INTEGER;
BEGIN
  SELECT COUNT(*) INTO l_count FROM user_indexes WHERE index_name = 'AGENT_MEMORY_RECORDS_TIX';
  IF l_count = 0 THEN
    -- dynamic-sql: constant DDL (created only when missing, as the vector index)
    EXECUTE IMMEDIATE 'CREATE INDEX AGENT_MEMORY_RECORDS_TIX ON AGENT_MEMORY_RECORDS (keyword_text)
  INDEXTYPE IS CTXSYS.CONTEXT
  PARAMETERS (''LEXER AGENT_MEMORY_LEXER MAINTENANCE MANUAL SYNC (ON COMMIT)'')';
  END IF;
END;
/

PROMPT == recording the schema version
BEGIN
  AGENT_MEMORY.set_schema_version(p_version => 5);
  AGENT_MEMORY.check_schema(p_version => 5);
END;
/
