CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_ERRORS AS
  PROCEDURE raise_error(p_code IN PLS_INTEGER, p_message IN VARCHAR2) IS
  BEGIN
    IF p_code NOT BETWEEN c_message_context_changed AND c_invalid_argument THEN
      -- the only RAISE_APPLICATION_ERROR sites of the store are the two below
      RAISE_APPLICATION_ERROR(c_invalid_argument,
                              'internal: unknown store error code ' || TO_CHAR(p_code));
    END IF;
    RAISE_APPLICATION_ERROR(p_code, SUBSTR(p_message, 1, 2000));
  END raise_error;

  PROCEDURE invalid_argument(p_message IN VARCHAR2) IS
  BEGIN
    raise_error(c_invalid_argument, p_message);
  END invalid_argument;

  PROCEDURE record_not_found(p_message IN VARCHAR2) IS
  BEGIN
    raise_error(c_record_not_found, p_message);
  END record_not_found;

  PROCEDURE duplicate_record(p_message IN VARCHAR2) IS
  BEGIN
    raise_error(c_duplicate_record, p_message);
  END duplicate_record;

  PROCEDURE invalid_filter(p_message IN VARCHAR2) IS
  BEGIN
    raise_error(c_invalid_filter, p_message);
  END invalid_filter;

  PROCEDURE invalid_link(p_message IN VARCHAR2) IS
  BEGIN
    raise_error(c_invalid_link, p_message);
  END invalid_link;

  PROCEDURE dimension_mismatch(p_message IN VARCHAR2) IS
  BEGIN
    raise_error(c_dimension_mismatch, p_message);
  END dimension_mismatch;

  PROCEDURE schema_error(p_message IN VARCHAR2) IS
  BEGIN
    raise_error(c_schema_error, p_message);
  END schema_error;

  PROCEDURE attached_image(p_message IN VARCHAR2) IS
  BEGIN
    raise_error(c_attached_image, p_message);
  END attached_image;

  PROCEDURE access_denied(p_message IN VARCHAR2) IS
  BEGIN
    raise_error(c_access_denied, p_message);
  END access_denied;

  PROCEDURE link_end_not_found(p_message IN VARCHAR2) IS
  BEGIN
    raise_error(c_link_end_not_found, p_message);
  END link_end_not_found;

  PROCEDURE message_context_changed(p_message IN VARCHAR2) IS
  BEGIN
    raise_error(c_message_context_changed, p_message);
  END message_context_changed;
END AGENT_MEMORY_ERRORS;
/
