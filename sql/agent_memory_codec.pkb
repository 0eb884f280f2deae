CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_CODEC AS
  FUNCTION now_utc RETURN TIMESTAMP IS
  BEGIN
    RETURN SYS_EXTRACT_UTC(SYSTIMESTAMP);
  END now_utc;

  FUNCTION iso_text(p_ts IN TIMESTAMP) RETURN VARCHAR2 IS
  BEGIN
    IF p_ts IS NULL THEN
      RETURN NULL;
    END IF;
    RETURN TO_CHAR(p_ts, 'YYYY-MM-DD"T"HH24:MI:SS.FF6"Z"');
  END iso_text;

  FUNCTION quoted(p_value IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    IF p_value IS NULL THEN
      RETURN 'None';
    END IF;
    RETURN '''' || SUBSTR(p_value, 1, 200) || '''';
  END quoted;

  FUNCTION parse_iso(p_text IN VARCHAR2, p_argument IN VARCHAR2) RETURN TIMESTAMP IS
    c_pattern CONSTANT VARCHAR2(200 CHAR) :=
      '^([0-9]{4})-([0-9]{2})-([0-9]{2})([T ]([0-9]{2}):([0-9]{2})(:([0-9]{2})(\.([0-9]{1,9}))?)?)?(([+-][0-9]{2}):?([0-9]{2}))?$';
    l_text VARCHAR2(200 CHAR);
    l_norm VARCHAR2(200 CHAR);
    l_tz   TIMESTAMP WITH TIME ZONE;
  BEGIN
    -- the length first: the text may be longer than l_text holds (ORA-06502 otherwise)
    IF p_text IS NULL OR LENGTH(p_text) > c_max_timestamp_length THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' is not an ISO-8601 timestamp: ' || quoted(p_text));
    END IF;
    l_text := TRIM(p_text);
    IF l_text IS NULL THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' is not an ISO-8601 timestamp: ' || quoted(p_text));
    END IF;
    IF SUBSTR(l_text, -1) IN ('Z', 'z') THEN
      l_text := SUBSTR(l_text, 1, LENGTH(l_text) - 1) || '+00:00';
    END IF;
    IF NOT REGEXP_LIKE(l_text, c_pattern) THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' is not an ISO-8601 timestamp: ' || quoted(p_text));
    END IF;
    l_norm := REGEXP_SUBSTR(l_text, c_pattern, 1, 1, NULL, 1) || '-'
           || REGEXP_SUBSTR(l_text, c_pattern, 1, 1, NULL, 2) || '-'
           || REGEXP_SUBSTR(l_text, c_pattern, 1, 1, NULL, 3) || ' '
           || NVL(REGEXP_SUBSTR(l_text, c_pattern, 1, 1, NULL, 5), '00') || ':'
           || NVL(REGEXP_SUBSTR(l_text, c_pattern, 1, 1, NULL, 6), '00') || ':'
           || NVL(REGEXP_SUBSTR(l_text, c_pattern, 1, 1, NULL, 8), '00') || '.'
           || RPAD(NVL(REGEXP_SUBSTR(l_text, c_pattern, 1, 1, NULL, 10), '0'), 9, '0') || ' '
           || NVL(REGEXP_SUBSTR(l_text, c_pattern, 1, 1, NULL, 12), '+00') || ':'
           || NVL(REGEXP_SUBSTR(l_text, c_pattern, 1, 1, NULL, 13), '00');
    BEGIN
      l_tz := TO_TIMESTAMP_TZ(l_norm, 'YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM');
    EXCEPTION
      WHEN OTHERS THEN
        AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' is not an ISO-8601 timestamp: ' || quoted(p_text));
    END;
    RETURN SYS_EXTRACT_UTC(l_tz);
  END parse_iso;

  FUNCTION check_id(p_value IN VARCHAR2, p_argument IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    IF p_value IS NULL OR LENGTH(p_value) > c_max_id_length THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must have 1 to ' || c_max_id_length || ' characters');
    END IF;
    RETURN p_value;
  END check_id;

  FUNCTION new_id RETURN VARCHAR2 IS
    c_digits  CONSTANT VARCHAR2(16 CHAR) := '0123456789abcdef';
    l_since   INTERVAL DAY(9) TO SECOND(9);
    l_ms      NUMBER;
    l_time    VARCHAR2(12 CHAR);
    l_hex     VARCHAR2(20 CHAR);
    l_variant PLS_INTEGER;
  BEGIN
    -- A version 7 UUID (RFC 9562): the Unix time in milliseconds as the first 12 hex digits,
    -- so ids made one after another sort one after another and the unique index on ids is
    -- appended to rather than written at random; then 10 random bytes with the version
    -- (digit 13 is 7) and variant (digit 17 is 8, 9, a or b) bits, dashed like the ids the
    -- Python library makes (oracleagentmemory/_ids.py). The difference of two TIMESTAMPs is
    -- an INTERVAL DAY TO SECOND; DAY(9) holds the days since 1970. DBMS_CRYPTO.RANDOMBYTES
    -- returns cryptographically secure random bytes (the owner needs EXECUTE on
    -- SYS.DBMS_CRYPTO, install/grants_owner.sql).
    l_since := SYS_EXTRACT_UTC(SYSTIMESTAMP) - TIMESTAMP '1970-01-01 00:00:00';
    l_ms := ((EXTRACT(DAY FROM l_since) * 24 + EXTRACT(HOUR FROM l_since)) * 60
             + EXTRACT(MINUTE FROM l_since)) * 60000
            + TRUNC(EXTRACT(SECOND FROM l_since) * 1000);
    FOR i IN 1 .. 12 LOOP  -- the 48-bit time, most significant hex digit first
      l_time := l_time || SUBSTR(c_digits, MOD(TRUNC(l_ms / POWER(16, 12 - i)), 16) + 1, 1);
    END LOOP;
    l_hex := LOWER(RAWTOHEX(DBMS_CRYPTO.RANDOMBYTES(10)));
    l_variant := MOD(INSTR(c_digits, SUBSTR(l_hex, 4, 1)) - 1, 4);
    RETURN SUBSTR(l_time, 1, 8) || '-' || SUBSTR(l_time, 9, 4) || '-7' || SUBSTR(l_hex, 1, 3)
        || '-' || SUBSTR(c_digits, 9 + l_variant, 1) || SUBSTR(l_hex, 5, 3)
        || '-' || SUBSTR(l_hex, 9, 12);
  END new_id;

  FUNCTION to_object(p_json IN JSON, p_argument IN VARCHAR2, p_null_ok IN BOOLEAN DEFAULT TRUE)
    RETURN JSON_OBJECT_T IS
    l_el JSON_ELEMENT_T;
  BEGIN
    IF p_json IS NULL THEN
      IF p_null_ok THEN
        RETURN JSON_OBJECT_T();
      END IF;
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be a JSON object');
    END IF;
    l_el := JSON_ELEMENT_T.load(p_json);
    IF NOT l_el.is_object THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be a JSON object');
    END IF;
    RETURN TREAT(l_el AS JSON_OBJECT_T);
  END to_object;

  FUNCTION to_array(p_json IN JSON, p_argument IN VARCHAR2, p_null_ok IN BOOLEAN DEFAULT TRUE)
    RETURN JSON_ARRAY_T IS
    l_el JSON_ELEMENT_T;
  BEGIN
    IF p_json IS NULL THEN
      IF p_null_ok THEN
        RETURN JSON_ARRAY_T();
      END IF;
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be a JSON array');
    END IF;
    l_el := JSON_ELEMENT_T.load(p_json);
    IF NOT l_el.is_array THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be a JSON array');
    END IF;
    RETURN TREAT(l_el AS JSON_ARRAY_T);
  END to_array;

  FUNCTION has_key(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2) RETURN BOOLEAN IS
  BEGIN
    RETURN p_obj IS NOT NULL AND p_obj.has(p_key);
  END has_key;

  FUNCTION present(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2) RETURN JSON_ELEMENT_T IS
    l_el JSON_ELEMENT_T;
  BEGIN
    IF NOT has_key(p_obj, p_key) THEN
      RETURN NULL;
    END IF;
    l_el := p_obj.get(p_key);
    IF l_el IS NULL OR l_el.is_null THEN
      RETURN NULL;
    END IF;
    RETURN l_el;
  END present;

  FUNCTION opt_string(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN VARCHAR2 IS
    l_el JSON_ELEMENT_T := present(p_obj, p_key);
  BEGIN
    IF l_el IS NULL THEN
      RETURN NULL;
    END IF;
    IF NOT l_el.is_string THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be a string');
    END IF;
    RETURN p_obj.get_string(p_key);
  END opt_string;

  FUNCTION opt_clob(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN CLOB IS
    l_el JSON_ELEMENT_T := present(p_obj, p_key);
  BEGIN
    IF l_el IS NULL THEN
      RETURN NULL;
    END IF;
    IF NOT l_el.is_string THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be a string');
    END IF;
    RETURN p_obj.get_clob(p_key);
  END opt_clob;

  FUNCTION opt_id(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN VARCHAR2 IS
    l_el JSON_ELEMENT_T := present(p_obj, p_key);
  BEGIN
    IF l_el IS NULL THEN
      RETURN NULL;
    END IF;
    IF NOT l_el.is_string THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be a string');
    END IF;
    RETURN check_id(p_obj.get_string(p_key), p_argument);
  END opt_id;

  FUNCTION opt_text(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2,
                    p_max_length IN PLS_INTEGER) RETURN VARCHAR2 IS
    l_text CLOB := opt_clob(p_obj, p_key, p_argument);
  BEGIN
    IF l_text IS NULL THEN
      RETURN NULL;
    END IF;
    IF DBMS_LOB.GETLENGTH(l_text) > p_max_length THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be at most ' || p_max_length || ' characters');
    END IF;
    RETURN DBMS_LOB.SUBSTR(l_text, p_max_length, 1);  -- PL/SQL, not SQL: up to 32767 bytes
  END opt_text;

  FUNCTION opt_timestamp(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN VARCHAR2 IS
    l_text CLOB := opt_clob(p_obj, p_key, p_argument);
    l_utc  TIMESTAMP;
  BEGIN
    IF l_text IS NULL THEN
      RETURN NULL;
    END IF;
    IF DBMS_LOB.GETLENGTH(l_text) > c_max_timestamp_length THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' is not an ISO-8601 timestamp: '
        || quoted(DBMS_LOB.SUBSTR(l_text, 200, 1)));
    END IF;
    l_utc := parse_iso(DBMS_LOB.SUBSTR(l_text, c_max_timestamp_length, 1), p_argument);
    RETURN iso_text(l_utc);  -- stored in UTC, as the embedded backend stores it
  END opt_timestamp;

  FUNCTION opt_number(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN NUMBER IS
    l_el JSON_ELEMENT_T := present(p_obj, p_key);
  BEGIN
    IF l_el IS NULL THEN
      RETURN NULL;
    END IF;
    IF NOT l_el.is_number THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be a number or None');
    END IF;
    RETURN p_obj.get_number(p_key);
  END opt_number;

  FUNCTION opt_boolean(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN BOOLEAN IS
    l_el JSON_ELEMENT_T := present(p_obj, p_key);
  BEGIN
    IF l_el IS NULL THEN
      RETURN NULL;
    END IF;
    IF NOT l_el.is_boolean THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be a boolean');
    END IF;
    RETURN l_el.is_true;
  END opt_boolean;

  FUNCTION opt_integer(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2,
                       p_minimum IN NUMBER, p_default IN NUMBER) RETURN NUMBER IS
    l_el    JSON_ELEMENT_T;
    l_value NUMBER;
  BEGIN
    IF NOT has_key(p_obj, p_key) THEN
      RETURN p_default;
    END IF;
    l_el := p_obj.get(p_key);
    IF l_el IS NULL OR NOT l_el.is_number THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be an integer of at least ' || p_minimum);
    END IF;
    l_value := p_obj.get_number(p_key);
    IF l_value <> TRUNC(l_value) OR l_value < p_minimum THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be an integer of at least ' || p_minimum);
    END IF;
    RETURN l_value;
  END opt_integer;

  FUNCTION opt_object_text(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN CLOB IS
    l_el JSON_ELEMENT_T := present(p_obj, p_key);
  BEGIN
    IF l_el IS NULL THEN
      RETURN NULL;
    END IF;
    IF NOT l_el.is_object THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be a dict or None');
    END IF;
    RETURN l_el.to_clob;
  END opt_object_text;

  FUNCTION opt_array_text(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN CLOB IS
    l_el JSON_ELEMENT_T := present(p_obj, p_key);
  BEGIN
    IF l_el IS NULL THEN
      RETURN NULL;
    END IF;
    IF NOT l_el.is_array THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be a list or None');
    END IF;
    RETURN l_el.to_clob;
  END opt_array_text;

  FUNCTION positions(p_found IN AGENT_MEMORY_NUMBER_LIST, p_wanted IN AGENT_MEMORY_NUMBER_LIST)
    RETURN AGENT_MEMORY_NUMBER_LIST IS
    TYPE index_t IS TABLE OF PLS_INTEGER INDEX BY VARCHAR2(40 CHAR);
    l_at  index_t;
    l_key VARCHAR2(40 CHAR);
    l_out AGENT_MEMORY_NUMBER_LIST := AGENT_MEMORY_NUMBER_LIST();
  BEGIN
    FOR i IN 1 .. p_found.COUNT LOOP
      l_at(TO_CHAR(p_found(i))) := i;
    END LOOP;
    FOR k IN 1 .. p_wanted.COUNT LOOP
      l_key := TO_CHAR(p_wanted(k));
      IF l_at.EXISTS(l_key) THEN
        l_out.EXTEND;
        l_out(l_out.COUNT) := l_at(l_key);
      END IF;
    END LOOP;
    RETURN l_out;
  END positions;

  FUNCTION id_list(p_array IN JSON_ARRAY_T, p_argument IN VARCHAR2) RETURN AGENT_MEMORY_TEXT_LIST IS
    l_out AGENT_MEMORY_TEXT_LIST := AGENT_MEMORY_TEXT_LIST();
    l_el  JSON_ELEMENT_T;
  BEGIN
    IF p_array IS NULL THEN
      RETURN l_out;
    END IF;
    FOR i IN 0 .. p_array.get_size - 1 LOOP
      l_el := p_array.get(i);
      IF l_el IS NULL OR NOT l_el.is_string THEN
        AGENT_MEMORY_ERRORS.invalid_argument(p_argument || ' must be a string');
      END IF;
      l_out.EXTEND;
      l_out(l_out.COUNT) := check_id(p_array.get_string(i), p_argument);
    END LOOP;
    RETURN l_out;
  END id_list;

  FUNCTION vector_text(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN CLOB IS
    l_el  JSON_ELEMENT_T := present(p_obj, p_key);
    l_arr JSON_ARRAY_T;
  BEGIN
    IF l_el IS NULL THEN
      RETURN NULL;
    END IF;
    IF NOT l_el.is_array THEN
      AGENT_MEMORY_ERRORS.dimension_mismatch(p_argument || ' must be a one-dimensional vector');
    END IF;
    l_arr := TREAT(l_el AS JSON_ARRAY_T);
    FOR i IN 0 .. l_arr.get_size - 1 LOOP
      IF NOT l_arr.get(i).is_number THEN
        AGENT_MEMORY_ERRORS.dimension_mismatch(p_argument || ' must be a one-dimensional vector');
      END IF;
    END LOOP;
    IF l_arr.get_size <> c_dimension THEN
      AGENT_MEMORY_ERRORS.dimension_mismatch(p_argument || ' has ' || l_arr.get_size
        || ' dimensions, the store uses ' || c_dimension);
    END IF;
    RETURN l_arr.to_clob;
  END vector_text;

  FUNCTION base64_to_blob(p_text IN CLOB) RETURN BLOB IS
    c_chunk CONSTANT PLS_INTEGER := 32000;  -- a multiple of 4 base64 characters
    l_blob  BLOB;
    l_len   PLS_INTEGER;
    l_pos   PLS_INTEGER := 1;
    l_raw   RAW(32767);
  BEGIN
    IF p_text IS NULL THEN
      RETURN NULL;
    END IF;
    DBMS_LOB.CREATETEMPORARY(l_blob, TRUE);
    l_len := DBMS_LOB.GETLENGTH(p_text);
    WHILE l_pos <= l_len LOOP
      l_raw := UTL_ENCODE.BASE64_DECODE(
                 UTL_RAW.CAST_TO_RAW(DBMS_LOB.SUBSTR(p_text, c_chunk, l_pos)));
      IF UTL_RAW.LENGTH(l_raw) > 0 THEN
        DBMS_LOB.WRITEAPPEND(l_blob, UTL_RAW.LENGTH(l_raw), l_raw);
      END IF;
      l_pos := l_pos + c_chunk;
    END LOOP;
    RETURN l_blob;
  EXCEPTION
    WHEN VALUE_ERROR THEN
      AGENT_MEMORY_ERRORS.invalid_argument('image_bytes must be base64 text');
  END base64_to_blob;

  FUNCTION string_element(p_text IN CLOB) RETURN JSON_ELEMENT_T IS
    l_doc CLOB;
  BEGIN
    -- Not JSON_OBJECT_T.put(key, CLOB): whether that overload keeps text over 32767 bytes is
    -- not documented for every release; JSON_ARRAY takes a CLOB and returns a CLOB, and
    -- JSON_ELEMENT_T.parse reads a CLOB of any size (docs/oracle.md, "Pages the code rests on").
    SELECT JSON_ARRAY(p_text RETURNING CLOB) INTO l_doc FROM dual;
    RETURN TREAT(JSON_ELEMENT_T.parse(l_doc) AS JSON_ARRAY_T).get(0);
  END string_element;

  FUNCTION blob_to_base64(p_blob IN BLOB) RETURN CLOB IS
    c_chunk CONSTANT PLS_INTEGER := 12000;  -- a multiple of 3 bytes
    l_text  CLOB;
    l_len   PLS_INTEGER;
    l_pos   PLS_INTEGER := 1;
    l_piece VARCHAR2(32767);
  BEGIN
    IF p_blob IS NULL THEN
      RETURN NULL;
    END IF;
    DBMS_LOB.CREATETEMPORARY(l_text, TRUE);
    l_len := DBMS_LOB.GETLENGTH(p_blob);
    WHILE l_pos <= l_len LOOP
      l_piece := UTL_RAW.CAST_TO_VARCHAR2(
                   UTL_ENCODE.BASE64_ENCODE(DBMS_LOB.SUBSTR(p_blob, c_chunk, l_pos)));
      l_piece := REPLACE(REPLACE(l_piece, CHR(13)), CHR(10));
      DBMS_LOB.WRITEAPPEND(l_text, LENGTH(l_piece), l_piece);
      l_pos := l_pos + c_chunk;
    END LOOP;
    RETURN l_text;
  END blob_to_base64;
END AGENT_MEMORY_CODEC;
/
