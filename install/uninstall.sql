-- Remove the agent-memory store AGENT_MEMORY (job, packages, indexes, tables and all data)
-- from the current schema. Run as the store owner:   sql owner/password@db @uninstall.sql
SET SERVEROUTPUT ON
SET DEFINE OFF
WHENEVER SQLERROR EXIT FAILURE ROLLBACK
PROMPT == dropping the agent-memory store AGENT_MEMORY
@@../sql/agent_memory_uninstall.sql
PROMPT == removed
