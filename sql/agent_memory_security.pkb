CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_SECURITY AS
  -- Documents are read and built with the PL/SQL JSON types (load, get, append, put; a
  -- JSON_ARRAY_T is a JSON_ELEMENT_T, the supertype put takes; to_json is the inverse of load).
  -- The policy and principal vocabulary, rendered from python/oracleagentmemory/_vocabulary.py.
  c_policy_names    CONSTANT VARCHAR2(200 CHAR) := 'USER_OWN_ROWS, GLOBAL_MEMORIES';
  c_principal_kinds CONSTANT VARCHAR2(200 CHAR) := 'LOCAL_USER, GROUP';

  -- One checked principal of a p_principals document.
  TYPE principal_t IS RECORD (
    kind VARCHAR2(16 CHAR),
    name VARCHAR2(512 CHAR)
  );
  TYPE principals_t IS TABLE OF principal_t INDEX BY PLS_INTEGER;

  PROCEDURE finish(p_commit IN BOOLEAN) IS
  BEGIN
    IF NVL(p_commit, TRUE) THEN
      COMMIT;
    END IF;
  END finish;

  -- -20009 unless the session user is the store owner (as trust_service checks it).
  -- $$PLSQL_UNIT_OWNER is the owner of this package (a predefined inquiry directive).
  PROCEDURE assert_owner(p_action IN VARCHAR2) IS
  BEGIN
    IF SYS_CONTEXT('USERENV', 'SESSION_USER') <> $$PLSQL_UNIT_OWNER THEN
      AGENT_MEMORY_ERRORS.access_denied(p_action || ' is reserved to the store owner');
    END IF;
  END assert_owner;

  -- A p_policies document: a JSON array of known policy names (-20001 otherwise).
  FUNCTION policy_names(p_policies IN JSON) RETURN AGENT_MEMORY_TEXT_LIST IS
    l_names AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_CODEC.id_list(
                                   AGENT_MEMORY_CODEC.to_array(p_policies, 'policies', FALSE),
                                   'policies');
  BEGIN
    FOR i IN 1 .. l_names.COUNT LOOP
      IF l_names(i) NOT IN ('USER_OWN_ROWS', 'GLOBAL_MEMORIES') THEN
        AGENT_MEMORY_ERRORS.invalid_argument('policies must name ' || c_policy_names || ', got '
          || AGENT_MEMORY_CODEC.quoted(l_names(i)));
      END IF;
    END LOOP;
    RETURN l_names;
  END policy_names;

  -- A p_principals document: a JSON array of {"kind", "name"} objects (-20001 otherwise).
  FUNCTION principals(p_principals IN JSON) RETURN principals_t IS
    l_array JSON_ARRAY_T := AGENT_MEMORY_CODEC.to_array(p_principals, 'principals', FALSE);
    l_el    JSON_ELEMENT_T;
    l_obj   JSON_OBJECT_T;
    l_where VARCHAR2(40 CHAR);
    l_one   principal_t;
    l_out   principals_t;
  BEGIN
    FOR i IN 0 .. l_array.get_size - 1 LOOP
      l_where := 'principals[' || i || ']';
      l_el := l_array.get(i);
      IF l_el IS NULL OR NOT l_el.is_object THEN
        AGENT_MEMORY_ERRORS.invalid_argument(l_where || ' must be an object with "kind" and "name"');
      END IF;
      l_obj := TREAT(l_el AS JSON_OBJECT_T);
      l_one.kind := AGENT_MEMORY_CODEC.opt_text(l_obj, 'kind', l_where || '.kind', 16);
      IF l_one.kind IS NULL OR l_one.kind NOT IN ('LOCAL_USER', 'GROUP') THEN
        AGENT_MEMORY_ERRORS.invalid_argument(l_where || '.kind must be ' || c_principal_kinds);
      END IF;
      l_one.name := AGENT_MEMORY_CODEC.opt_id(l_obj, 'name', l_where || '.name');
      IF l_one.name IS NULL OR TRIM(l_one.name) IS NULL THEN
        AGENT_MEMORY_ERRORS.invalid_argument(l_where || '.name must have 1 to 512 characters, not '
          || 'only spaces');
      END IF;
      l_out(i + 1) := l_one;
    END LOOP;
    RETURN l_out;
  END principals;

  PROCEDURE add_policies_rows(p_policies IN JSON, p_commit IN BOOLEAN DEFAULT TRUE) IS
    l_names AGENT_MEMORY_TEXT_LIST;
    l_now   TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
  BEGIN
    SAVEPOINT am_add_policies;
    assert_owner('add_policies');
    l_names := policy_names(p_policies);
    MERGE INTO AGENT_MEMORY_SEC_POLICIES p
    USING (SELECT DISTINCT t.COLUMN_VALUE AS policy_name FROM TABLE(l_names) t) s
       ON (p.policy_name = s.policy_name)
     WHEN NOT MATCHED THEN INSERT (policy_name, created_at) VALUES (s.policy_name, l_now);
    finish(p_commit);
  EXCEPTION
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_add_policies;
      RAISE;
  END add_policies_rows;

  PROCEDURE remove_policies_rows(p_policies IN JSON, p_commit IN BOOLEAN DEFAULT TRUE) IS
    l_names AGENT_MEMORY_TEXT_LIST;
  BEGIN
    SAVEPOINT am_remove_policies;
    assert_owner('remove_policies');
    l_names := policy_names(p_policies);
    -- their grants go with them (AGENT_MEMORY_SEC_GRANTS_POLICY_FK ... ON DELETE CASCADE)
    DELETE FROM AGENT_MEMORY_SEC_POLICIES p
     WHERE p.policy_name IN (SELECT t.COLUMN_VALUE FROM TABLE(l_names) t);
    finish(p_commit);
  EXCEPTION
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_remove_policies;
      RAISE;
  END remove_policies_rows;

  FUNCTION list_policies RETURN JSON IS
    l_out JSON_ARRAY_T := JSON_ARRAY_T();
  BEGIN
    assert_owner('list_policies');
    FOR p IN (SELECT s.policy_name FROM AGENT_MEMORY_SEC_POLICIES s ORDER BY s.policy_name) LOOP
      l_out.append(p.policy_name);
    END LOOP;
    RETURN l_out.to_json;
  END list_policies;

  PROCEDURE grant_policies_rows(p_principals IN JSON, p_policies IN JSON,
                           p_commit IN BOOLEAN DEFAULT TRUE) IS
    l_who     principals_t;
    l_names   AGENT_MEMORY_TEXT_LIST;
    l_missing VARCHAR2(200 CHAR);
    l_kind    VARCHAR2(16 CHAR);
    l_name    VARCHAR2(512 CHAR);
    l_policy  VARCHAR2(512 CHAR);
    l_now     TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
  BEGIN
    SAVEPOINT am_grant_policies;
    assert_owner('grant_policies');
    l_who := principals(p_principals);
    l_names := policy_names(p_policies);
    SELECT LISTAGG(m.policy_name, ', ') WITHIN GROUP (ORDER BY m.policy_name)
      INTO l_missing
      FROM (SELECT DISTINCT t.COLUMN_VALUE AS policy_name FROM TABLE(l_names) t) m
     WHERE NOT EXISTS (SELECT 1 FROM AGENT_MEMORY_SEC_POLICIES p
                        WHERE p.policy_name = m.policy_name);
    IF l_missing IS NOT NULL THEN
      AGENT_MEMORY_ERRORS.invalid_argument('policies not registered on the store: ' || l_missing
        || '; add them with add_policies first');
    END IF;
    FOR i IN 1 .. l_who.COUNT LOOP
      l_kind := l_who(i).kind;
      l_name := l_who(i).name;
      FOR j IN 1 .. l_names.COUNT LOOP
        l_policy := l_names(j);
        MERGE INTO AGENT_MEMORY_SEC_GRANTS g
        USING (SELECT l_kind AS principal_kind, l_name AS principal_name,
                      l_policy AS policy_name
                 FROM dual) s
           ON (g.principal_kind = s.principal_kind AND g.principal_name = s.principal_name
               AND g.policy_name = s.policy_name)
         WHEN NOT MATCHED THEN
           INSERT (principal_kind, principal_name, policy_name, created_at)
           VALUES (s.principal_kind, s.principal_name, s.policy_name, l_now);
      END LOOP;
    END LOOP;
    finish(p_commit);
  EXCEPTION
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_grant_policies;
      RAISE;
  END grant_policies_rows;

  PROCEDURE revoke_policies_rows(p_principals IN JSON, p_policies IN JSON,
                            p_commit IN BOOLEAN DEFAULT TRUE) IS
    l_who   principals_t;
    l_names AGENT_MEMORY_TEXT_LIST;
    l_kind  VARCHAR2(16 CHAR);
    l_name  VARCHAR2(512 CHAR);
  BEGIN
    SAVEPOINT am_revoke_policies;
    assert_owner('revoke_policies');
    l_who := principals(p_principals);
    l_names := policy_names(p_policies);
    FOR i IN 1 .. l_who.COUNT LOOP
      l_kind := l_who(i).kind;
      l_name := l_who(i).name;
      DELETE FROM AGENT_MEMORY_SEC_GRANTS g
       WHERE g.principal_kind = l_kind
         AND g.principal_name = l_name
         AND g.policy_name IN (SELECT t.COLUMN_VALUE FROM TABLE(l_names) t);
    END LOOP;
    finish(p_commit);
  EXCEPTION
    WHEN OTHERS THEN
      ROLLBACK TO SAVEPOINT am_revoke_policies;
      RAISE;
  END revoke_policies_rows;

  FUNCTION list_grants RETURN JSON IS
    l_out      JSON_ARRAY_T := JSON_ARRAY_T();
    l_entry    JSON_OBJECT_T;
    l_policies JSON_ARRAY_T;
    l_kind     VARCHAR2(16 CHAR);
    l_name     VARCHAR2(512 CHAR);
  BEGIN
    assert_owner('list_grants');
    FOR g IN (SELECT s.principal_kind, s.principal_name, s.policy_name
                FROM AGENT_MEMORY_SEC_GRANTS s
               ORDER BY s.principal_kind, s.principal_name, s.policy_name) LOOP
      IF l_entry IS NULL OR g.principal_kind <> l_kind OR g.principal_name <> l_name THEN
        IF l_entry IS NOT NULL THEN
          l_entry.put('policies', l_policies);
          l_out.append(l_entry);
        END IF;
        l_kind := g.principal_kind;
        l_name := g.principal_name;
        l_entry := JSON_OBJECT_T();
        l_entry.put('kind', l_kind);
        l_entry.put('name', l_name);
        l_policies := JSON_ARRAY_T();
      END IF;
      l_policies.append(g.policy_name);
    END LOOP;
    IF l_entry IS NOT NULL THEN
      l_entry.put('policies', l_policies);
      l_out.append(l_entry);
    END IF;
    RETURN l_out.to_json;
  END list_grants;
  -- -- Deep Data Security, where the database has it ----------------------------------
  -- On a database with Oracle Deep Data Security (26ai, Release Update 23.26.2 and later) the
  -- grants are also kept as the database's own objects, mirrored from the store's tables
  -- after every committed change: a local data role per policy, holding the policy's data
  -- grants on the store's tables; a LOCAL_USER grant is that data role granted to the local
  -- end user of that name (when DBA_END_USERS lists one); a GROUP grant adds a data role
  -- mapped to the OCI IAM group (IAM_OAUTH_GROUP=<name>) to the grantees of the policy's
  -- data grants (a mapped data role cannot be granted to anything, only named in a data
  -- grant). A 26ai DBA reads them in DBA_DATA_ROLES, DBA_DATA_ROLE_GRANTS and
  -- DBA_DATA_GRANTS. The predicates are the rules of the VPD policies of AGENT_MEMORY_SESSION,
  -- with ORA_END_USER_CONTEXT.username for the end user of a Deep Sec end-user security
  -- context. Everything that names a 26ai object is dynamic SQL, so the package compiles on
  -- 23ai, where the mode is VPD and nothing here runs. The statements' grammar: docs/oracle.md,
  -- "Pages the code rests on": Deep Data Security objects.
  c_mode_key CONSTANT VARCHAR2(30 CHAR) := 'deep_data_security';
  -- A policy's data grants: name and 'privileges ON table WHERE predicate'.
  TYPE data_grant_t IS RECORD (name VARCHAR2(128 CHAR), body VARCHAR2(2000 CHAR));
  TYPE data_grants_t IS TABLE OF data_grant_t INDEX BY PLS_INTEGER;

  FUNCTION data_grants(p_policy IN VARCHAR2) RETURN data_grants_t IS
    l_out data_grants_t;
  BEGIN
    IF p_policy = 'USER_OWN_ROWS' THEN
      l_out(1).name := 'AGENT_MEMORY_OWN_RECORDS';
      l_out(1).body := 'SELECT, INSERT, UPDATE, DELETE ON AGENT_MEMORY_RECORDS r WHERE r.user_id = ORA_END_USER_CONTEXT.username';
      l_out(2).name := 'AGENT_MEMORY_OWN_IMAGES';
      l_out(2).body := 'SELECT, INSERT, UPDATE, DELETE ON AGENT_MEMORY_IMAGES WHERE seq IN'
        || ' (SELECT r.seq FROM AGENT_MEMORY_RECORDS r WHERE r.user_id = ORA_END_USER_CONTEXT.username)';
      l_out(3).name := 'AGENT_MEMORY_OWN_RELATIONS';
      l_out(3).body := 'SELECT, INSERT, UPDATE, DELETE ON AGENT_MEMORY_RELATIONS WHERE'
        || ' EXISTS (SELECT 1 FROM AGENT_MEMORY_RECORDS r WHERE r.id = source_id AND r.id_space = CASE WHEN source_type IN (''memory'', ''fact'', ''guideline'', ''preference'') THEN ''memory'' ELSE source_type END AND r.user_id = ORA_END_USER_CONTEXT.username)'
        || ' AND EXISTS (SELECT 1 FROM AGENT_MEMORY_RECORDS r WHERE r.id = target_id AND r.id_space = CASE WHEN target_type IN (''memory'', ''fact'', ''guideline'', ''preference'') THEN ''memory'' ELSE target_type END AND r.user_id = ORA_END_USER_CONTEXT.username)';
    ELSE
      l_out(1).name := 'AGENT_MEMORY_GLOBAL_RECORDS';
      l_out(1).body := 'SELECT ON AGENT_MEMORY_RECORDS r WHERE r.user_id IS NULL AND r.record_type IN (''memory'', ''fact'', ''guideline'', ''preference'')';
      l_out(2).name := 'AGENT_MEMORY_GLOBAL_RELATIONS';
      l_out(2).body := 'SELECT ON AGENT_MEMORY_RELATIONS WHERE'
        || ' EXISTS (SELECT 1 FROM AGENT_MEMORY_RECORDS r WHERE r.id = source_id AND r.id_space = CASE WHEN source_type IN (''memory'', ''fact'', ''guideline'', ''preference'') THEN ''memory'' ELSE source_type END AND r.user_id IS NULL AND r.record_type IN (''memory'', ''fact'', ''guideline'', ''preference''))'
        || ' AND EXISTS (SELECT 1 FROM AGENT_MEMORY_RECORDS r WHERE r.id = target_id AND r.id_space = CASE WHEN target_type IN (''memory'', ''fact'', ''guideline'', ''preference'') THEN ''memory'' ELSE target_type END AND r.user_id IS NULL AND r.record_type IN (''memory'', ''fact'', ''guideline'', ''preference''))';
    END IF;
    RETURN l_out;
  END data_grants;

  -- 16 hex digits of SHA-256: role names are database-wide, so they carry the owner and the
  -- store (or the group) as a digest, which holds only 0-9 and A-F.
  FUNCTION hex_key(p_text IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN SUBSTR(RAWTOHEX(DBMS_CRYPTO.HASH(UTL_RAW.CAST_TO_RAW(p_text),
                                            DBMS_CRYPTO.HASH_SH256)), 1, 16);
  END hex_key;

  FUNCTION policy_role(p_policy IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN 'AM_' || hex_key($$PLSQL_UNIT_OWNER || '.AGENT_MEMORY') || '_'
      || CASE p_policy WHEN 'USER_OWN_ROWS' THEN 'USER_OWN_ROWS' ELSE 'GLOBAL_MEMORIES' END;
  END policy_role;

  FUNCTION group_role(p_group IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN 'AM_' || hex_key($$PLSQL_UNIT_OWNER || '.AGENT_MEMORY') || '_G_' || hex_key(p_group);
  END group_role;

  PROCEDURE run_ddl(p_ddl IN VARCHAR2) IS
  BEGIN
    -- Deep Sec DDL of mirror_policy: rendered names and predicates, hex role keys (hex_key),
    -- names through DBMS_ASSERT.ENQUOTE_NAME and ENQUOTE_LITERAL.
    -- dynamic-sql: whitelisted DDL built only by mirror_policy from the values above
    EXECUTE IMMEDIATE p_ddl;
  END run_ddl;

  FUNCTION end_user_exists(p_name IN VARCHAR2) RETURN BOOLEAN IS
    l_count NUMBER;
  BEGIN
    -- dynamic-sql: constant query (DBA_END_USERS exists from 26ai on), the name a bind
    EXECUTE IMMEDIATE 'SELECT COUNT(*) FROM dba_end_users WHERE username = :1'
      INTO l_count USING p_name;
    RETURN l_count > 0;
  END end_user_exists;

  FUNCTION native_mode RETURN BOOLEAN IS
    l_mode VARCHAR2(30 CHAR);
  BEGIN
    SELECT MIN(m.meta_value) INTO l_mode FROM AGENT_MEMORY_META m WHERE m.meta_key = c_mode_key;
    RETURN l_mode IS NOT NULL AND l_mode = 'NATIVE';
  END native_mode;

  -- One policy's objects made to match the store's committed rows.
  PROCEDURE mirror_policy(p_policy IN VARCHAR2) IS
    l_grants     data_grants_t := data_grants(p_policy);
    l_role       VARCHAR2(128 CHAR) := policy_role(p_policy);
    l_to         VARCHAR2(32000 CHAR) := l_role;
    l_count      NUMBER;
    l_holders    AGENT_MEMORY_TEXT_LIST;
  BEGIN
    SELECT COUNT(*) INTO l_count FROM AGENT_MEMORY_SEC_POLICIES p WHERE p.policy_name = p_policy;
    IF l_count = 0 THEN
      FOR i IN 1 .. l_grants.COUNT LOOP
        run_ddl('DROP DATA GRANT IF EXISTS ' || l_grants(i).name);
      END LOOP;
      RETURN;
    END IF;
    run_ddl('CREATE DATA ROLE IF NOT EXISTS ' || l_role);
    FOR g IN (SELECT s.principal_name FROM AGENT_MEMORY_SEC_GRANTS s
               WHERE s.principal_kind = 'GROUP' AND s.policy_name = p_policy
               ORDER BY s.principal_name) LOOP
      run_ddl('CREATE DATA ROLE IF NOT EXISTS ' || group_role(g.principal_name) || ' MAPPED TO '
        || DBMS_ASSERT.ENQUOTE_LITERAL('IAM_OAUTH_GROUP=' || g.principal_name));
      l_to := l_to || ', ' || group_role(g.principal_name);
    END LOOP;
    FOR i IN 1 .. l_grants.COUNT LOOP
      run_ddl('CREATE OR REPLACE DATA GRANT ' || l_grants(i).name || ' AS ' || l_grants(i).body
        || ' TO ' || l_to);
    END LOOP;
    FOR u IN (SELECT s.principal_name FROM AGENT_MEMORY_SEC_GRANTS s
               WHERE s.principal_kind = 'LOCAL_USER' AND s.policy_name = p_policy
               ORDER BY s.principal_name) LOOP
      IF end_user_exists(u.principal_name) THEN
        run_ddl('GRANT DATA ROLE ' || l_role || ' TO '
          || DBMS_ASSERT.ENQUOTE_NAME(u.principal_name, FALSE));
      END IF;
    END LOOP;
    -- dynamic-sql: constant query (DBA_DATA_ROLE_GRANTS exists from 26ai on), binds only
    EXECUTE IMMEDIATE 'SELECT g.grantee FROM dba_data_role_grants g'
      || ' WHERE g.data_role = :1 AND g.grantee_type = ''END USER'''
      BULK COLLECT INTO l_holders USING l_role;
    FOR i IN 1 .. l_holders.COUNT LOOP
      SELECT COUNT(*) INTO l_count FROM AGENT_MEMORY_SEC_GRANTS s
       WHERE s.principal_kind = 'LOCAL_USER' AND s.principal_name = l_holders(i)
         AND s.policy_name = p_policy;
      IF l_count = 0 THEN
        run_ddl('REVOKE DATA ROLE IF EXISTS ' || l_role || ' FROM '
          || DBMS_ASSERT.ENQUOTE_NAME(l_holders(i), FALSE));
      END IF;
    END LOOP;
  END mirror_policy;

  PROCEDURE mirror IS
  BEGIN
    mirror_policy('USER_OWN_ROWS');
    mirror_policy('GLOBAL_MEMORIES');
  END mirror;

  -- After a change the dictionary objects follow the committed rows. DDL commits, so
  -- nothing is mirrored for p_commit => FALSE: apply_native_grants, or the next committed
  -- change, brings them up to date.
  PROCEDURE after_change(p_commit IN BOOLEAN) IS
  BEGIN
    IF NVL(p_commit, TRUE) AND native_mode THEN
      mirror;
    END IF;
  END after_change;

  FUNCTION deep_data_security RETURN VARCHAR2 IS
  BEGIN
    RETURN CASE WHEN native_mode THEN 'NATIVE' ELSE 'VPD' END;
  END deep_data_security;

  PROCEDURE apply_native_grants IS
    l_views NUMBER;
    l_privs NUMBER;
    l_mode  VARCHAR2(30 CHAR);
  BEGIN
    assert_owner('apply_native_grants');
    SELECT COUNT(*) INTO l_views FROM all_views v
     WHERE v.owner = 'SYS' AND v.view_name = 'USER_DATA_GRANTS';
    SELECT COUNT(DISTINCT p.privilege) INTO l_privs FROM session_privs p
     WHERE p.privilege IN ('CREATE DATA ROLE', 'CREATE DATA GRANT', 'GRANT ANY DATA ROLE');
    l_mode := CASE WHEN l_views > 0 AND l_privs = 3 THEN 'NATIVE' ELSE 'VPD' END;
    MERGE INTO AGENT_MEMORY_META m
    USING (SELECT c_mode_key AS k, l_mode AS v FROM dual) s
       ON (m.meta_key = s.k)
     WHEN MATCHED THEN UPDATE SET m.meta_value = s.v
     WHEN NOT MATCHED THEN INSERT (meta_key, meta_value) VALUES (s.k, s.v);
    COMMIT;
    IF l_mode = 'NATIVE' THEN
      mirror;
    END IF;
  END apply_native_grants;

  PROCEDURE add_policies(p_policies IN JSON, p_commit IN BOOLEAN DEFAULT TRUE) IS
  BEGIN
    add_policies_rows(p_policies, p_commit);
    after_change(p_commit);
  END add_policies;

  PROCEDURE remove_policies(p_policies IN JSON, p_commit IN BOOLEAN DEFAULT TRUE) IS
  BEGIN
    remove_policies_rows(p_policies, p_commit);
    after_change(p_commit);
  END remove_policies;

  PROCEDURE grant_policies(p_principals IN JSON, p_policies IN JSON,
                           p_commit IN BOOLEAN DEFAULT TRUE) IS
  BEGIN
    grant_policies_rows(p_principals, p_policies, p_commit);
    after_change(p_commit);
  END grant_policies;

  PROCEDURE revoke_policies(p_principals IN JSON, p_policies IN JSON,
                            p_commit IN BOOLEAN DEFAULT TRUE) IS
  BEGIN
    revoke_policies_rows(p_principals, p_policies, p_commit);
    after_change(p_commit);
  END revoke_policies;

END AGENT_MEMORY_SECURITY;
/
