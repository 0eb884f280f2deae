-- Least privilege for an application user of the store AGENT_MEMORY. Run as the store owner:
--   sql owner/password@db @grants_runtime.sql APP_USER
-- The runtime user needs EXECUTE on the facade package only: the facade is AUTHID DEFINER,
-- so every table access happens with the owner's rights, and every internal package is
-- ACCESSIBLE BY the facade. AGENT_MEMORY_SCOPE and AGENT_MEMORY_FILTER are pure functions
-- an application may use in its own SQL. The runtime user also needs CREATE SESSION (DBA).
SET SERVEROUTPUT ON
SET VERIFY OFF
WHENEVER SQLERROR EXIT SQL.SQLCODE
DEFINE runtime_user = '&1'

DECLARE
  l_grantee VARCHAR2(200) := DBMS_ASSERT.ENQUOTE_NAME(DBMS_ASSERT.SCHEMA_NAME(UPPER('&&runtime_user')), FALSE);
  TYPE name_list_t IS TABLE OF VARCHAR2(128);
  l_packages name_list_t := name_list_t('AGENT_MEMORY', 'AGENT_MEMORY_SCOPE', 'AGENT_MEMORY_FILTER');
BEGIN
  FOR i IN 1 .. l_packages.COUNT LOOP
    -- dynamic-sql: runtime grant; package names are constants, the grantee passed
    -- DBMS_ASSERT.SCHEMA_NAME and ENQUOTE_NAME.
    EXECUTE IMMEDIATE 'GRANT EXECUTE ON ' || DBMS_ASSERT.SIMPLE_SQL_NAME(l_packages(i))
      || ' TO ' || l_grantee;
    DBMS_OUTPUT.PUT_LINE('granted EXECUTE ON ' || l_packages(i) || ' to ' || l_grantee);
  END LOOP;
END;
/
