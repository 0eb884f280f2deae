CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_SECURITY AS
  -- Documents are read and built with the PL/SQL JSON types (load, get, append, put; a
  -- JSON_ARRAY_T is a JSON_ELEMENT_T, the supertype put takes). Checked:
  --   https://docs.oracle.com/en/database/oracle/oracle-database/23/arpls/json-types.html
  --   JSON_ELEMENT_T is the supertype of JSON_OBJECT_T, JSON_SCALAR_T and JSON_ARRAY_T,
  --   https://docs.oracle.com/database/122/ARPLS/json-types.htm; Oracle's own example puts a
  --   filled json_array_t into a json_object_t (obj.put('team', l_team), after the last
  --   append), https://docs.oracle.com/en/database/oracle/apex/26.1/apxdc/constructing-json-pl-sql.html
  --   to_json turns an object-type instance into a JSON type instance (the inverse of load),
  --   https://docs.oracle.com/en/database/oracle/oracle-database/21/adjsn/overview-of-pl-sql-object-types-for-json.html
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
  -- Checked: $$PLSQL_UNIT_OWNER, the predefined inquiry directive holding the owner of the
  --   current PL/SQL unit (conditional compilation, "Predefined Inquiry Directives"),
  --   https://docs.oracle.com/en/database/oracle/oracle-database/19/lnpls/conditional-compilation1.html
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

  PROCEDURE add_policies(p_policies IN JSON, p_commit IN BOOLEAN DEFAULT TRUE) IS
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
  END add_policies;

  PROCEDURE remove_policies(p_policies IN JSON, p_commit IN BOOLEAN DEFAULT TRUE) IS
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
  END remove_policies;

  FUNCTION list_policies RETURN JSON IS
    l_out JSON_ARRAY_T := JSON_ARRAY_T();
  BEGIN
    assert_owner('list_policies');
    FOR p IN (SELECT s.policy_name FROM AGENT_MEMORY_SEC_POLICIES s ORDER BY s.policy_name) LOOP
      l_out.append(p.policy_name);
    END LOOP;
    RETURN l_out.to_json;
  END list_policies;

  PROCEDURE grant_policies(p_principals IN JSON, p_policies IN JSON,
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
    -- Checked: LISTAGG (measure, delimiter) WITHIN GROUP (ORDER BY ...),
    --   https://docs.oracle.com/en/database/oracle/oracle-database/18/sqlrf/img_text/listagg.html
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
  END grant_policies;

  PROCEDURE revoke_policies(p_principals IN JSON, p_policies IN JSON,
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
  END revoke_policies;

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
END AGENT_MEMORY_SECURITY;
/
