-- Read access through SQL for another application (reporting, APEX, a Java service) of the
-- store AGENT_MEMORY. Run as the store owner:
--   sql owner/password@db @grants_views.sql READER_USER
-- Grants READ (not SELECT: READ does not allow SELECT ... FOR UPDATE row locks) on the two
-- read-only views, EXECUTE on AGENT_MEMORY_SESSION to bind an end user, and EXECUTE on the
-- pure functions AGENT_MEMORY_SCOPE / AGENT_MEMORY_FILTER for the reader's own SQL. No table
-- privilege: the views read the store tables under the VPD policy, so the reader sees only
-- the records of the end user it bound (and nothing while unbound, unless the owner trusts
-- it with AGENT_MEMORY_SESSION.trust_service).
-- Checked: READ object privilege, https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/GRANT.html
SET SERVEROUTPUT ON
SET VERIFY OFF
WHENEVER SQLERROR EXIT FAILURE ROLLBACK
DEFINE reader_user = '&1'

DECLARE
  l_grantee VARCHAR2(200 CHAR) := DBMS_ASSERT.ENQUOTE_NAME(DBMS_ASSERT.SCHEMA_NAME(UPPER('&&reader_user')), FALSE);
  TYPE grant_list_t IS TABLE OF VARCHAR2(200 CHAR);
  l_grants grant_list_t := grant_list_t(
    'READ ON AGENT_MEMORY_RECORDS_V',
    'READ ON AGENT_MEMORY_RELATIONS_V',
    'EXECUTE ON AGENT_MEMORY_SESSION',
    'EXECUTE ON AGENT_MEMORY_SCOPE',
    'EXECUTE ON AGENT_MEMORY_FILTER');
BEGIN
  FOR i IN 1 .. l_grants.COUNT LOOP
    -- dynamic-sql: grant; privilege and object come from the constant list above, the
    -- grantee passed DBMS_ASSERT.SCHEMA_NAME and ENQUOTE_NAME.
    EXECUTE IMMEDIATE 'GRANT ' || l_grants(i) || ' TO ' || l_grantee;
    DBMS_OUTPUT.PUT_LINE('granted ' || l_grants(i) || ' to ' || l_grantee);
  END LOOP;
END;
/
