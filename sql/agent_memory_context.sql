-- The application context of the agent-memory store "AGENT_MEMORY". Run as a DBA (it needs
-- CREATE ANY CONTEXT, a privilege the store owner does not get), once per store:
--   sql system/password@db @agent_memory_context.sql OWNER
-- (install/grants_owner.sql runs it for the default store). Only AGENT_MEMORY_SESSION of the
-- owner schema can then set AGENT_MEMORY_CTX; until it exists no end user can be bound, and
-- the store behaves as without isolation for its owner and trusted services.
-- Rendered from sql/templates/context.sql.j2.
-- The package named in USING need not exist yet (docs/oracle.md, "Pages the code rests on").
SET SERVEROUTPUT ON
SET VERIFY OFF
WHENEVER SQLERROR EXIT FAILURE ROLLBACK
DEFINE owner_name = '&1'

DECLARE
  -- DBMS_ASSERT.SCHEMA_NAME: the user must exist; ENQUOTE_NAME: quoted identifier.
  l_owner VARCHAR2(200 CHAR) := DBMS_ASSERT.ENQUOTE_NAME(DBMS_ASSERT.SCHEMA_NAME(UPPER('&&owner_name')), FALSE);
BEGIN
  -- dynamic-sql: DBA DDL; the namespace and package names are rendered from the validated
  -- prefix, the schema passed DBMS_ASSERT.SCHEMA_NAME and ENQUOTE_NAME.
  EXECUTE IMMEDIATE 'CREATE OR REPLACE CONTEXT AGENT_MEMORY_CTX USING ' || l_owner || '.AGENT_MEMORY_SESSION';
  DBMS_OUTPUT.PUT_LINE('context AGENT_MEMORY_CTX is set by ' || l_owner || '.AGENT_MEMORY_SESSION');
END;
/
