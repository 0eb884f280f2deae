CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_SESSION AS
  -- SYS_CONTEXT's length argument counts bytes (1 to 4000, default 256): 4000 holds every
  -- user_id of 512 characters (at most 2048 bytes in AL32UTF8); a smaller value would cut
  -- a multibyte id and compare a prefix. DBMS_SESSION.SET_CONTEXT keeps values up to 4 KB.
  -- The predicates are constant text: the bound id is read by SYS_CONTEXT inside the
  -- statement, never concatenated into it, so the cursor is shared and nothing a caller
  -- passes reaches SQL text. Subqueries in a predicate are resolved with the policy
  -- function owner's rights (DBMS_RLS overview, "Oracle Database PL/SQL Packages and Types
  -- Reference", https://docs.oracle.com/cd/F32587_01/arpls/DBMS_RLS.html).
  c_trusted_key CONSTANT VARCHAR2(16 CHAR) := 'trusted_service:';
  c_isolation_key CONSTANT VARCHAR2(30 CHAR) := 'end_user_isolation';
  e_feature_not_enabled EXCEPTION;  -- ORA-00439: feature not enabled (Standard Edition 2)
  PRAGMA EXCEPTION_INIT(e_feature_not_enabled, -439);
  c_deny        CONSTANT VARCHAR2(10 CHAR) := '1 = 0';
  c_records     CONSTANT VARCHAR2(200 CHAR) :=
    'user_id = SYS_CONTEXT(''AGENT_MEMORY_CTX'', ''END_USER_ID'', 4000)';
  c_images      CONSTANT VARCHAR2(400 CHAR) :=
    'seq IN (SELECT r.seq FROM AGENT_MEMORY_RECORDS r'
    || ' WHERE r.user_id = SYS_CONTEXT(''AGENT_MEMORY_CTX'', ''END_USER_ID'', 4000))';
  c_relations   CONSTANT VARCHAR2(1000 CHAR) :=
    'EXISTS (SELECT 1 FROM AGENT_MEMORY_RECORDS r WHERE r.id = source_id'
    || ' AND r.id_space = CASE WHEN source_type IN (''memory'', ''fact'', ''guideline'', ''preference'')'
    || ' THEN ''memory'' ELSE source_type END'
    || ' AND r.user_id = SYS_CONTEXT(''AGENT_MEMORY_CTX'', ''END_USER_ID'', 4000))'
    || ' AND EXISTS (SELECT 1 FROM AGENT_MEMORY_RECORDS r WHERE r.id = target_id'
    || ' AND r.id_space = CASE WHEN target_type IN (''memory'', ''fact'', ''guideline'', ''preference'')'
    || ' THEN ''memory'' ELSE target_type END'
    || ' AND r.user_id = SYS_CONTEXT(''AGENT_MEMORY_CTX'', ''END_USER_ID'', 4000))';

  PROCEDURE set_end_user(p_user_id IN VARCHAR2) IS
    l_unavailable NUMBER;
  BEGIN
    SELECT COUNT(*) INTO l_unavailable
      FROM AGENT_MEMORY_META m
     WHERE m.meta_key = c_isolation_key AND m.meta_value = 'UNAVAILABLE';
    IF l_unavailable > 0 THEN
      AGENT_MEMORY_ERRORS.schema_error('set_end_user: end-user isolation is not available in this'
        || ' database edition (no DBMS_RLS), so no end user can be bound');
    END IF;
    IF p_user_id IS NULL THEN
      AGENT_MEMORY_ERRORS.invalid_argument('set_end_user: p_user_id must not be null (use clear_end_user)');
    END IF;
    IF LENGTH(p_user_id) > c_max_user_id THEN
      AGENT_MEMORY_ERRORS.invalid_argument('set_end_user: p_user_id is longer than ' || c_max_user_id || ' characters');
    END IF;
    DBMS_SESSION.SET_CONTEXT(namespace => c_namespace, attribute => c_end_user, value => p_user_id);
  END set_end_user;

  PROCEDURE clear_end_user IS
  BEGIN
    DBMS_SESSION.CLEAR_CONTEXT(namespace => c_namespace, attribute => c_end_user);
  END clear_end_user;

  FUNCTION end_user_id RETURN VARCHAR2 IS
  BEGIN
    RETURN SYS_CONTEXT('AGENT_MEMORY_CTX', 'END_USER_ID', 4000);
  END end_user_id;

  FUNCTION access_mode RETURN VARCHAR2 IS
    l_session_user VARCHAR2(128 CHAR) := SYS_CONTEXT('USERENV', 'SESSION_USER');
    l_trusted      NUMBER;
  BEGIN
    IF end_user_id IS NOT NULL THEN
      RETURN 'BOUND';
    END IF;
    IF l_session_user = $$PLSQL_UNIT_OWNER THEN
      RETURN 'UNRESTRICTED';
    END IF;
    -- Oracle Text's own sessions (CTXSYS: automatic maintenance, AUTO sync) read the base
    -- table to index it; under '1 = 0' they would index nothing. SYS is exempt from VPD
    -- anyway. ON COMMIT sync runs in the writing session (a bound one sees its own rows, the
    -- only ones it can write); MANUAL sync runs as the owner (sync_text_index).
    IF l_session_user = 'CTXSYS' THEN
      RETURN 'UNRESTRICTED';
    END IF;
    SELECT COUNT(*) INTO l_trusted
      FROM AGENT_MEMORY_META m
     WHERE m.meta_key = c_trusted_key || l_session_user;
    RETURN CASE WHEN l_trusted > 0 THEN 'UNRESTRICTED' ELSE 'NONE' END;
  END access_mode;

  PROCEDURE assert_unrestricted(p_action IN VARCHAR2) IS
    l_mode VARCHAR2(16 CHAR) := access_mode;
  BEGIN
    IF l_mode <> 'UNRESTRICTED' THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_action || ' needs an unrestricted session (the store owner'
        || ' or a trusted service with no end user bound); this session is ' || l_mode);
    END IF;
  END assert_unrestricted;

  PROCEDURE assert_owner(p_action IN VARCHAR2) IS
  BEGIN
    IF SYS_CONTEXT('USERENV', 'SESSION_USER') <> $$PLSQL_UNIT_OWNER THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_action || ' is reserved to the store owner');
    END IF;
  END assert_owner;

  FUNCTION checked_user(p_db_user IN VARCHAR2) RETURN VARCHAR2 IS
    l_user VARCHAR2(128 CHAR);
  BEGIN
    IF p_db_user IS NULL OR LENGTH(p_db_user) > 128 - LENGTH(c_trusted_key) THEN
      AGENT_MEMORY_ERRORS.invalid_argument('p_db_user must be a database user name of at most '
        || (128 - LENGTH(c_trusted_key)) || ' characters');
    END IF;
    -- Checked: DBMS_ASSERT.SCHEMA_NAME (an existing schema, exact case),
    --   https://docs.oracle.com/en/database/oracle/oracle-database/23/arpls/DBMS_ASSERT.html
    l_user := DBMS_ASSERT.SCHEMA_NAME(p_db_user);
    RETURN l_user;
  END checked_user;

  PROCEDURE trust_service(p_db_user IN VARCHAR2) IS
    l_user VARCHAR2(128 CHAR);
  BEGIN
    assert_owner('trust_service');
    l_user := checked_user(p_db_user);
    MERGE INTO AGENT_MEMORY_META m
    USING (SELECT c_trusted_key || l_user AS k FROM dual) s
       ON (m.meta_key = s.k)
     WHEN NOT MATCHED THEN INSERT (meta_key, meta_value) VALUES (s.k, 'Y');
    COMMIT;
  END trust_service;

  PROCEDURE distrust_service(p_db_user IN VARCHAR2) IS
  BEGIN
    assert_owner('distrust_service');
    DELETE FROM AGENT_MEMORY_META m WHERE m.meta_key = c_trusted_key || p_db_user;
    COMMIT;
  END distrust_service;

  PROCEDURE apply_policies IS
    -- Policy names are unique per table, so a short fixed name needs no prefix.
    c_policy CONSTANT VARCHAR2(30 CHAR) := 'AM_END_USER_ISOLATION';

    PROCEDURE replace_policy(p_table IN VARCHAR2, p_function IN VARCHAR2) IS
    BEGIN
      BEGIN
        DBMS_RLS.DROP_POLICY(object_schema => $$PLSQL_UNIT_OWNER, object_name => p_table,
                             policy_name => c_policy);
      EXCEPTION
        WHEN OTHERS THEN
          IF SQLCODE <> -28102 THEN  -- ORA-28102: policy does not exist (first install)
            RAISE;
          END IF;
      END;
      -- Checked: DBMS_RLS.ADD_POLICY (object_schema, object_name, policy_name,
      --   function_schema, policy_function, statement_types, update_check, enable,
      --   static_policy, policy_type, ...); DBMS_RLS.DYNAMIC re-runs the function for every
      --   execution, so distrust_service and clear_end_user act on the next statement;
      --   https://docs.oracle.com/cd/F32587_01/arpls/DBMS_RLS.html
      -- VPD is not enforced for SYS and EXEMPT ACCESS POLICY holders,
      --   https://docs.oracle.com/database/121/SUTIL/GUID-A3AAF078-2769-4179-901D-F8DBCF8AF205.htm
      DBMS_RLS.ADD_POLICY(
        object_schema   => $$PLSQL_UNIT_OWNER,
        object_name     => p_table,
        policy_name     => c_policy,
        function_schema => $$PLSQL_UNIT_OWNER,
        policy_function => p_function,
        statement_types => 'SELECT, INSERT, UPDATE, DELETE',
        update_check    => TRUE,
        enable          => TRUE,
        policy_type     => DBMS_RLS.DYNAMIC);
    END replace_policy;
  BEGIN
    assert_owner('apply_policies');
    replace_policy('AGENT_MEMORY_RECORDS', 'AGENT_MEMORY_SESSION.RECORDS_POLICY');
    replace_policy('AGENT_MEMORY_IMAGES', 'AGENT_MEMORY_SESSION.IMAGES_POLICY');
    replace_policy('AGENT_MEMORY_RELATIONS', 'AGENT_MEMORY_SESSION.RELATIONS_POLICY');
    DELETE FROM AGENT_MEMORY_META m WHERE m.meta_key = c_isolation_key;
    COMMIT;
  EXCEPTION
    WHEN e_feature_not_enabled THEN
      -- Standard Edition 2: no DBMS_RLS ("DBMS_RLS is available with the Enterprise Edition
      -- only", https://docs.oracle.com/database/122/ARPLS/DBMS_RLS.htm; Free has it). The
      -- store still installs; set_end_user refuses, since nothing would enforce the binding.
      MERGE INTO AGENT_MEMORY_META m
      USING (SELECT c_isolation_key AS k FROM dual) s
         ON (m.meta_key = s.k)
       WHEN MATCHED THEN UPDATE SET m.meta_value = 'UNAVAILABLE'
       WHEN NOT MATCHED THEN INSERT (meta_key, meta_value) VALUES (s.k, 'UNAVAILABLE');
      COMMIT;
      DBMS_OUTPUT.PUT_LINE('warning: end-user isolation is not available in this edition'
        || ' (ORA-00439, no fine-grained access control): set_end_user will refuse');
  END apply_policies;

  FUNCTION predicate(p_bound IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    -- A policy function must not raise (the statement would fail with ORA-28112): every
    -- branch returns a predicate, and an unexpected error denies.
    RETURN CASE access_mode
             WHEN 'BOUND' THEN p_bound
             WHEN 'UNRESTRICTED' THEN NULL
             ELSE c_deny
           END;
  EXCEPTION
    WHEN OTHERS THEN
      RETURN c_deny;
  END predicate;

  FUNCTION records_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN predicate(c_records);
  END records_policy;

  FUNCTION images_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN predicate(c_images);
  END images_policy;

  FUNCTION relations_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN predicate(c_relations);
  END relations_policy;
END AGENT_MEMORY_SESSION;
/
