-- Least privilege for an application user of the store AGENT_MEMORY. Run as the store owner:
--   sql owner/password@db @grants_runtime.sql APP_USER
-- The runtime user gets EXECUTE on two packages and nothing else: no table, view or
-- sequence privilege, no DDL (no CREATE TABLE / PROCEDURE / VIEW / ANY privilege), no role:
--   AGENT_MEMORY          the facade. AUTHID DEFINER, so every table access happens with the
--                         owner's rights and under the owner's VPD policies; every internal
--                         package is ACCESSIBLE BY the facade and cannot be called around it.
--   AGENT_MEMORY_SESSION  set_end_user / clear_end_user, to bind the end user of a session.
-- The DBA gives it CREATE SESSION only. Such a user cannot install or change the schema, so
-- it must open the store with SchemaPolicy.REQUIRE_EXISTING (CREATE_IF_NECESSARY would try
-- to install and fail with ORA-01031; RECREATE calls reset_store, which is refused), after
-- ALTER SESSION SET CURRENT_SCHEMA = <owner> (no synonym needed), e.g. in Python:
--   conn.current_schema = "AGENTMEM"
--   memory = OracleAgentMemory(connection=conn, schema_policy=SchemaPolicy.REQUIRE_EXISTING, ...)
-- With no end user bound this user sees no record (end-user isolation). A back-end service
-- that must act for every end user is trusted by the owner instead:
--   EXEC AGENT_MEMORY_SESSION.trust_service('APP_USER')
-- Other applications that read through SQL use grants_views.sql.
-- Checked: GRANT EXECUTE ON package, https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/GRANT.html
SET SERVEROUTPUT ON
SET VERIFY OFF
WHENEVER SQLERROR EXIT FAILURE ROLLBACK
DEFINE runtime_user = '&1'

DECLARE
  l_grantee VARCHAR2(200 CHAR) := DBMS_ASSERT.ENQUOTE_NAME(DBMS_ASSERT.SCHEMA_NAME(UPPER('&&runtime_user')), FALSE);
  TYPE name_list_t IS TABLE OF VARCHAR2(128 CHAR);
  l_packages name_list_t := name_list_t('AGENT_MEMORY', 'AGENT_MEMORY_SESSION');
BEGIN
  IF l_grantee = DBMS_ASSERT.ENQUOTE_NAME(SYS_CONTEXT('USERENV', 'SESSION_USER'), FALSE) THEN
    RAISE_APPLICATION_ERROR(-20001, 'the runtime user must not be the store owner');
  END IF;
  FOR i IN 1 .. l_packages.COUNT LOOP
    -- dynamic-sql: runtime grant; package names are constants, the grantee passed
    -- DBMS_ASSERT.SCHEMA_NAME and ENQUOTE_NAME.
    EXECUTE IMMEDIATE 'GRANT EXECUTE ON ' || DBMS_ASSERT.SIMPLE_SQL_NAME(l_packages(i))
      || ' TO ' || l_grantee;
    DBMS_OUTPUT.PUT_LINE('granted EXECUTE ON ' || l_packages(i) || ' to ' || l_grantee);
  END LOOP;
END;
/
