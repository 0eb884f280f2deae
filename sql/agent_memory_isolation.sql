-- End-user isolation of the agent-memory store "AGENT_MEMORY": read-only views for other
-- applications and the Virtual Private Database policies that bind every read and write of
-- the store tables to the session's end user. Rendered from sql/templates/isolation.sql.j2;
-- run after the packages (AGENT_MEMORY_SESSION holds the policy functions and adds the policies
-- in apply_policies). Idempotent: install and upgrade both run it. The rules are in the
-- AGENT_MEMORY_SESSION specification.

-- Visible (non-expired) records without vectors or image bytes. A SELECT on the view reads
-- AGENT_MEMORY_RECORDS under its VPD policy: a bound session sees only its end user's rows.
CREATE OR REPLACE VIEW AGENT_MEMORY_RECORDS_V (
  id, record_type, user_id, agent_id, thread_id, role, content, metadata, mime_type,
  event_ts, created_at, updated_at, expires_at, status, message_id
) AS
  SELECT r.id, r.record_type, r.user_id, r.agent_id, r.thread_id, r.role, r.content,
         r.metadata, r.mime_type, r.event_ts, r.created_at, r.updated_at, r.expires_at,
         r.status, r.message_id
    FROM AGENT_MEMORY_RECORDS r
   WHERE r.expires_at IS NULL OR r.expires_at > SYS_EXTRACT_UTC(SYSTIMESTAMP)
  WITH READ ONLY;

-- Relations, under the relations policy (both endpoints must belong to the bound end user).
CREATE OR REPLACE VIEW AGENT_MEMORY_RELATIONS_V (
  id, thread_id, source_id, source_type, target_id, target_type, relation_type,
  opposite_relation_type, event_ts, metadata, created_at
) AS
  SELECT l.id, l.thread_id, l.source_id, l.source_type, l.target_id, l.target_type,
         l.relation_type, l.opposite_relation_type, l.event_ts, l.metadata, l.created_at
    FROM AGENT_MEMORY_RELATIONS l
  WITH READ ONLY;

-- The VPD policies (owner only; DBMS_RLS.ADD_POLICY commits).
CALL AGENT_MEMORY_SESSION.apply_policies();

-- Deep Data Security where the database has it (26ai): the grants also as data roles and
-- data grants; elsewhere this records the VPD mode and changes nothing else.
CALL AGENT_MEMORY_SECURITY.apply_native_grants();
