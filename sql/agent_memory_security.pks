CREATE OR REPLACE PACKAGE AGENT_MEMORY_SECURITY AUTHID DEFINER AS
  /*
   * AGENT_MEMORY_SECURITY: deep data security administration of the agent-memory store
   * "AGENT_MEMORY": which policies the store has, and to whom they are granted.
   *
   * The Python functions of oracleagentmemory.core.deepsec (add/remove/list
   * _deep_data_security_policies, grant/revoke/list_agent_memory_granted_policies) call the
   * members below when their connection is an oracledb connection or pool; other
   * applications call them the same way:
   *   EXEC AGENT_MEMORY_SECURITY.add_policies(JSON('["USER_OWN_ROWS", "GLOBAL_MEMORIES"]'))
   *   EXEC AGENT_MEMORY_SECURITY.grant_policies(JSON('[{"kind": "GROUP", "name": "customers"}]'), JSON('["USER_OWN_ROWS"]'))
   *
   *   policy           what an end user granted it may do (enforced by the VPD policies of
   *                    AGENT_MEMORY_SESSION, see its specification)
   *   ---------------  ---------------------------------------------------------------------
   *   USER_OWN_ROWS    read and change the records whose user_id is the end user's name
   *   GLOBAL_MEMORIES  read (never change) the memory-like records whose user_id is NULL
   *
   *   principal kind   who it names
   *   ---------------  ---------------------------------------------------------------------
   *   LOCAL_USER       one end user, by the name AGENT_MEMORY_SESSION.set_end_user_context binds
   *   GROUP            every end user bound with that group among its p_groups
   *
   * Names (policies, principal kinds) are exact and upper-case; principal names are compared
   * exactly (case and spaces count). Policies and grants live in AGENT_MEMORY_SEC_POLICIES and
   * AGENT_MEMORY_SEC_GRANTS; removing a policy removes its grants. A change applies to the next
   * binding of an end user (set_end_user_context reads the grants when it binds; the Python
   * library binds for every operation).
   *
   * Only the store owner may call these members (the session user must be the owner,
   * checked like trust_service: -20009 otherwise); grants_runtime.sql grants nothing on
   * this package. Arguments are JSON documents (one round trip for a list, bound like every
   * other document of the store); malformed ones are -20001. The changing members are one
   * transaction each: a savepoint, rolled back to on any error, and a commit at the end
   * unless p_commit => FALSE.
   *
   * AUTHID DEFINER, on purpose: the tables are the owner's and so is every caller; definer's
   * rights resolve them in the owner's schema whatever the session's CURRENT_SCHEMA, and keep
   * them changeable only through these checked members even if EXECUTE is granted by
   * mistake. Not ACCESSIBLE BY: a DBA script, SQL*Plus or the Python library call it
   * directly.
   */

  -- Register policies on the store (registering one twice changes nothing).
  --   p_policies  JSON array of policy names (USER_OWN_ROWS, GLOBAL_MEMORIES); -20001 for any
  --               other value
  --   p_commit    commit at the end (FALSE: the caller owns the transaction)
  PROCEDURE add_policies(p_policies IN JSON, p_commit IN BOOLEAN DEFAULT TRUE);

  -- Unregister policies and withdraw their grants (one not registered changes nothing).
  --   p_policies  JSON array of policy names; -20001 for an unknown name
  --   p_commit    commit at the end (FALSE: the caller owns the transaction)
  PROCEDURE remove_policies(p_policies IN JSON, p_commit IN BOOLEAN DEFAULT TRUE);

  -- The policies registered on the store: a JSON array of names in name order.
  FUNCTION list_policies RETURN JSON;

  -- Grant registered policies to principals: every principal gets every policy (granting
  -- twice changes nothing). -20001 when a policy is not registered (add_policies first).
  --   p_principals  JSON array of {"kind": "LOCAL_USER" | "GROUP", "name": "<1 to 512
  --                 characters, not only spaces>"}; -20001 otherwise
  --   p_policies    JSON array of policy names
  --   p_commit      commit at the end (FALSE: the caller owns the transaction)
  PROCEDURE grant_policies(p_principals IN JSON, p_policies IN JSON,
                           p_commit IN BOOLEAN DEFAULT TRUE);

  -- Withdraw grants: every listed policy from every listed principal (a grant that does not
  -- exist changes nothing).
  --   p_principals  JSON array of {"kind", "name"}, as for grant_policies
  --   p_policies    JSON array of policy names
  --   p_commit      commit at the end (FALSE: the caller owns the transaction)
  PROCEDURE revoke_policies(p_principals IN JSON, p_policies IN JSON,
                            p_commit IN BOOLEAN DEFAULT TRUE);

  -- Every principal with a grant and the policies granted to it: a JSON array of
  -- {"kind": ..., "name": ..., "policies": [names in name order]}, ordered by kind, then
  -- name.
  FUNCTION list_grants RETURN JSON;

  -- 'NATIVE' when the store also keeps its policies and grants as the database's own Deep
  -- Data Security objects, else 'VPD' (the tables above only), as apply_native_grants
  -- recorded it. In both modes the library's own binding (set_end_user_context) is enforced
  -- by the VPD policies of AGENT_MEMORY_SESSION, with the same rules.
  FUNCTION deep_data_security RETURN VARCHAR2;

  -- Owner only (-20009 otherwise): detect Deep Data Security and, where the database has
  -- it, make its objects match the tables. Native when the dictionary view USER_DATA_GRANTS
  -- exists (Oracle AI Database 26ai, Release Update 23.26.2 and later) and the owner holds
  -- CREATE DATA ROLE, CREATE DATA GRANT and GRANT ANY DATA ROLE (grants_owner.sql grants
  -- them there); VPD otherwise. Recorded in AGENT_MEMORY_META (deep_data_security). Run by
  -- agent_memory_isolation.sql at install and upgrade, and by the changing members
  -- above after a commit (not with p_commit => FALSE: the objects are DDL, which commits;
  -- run this after your own commit then). Per policy: a local data role, the policy's data
  -- grants on the store tables to that role and to a data role mapped to each granted OCI
  -- IAM group (MAPPED TO 'IAM_OAUTH_GROUP=<group>'), and the role granted to each granted
  -- local end user that DBA_END_USERS lists.
  PROCEDURE apply_native_grants;
END AGENT_MEMORY_SECURITY;
/
