CREATE OR REPLACE PACKAGE AGENT_MEMORY_SESSION AUTHID DEFINER AS
  /*
   * AGENT_MEMORY_SESSION: end-user isolation of the agent-memory store "AGENT_MEMORY".
   *
   * The trusted package of the application context AGENT_MEMORY_CTX (created by a DBA with
   * agent_memory_context.sql: CREATE CONTEXT AGENT_MEMORY_CTX USING <owner>.AGENT_MEMORY_SESSION).
   * Only code of this package can set attributes of that namespace (DBMS_SESSION.SET_CONTEXT
   * checks the call stack), so neither the bound end user nor the policies resolved for it
   * can be forged by other SQL. Values are at most 4 KB, attributes any number.
   *
   * How a session is treated (access_mode), evaluated by the VPD policy functions below for
   * every statement on AGENT_MEMORY_RECORDS, AGENT_MEMORY_IMAGES and AGENT_MEMORY_RELATIONS, whichever
   * path the statement comes from (facade, internal packages, the views, direct SQL):
   *   BOUND         an end user is bound in this session, with the policies that apply to it
   *                 (the context attributes USER_OWN_ROWS and GLOBAL_MEMORIES, 'Y' or 'N'):
   *                   USER_OWN_ROWS    records whose user_id equals the bound id: read,
   *                                    insert, update, delete;
   *                   GLOBAL_MEMORIES  memory-like records (memory, fact, guideline, preference)
   *                                    whose user_id is NULL: read only;
   *                   neither          nothing is visible and every write is rejected.
   *                 Images follow their record (an image is never memory-like, so only the
   *                 end user's own images are visible); a relation is visible when both
   *                 endpoint records are, and changeable when both are changeable.
   *                 Administration members (reset_store, set_schema_version, purge job)
   *                 refuse. Two ways to bind:
   *                   set_end_user(p_user_id)   USER_OWN_ROWS, as in earlier releases; other
   *                                             records behave as if they did not exist;
   *                   set_end_user_context(p_username, p_groups)
   *                                             the policies granted to the user or to one of
   *                                             its groups (AGENT_MEMORY_SECURITY), and the deep
   *                                             data security refusals of the embedded
   *                                             backend (-20009, see security_context_bound).
   *   UNRESTRICTED  nothing bound, and the session user is the store owner, a database user
   *                 the owner registered with trust_service, or CTXSYS (Oracle Text
   *                 maintaining the text index): exactly the behaviour of the store contract
   *                 without isolation (no predicate is added).
   *   NONE          nothing bound and an untrusted database user: no record is visible and
   *                 every write is rejected. A runtime user must bind an end user (or be
   *                 trusted) before it can use the store.
   *
   * Reads and writes differ (GLOBAL_MEMORIES is read only), so each table has two policies:
   * AM_END_USER_READ for SELECT and AM_END_USER_WRITE for INSERT, UPDATE and DELETE (with
   * update_check). Several policies on one table are combined with AND; since every row a
   * session may change is also a row it may read, a statement gets the write predicate
   * whether or not the read policy also applies to the query part of a DML statement.
   *
   * Threat model. The database does not authenticate end users: the application that holds
   * the runtime account is trusted to bind the id of the end user it authenticated (and the
   * groups its identity provider reported). What the binding guarantees is that, once bound,
   * nothing the session sends (ids, scopes, metadata filters, search requests, link
   * selectors, SQL on the views, model- or prompt-driven arguments) can reach rows its
   * policies do not allow: the predicate comes from the context, not from the request. Not
   * covered: a compromised runtime account (it can rebind to any id or claim any group), the
   * owner, SYS and holders of EXEMPT ACCESS POLICY (VPD does not apply to them), and the
   * existence of an id in another user's space (ids are unique per id space, so writing a
   * used id still fails with -20003; prefer generated ids).
   *
   * AUTHID DEFINER, not ACCESSIBLE BY: the runtime user calls the binding members directly,
   * the database calls the policy functions, and the store's packages call the rule members
   * (may_change, security_context_bound, deny). trust_service / distrust_service refuse any
   * session user but the owner.
   */
  c_namespace   CONSTANT VARCHAR2(128 CHAR) := 'AGENT_MEMORY_CTX';
  c_end_user    CONSTANT VARCHAR2(30 CHAR)  := 'END_USER_ID';
  c_max_user_id CONSTANT PLS_INTEGER   := 512;  -- characters: the width of user_id in AGENT_MEMORY_RECORDS

  -- Bind the end user of this session (until clear_end_user or the end of the session), with
  -- the policy USER_OWN_ROWS: its own records, nothing else (as in earlier releases; grants
  -- are not consulted).
  -- -20007 where apply_policies found no DBMS_RLS (Standard Edition 2): isolation unavailable.
  --   p_user_id  the user_id of the end user's records; -20001 when NULL or longer than 512
  PROCEDURE set_end_user(p_user_id IN VARCHAR2);

  -- Bind an end user through a deep data security context: the policies registered on the
  -- store (AGENT_MEMORY_SEC_POLICIES) and granted (AGENT_MEMORY_SEC_GRANTS) to the user name or to
  -- one of the groups decide what the session sees (read at this call: a grant or revoke
  -- takes effect at the next bind). No policy granted: the session sees nothing and writes
  -- nothing. Also sets the deep data security refusals (security_context_bound).
  -- -20007 where isolation is unavailable, as set_end_user.
  --   p_username  the end user's name, which is the user_id of its records (1 to 512
  --               characters; -20001 otherwise)
  --   p_groups    JSON array of group names (strings of 1 to 512 characters; -20001
  --               otherwise), or NULL for none. JSON, not a collection type, so that a
  --               client binds it like every other document of the store.
  PROCEDURE set_end_user_context(p_username IN VARCHAR2, p_groups IN JSON DEFAULT NULL);

  -- Forget the bound end user and its policies: the session is UNRESTRICTED again for the
  -- owner and trusted services, NONE for any other user. Call it before returning a pooled
  -- connection.
  -- Commit (or roll back) first when you wrote with p_commit => FALSE and the text index
  -- syncs ON COMMIT (ON_COMMIT in this rendering): the sync runs at commit in this
  -- session and reads the new rows through the VPD policies of that moment, so rows
  -- committed after clear_end_user, or after binding another end user, are read under a
  -- binding that cannot see them and are missing from the text index until rewritten.
  -- Enforced for a database user that is NONE when unbound: with ON COMMIT sync,
  -- clear_end_user and binding another end user raise -20001 while a transaction is open
  -- (DBMS_TRANSACTION.LOCAL_TRANSACTION_ID); the owner and trusted services, which see every
  -- row once unbound, commit before they bind another end user. The Python library commits
  -- inside each operation before it unbinds in the same block, and rolls back a failed one
  -- before it unbinds.
  PROCEDURE clear_end_user;

  -- The bound end user, or NULL.
  FUNCTION end_user_id RETURN VARCHAR2;

  -- The policies that apply to the bound end user, comma-separated in the order
  -- USER_OWN_ROWS,GLOBAL_MEMORIES; NULL when none applies or nothing is bound.
  FUNCTION end_user_policies RETURN VARCHAR2;

  -- 'BOUND', 'UNRESTRICTED' or 'NONE' (see above).
  FUNCTION access_mode RETURN VARCHAR2;

  -- TRUE when the end user was bound with set_end_user_context. The store then refuses
  -- with -20009 (deny) what the deep data security rules of the embedded backend refuse:
  -- writing a record it may not change, linking a record it may not change, deleting a
  -- user other than itself, a thread it may not change or an agent, and purging. Updates
  -- and deletes of records it may not change find nothing, as for missing records.
  FUNCTION security_context_bound RETURN BOOLEAN;

  -- May this session insert, update or delete a record whose user_id is p_user_id? The
  -- rule of the AM_END_USER_WRITE policy, for the store's packages to test before they
  -- act: TRUE when UNRESTRICTED; when BOUND, TRUE for the bound user's own records if
  -- USER_OWN_ROWS applies; FALSE otherwise.
  --   p_user_id  the record's user_id (NULL: a record of no user)
  FUNCTION may_change(p_user_id IN VARCHAR2) RETURN BOOLEAN;

  -- The user_id whose records a BOUND session may insert, update and delete: the bound end
  -- user when USER_OWN_ROWS applies, else NULL (also when not BOUND). With access_mode, the
  -- rule of may_change as a value a statement can compare user_id with, so that a SELECT
  -- ... FOR UPDATE locks only rows the session may change (a reader through
  -- GLOBAL_MEMORIES must not lock the shared memories it reads).
  FUNCTION writable_user RETURN VARCHAR2;

  -- Raise -20009 naming the bound end user and what it may not do.
  --   p_action  what was refused, for the message ("purge the store", ...)
  PROCEDURE deny(p_action IN VARCHAR2);

  -- Refuse (-20009, deny) a write of a BOUND session into a thread whose record belongs to
  -- a user it may not change (another user's thread, or a thread of no user), whatever the
  -- records' own user_id; nothing for other sessions (the write policy decides). The read
  -- policy hides another user's thread, so a lookup through it would find no thread and
  -- let the write in: the owner is looked up past it, one thread at a time, while the
  -- context attribute OWNER_LOOKUP holds that thread's id, and for that one statement
  -- records_read_policy shows that one thread record and nothing else. Only this member
  -- sets the attribute, it answers nothing but "refused or not" (that a thread of that id
  -- exists and is not the end user's, as a used id's -20003 tells that it exists), and it
  -- clears the attribute before it returns or raises. A thread that does not exist is not
  -- refused here (write_records' p_thread_id check reports it, -20002).
  --   p_thread_ids  the threads the write names (its p_thread_id, its records' thread_id and
  --                 its summaries' id, a summary's id being its thread's)
  PROCEDURE assert_may_write_into(p_thread_ids IN AGENT_MEMORY_TEXT_LIST);

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

  -- Owner only: (re)create the VPD policies AM_END_USER_READ (SELECT) and
  -- AM_END_USER_WRITE (INSERT, UPDATE, DELETE, update_check) on AGENT_MEMORY_RECORDS,
  -- AGENT_MEMORY_IMAGES and AGENT_MEMORY_RELATIONS, and drop the single policy
  -- AM_END_USER_ISOLATION of schema versions 1 and 2 (run by agent_memory_isolation.sql
  -- at install and upgrade; DBMS_RLS.ADD_POLICY commits). Needs EXECUTE ON SYS.DBMS_RLS
  -- granted directly. Without fine-grained access control (ORA-00439, Standard Edition 2) it
  -- records end_user_isolation = UNAVAILABLE in AGENT_MEMORY_META and warns instead of failing.
  PROCEDURE apply_policies;

  -- VPD policy functions (DBMS_RLS calls them with the schema and object name and adds the
  -- returned predicate; NULL adds none). The *_policy functions serve AM_END_USER_WRITE
  -- (what the session may change), the *_read_policy functions AM_END_USER_READ.
  --   p_schema  schema of the protected table
  --   p_object  name of the protected table
  FUNCTION records_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;

  -- Records the session may read: its own (USER_OWN_ROWS) and the memory-like records of
  -- no user (GLOBAL_MEMORIES); during assert_may_write_into's owner lookup of a BOUND
  -- session, the one thread record it looks up instead.
  --   p_schema  schema of the protected table
  --   p_object  name of the protected table
  FUNCTION records_read_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;

  -- Images: visible and changeable when their record is the end user's own (both policies).
  --   p_schema  schema of the protected table
  --   p_object  name of the protected table
  FUNCTION images_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;

  -- Relations the session may change: both endpoint records are its own.
  --   p_schema  schema of the protected table
  --   p_object  name of the protected table
  FUNCTION relations_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;

  -- Relations the session may read: both endpoint records are readable.
  --   p_schema  schema of the protected table
  --   p_object  name of the protected table
  FUNCTION relations_read_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;
END AGENT_MEMORY_SESSION;
/
