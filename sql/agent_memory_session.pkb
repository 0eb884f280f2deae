CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_SESSION AS
  -- SYS_CONTEXT's length argument counts bytes (1 to 4000, default 256): 4000 holds every
  -- user_id of 512 characters (at most 2048 bytes in AL32UTF8); a smaller value would cut
  -- a multibyte id and compare a prefix. DBMS_SESSION.SET_CONTEXT keeps values up to 4 KB.
  -- The predicates are constant text: the bound id is read by SYS_CONTEXT inside the
  -- statement, never concatenated into it, so the cursor is shared and nothing a caller
  -- passes reaches SQL text. Subqueries in a predicate are resolved with the policy
  -- function owner's rights (docs/oracle.md, "Pages the code rests on": DBMS_RLS.ADD_POLICY).
  c_trusted_key CONSTANT VARCHAR2(16 CHAR) := 'trusted_service:';
  c_isolation_key CONSTANT VARCHAR2(30 CHAR) := 'end_user_isolation';
  -- ORA-00439 "feature not enabled: name"; DBMS_RLS.ADD_POLICY on Standard Edition raises it
  -- as "feature not enabled: Fine-grained access control".
  e_feature_not_enabled EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_feature_not_enabled, -439);
  c_deny        CONSTANT VARCHAR2(10 CHAR) := '1 = 0';
  -- Context attributes besides END_USER_ID: the policies that apply to the bound end user
  -- ('Y' or 'N'; named as the policies in AGENT_MEMORY_SEC_POLICIES) and how it was bound.
  c_own_rows    CONSTANT VARCHAR2(30 CHAR) := 'USER_OWN_ROWS';
  c_global      CONSTANT VARCHAR2(30 CHAR) := 'GLOBAL_MEMORIES';
  c_binding     CONSTANT VARCHAR2(30 CHAR) := 'SECURITY_CONTEXT';
  -- Set only inside assert_may_write_into, to the id of the thread whose owner it reads.
  c_owner_lookup CONSTANT VARCHAR2(30 CHAR) := 'OWNER_LOOKUP';
  -- Predicates. c_records, c_images, c_relations: the end user's own rows (USER_OWN_ROWS,
  -- read and write); *_global: memory-like records of no user (GLOBAL_MEMORIES, read only);
  -- *_both: either. A relation's endpoints are looked up in its id space.
  c_records     CONSTANT VARCHAR2(200 CHAR) :=
    'user_id = SYS_CONTEXT(''AGENT_MEMORY_CTX'', ''END_USER_ID'', 4000)';
  c_records_global CONSTANT VARCHAR2(200 CHAR) :=
    'user_id IS NULL AND record_type IN (''memory'', ''fact'', ''guideline'', ''preference'')';
  c_records_both CONSTANT VARCHAR2(400 CHAR) :=
    '(user_id = SYS_CONTEXT(''AGENT_MEMORY_CTX'', ''END_USER_ID'', 4000)'
    || ' OR (user_id IS NULL AND record_type IN (''memory'', ''fact'', ''guideline'', ''preference'')))';
  -- The read predicate of the owner lookup: the one thread record being looked up.
  c_records_owner_lookup CONSTANT VARCHAR2(200 CHAR) :=
    'record_type = ''thread'' AND id = SYS_CONTEXT(''AGENT_MEMORY_CTX'', ''OWNER_LOOKUP'', 4000)';
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
  c_relations_global CONSTANT VARCHAR2(1000 CHAR) :=
    'EXISTS (SELECT 1 FROM AGENT_MEMORY_RECORDS r WHERE r.id = source_id'
    || ' AND r.id_space = CASE WHEN source_type IN (''memory'', ''fact'', ''guideline'', ''preference'')'
    || ' THEN ''memory'' ELSE source_type END'
    || ' AND r.user_id IS NULL AND r.record_type IN (''memory'', ''fact'', ''guideline'', ''preference''))'
    || ' AND EXISTS (SELECT 1 FROM AGENT_MEMORY_RECORDS r WHERE r.id = target_id'
    || ' AND r.id_space = CASE WHEN target_type IN (''memory'', ''fact'', ''guideline'', ''preference'')'
    || ' THEN ''memory'' ELSE target_type END'
    || ' AND r.user_id IS NULL AND r.record_type IN (''memory'', ''fact'', ''guideline'', ''preference''))';
  c_relations_both CONSTANT VARCHAR2(2000 CHAR) :=
    'EXISTS (SELECT 1 FROM AGENT_MEMORY_RECORDS r WHERE r.id = source_id'
    || ' AND r.id_space = CASE WHEN source_type IN (''memory'', ''fact'', ''guideline'', ''preference'')'
    || ' THEN ''memory'' ELSE source_type END'
    || ' AND (r.user_id = SYS_CONTEXT(''AGENT_MEMORY_CTX'', ''END_USER_ID'', 4000)'
    || ' OR (r.user_id IS NULL AND r.record_type IN (''memory'', ''fact'', ''guideline'', ''preference''))))'
    || ' AND EXISTS (SELECT 1 FROM AGENT_MEMORY_RECORDS r WHERE r.id = target_id'
    || ' AND r.id_space = CASE WHEN target_type IN (''memory'', ''fact'', ''guideline'', ''preference'')'
    || ' THEN ''memory'' ELSE target_type END'
    || ' AND (r.user_id = SYS_CONTEXT(''AGENT_MEMORY_CTX'', ''END_USER_ID'', 4000)'
    || ' OR (r.user_id IS NULL AND r.record_type IN (''memory'', ''fact'', ''guideline'', ''preference''))))';

  -- -20007 where apply_policies found no DBMS_RLS: nothing would enforce a binding.
  PROCEDURE assert_available(p_action IN VARCHAR2) IS
    l_unavailable NUMBER;
  BEGIN
    SELECT COUNT(*) INTO l_unavailable
      FROM AGENT_MEMORY_META m
     WHERE m.meta_key = c_isolation_key AND m.meta_value = 'UNAVAILABLE';
    IF l_unavailable > 0 THEN
      AGENT_MEMORY_ERRORS.schema_error(p_action || ': end-user isolation is not available in this'
        || ' database edition (no DBMS_RLS), so no end user can be bound');
    END IF;
  END assert_available;

  -- Is a policy attribute of the context 'Y'? Strictly TRUE or FALSE (never NULL), so
  -- that NOT flag(...) denies when the attribute is missing.
  FUNCTION flag(p_attribute IN VARCHAR2) RETURN BOOLEAN IS
  BEGIN
    RETURN CASE WHEN SYS_CONTEXT('AGENT_MEMORY_CTX', p_attribute) = 'Y' THEN TRUE ELSE FALSE END;
  END flag;

  FUNCTION yes_no(p_value IN BOOLEAN) RETURN VARCHAR2 IS
  BEGIN
    RETURN CASE WHEN p_value THEN 'Y' ELSE 'N' END;
  END yes_no;

  -- access_mode with nothing bound: UNRESTRICTED for the owner, CTXSYS and a trusted
  -- service, NONE for any other database user.
  FUNCTION unbound_mode RETURN VARCHAR2 IS
    l_session_user VARCHAR2(128 CHAR) := SYS_CONTEXT('USERENV', 'SESSION_USER');
    l_trusted      NUMBER;
  BEGIN
    -- $$PLSQL_UNIT_OWNER: the owner of this package (a predefined inquiry directive)
    IF l_session_user = $$PLSQL_UNIT_OWNER THEN
      RETURN 'UNRESTRICTED';
    END IF;
    -- Oracle Text's own sessions (CTXSYS: automatic maintenance, AUTO sync) read the base
    -- table to index it; under '1 = 0' they would index nothing. SYS is exempt from VPD
    -- anyway. ON COMMIT sync runs in the committing session (see assert_committed); MANUAL
    -- sync runs as the owner (sync_text_index).
    IF l_session_user = 'CTXSYS' THEN
      RETURN 'UNRESTRICTED';
    END IF;
    SELECT COUNT(*) INTO l_trusted
      FROM AGENT_MEMORY_META m
     WHERE m.meta_key = c_trusted_key || l_session_user;
    RETURN CASE WHEN l_trusted > 0 THEN 'UNRESTRICTED' ELSE 'NONE' END;
  END unbound_mode;

  -- The text index syncs ON_COMMIT. ON COMMIT, the sync runs at commit in this session
  -- and reads the new rows through the VPD policies of that moment: rows a bound session
  -- wrote and did not commit would be read, after unbinding (or binding another end user),
  -- by a session that cannot see them, and left out of the index. So a database user that
  -- is restricted when unbound (NONE) may not unbind or rebind with a transaction open;
  -- the owner and trusted services see every row when unbound, and the spec of
  -- clear_end_user asks them to commit first when they rebind.
  -- DBMS_TRANSACTION.LOCAL_TRANSACTION_ID is NULL when no transaction is open.
  PROCEDURE assert_committed(p_action IN VARCHAR2, p_next_user IN VARCHAR2 DEFAULT NULL) IS
  BEGIN
    IF end_user_id IS NOT NULL AND (p_next_user IS NULL OR p_next_user <> end_user_id)
       AND DBMS_TRANSACTION.LOCAL_TRANSACTION_ID IS NOT NULL AND unbound_mode = 'NONE' THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_action || ': commit or roll back first: the writes of '
        || 'this end user are not committed, and the text index (synchronized on commit)'
        || ' would read them through a binding that cannot see them');
    END IF;
  END assert_committed;

  PROCEDURE forget IS
  BEGIN
    DBMS_SESSION.CLEAR_CONTEXT(namespace => c_namespace, attribute => c_end_user);
    DBMS_SESSION.CLEAR_CONTEXT(namespace => c_namespace, attribute => c_own_rows);
    DBMS_SESSION.CLEAR_CONTEXT(namespace => c_namespace, attribute => c_global);
    DBMS_SESSION.CLEAR_CONTEXT(namespace => c_namespace, attribute => c_binding);
    DBMS_SESSION.CLEAR_CONTEXT(namespace => c_namespace, attribute => c_owner_lookup);
  END forget;

  -- Bind: whatever was bound before is cleared first, the policies are set, and the end
  -- user last, so a failure half-way leaves no binding (the caller's block then unbinds
  -- and re-raises) and the session is never BOUND without its policies.
  PROCEDURE bind(p_user_id IN VARCHAR2, p_own_rows IN BOOLEAN, p_global IN BOOLEAN,
                 p_security_context IN BOOLEAN) IS
  BEGIN
    assert_committed('binding end user ' || AGENT_MEMORY_CODEC.quoted(p_user_id), p_user_id);
    forget;
    DBMS_SESSION.SET_CONTEXT(namespace => c_namespace, attribute => c_own_rows,
                             value => yes_no(p_own_rows));
    DBMS_SESSION.SET_CONTEXT(namespace => c_namespace, attribute => c_global,
                             value => yes_no(p_global));
    DBMS_SESSION.SET_CONTEXT(namespace => c_namespace, attribute => c_binding,
                             value => yes_no(p_security_context));
    DBMS_SESSION.SET_CONTEXT(namespace => c_namespace, attribute => c_end_user, value => p_user_id);
  END bind;

  PROCEDURE set_end_user(p_user_id IN VARCHAR2) IS
  BEGIN
    assert_available('set_end_user');
    IF p_user_id IS NULL THEN
      AGENT_MEMORY_ERRORS.invalid_argument('set_end_user: p_user_id must not be null (use clear_end_user)');
    END IF;
    IF LENGTH(p_user_id) > c_max_user_id THEN
      AGENT_MEMORY_ERRORS.invalid_argument('set_end_user: p_user_id is longer than ' || c_max_user_id || ' characters');
    END IF;
    bind(p_user_id, TRUE, FALSE, FALSE);
  END set_end_user;

  PROCEDURE set_end_user_context(p_username IN VARCHAR2, p_groups IN JSON DEFAULT NULL) IS
    l_groups AGENT_MEMORY_TEXT_LIST;
    l_own    NUMBER;
    l_global NUMBER;
  BEGIN
    assert_available('set_end_user_context');
    IF p_username IS NULL OR TRIM(p_username) IS NULL OR LENGTH(p_username) > c_max_user_id THEN
      AGENT_MEMORY_ERRORS.invalid_argument('set_end_user_context: p_username must have 1 to '
        || c_max_user_id || ' characters, not only spaces');
    END IF;
    l_groups := AGENT_MEMORY_CODEC.id_list(AGENT_MEMORY_CODEC.to_array(p_groups, 'p_groups'), 'p_groups');
    -- The registered policies granted to the user or to one of its groups (a grant always
    -- names a registered policy: the foreign key removes the grants of a removed policy).
    SELECT COUNT(CASE WHEN g.policy_name = c_own_rows THEN 1 END),
           COUNT(CASE WHEN g.policy_name = c_global THEN 1 END)
      INTO l_own, l_global
      FROM AGENT_MEMORY_SEC_GRANTS g
     WHERE (g.principal_kind = 'LOCAL_USER' AND g.principal_name = p_username)
        OR (g.principal_kind = 'GROUP'
            AND g.principal_name IN (SELECT t.COLUMN_VALUE FROM TABLE(l_groups) t));
    bind(p_username, l_own > 0, l_global > 0, TRUE);
  END set_end_user_context;

  PROCEDURE clear_end_user IS
  BEGIN
    assert_committed('clear_end_user');
    forget;
  END clear_end_user;

  FUNCTION end_user_id RETURN VARCHAR2 IS
  BEGIN
    RETURN SYS_CONTEXT('AGENT_MEMORY_CTX', 'END_USER_ID', 4000);
  END end_user_id;

  FUNCTION end_user_policies RETURN VARCHAR2 IS
  BEGIN
    IF end_user_id IS NULL THEN
      RETURN NULL;
    END IF;
    RETURN CASE WHEN flag(c_own_rows) AND flag(c_global) THEN c_own_rows || ',' || c_global
                WHEN flag(c_own_rows) THEN c_own_rows
                WHEN flag(c_global) THEN c_global
           END;
  END end_user_policies;

  FUNCTION access_mode RETURN VARCHAR2 IS
  BEGIN
    IF end_user_id IS NOT NULL THEN
      RETURN 'BOUND';
    END IF;
    RETURN unbound_mode;
  END access_mode;

  FUNCTION security_context_bound RETURN BOOLEAN IS
  BEGIN
    RETURN end_user_id IS NOT NULL AND flag(c_binding);
  END security_context_bound;

  FUNCTION may_change(p_user_id IN VARCHAR2) RETURN BOOLEAN IS
    l_mode VARCHAR2(16 CHAR) := access_mode;
  BEGIN
    IF l_mode = 'UNRESTRICTED' THEN
      RETURN TRUE;
    END IF;
    IF l_mode = 'BOUND' AND flag(c_own_rows) AND p_user_id IS NOT NULL
       AND p_user_id = end_user_id THEN
      RETURN TRUE;
    END IF;
    RETURN FALSE;
  END may_change;

  FUNCTION writable_user RETURN VARCHAR2 IS
  BEGIN
    IF access_mode = 'BOUND' AND flag(c_own_rows) THEN
      RETURN end_user_id;
    END IF;
    RETURN NULL;
  END writable_user;

  PROCEDURE deny(p_action IN VARCHAR2) IS
  BEGIN
    -- the message of the embedded backend's end-user guard (stores/end_user_guard.py)
    AGENT_MEMORY_ERRORS.access_denied('end user ' || AGENT_MEMORY_CODEC.quoted(end_user_id) || ' may not '
      || p_action);
  END deny;

  -- The owner (user_id) of the thread record p_thread_id, read past the read policy (see
  -- the specification); p_found FALSE when there is no such thread.
  PROCEDURE read_thread_owner(p_thread_id IN VARCHAR2, p_owner OUT VARCHAR2,
                              p_found OUT BOOLEAN) IS
    l_count NUMBER;
  BEGIN
    DBMS_SESSION.SET_CONTEXT(namespace => c_namespace, attribute => c_owner_lookup,
                             value => p_thread_id);
    BEGIN
      SELECT MIN(r.user_id), COUNT(*) INTO p_owner, l_count
        FROM AGENT_MEMORY_RECORDS r
       WHERE r.record_type = 'thread'
         AND r.id = p_thread_id;
    EXCEPTION
      WHEN OTHERS THEN
        DBMS_SESSION.CLEAR_CONTEXT(namespace => c_namespace, attribute => c_owner_lookup);
        RAISE;
    END;
    DBMS_SESSION.CLEAR_CONTEXT(namespace => c_namespace, attribute => c_owner_lookup);
    p_found := l_count > 0;
  END read_thread_owner;

  PROCEDURE assert_may_write_into(p_thread_ids IN AGENT_MEMORY_TEXT_LIST) IS
    l_owner VARCHAR2(512 CHAR);
    l_found BOOLEAN;
  BEGIN
    IF p_thread_ids IS NULL OR p_thread_ids.COUNT = 0 OR access_mode <> 'BOUND' THEN
      RETURN;
    END IF;
    FOR i IN 1 .. p_thread_ids.COUNT LOOP
      IF p_thread_ids(i) IS NOT NULL THEN
        read_thread_owner(p_thread_ids(i), l_owner, l_found);
        IF l_found AND NOT may_change(l_owner) THEN
          deny('write into a thread it does not own');
        END IF;
      END IF;
    END LOOP;
  END assert_may_write_into;

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
    -- DBMS_ASSERT.SCHEMA_NAME: an existing schema, exact case.
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
    -- Policy names are unique per table, so short fixed names need no prefix.
    c_read   CONSTANT VARCHAR2(30 CHAR) := 'AM_END_USER_READ';
    c_write  CONSTANT VARCHAR2(30 CHAR) := 'AM_END_USER_WRITE';
    c_legacy CONSTANT VARCHAR2(30 CHAR) := 'AM_END_USER_ISOLATION';  -- schema versions 1, 2

    PROCEDURE drop_policy(p_table IN VARCHAR2, p_policy IN VARCHAR2) IS
    BEGIN
      DBMS_RLS.DROP_POLICY(object_schema => $$PLSQL_UNIT_OWNER, object_name => p_table,
                           policy_name => p_policy);
    EXCEPTION
      WHEN OTHERS THEN
        IF SQLCODE <> -28102 THEN  -- ORA-28102: policy does not exist (first install)
          RAISE;
        END IF;
    END drop_policy;

    PROCEDURE replace_policy(p_table IN VARCHAR2, p_policy IN VARCHAR2, p_function IN VARCHAR2,
                             p_statement_types IN VARCHAR2, p_update_check IN BOOLEAN) IS
    BEGIN
      drop_policy(p_table, p_policy);
      -- DBMS_RLS.DYNAMIC re-runs the function for every execution, so distrust_service and
      -- clear_end_user act on the next statement; update_check also checks the row after an
      -- insert or update; several policies on one table are ANDed (docs/oracle.md, "Pages
      -- the code rests on": DBMS_RLS.ADD_POLICY).
      DBMS_RLS.ADD_POLICY(
        object_schema   => $$PLSQL_UNIT_OWNER,
        object_name     => p_table,
        policy_name     => p_policy,
        function_schema => $$PLSQL_UNIT_OWNER,
        policy_function => p_function,
        statement_types => p_statement_types,
        update_check    => p_update_check,
        enable          => TRUE,
        policy_type     => DBMS_RLS.DYNAMIC);
    END replace_policy;

    -- What a session may read (SELECT) and what it may change (INSERT, UPDATE, DELETE, with
    -- update_check: an insert or update cannot produce a row the session could not change).
    PROCEDURE protect(p_table IN VARCHAR2, p_read_function IN VARCHAR2,
                      p_write_function IN VARCHAR2) IS
    BEGIN
      drop_policy(p_table, c_legacy);
      replace_policy(p_table, c_read, p_read_function, 'SELECT', FALSE);
      replace_policy(p_table, c_write, p_write_function, 'INSERT, UPDATE, DELETE', TRUE);
    END protect;
  BEGIN
    assert_owner('apply_policies');
    protect('AGENT_MEMORY_RECORDS', 'AGENT_MEMORY_SESSION.RECORDS_READ_POLICY',
            'AGENT_MEMORY_SESSION.RECORDS_POLICY');
    protect('AGENT_MEMORY_IMAGES', 'AGENT_MEMORY_SESSION.IMAGES_POLICY', 'AGENT_MEMORY_SESSION.IMAGES_POLICY');
    protect('AGENT_MEMORY_RELATIONS', 'AGENT_MEMORY_SESSION.RELATIONS_READ_POLICY',
            'AGENT_MEMORY_SESSION.RELATIONS_POLICY');
    DELETE FROM AGENT_MEMORY_META m WHERE m.meta_key = c_isolation_key;
    COMMIT;
  EXCEPTION
    WHEN e_feature_not_enabled THEN
      -- Standard Edition 2: no DBMS_RLS (Enterprise Edition only; Free has it). The
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

  -- The predicate of a BOUND session from the policies that apply to it: p_own for
  -- USER_OWN_ROWS alone, p_global for GLOBAL_MEMORIES alone (NULL: that policy grants
  -- nothing here), p_both for both, deny for none.
  FUNCTION bound_predicate(p_own IN VARCHAR2, p_global IN VARCHAR2, p_both IN VARCHAR2)
    RETURN VARCHAR2 IS
    l_own    BOOLEAN := flag(c_own_rows);
    l_global BOOLEAN := p_global IS NOT NULL AND flag(c_global);
  BEGIN
    RETURN CASE WHEN l_own AND l_global THEN p_both
                WHEN l_own THEN p_own
                WHEN l_global THEN p_global
                ELSE c_deny
           END;
  END bound_predicate;

  FUNCTION predicate(p_own IN VARCHAR2, p_global IN VARCHAR2, p_both IN VARCHAR2)
    RETURN VARCHAR2 IS
  BEGIN
    -- A policy function must not raise (the statement would fail with ORA-28112): every
    -- branch returns a predicate, and an unexpected error denies.
    RETURN CASE access_mode
             WHEN 'BOUND' THEN bound_predicate(p_own, p_global, p_both)
             WHEN 'UNRESTRICTED' THEN NULL
             ELSE c_deny
           END;
  EXCEPTION
    WHEN OTHERS THEN
      RETURN c_deny;
  END predicate;

  FUNCTION records_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN predicate(c_records, NULL, c_records);
  END records_policy;

  -- TRUE while assert_may_write_into looks up a thread's owner for a BOUND session (never
  -- raises: a policy function must not).
  FUNCTION owner_lookup RETURN BOOLEAN IS
  BEGIN
    RETURN SYS_CONTEXT('AGENT_MEMORY_CTX', c_owner_lookup, 4000) IS NOT NULL
       AND end_user_id IS NOT NULL;
  EXCEPTION
    WHEN OTHERS THEN
      RETURN FALSE;
  END owner_lookup;

  FUNCTION records_read_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    IF owner_lookup THEN
      RETURN c_records_owner_lookup;
    END IF;
    RETURN predicate(c_records, c_records_global, c_records_both);
  END records_read_policy;

  FUNCTION images_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN predicate(c_images, NULL, c_images);
  END images_policy;

  FUNCTION relations_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN predicate(c_relations, NULL, c_relations);
  END relations_policy;

  FUNCTION relations_read_policy(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN predicate(c_relations, c_relations_global, c_relations_both);
  END relations_read_policy;
END AGENT_MEMORY_SESSION;
/
