-- Install the agent-memory store AGENT_MEMORY (default rendering: dimension 384, IVF,
-- VECTOR strategy, SYNC ON COMMIT) into the current schema. Run as the store owner in
-- SQL*Plus or SQLcl from this directory:   sql owner/password@db @install.sql
-- Another prefix, dimension or index choice: render with
--   python -m oracleagentmemory.stores.oracle_sql   (or render_install() in Python)
-- and run the rendered files in the order listed below and in packages.sql.
SET SERVEROUTPUT ON
SET DEFINE OFF
-- FAILURE, not SQL.SQLCODE: a UNIX exit status is one byte, and ORA-01536 (no quota) would
-- exit 1536 % 256 = 0, success to the calling shell.
WHENEVER SQLERROR EXIT FAILURE ROLLBACK

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
@@packages.sql
PROMPT == end-user isolation: views and VPD policies (the DBA creates the context with grants_owner.sql)
@@../sql/agent_memory_isolation.sql

PROMPT == purge job (warns and continues without the CREATE JOB privilege)
DECLARE
  l_created BOOLEAN;
BEGIN
  l_created := AGENT_MEMORY.ensure_purge_job(p_repeat_interval => 'FREQ=HOURLY;INTERVAL=1');
END;
/

PROMPT == installed
SELECT JSON_SERIALIZE(AGENT_MEMORY.describe PRETTY) AS store FROM dual;
