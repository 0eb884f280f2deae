CREATE OR REPLACE PACKAGE AGENT_MEMORY_CODEC AUTHID DEFINER
  ACCESSIBLE BY (PACKAGE AGENT_MEMORY, PACKAGE AGENT_MEMORY_RECORD_API, PACKAGE AGENT_MEMORY_LINK_GRAPH,
                 PACKAGE AGENT_MEMORY_SEARCH, PACKAGE AGENT_MEMORY_RETENTION, PACKAGE AGENT_MEMORY_ADMIN,
                 PACKAGE AGENT_MEMORY_SCOPE, PACKAGE AGENT_MEMORY_FILTER, PACKAGE AGENT_MEMORY_SESSION,
                 PACKAGE AGENT_MEMORY_SECURITY)
AS
  /*
   * AGENT_MEMORY_CODEC: conversions between the contract's JSON values and column values
   * (ids, ISO-8601 timestamps, base64 image bytes, vectors), with the contract's messages.
   *
   * Internal: ACCESSIBLE BY the store's own packages only. AUTHID DEFINER: it reads no
   * table, so the choice only keeps every unit of the store under one rights model.
   */
  -- Lengths are in characters (CHAR length semantics throughout the store).
  c_max_id_length        CONSTANT PLS_INTEGER := 512;
  c_max_timestamp_length CONSTANT PLS_INTEGER := 64;  -- the width of event_ts
  c_dimension     CONSTANT PLS_INTEGER := 384;

  -- Current time in UTC (the store's clock).
  FUNCTION now_utc RETURN TIMESTAMP;

  -- UTC timestamp as the contract prints it: YYYY-MM-DDTHH:MM:SS.ffffffZ (NULL stays NULL).
  FUNCTION iso_text(p_ts IN TIMESTAMP) RETURN VARCHAR2;

  -- ISO-8601 text to UTC; text without a zone is UTC. Raises -20001 naming p_argument (also
  -- for text longer than c_max_timestamp_length, before it is copied anywhere).
  FUNCTION parse_iso(p_text IN VARCHAR2, p_argument IN VARCHAR2) RETURN TIMESTAMP;

  -- An id of 1 to 512 characters; raises -20001 naming p_argument.
  FUNCTION check_id(p_value IN VARCHAR2, p_argument IN VARCHAR2) RETURN VARCHAR2;

  -- A generated id: a dashed version 7 UUID, xxxxxxxx-xxxx-7xxx-yxxx-xxxxxxxxxxxx (y is one
  -- of 8, 9, a, b): the Unix time in milliseconds (the first 12 hex digits, so later ids
  -- sort later), then 74 cryptographically random bits.
  FUNCTION new_id RETURN VARCHAR2;

  -- JSON argument as an object / array; NULL gives an empty one when p_null_ok.
  FUNCTION to_object(p_json IN JSON, p_argument IN VARCHAR2, p_null_ok IN BOOLEAN DEFAULT TRUE)
    RETURN JSON_OBJECT_T;
  FUNCTION to_array(p_json IN JSON, p_argument IN VARCHAR2, p_null_ok IN BOOLEAN DEFAULT TRUE)
    RETURN JSON_ARRAY_T;

  -- Is key present in the object (JSON null counts as present)?
  FUNCTION has_key(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2) RETURN BOOLEAN;

  -- Typed members: NULL when absent or JSON null, -20001 naming p_argument when of another type.
  FUNCTION opt_string(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN VARCHAR2;
  FUNCTION opt_clob(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN CLOB;
  FUNCTION opt_id(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN VARCHAR2;
  -- A string member of at most p_max_length characters (-20001 when longer), so it fits the
  -- VARCHAR2(p_max_length CHAR) that receives it.
  FUNCTION opt_text(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2,
                    p_max_length IN PLS_INTEGER) RETURN VARCHAR2;
  -- A string member that parse_iso accepts, returned in UTC as iso_text writes it (NULL
  -- when absent or null), so stored timestamps sort as text across time zones.
  FUNCTION opt_timestamp(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN VARCHAR2;
  FUNCTION opt_number(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN NUMBER;
  FUNCTION opt_boolean(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN BOOLEAN;
  -- Integer member (no fraction, no boolean) of at least p_minimum; p_default when absent.
  FUNCTION opt_integer(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2,
                       p_minimum IN NUMBER, p_default IN NUMBER) RETURN NUMBER;
  -- A JSON object member (or NULL) serialised as text; -20001 when not an object.
  FUNCTION opt_object_text(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN CLOB;
  -- A JSON array member (or NULL) serialised as text; -20001 when not an array.
  FUNCTION opt_array_text(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN CLOB;

  -- For each number of p_wanted that is in p_found, in the order of p_wanted, its index in
  -- p_found: rows read with TABLE(p_wanted) come back in no particular order.
  FUNCTION positions(p_found IN AGENT_MEMORY_NUMBER_LIST, p_wanted IN AGENT_MEMORY_NUMBER_LIST)
    RETURN AGENT_MEMORY_NUMBER_LIST;

  -- A JSON array of ids, validated (-20001 naming p_argument), as a collection (empty when
  -- p_array is NULL or empty).
  FUNCTION id_list(p_array IN JSON_ARRAY_T, p_argument IN VARCHAR2) RETURN AGENT_MEMORY_TEXT_LIST;

  -- A vector member as the text TO_VECTOR reads, checked against the store dimension
  -- (-20006) and for non-numbers (-20001). NULL when absent or JSON null.
  FUNCTION vector_text(p_obj IN JSON_OBJECT_T, p_key IN VARCHAR2, p_argument IN VARCHAR2)
    RETURN CLOB;

  -- Image bytes travel as base64 text inside the JSON documents.
  FUNCTION base64_to_blob(p_text IN CLOB) RETURN BLOB;
  FUNCTION blob_to_base64(p_blob IN BLOB) RETURN CLOB;

  -- A JSON string element holding text of any length (base64 images pass 32K), built by
  -- SQL JSON_ARRAY from the CLOB, for JSON_OBJECT_T.put(key, JSON_ELEMENT_T).
  FUNCTION string_element(p_text IN CLOB) RETURN JSON_ELEMENT_T;

  -- Quote a value for a message the way Python's repr() quotes a str.
  FUNCTION quoted(p_value IN VARCHAR2) RETURN VARCHAR2;
END AGENT_MEMORY_CODEC;
/
