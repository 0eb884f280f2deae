-- The collection types and every package of the store AGENT_MEMORY, specifications before
-- bodies, then a check that all of them compiled. Not run on its own: install.sql and
-- upgrade.sql call it with @@ (paths are relative to this directory).
PROMPT == collection types (kept when they exist)
@@../sql/agent_memory_types.sql
PROMPT == package specifications
@@../sql/agent_memory_errors.pks
@@../sql/agent_memory_codec.pks
@@../sql/agent_memory_keyword.pks
@@../sql/agent_memory_scope.pks
@@../sql/agent_memory_filter.pks
@@../sql/agent_memory_retention.pks
@@../sql/agent_memory_record_api.pks
@@../sql/agent_memory_link_graph.pks
@@../sql/agent_memory_search.pks
@@../sql/agent_memory_admin.pks
@@../sql/agent_memory_session.pks
@@../sql/agent_memory_security.pks
@@../sql/agent_memory.pks
PROMPT == package bodies
@@../sql/agent_memory_errors.pkb
@@../sql/agent_memory_codec.pkb
@@../sql/agent_memory_keyword.pkb
@@../sql/agent_memory_scope.pkb
@@../sql/agent_memory_filter.pkb
@@../sql/agent_memory_retention.pkb
@@../sql/agent_memory_record_api.pkb
@@../sql/agent_memory_link_graph.pkb
@@../sql/agent_memory_search.pkb
@@../sql/agent_memory_admin.pkb
@@../sql/agent_memory_session.pkb
@@../sql/agent_memory_security.pkb
@@../sql/agent_memory.pkb

PROMPT == checking that every package compiled
DECLARE
  l_invalid VARCHAR2(4000 CHAR);
BEGIN
  SELECT LISTAGG(object_name || ' ' || object_type, ', ') WITHIN GROUP (ORDER BY object_name)
    INTO l_invalid
    FROM user_objects
   WHERE object_name LIKE 'AGENT\_MEMORY%' ESCAPE '\'
     AND object_type IN ('PACKAGE', 'PACKAGE BODY')
     AND status <> 'VALID';
  IF l_invalid IS NOT NULL THEN
    RAISE_APPLICATION_ERROR(-20007, 'invalid after compiling the packages: ' || l_invalid
      || ' (SELECT * FROM user_errors shows why)');
  END IF;
END;
/
