-- Install the agent-memory store AGENT_MEMORY (default rendering: dimension 384, HNSW,
-- VECTOR strategy, SYNC ON COMMIT) into the current schema. Run as the store owner in
-- SQL*Plus or SQLcl from this directory:   sql owner/password@db @install.sql
-- Another prefix, dimension or index choice: render with
--   python -m oracleagentmemory.stores.oracle_sql.render   (or render_install() in Python)
-- and run the rendered files in the order listed below.
SET SERVEROUTPUT ON
SET DEFINE OFF
WHENEVER SQLERROR EXIT SQL.SQLCODE

PROMPT == checking the database release (23ai or later)
DECLARE
  l_version PLS_INTEGER := DBMS_DB_VERSION.VERSION;
BEGIN
  IF l_version < 23 THEN
    RAISE_APPLICATION_ERROR(-20007, 'agent memory needs Oracle AI Database 23ai or later; this database is release '
      || l_version);
  END IF;
END;
/

PROMPT == tables
@@../sql/agent_memory_tables.sql
PROMPT == vector and text indexes
@@../sql/agent_memory_indexes.sql
PROMPT == package specifications
@@../sql/agent_memory_errors.pks
@@../sql/agent_memory_codec.pks
@@../sql/agent_memory_scope.pks
@@../sql/agent_memory_filter.pks
@@../sql/agent_memory_retention.pks
@@../sql/agent_memory_record_api.pks
@@../sql/agent_memory_link_graph.pks
@@../sql/agent_memory_search.pks
@@../sql/agent_memory_admin.pks
@@../sql/agent_memory_session.pks
@@../sql/agent_memory.pks
PROMPT == package bodies
@@../sql/agent_memory_errors.pkb
@@../sql/agent_memory_codec.pkb
@@../sql/agent_memory_scope.pkb
@@../sql/agent_memory_filter.pkb
@@../sql/agent_memory_retention.pkb
@@../sql/agent_memory_record_api.pkb
@@../sql/agent_memory_link_graph.pkb
@@../sql/agent_memory_search.pkb
@@../sql/agent_memory_admin.pkb
@@../sql/agent_memory_session.pkb
@@../sql/agent_memory.pkb
PROMPT == end-user isolation: views and VPD policies (the DBA creates the context with grants_owner.sql)
@@../sql/agent_memory_isolation.sql

PROMPT == checking that every package compiled
DECLARE
  l_invalid VARCHAR2(4000);
BEGIN
  SELECT LISTAGG(object_name || ' ' || object_type, ', ') WITHIN GROUP (ORDER BY object_name)
    INTO l_invalid
    FROM user_objects
   WHERE object_name LIKE 'AGENT\_MEMORY%' ESCAPE '\'
     AND object_type IN ('PACKAGE', 'PACKAGE BODY')
     AND status <> 'VALID';
  IF l_invalid IS NOT NULL THEN
    RAISE_APPLICATION_ERROR(-20007, 'invalid after install: ' || l_invalid
      || ' (SELECT * FROM user_errors shows why)');
  END IF;
END;
/

PROMPT == purge job (warns and continues without the CREATE JOB privilege)
DECLARE
  l_created BOOLEAN;
BEGIN
  l_created := AGENT_MEMORY.ensure_purge_job(p_repeat_interval => 'FREQ=HOURLY;INTERVAL=1');
END;
/

PROMPT == installed
SELECT JSON_SERIALIZE(AGENT_MEMORY.describe PRETTY) AS store FROM dual;
