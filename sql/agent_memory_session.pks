CREATE OR REPLACE PACKAGE AGENT_MEMORY_SESSION AUTHID DEFINER AS
  /*
   * AGENT_MEMORY_SESSION: end-user isolation of the agent-memory store "AGENT_MEMORY".
   *
   * The trusted package of the application context AGENT_MEMORY_CTX (created by a DBA with
   * agent_memory_context.sql: CREATE CONTEXT AGENT_MEMORY_CTX USING <owner>.AGENT_MEMORY_SESSION).
   * Only code of this package can set attributes of that namespace (DBMS_SESSION.SET_CONTEXT
   * checks the call stack), so the bound end user cannot be forged by other SQL.
   * Checked: CREATE CONTEXT, https://docs.oracle.com/en/database/oracle/oracle-database/18/sqlrf/CREATE-CONTEXT.html
   *          DBMS_SESSION.SET_CONTEXT / CLEAR_CONTEXT (namespace, attribute, value),
   *          https://docs.oracle.com/cd/A91202_01/901_doc/appdev.901/a89852/dbms_s17.htm
   *          SYS_CONTEXT (namespace, parameter, length 1..4000; USERENV SESSION_USER),
   *          https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/SYS_CONTEXT.html
   *
   * How a session is treated (access_mode), evaluated by the VPD policy functions below for
   * every statement on AGENT_MEMORY_RECORDS, AGENT_MEMORY_IMAGES and AGENT_MEMORY_RELATIONS, whichever
   * path the statement comes from (facade, internal packages, the views, direct SQL):
   *   BOUND         set_end_user(p_user_id) was called in this session: only records whose
   *                 user_id equals the bound id exist for it; it can read, insert, update and
   *                 delete only those; records with user_id NULL are invisible to it (fail
   *                 closed: a record that belongs to nobody is not shared with everybody);
   *                 images follow their record, relations need both endpoints to be its own.
   *                 Administration members (reset_store, set_schema_version, purge job) refuse.
   *   UNRESTRICTED  nothing bound, and the session user is the store owner, a database user
   *                 the owner registered with trust_service, or CTXSYS (Oracle Text
   *                 maintaining the text index): exactly the behaviour of the store contract
   *                 without isolation (no predicate is added).
   *   NONE          nothing bound and an untrusted database user: no record is visible and
   *                 every write is rejected. A runtime user must bind an end user (or be
   *                 trusted) before it can use the store.
   *
   * Threat model. The database does not authenticate end users: the application that holds
   * the runtime account is trusted to bind the id of the end user it authenticated. What the
   * binding guarantees is that, once bound, nothing the session sends (ids, scopes, metadata
   * filters, search requests, link selectors, SQL on the views, model- or prompt-driven
   * arguments) can reach another end user's rows: the predicate comes from the context, not
   * from the request. Not covered: a compromised runtime account (it can rebind to any id),
   * the owner, SYS and holders of EXEMPT ACCESS POLICY (VPD does not apply to them), and the
   * existence of an id in another user's space (ids are unique per id space, so writing a
   * used id still fails with -20003; prefer generated ids).
   *
   * AUTHID DEFINER, not ACCESSIBLE BY: the runtime user calls set_end_user / clear_end_user
   * directly, and the database calls the policy functions. trust_service / distrust_service
   * refuse any session user but the owner.
   */
  c_namespace   CONSTANT VARCHAR2(128 CHAR) := 'AGENT_MEMORY_CTX';
  c_end_user    CONSTANT VARCHAR2(30 CHAR)  := 'END_USER_ID';
  c_max_user_id CONSTANT PLS_INTEGER   := 512;  -- characters: the width of user_id in AGENT_MEMORY_RECORDS

  -- Bind the end user of this session (until clear_end_user or the end of the session).
  -- -20007 where apply_policies found no DBMS_RLS (Standard Edition 2): isolation unavailable.
  --   p_user_id  the user_id of the end user's records; -20001 when NULL or longer than 512
  PROCEDURE set_end_user(p_user_id IN VARCHAR2);

  -- Forget the bound end user: the session is UNRESTRICTED again for the owner and trusted
  -- services, NONE for any other user. Call it before returning a pooled connection.
  PROCEDURE clear_end_user;

  -- The bound end user, or NULL.
  FUNCTION end_user_id RETURN VARCHAR2;

  -- 'BOUND', 'UNRESTRICTED' or 'NONE' (see above).
  FUNCTION access_mode RETURN VARCHAR2;

  -- -20001 unless the session is UNRESTRICTED (administration members of the facade).
  --   p_action  what was refused, for the message
  PROCEDURE assert_unrestricted(p_action IN VARCHAR2);

  -- Owner only: let a database user act UNRESTRICTED while it has no end user bound (a
  -- trusted back-end service, e.g. the Python library in a multi-user server).
  --   p_db_user  an existing database user name, exact case (DBMS_ASSERT.SCHEMA_NAME)
  PROCEDURE trust_service(p_db_user IN VARCHAR2);

  -- Owner only: withdraw trust_service (effective for the next statement of every session).
  --   p_db_user  the database user name
  PROCEDURE distrust_service(p_db_user IN VARCHAR2);

  -- Owner only: (re)create the VPD policy AM_END_USER_ISOLATION on AGENT_MEMORY_RECORDS,
  -- AGENT_MEMORY_IMAGES and AGENT_MEMORY_RELATIONS (run by agent_memory_isolation.sql at install and
  -- upgrade; DBMS_RLS.ADD_POLICY commits). Needs EXECUTE ON SYS.DBMS_RLS granted directly.
  -- Without fine-grained access control (ORA-00439, Standard Edition 2) it records
  -- end_user_isolation = UNAVAILABLE in AGENT_MEMORY_META and warns instead of failing.
  PROCEDURE apply_policies;

  -- VPD policy functions (DBMS_RLS calls them with the schema and object name and adds the
  -- returned predicate; NULL adds none). Statement types SELECT, INSERT, UPDATE, DELETE with
  -- update_check, so an insert or update cannot produce a row the session could not see.
  --   p_schema  schema of the protected table
  --   p_object  name of the protected table
  FUNCTION records_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;

  -- Images: visible and changeable when their record is.
  --   p_schema  schema of the protected table
  --   p_object  name of the protected table
  FUNCTION images_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;

  -- Relations: visible and changeable when both endpoint records are.
  --   p_schema  schema of the protected table
  --   p_object  name of the protected table
  FUNCTION relations_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;
END AGENT_MEMORY_SESSION;
/
