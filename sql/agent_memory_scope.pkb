CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_SCOPE AS
  FUNCTION dimension_matches(p_record_value IN VARCHAR2, p_value IN VARCHAR2, p_exact IN NUMBER)
    RETURN NUMBER DETERMINISTIC IS
  BEGIN
    IF NVL(p_exact, 0) = 0 THEN
      RETURN 1;
    END IF;
    IF (p_record_value IS NULL AND p_value IS NULL) OR p_record_value = p_value THEN
      RETURN 1;
    END IF;
    RETURN 0;
  END dimension_matches;

  FUNCTION parse_dimension(p_scope IN JSON_OBJECT_T, p_key IN VARCHAR2) RETURN dimension_t IS
    l_dim   dimension_t;
    l_el    JSON_ELEMENT_T;
    l_obj   JSON_OBJECT_T;
    l_exact JSON_ELEMENT_T;
    l_value JSON_ELEMENT_T;
  BEGIN
    IF p_scope IS NULL OR NOT p_scope.has(p_key) THEN
      RETURN l_dim;
    END IF;
    l_el := p_scope.get(p_key);
    IF l_el IS NULL OR NOT l_el.is_object THEN
      AGENT_MEMORY_ERRORS.invalid_argument('scope has an unknown dimension ' || AGENT_MEMORY_CODEC.quoted(p_key));
    END IF;
    l_obj := TREAT(l_el AS JSON_OBJECT_T);
    l_exact := l_obj.get('exact');
    IF l_exact IS NULL OR NOT l_exact.is_boolean THEN
      AGENT_MEMORY_ERRORS.invalid_argument('scope ' || p_key || ' needs a boolean ''exact''');
    END IF;
    l_value := l_obj.get('value');
    IF l_value IS NOT NULL AND NOT l_value.is_null AND NOT l_value.is_string THEN
      AGENT_MEMORY_ERRORS.invalid_argument('scope ' || p_key || ' value must be a string or None');
    END IF;
    l_dim.present := TRUE;
    l_dim.exact := l_exact.is_true;
    IF l_value IS NOT NULL AND l_value.is_string THEN
      l_dim.value := l_obj.get_string('value');
    END IF;
    RETURN l_dim;
  END parse_dimension;

  FUNCTION parse(p_scope IN JSON_OBJECT_T) RETURN scope_t IS
    l_scope scope_t;
    l_keys  JSON_KEY_LIST;
  BEGIN
    IF p_scope IS NULL THEN
      RETURN l_scope;
    END IF;
    l_keys := p_scope.get_keys;
    IF l_keys IS NOT NULL THEN
      FOR i IN 1 .. l_keys.COUNT LOOP
        IF l_keys(i) NOT IN ('user_id', 'agent_id', 'thread_id') THEN
          AGENT_MEMORY_ERRORS.invalid_argument('scope has an unknown dimension ' || AGENT_MEMORY_CODEC.quoted(l_keys(i)));
        END IF;
      END LOOP;
    END IF;
    l_scope.user_dim := parse_dimension(p_scope, 'user_id');
    l_scope.agent_dim := parse_dimension(p_scope, 'agent_id');
    l_scope.thread_dim := parse_dimension(p_scope, 'thread_id');
    RETURN l_scope;
  END parse;

  FUNCTION parse_json(p_scope IN JSON) RETURN scope_t IS
  BEGIN
    RETURN parse(AGENT_MEMORY_CODEC.to_object(p_scope, 'scope'));
  END parse_json;

  FUNCTION exact_flag(p_dim IN dimension_t) RETURN NUMBER IS
  BEGIN
    RETURN CASE WHEN p_dim.present AND p_dim.exact THEN 1 ELSE 0 END;
  END exact_flag;

  FUNCTION affinity_of(p_record_value IN VARCHAR2, p_dim IN dimension_t) RETURN NUMBER IS
  BEGIN
    IF p_dim.present AND NOT p_dim.exact
       AND ((p_record_value IS NULL AND p_dim.value IS NULL) OR p_record_value = p_dim.value) THEN
      RETURN 1;
    END IF;
    RETURN 0;
  END affinity_of;

  FUNCTION matches(p_user_id IN VARCHAR2, p_agent_id IN VARCHAR2, p_thread_id IN VARCHAR2,
                   p_scope IN JSON) RETURN NUMBER DETERMINISTIC IS
    l_scope scope_t := parse_json(p_scope);
  BEGIN
    IF dimension_matches(p_user_id, l_scope.user_dim.value, exact_flag(l_scope.user_dim)) = 1
       AND dimension_matches(p_agent_id, l_scope.agent_dim.value, exact_flag(l_scope.agent_dim)) = 1
       AND dimension_matches(p_thread_id, l_scope.thread_dim.value, exact_flag(l_scope.thread_dim)) = 1 THEN
      RETURN 1;
    END IF;
    RETURN 0;
  END matches;

  FUNCTION affinity(p_user_id IN VARCHAR2, p_agent_id IN VARCHAR2, p_thread_id IN VARCHAR2,
                    p_scope IN JSON) RETURN NUMBER DETERMINISTIC IS
    l_scope scope_t := parse_json(p_scope);
  BEGIN
    RETURN affinity_of(p_user_id, l_scope.user_dim)
         + affinity_of(p_agent_id, l_scope.agent_dim)
         + affinity_of(p_thread_id, l_scope.thread_dim);
  END affinity;
END AGENT_MEMORY_SCOPE;
/
