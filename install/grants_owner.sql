-- Privileges of the schema that owns an agent-memory store. Run as a DBA:
--   sql system/password@db @grants_owner.sql AGENTMEM
-- The packages are definer's rights (AUTHID DEFINER), and a definer's rights unit sees only
-- privileges granted directly, not through roles: hence the direct grants below.
SET SERVEROUTPUT ON
SET VERIFY OFF
WHENEVER SQLERROR EXIT SQL.SQLCODE
DEFINE owner_name = '&1'

DECLARE
  -- DBMS_ASSERT.SCHEMA_NAME: the user must exist; ENQUOTE_NAME: quoted identifier.
  -- Checked: DBMS_ASSERT, https://docs.oracle.com/en/database/oracle/oracle-database/23/arpls/DBMS_ASSERT.html
  l_owner VARCHAR2(200) := DBMS_ASSERT.ENQUOTE_NAME(DBMS_ASSERT.SCHEMA_NAME(UPPER('&&owner_name')), FALSE);
  TYPE grant_list_t IS TABLE OF VARCHAR2(200);
  l_grants grant_list_t := grant_list_t(
    'CREATE SESSION',                      -- connect
    'CREATE TABLE',                        -- store tables, Oracle Text index tables
    'CREATE SEQUENCE',                     -- identity columns
    'CREATE PROCEDURE',                    -- the packages
    'CREATE JOB',                          -- the purge job (install warns and continues without it)
    'CREATE MINING MODEL',                 -- DBMS_VECTOR.LOAD_ONNX_MODEL
    'EXECUTE ON CTXSYS.CTX_DDL',           -- text index sync from the admin package
    'EXECUTE ON SYS.DBMS_VECTOR',          -- ONNX model loading
    'EXECUTE ON SYS.DBMS_VECTOR_CHAIN',    -- chunking and embedding of long texts
    'CTXAPP');                             -- CREATE SEARCH INDEX / hybrid vector index
BEGIN
  FOR i IN 1 .. l_grants.COUNT LOOP
    -- dynamic-sql: DBA grant; the privilege comes from the constant list above and the
    -- grantee passed DBMS_ASSERT.SCHEMA_NAME and ENQUOTE_NAME.
    EXECUTE IMMEDIATE 'GRANT ' || l_grants(i) || ' TO ' || l_owner;
    DBMS_OUTPUT.PUT_LINE('granted ' || l_grants(i) || ' to ' || l_owner);
  END LOOP;
  DBMS_OUTPUT.PUT_LINE('Give ' || l_owner || ' a quota on its default tablespace, e.g. '
    || 'ALTER USER ' || l_owner || ' QUOTA UNLIMITED ON USERS');
END;
/
