-- Privileges of the schema that owns an agent-memory store, and the store's application
-- context. Run as a DBA:
--   sql system/password@db @grants_owner.sql AGENTMEM
-- The packages are definer's rights (AUTHID DEFINER), and a definer's rights unit sees only
-- privileges granted directly, not through roles: hence the direct grants below. Nothing
-- here is an ANY privilege except GRANT ANY DATA ROLE on a database with Deep Data Security
-- (the only privilege GRANT DATA ROLE accepts; second block), and no object privilege is
-- granted WITH GRANT OPTION.
-- Checked: GRANT, https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/GRANT.html
--   Any user can create an Oracle Text index; CTXAPP lets the owner create Text preferences
--   and use the Text packages, and stored code calling a CTX package needs an explicit
--   EXECUTE grant, https://docs.oracle.com/en/database/oracle/oracle-database/23/ccapp/oracle-text-users-and-roles.html
SET SERVEROUTPUT ON
SET VERIFY OFF
WHENEVER SQLERROR EXIT FAILURE ROLLBACK
DEFINE owner_name = '&1'

DECLARE
  -- DBMS_ASSERT.SCHEMA_NAME: the user must exist; ENQUOTE_NAME: quoted identifier.
  -- Checked: DBMS_ASSERT, https://docs.oracle.com/en/database/oracle/oracle-database/23/arpls/DBMS_ASSERT.html
  l_owner VARCHAR2(200 CHAR) := DBMS_ASSERT.ENQUOTE_NAME(DBMS_ASSERT.SCHEMA_NAME(UPPER('&&owner_name')), FALSE);
  TYPE grant_list_t IS TABLE OF VARCHAR2(200 CHAR);
  l_grants grant_list_t := grant_list_t(
    'CREATE SESSION',                      -- connect (install, upgrade, the purge job)
    'CREATE TABLE',                        -- store tables; Oracle Text creates its index tables
    'CREATE SEQUENCE',                     -- identity columns are backed by a sequence; kept until
                                           -- a database run shows the install passes without it
    'CREATE VIEW',                         -- <prefix>_RECORDS_V / _RELATIONS_V (isolation views)
    'CREATE PROCEDURE',                    -- the packages
    'CREATE TYPE',                         -- <prefix>_NUMBER_LIST / _TEXT_LIST collection types
    'CREATE JOB',                          -- the purge job (install warns and continues without it)
    'CREATE MINING MODEL',                 -- load_onnx_model.sql only; revoke if you embed client-side
    'EXECUTE ON SYS.DBMS_RLS',             -- install adds the end-user isolation VPD policies
    'EXECUTE ON CTXSYS.CTX_DDL',           -- text index sync from the admin package
    'EXECUTE ON SYS.DBMS_CRYPTO',          -- random bytes of generated ids (version 7 UUIDs)
    'EXECUTE ON SYS.DBMS_TRANSACTION',     -- the session package asks whether a transaction
                                           -- is open before it unbinds an end user
    'EXECUTE ON SYS.DBMS_VECTOR',          -- load_onnx_model.sql only (ONNX model loading)
    'EXECUTE ON CTXSYS.DBMS_VECTOR_CHAIN', -- chunking and embedding of long texts (model stores);
                                           -- owned by CTXSYS (Oracle Text), not SYS
    'CTXAPP');                             -- Text preferences and packages (CONTEXT index)
  -- Deliberately not granted: CREATE ANY CONTEXT / DROP ANY CONTEXT (they would let the owner
  -- re-point any application's context to its own package and so bypass that application's
  -- policies; the DBA creates this store's context below instead), EXEMPT ACCESS POLICY,
  -- CREATE TRIGGER, CREATE SYNONYM, UNLIMITED TABLESPACE (give a quota instead).
BEGIN
  FOR i IN 1 .. l_grants.COUNT LOOP
    -- dynamic-sql: DBA grant; the privilege comes from the constant list above and the
    -- grantee passed DBMS_ASSERT.SCHEMA_NAME and ENQUOTE_NAME.
    EXECUTE IMMEDIATE 'GRANT ' || l_grants(i) || ' TO ' || l_owner;
    DBMS_OUTPUT.PUT_LINE('granted ' || l_grants(i) || ' to ' || l_owner);
  END LOOP;
  DBMS_OUTPUT.PUT_LINE('Give ' || l_owner || ' a quota on its default tablespace, e.g. '
    || 'ALTER USER ' || l_owner || ' QUOTA UNLIMITED ON USERS (DATA on Autonomous Database)');
END;
/

PROMPT == Deep Data Security objects (Oracle AI Database 26ai, Release Update 23.26.2 and later;
PROMPT    skipped where the database has none): the store keeps its grants as data roles and
PROMPT    data grants too (AGENT_MEMORY_SECURITY.apply_native_grants)
-- Checked: CREATE DATA ROLE / CREATE DATA GRANT / GRANT ANY DATA ROLE privileges,
--   https://docs.oracle.com/en/database/oracle/oracle-database/26/ddscg/create-data-role.html
--   https://docs.oracle.com/en/database/oracle/oracle-database/26/ddscg/create-data-grants.html
--   https://docs.oracle.com/en/database/oracle/oracle-database/26/ddscg/grant-data-role.html
--   USER_DATA_GRANTS from 26ai RU 23.26.2, https://docs.oracle.com/en/database/oracle/oracle-database/26/refrn/USER_DATA_GRANTS.html
DECLARE
  l_owner VARCHAR2(200 CHAR) := DBMS_ASSERT.ENQUOTE_NAME(DBMS_ASSERT.SCHEMA_NAME(UPPER('&&owner_name')), FALSE);
  l_views NUMBER;
  TYPE grant_list_t IS TABLE OF VARCHAR2(200 CHAR);
  l_grants grant_list_t := grant_list_t(
    'CREATE DATA ROLE',                     -- a data role per policy, one mapped per IAM group
    'CREATE DATA GRANT',                    -- the policies' data grants on the store's tables
    'GRANT ANY DATA ROLE',                  -- a policy's data role to a local end user
    'SELECT ON SYS.DBA_END_USERS',          -- does a local end user of that name exist?
    'SELECT ON SYS.DBA_DATA_ROLE_GRANTS');  -- which end users hold a policy's data role
BEGIN
  SELECT COUNT(*) INTO l_views FROM all_views v
   WHERE v.owner = 'SYS' AND v.view_name = 'USER_DATA_GRANTS';
  IF l_views = 0 THEN
    DBMS_OUTPUT.PUT_LINE('no Deep Data Security in this database: the store enforces its '
      || 'policies with VPD only');
    RETURN;
  END IF;
  FOR i IN 1 .. l_grants.COUNT LOOP
    -- dynamic-sql: DBA grant; the privilege comes from the constant list above and the
    -- grantee passed DBMS_ASSERT.SCHEMA_NAME and ENQUOTE_NAME.
    EXECUTE IMMEDIATE 'GRANT ' || l_grants(i) || ' TO ' || l_owner;
    DBMS_OUTPUT.PUT_LINE('granted ' || l_grants(i) || ' to ' || l_owner);
  END LOOP;
END;
/

PROMPT == application context of the default store (end-user isolation); for a store rendered
PROMPT    with another prefix run its <prefix>_context.sql the same way
@@../sql/agent_memory_context.sql &&owner_name
