CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_FILTER AS
  c_operators   CONSTANT VARCHAR2(100 CHAR) := '$array_contains, $array_contains_any, $not';
  c_max_compiled CONSTANT PLS_INTEGER := 32;
  -- Characters of compiled prefilter text at most. The callers splice it into a statement
  -- built in a VARCHAR2(32767) (search.ranking_sql, record_api.get_records): 32 predicates
  -- over nested field names of 64 characters would need more than 35,000 (ORA-06502), and
  -- the contract allows such a filter. A predicate that would pass the budget is not compiled,
  -- nor any after it: the prefilter is only a necessary condition, matches() decides.
  c_max_prefilter_chars CONSTANT PLS_INTEGER := 16000;

  FUNCTION where_text(p_path IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN NVL(p_path, 'top level');
  END where_text;

  FUNCTION child_path(p_path IN VARCHAR2, p_key IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN CASE WHEN p_path IS NULL THEN p_key ELSE p_path || '.' || p_key END;
  END child_path;

  FUNCTION type_name(p_el IN JSON_ELEMENT_T) RETURN VARCHAR2 IS
  BEGIN
    IF p_el.is_object THEN
      RETURN 'dict';
    ELSIF p_el.is_array THEN
      RETURN 'list';
    ELSIF p_el.is_string THEN
      RETURN 'str';
    ELSIF p_el.is_boolean THEN
      RETURN 'bool';
    ELSIF p_el.is_number THEN
      RETURN CASE WHEN p_el.to_number = TRUNC(p_el.to_number) THEN 'int' ELSE 'float' END;
    END IF;
    RETURN 'NoneType';
  END type_name;

  FUNCTION is_operator_key(p_key IN VARCHAR2) RETURN BOOLEAN IS
  BEGIN
    RETURN p_key IS NOT NULL AND SUBSTR(p_key, 1, 1) = '$';
  END is_operator_key;

  -- -- validation ------------------------------------------------------------------------

  PROCEDURE validate_expression(p_el IN JSON_ELEMENT_T, p_path IN VARCHAR2);

  PROCEDURE validate_exact(p_el IN JSON_ELEMENT_T, p_path IN VARCHAR2, p_allow_list IN BOOLEAN) IS
    l_arr JSON_ARRAY_T;
    l_item JSON_ELEMENT_T;
    l_keys JSON_KEY_LIST;
  BEGIN
    IF p_el.is_null OR p_el.is_string OR p_el.is_boolean OR p_el.is_number THEN
      RETURN;
    END IF;
    IF p_el.is_array AND p_allow_list THEN
      -- items of an exact list compare as JSON values, objects included (contract)
      l_arr := TREAT(p_el AS JSON_ARRAY_T);
      FOR i IN 0 .. l_arr.get_size - 1 LOOP
        l_item := l_arr.get(i);
        validate_exact(l_item, p_path, TRUE);
      END LOOP;
      RETURN;
    END IF;
    IF p_el.is_object AND p_allow_list THEN
      -- an object inside an exact list: its members must be JSON values too
      l_keys := TREAT(p_el AS JSON_OBJECT_T).get_keys;
      IF l_keys IS NOT NULL THEN
        FOR i IN 1 .. l_keys.COUNT LOOP
          validate_exact(TREAT(p_el AS JSON_OBJECT_T).get(l_keys(i)), p_path, TRUE);
        END LOOP;
      END IF;
      RETURN;
    END IF;
    AGENT_MEMORY_ERRORS.invalid_filter('metadata_filter value for ' || AGENT_MEMORY_CODEC.quoted(p_path)
      || ' has unsupported type ' || type_name(p_el));
  END validate_exact;

  PROCEDURE validate_object(p_spec IN JSON_OBJECT_T, p_path IN VARCHAR2) IS
    l_keys JSON_KEY_LIST := p_spec.get_keys;
  BEGIN
    IF l_keys IS NULL THEN
      RETURN;
    END IF;
    FOR i IN 1 .. l_keys.COUNT LOOP
      IF l_keys(i) IS NULL THEN
        AGENT_MEMORY_ERRORS.invalid_filter('metadata_filter key '''' at ' || where_text(p_path)
          || ' must be a non-empty string');
      END IF;
      IF is_operator_key(l_keys(i)) THEN
        AGENT_MEMORY_ERRORS.invalid_filter('metadata_filter operator ' || AGENT_MEMORY_CODEC.quoted(l_keys(i))
          || ' is not allowed in place of a field name at ' || where_text(p_path)
          || '; supported operators are field-level: ' || c_operators);
      END IF;
      validate_expression(p_spec.get(l_keys(i)), child_path(p_path, l_keys(i)));
    END LOOP;
  END validate_object;

  PROCEDURE validate_operator(p_op IN VARCHAR2, p_operand IN JSON_ELEMENT_T, p_path IN VARCHAR2) IS
    l_arr JSON_ARRAY_T;
  BEGIN
    IF p_op NOT IN ('$array_contains', '$array_contains_any', '$not') THEN
      AGENT_MEMORY_ERRORS.invalid_filter('metadata_filter field ' || AGENT_MEMORY_CODEC.quoted(p_path)
        || ' uses unknown operator ' || AGENT_MEMORY_CODEC.quoted(p_op) || '; supported: ' || c_operators);
    END IF;
    IF p_op = '$not' THEN
      validate_expression(p_operand, p_path);
      RETURN;
    END IF;
    IF p_op = '$array_contains_any' AND NOT p_operand.is_array THEN
      AGENT_MEMORY_ERRORS.invalid_filter('metadata_filter operator ''$array_contains_any'' on '
        || AGENT_MEMORY_CODEC.quoted(p_path) || ' needs a list');
    END IF;
    IF p_operand.is_array THEN
      l_arr := TREAT(p_operand AS JSON_ARRAY_T);
      IF l_arr.get_size = 0 THEN
        AGENT_MEMORY_ERRORS.invalid_filter('metadata_filter operator ' || AGENT_MEMORY_CODEC.quoted(p_op)
          || ' on ' || AGENT_MEMORY_CODEC.quoted(p_path) || ' needs a non-empty list');
      END IF;
      FOR i IN 0 .. l_arr.get_size - 1 LOOP
        validate_exact(l_arr.get(i), p_path, FALSE);
      END LOOP;
    ELSE
      validate_exact(p_operand, p_path, FALSE);
    END IF;
  END validate_operator;

  PROCEDURE validate_expression(p_el IN JSON_ELEMENT_T, p_path IN VARCHAR2) IS
    l_obj  JSON_OBJECT_T;
    l_keys JSON_KEY_LIST;
    l_ops  PLS_INTEGER := 0;
  BEGIN
    IF NOT p_el.is_object THEN
      validate_exact(p_el, p_path, TRUE);
      RETURN;
    END IF;
    l_obj := TREAT(p_el AS JSON_OBJECT_T);
    l_keys := l_obj.get_keys;
    IF l_keys IS NOT NULL THEN
      FOR i IN 1 .. l_keys.COUNT LOOP
        IF is_operator_key(l_keys(i)) THEN
          l_ops := l_ops + 1;
        END IF;
      END LOOP;
    END IF;
    IF l_ops = 0 THEN
      validate_object(l_obj, p_path);
      RETURN;
    END IF;
    IF l_ops <> l_keys.COUNT THEN
      AGENT_MEMORY_ERRORS.invalid_filter('metadata_filter field ' || AGENT_MEMORY_CODEC.quoted(p_path)
        || ' mixes operators and field names');
    END IF;
    FOR i IN 1 .. l_keys.COUNT LOOP
      validate_operator(l_keys(i), l_obj.get(l_keys(i)), p_path);
    END LOOP;
  END validate_expression;

  PROCEDURE validate(p_filter IN JSON) IS
    l_el JSON_ELEMENT_T;
  BEGIN
    IF p_filter IS NULL THEN
      RETURN;
    END IF;
    l_el := JSON_ELEMENT_T.load(p_filter);
    IF l_el.is_null THEN
      RETURN;
    END IF;
    IF NOT l_el.is_object THEN
      AGENT_MEMORY_ERRORS.invalid_filter('metadata_filter must be a dict or None, got ' || type_name(l_el));
    END IF;
    validate_object(TREAT(l_el AS JSON_OBJECT_T), NULL);
  END validate;

  -- -- evaluation (mirrors stores/metadata_filter.py) ----------------------------------------

  FUNCTION json_equal(p_a IN JSON_ELEMENT_T, p_b IN JSON_ELEMENT_T) RETURN BOOLEAN IS
    l_aa JSON_ARRAY_T;
    l_ba JSON_ARRAY_T;
    l_ao JSON_OBJECT_T;
    l_bo JSON_OBJECT_T;
    l_keys JSON_KEY_LIST;
  BEGIN
    IF p_a.is_boolean OR p_b.is_boolean THEN
      RETURN p_a.is_boolean AND p_b.is_boolean AND (p_a.is_true = p_b.is_true);
    END IF;
    IF p_a.is_number AND p_b.is_number THEN
      RETURN p_a.to_number = p_b.to_number;
    END IF;
    IF p_a.is_null OR p_b.is_null THEN
      RETURN p_a.is_null AND p_b.is_null;
    END IF;
    IF p_a.is_string AND p_b.is_string THEN
      RETURN DBMS_LOB.COMPARE(p_a.to_clob, p_b.to_clob) = 0;
    END IF;
    IF p_a.is_array AND p_b.is_array THEN
      l_aa := TREAT(p_a AS JSON_ARRAY_T);
      l_ba := TREAT(p_b AS JSON_ARRAY_T);
      IF l_aa.get_size <> l_ba.get_size THEN
        RETURN FALSE;
      END IF;
      FOR i IN 0 .. l_aa.get_size - 1 LOOP
        IF NOT json_equal(l_aa.get(i), l_ba.get(i)) THEN
          RETURN FALSE;
        END IF;
      END LOOP;
      RETURN TRUE;
    END IF;
    IF p_a.is_object AND p_b.is_object THEN
      l_ao := TREAT(p_a AS JSON_OBJECT_T);
      l_bo := TREAT(p_b AS JSON_OBJECT_T);
      IF l_ao.get_size <> l_bo.get_size THEN
        RETURN FALSE;
      END IF;
      l_keys := l_ao.get_keys;
      IF l_keys IS NOT NULL THEN
        FOR i IN 1 .. l_keys.COUNT LOOP
          IF NOT l_bo.has(l_keys(i)) OR NOT json_equal(l_ao.get(l_keys(i)), l_bo.get(l_keys(i))) THEN
            RETURN FALSE;
          END IF;
        END LOOP;
      END IF;
      RETURN TRUE;
    END IF;
    RETURN FALSE;
  END json_equal;

  FUNCTION match_expression(p_expr IN JSON_ELEMENT_T, p_stored IN JSON_ELEMENT_T) RETURN BOOLEAN;

  -- p_stored NULL (a PL/SQL null, not JSON null) stands for a missing field.
  FUNCTION match_object(p_spec IN JSON_OBJECT_T, p_stored IN JSON_ELEMENT_T) RETURN BOOLEAN IS
    l_obj  JSON_OBJECT_T;
    l_keys JSON_KEY_LIST;
    l_val  JSON_ELEMENT_T;
  BEGIN
    IF p_stored IS NULL OR NOT p_stored.is_object THEN
      RETURN FALSE;
    END IF;
    l_obj := TREAT(p_stored AS JSON_OBJECT_T);
    l_keys := p_spec.get_keys;
    IF l_keys IS NULL THEN
      RETURN TRUE;
    END IF;
    FOR i IN 1 .. l_keys.COUNT LOOP
      l_val := NULL;
      IF l_obj.has(l_keys(i)) THEN
        l_val := l_obj.get(l_keys(i));
      END IF;
      IF NOT match_expression(p_spec.get(l_keys(i)), l_val) THEN
        RETURN FALSE;
      END IF;
    END LOOP;
    RETURN TRUE;
  END match_object;

  FUNCTION match_operator(p_op IN VARCHAR2, p_operand IN JSON_ELEMENT_T, p_stored IN JSON_ELEMENT_T)
    RETURN BOOLEAN IS
    l_stored JSON_ARRAY_T;
    l_wanted JSON_ARRAY_T;
    l_found  BOOLEAN;
    l_all    BOOLEAN := TRUE;
    l_any    BOOLEAN := FALSE;
  BEGIN
    IF p_op = '$not' THEN
      RETURN NOT match_expression(p_operand, p_stored);
    END IF;
    IF p_stored IS NULL OR NOT p_stored.is_array THEN
      RETURN FALSE;
    END IF;
    l_stored := TREAT(p_stored AS JSON_ARRAY_T);
    IF p_operand.is_array THEN
      l_wanted := TREAT(p_operand AS JSON_ARRAY_T);
    ELSE
      l_wanted := JSON_ARRAY_T();
      l_wanted.append(p_operand);
    END IF;
    FOR w IN 0 .. l_wanted.get_size - 1 LOOP
      l_found := FALSE;
      FOR s IN 0 .. l_stored.get_size - 1 LOOP
        IF json_equal(l_wanted.get(w), l_stored.get(s)) THEN
          l_found := TRUE;
          EXIT;
        END IF;
      END LOOP;
      l_all := l_all AND l_found;
      l_any := l_any OR l_found;
    END LOOP;
    RETURN CASE WHEN p_op = '$array_contains' THEN l_all ELSE l_any END;
  END match_operator;

  FUNCTION match_expression(p_expr IN JSON_ELEMENT_T, p_stored IN JSON_ELEMENT_T) RETURN BOOLEAN IS
    l_obj  JSON_OBJECT_T;
    l_keys JSON_KEY_LIST;
    l_all_ops BOOLEAN := TRUE;
  BEGIN
    IF p_expr.is_object THEN
      l_obj := TREAT(p_expr AS JSON_OBJECT_T);
      l_keys := l_obj.get_keys;
      IF l_keys IS NULL OR l_keys.COUNT = 0 THEN
        l_all_ops := FALSE;
      ELSE
        FOR i IN 1 .. l_keys.COUNT LOOP
          l_all_ops := l_all_ops AND is_operator_key(l_keys(i));
        END LOOP;
      END IF;
      IF l_all_ops THEN
        FOR i IN 1 .. l_keys.COUNT LOOP
          IF NOT match_operator(l_keys(i), l_obj.get(l_keys(i)), p_stored) THEN
            RETURN FALSE;
          END IF;
        END LOOP;
        RETURN TRUE;
      END IF;
      RETURN p_stored IS NOT NULL AND match_object(l_obj, p_stored);
    END IF;
    RETURN p_stored IS NOT NULL AND json_equal(p_expr, p_stored);
  END match_expression;

  FUNCTION matches(p_metadata IN JSON, p_filter IN JSON) RETURN NUMBER DETERMINISTIC IS
    l_spec   JSON_ELEMENT_T;
    l_stored JSON_ELEMENT_T;
  BEGIN
    IF p_filter IS NULL THEN
      RETURN 1;
    END IF;
    l_spec := JSON_ELEMENT_T.load(p_filter);
    IF NOT l_spec.is_object OR TREAT(l_spec AS JSON_OBJECT_T).get_size = 0 THEN
      RETURN 1;
    END IF;
    -- no metadata is an empty object: only negations match it (as NOT JSON_EXISTS does).
    -- An empty container is made from a subtype: JSON_ELEMENT_T has no empty constructor.
    IF p_metadata IS NOT NULL THEN
      l_stored := JSON_ELEMENT_T.load(p_metadata);
    ELSE
      l_stored := JSON_OBJECT_T();
    END IF;
    RETURN CASE WHEN match_object(TREAT(l_spec AS JSON_OBJECT_T), l_stored) THEN 1 ELSE 0 END;
  END matches;

  -- -- compilation of the prefilter ----------------------------------------------------------

  PROCEDURE compile_object(p_spec IN JSON_OBJECT_T, p_path IN VARCHAR2,
                           p_sql IN OUT NOCOPY VARCHAR2, p_count IN OUT PLS_INTEGER) IS
    l_keys JSON_KEY_LIST := p_spec.get_keys;
    l_expr JSON_ELEMENT_T;
    l_obj  JSON_OBJECT_T;
    l_path VARCHAR2(4000 CHAR);
    l_sub  JSON_KEY_LIST;
    l_has_ops BOOLEAN;
    l_negated BOOLEAN;
    l_part VARCHAR2(32767);

    -- Append one predicate, unless it would pass c_max_prefilter_chars: then compile no more.
    FUNCTION appended(p_part IN VARCHAR2) RETURN BOOLEAN IS
    BEGIN
      IF NVL(LENGTH(p_sql), 0) + LENGTH(p_part) > c_max_prefilter_chars THEN
        p_count := c_max_compiled;
        RETURN FALSE;
      END IF;
      p_sql := p_sql || p_part;
      p_count := p_count + 1;
      RETURN TRUE;
    END appended;
  BEGIN
    IF l_keys IS NULL THEN
      RETURN;
    END IF;
    FOR i IN 1 .. l_keys.COUNT LOOP
      EXIT WHEN p_count >= c_max_compiled;
      -- whitelist: only plain field names reach the SQL text (the path literal)
      CONTINUE WHEN l_keys(i) IS NULL OR NOT REGEXP_LIKE(l_keys(i), c_safe_key);
      l_path := p_path || '.' || l_keys(i);
      l_expr := p_spec.get(l_keys(i));
      IF l_expr.is_object THEN
        l_obj := TREAT(l_expr AS JSON_OBJECT_T);
        l_sub := l_obj.get_keys;
        l_has_ops := FALSE;
        l_negated := FALSE;
        IF l_sub IS NOT NULL THEN
          FOR j IN 1 .. l_sub.COUNT LOOP
            IF is_operator_key(l_sub(j)) THEN
              l_has_ops := TRUE;
              l_negated := l_negated OR l_sub(j) = '$not';
            END IF;
          END LOOP;
        END IF;
        -- a negated expression also matches a missing field: nothing to require
        CONTINUE WHEN l_negated;
        l_part := ' AND JSON_EXISTS(r.metadata, ''' || l_path || ''')';
        EXIT WHEN NOT appended(l_part);
        IF NOT l_has_ops THEN
          compile_object(l_obj, l_path, p_sql, p_count);
        END IF;
      ELSIF l_expr.is_string AND LENGTH(l_expr.to_string) <= 1000 THEN
        l_part := ' AND JSON_EXISTS(r.metadata, ''' || l_path || '?(@ == $v' || p_count
              || ')'' PASSING JSON_VALUE(flt.f, ''' || l_path || ''') AS "v' || p_count || '")';
        EXIT WHEN NOT appended(l_part);
      ELSE
        l_part := ' AND JSON_EXISTS(r.metadata, ''' || l_path || ''')';
        EXIT WHEN NOT appended(l_part);
      END IF;
    END LOOP;
  END compile_object;

  -- Field names enter JSON path literals only when they match c_safe_key; values are read
  -- from the bound filter document through PASSING, never concatenated.
  -- dynamic-sql: whitelisted field names checked against c_safe_key ([A-Za-z][A-Za-z0-9_]*)
  FUNCTION prefilter(p_filter IN JSON) RETURN VARCHAR2 IS
    l_el    JSON_ELEMENT_T;
    l_sql   VARCHAR2(32767) := '1 = 1';
    l_count PLS_INTEGER := 0;
  BEGIN
    IF p_filter IS NULL THEN
      RETURN l_sql;
    END IF;
    l_el := JSON_ELEMENT_T.load(p_filter);
    IF NOT l_el.is_object THEN
      RETURN l_sql;
    END IF;
    compile_object(TREAT(l_el AS JSON_OBJECT_T), '$', l_sql, l_count);
    RETURN l_sql;
  END prefilter;
END AGENT_MEMORY_FILTER;
/
