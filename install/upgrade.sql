-- Upgrade the agent-memory store AGENT_MEMORY in the current schema to the schema version of
-- these scripts (5). Run as the store owner:   sql owner/password@db @upgrade.sql
-- Steps: refuse a store newer than the scripts or installed with other choices than these
-- default scripts (dimension, model, sync mode: use `oracleagentmemory upgrade`), run the
-- table steps of every missing version, create the collection types and re-create every
-- package (CREATE OR REPLACE keeps grants), (re)create the isolation views and policies,
-- record the version. Version 2 needs the CREATE TYPE privilege and EXECUTE on
-- SYS.DBMS_CRYPTO: a DBA re-runs grants_owner.sql first (granting again is harmless).
-- Version steps (the same as TABLE_STEPS in python/oracleagentmemory/stores/oracle.py):
--   2: relations.thread_id may be NULL (client-level links). Checked: ALTER TABLE ... MODIFY
--      (column NULL), https://docs.oracle.com/cd/B28359_01/server.111/b28286/statements_3001.htm
--      (23ai column_clauses: https://docs.oracle.com/cd/F82042_01/sqlrf/img_text/column_clauses.html);
--      ORA-01451 when the column is already nullable (the step ran before; observed in
--      https://gist.github.com/velll/12043255b542ef87cc0b9787e840accd)
--   3: deep data security, the tables AGENT_MEMORY_SEC_POLICIES and AGENT_MEMORY_SEC_GRANTS
--      and the grants' index (as in ../sql/agent_memory_tables.sql; IF NOT EXISTS, so an
--      interrupted upgrade runs again). The isolation script below then replaces the VPD
--      policy AM_END_USER_ISOLATION with AM_END_USER_READ and AM_END_USER_WRITE.
--   4: AGENT_MEMORY_RECORDS.keyword_text (Han and Hangul as character bigrams), the old text
--      index over content dropped; once the packages are re-created, the keyword text of
--      every record is filled (AGENT_MEMORY.fill_keyword_text, committed batches) and the
--      text index created over it with the BASIC_LEXER preference AGENT_MEMORY_LEXER (as in
--      ../sql/agent_memory_indexes.sql). ORA-01430 when the column exists (the step ran).
--      Checked: ALTER TABLE ... ADD, https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/ALTER-TABLE.html
--      DROP INDEX, https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/DROP-INDEX.html
--   5: the keyword text cut again (NFKC, single Han and Hangul characters, Han apart from
--      Hangul, Han beyond the BMP): emptied here, filled again like version 4's once the
--      packages are re-created. Checked: UPDATE,
--      https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/UPDATE.html
--      Also in 5 (no table step): the re-created packages record the model of the store's vectors
--      (AGENT_MEMORY.record_embedding_model, META key vector_model, written by the first
--      client that opens the store) and give a model loaded as MULTILINGUAL_E5_SMALL its
--      text prefixes. A store that holds vectors and records no model is read as one of
--      all-MiniLM-L6-v2, the default before models were recorded.
SET SERVEROUTPUT ON
SET DEFINE OFF
WHENEVER SQLERROR EXIT SQL.SQLCODE

PROMPT == reading the installed schema version, running the table steps
DECLARE
  c_target CONSTANT PLS_INTEGER := 5;
  l_current NUMBER;
  e_already_nullable EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_already_nullable, -1451);
  e_column_exists EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_column_exists, -1430);
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
      DBMS_OUTPUT.PUT_LINE('version 2: agent_memory_relations.thread_id may be NULL');
    EXCEPTION
      WHEN e_already_nullable THEN
        NULL;
    END;
  END IF;
  IF l_current < 3 THEN
    -- dynamic-sql: constant DDL of version 3 (DDL cannot be static PL/SQL)
    EXECUTE IMMEDIATE 'CREATE TABLE IF NOT EXISTS AGENT_MEMORY_SEC_POLICIES (policy_name VARCHAR2(30 CHAR) NOT NULL, created_at TIMESTAMP(6) NOT NULL, CONSTRAINT AGENT_MEMORY_SEC_POLICIES_PK PRIMARY KEY (policy_name), CONSTRAINT AGENT_MEMORY_SEC_POLICIES_NAME_CK CHECK (policy_name IN (''USER_OWN_ROWS'', ''GLOBAL_MEMORIES'')))';
    -- dynamic-sql: constant DDL of version 3 (DDL cannot be static PL/SQL)
    EXECUTE IMMEDIATE 'CREATE TABLE IF NOT EXISTS AGENT_MEMORY_SEC_GRANTS (principal_kind VARCHAR2(16 CHAR) NOT NULL, principal_name VARCHAR2(512 CHAR) NOT NULL, policy_name VARCHAR2(30 CHAR) NOT NULL, created_at TIMESTAMP(6) NOT NULL, CONSTRAINT AGENT_MEMORY_SEC_GRANTS_PK PRIMARY KEY (principal_kind, principal_name, policy_name), CONSTRAINT AGENT_MEMORY_SEC_GRANTS_KIND_CK CHECK (principal_kind IN (''LOCAL_USER'', ''GROUP'')), CONSTRAINT AGENT_MEMORY_SEC_GRANTS_POLICY_FK FOREIGN KEY (policy_name) REFERENCES AGENT_MEMORY_SEC_POLICIES (policy_name) ON DELETE CASCADE)';
    -- dynamic-sql: constant DDL of version 3 (DDL cannot be static PL/SQL)
    EXECUTE IMMEDIATE 'CREATE INDEX IF NOT EXISTS AGENT_MEMORY_SEC_GRANTS_POLICY_IX ON AGENT_MEMORY_SEC_GRANTS (policy_name)';
    DBMS_OUTPUT.PUT_LINE('version 3: deep data security policies and grants');
  END IF;
  IF l_current < 4 THEN
    BEGIN
      -- dynamic-sql: constant DDL of version 4 (DDL cannot be static PL/SQL)
      EXECUTE IMMEDIATE 'ALTER TABLE AGENT_MEMORY_RECORDS ADD (keyword_text CLOB)';
    EXCEPTION
      WHEN e_column_exists THEN
        NULL;
    END;
    -- dynamic-sql: constant DDL of version 4 (DDL cannot be static PL/SQL)
    EXECUTE IMMEDIATE 'DROP INDEX IF EXISTS AGENT_MEMORY_RECORDS_TIX FORCE';
    DBMS_OUTPUT.PUT_LINE('version 4: agent_memory_records.keyword_text, text index dropped');
  END IF;
  IF l_current < 5 THEN
    -- dynamic-sql: constant DML of version 5 (the column may be new in this block)
    EXECUTE IMMEDIATE 'UPDATE AGENT_MEMORY_RECORDS SET keyword_text = NULL WHERE keyword_text IS NOT NULL';
    COMMIT;
    DBMS_OUTPUT.PUT_LINE('version 5: keyword text emptied, to be cut again');
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

PROMPT == versions 4 and 5: keyword text of the stored records, then the text index over it
DECLARE
  l_filled NUMBER;
BEGIN
  l_filled := AGENT_MEMORY.fill_keyword_text(p_batch => 1000);
  DBMS_OUTPUT.PUT_LINE('keyword text set for ' || l_filled || ' record(s)');
END;
/
DECLARE
  l_count PLS_INTEGER;
BEGIN
  SELECT COUNT(*) INTO l_count FROM ctx_user_preferences WHERE pre_name = 'AGENT_MEMORY_LEXER';
  IF l_count = 0 THEN
    CTX_DDL.CREATE_PREFERENCE('AGENT_MEMORY_LEXER', 'BASIC_LEXER');
  END IF;
  SELECT COUNT(*) INTO l_count FROM user_indexes WHERE index_name = 'AGENT_MEMORY_RECORDS_TIX';
  IF l_count = 0 THEN
    -- dynamic-sql: constant DDL of version 4, the text index of ../sql/agent_memory_indexes.sql
    EXECUTE IMMEDIATE 'CREATE INDEX AGENT_MEMORY_RECORDS_TIX ON AGENT_MEMORY_RECORDS (keyword_text)'
      || ' INDEXTYPE IS CTXSYS.CONTEXT'
      || ' PARAMETERS (''LEXER AGENT_MEMORY_LEXER MAINTENANCE MANUAL SYNC (ON COMMIT)'')';
    DBMS_OUTPUT.PUT_LINE('version 4: text index AGENT_MEMORY_RECORDS_TIX over keyword_text');
  END IF;
END;
/

PROMPT == recording the schema version
BEGIN
  AGENT_MEMORY.set_schema_version(p_version => 5);
  AGENT_MEMORY.check_schema(p_version => 5);
END;
/
