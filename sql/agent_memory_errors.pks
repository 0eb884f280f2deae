CREATE OR REPLACE PACKAGE AGENT_MEMORY_ERRORS AUTHID DEFINER AS
  /*
   * AGENT_MEMORY_ERRORS: the one list of error codes of the agent-memory store.
   *
   * Every RAISE_APPLICATION_ERROR of the store happens in this package body (a test greps
   * for it), so the codes below are the complete list. The Python layer maps them to the
   * classes of python/oracleagentmemory/stores/errors.py (ERRORS_BY_CODE); other PL/SQL
   * callers can catch the named exceptions declared here.
   *
   *   code    exception               Python class            when
   *   -20001  e_invalid_argument      InvalidArgumentError    malformed argument (message names it)
   *   -20002  e_record_not_found      RecordNotFoundError     a required record is missing
   *   -20003  e_duplicate_record      DuplicateRecordError    id or endpoint pair already used
   *   -20004  e_invalid_filter        InvalidFilterError      malformed metadata filter
   *   -20005  e_invalid_link          InvalidLinkError        link endpoints or labels not allowed
   *   -20006  e_dimension_mismatch    DimensionMismatchError  vector of the wrong dimension
   *   -20007  e_schema_error          SchemaError             schema missing, wrong version or dimension
   *   -20008  e_attached_image        AttachedImageError      image attached to a message changed directly
   *   -20009  e_access_denied         AccessDeniedError       the session may not do this: an end user
   *                                                           bound with set_end_user_context asked for
   *                                                           something its policies do not allow, or a
   *                                                           user other than the owner administers
   *                                                           deep data security
   *   -20010  e_link_end_not_found    LinkEndNotFoundError    a link's end is missing, expired or outside
   *                                                           the link's thread (an InvalidLinkError and a
   *                                                           RecordNotFoundError in Python)
   *   -20011  e_message_context_changed  MessageContextChangedError  the message before the one an
   *                                                           update_record changes is not the one its
   *                                                           new vector was made against any more
   *
   * AUTHID DEFINER: the package touches no data; definer's rights keep it callable by the
   * runtime user through the facade without any grant on this package.
   * Not ACCESSIBLE BY: PL/SQL clients may reference the exception names below.
   */
  c_invalid_argument   CONSTANT PLS_INTEGER := -20001;
  c_record_not_found   CONSTANT PLS_INTEGER := -20002;
  c_duplicate_record   CONSTANT PLS_INTEGER := -20003;
  c_invalid_filter     CONSTANT PLS_INTEGER := -20004;
  c_invalid_link       CONSTANT PLS_INTEGER := -20005;
  c_dimension_mismatch CONSTANT PLS_INTEGER := -20006;
  c_schema_error       CONSTANT PLS_INTEGER := -20007;
  c_attached_image     CONSTANT PLS_INTEGER := -20008;
  c_access_denied      CONSTANT PLS_INTEGER := -20009;
  c_link_end_not_found CONSTANT PLS_INTEGER := -20010;
  c_message_context_changed CONSTANT PLS_INTEGER := -20011;

  e_invalid_argument EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_invalid_argument, -20001);
  e_record_not_found EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_record_not_found, -20002);
  e_duplicate_record EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_duplicate_record, -20003);
  e_invalid_filter EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_invalid_filter, -20004);
  e_invalid_link EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_invalid_link, -20005);
  e_dimension_mismatch EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_dimension_mismatch, -20006);
  e_schema_error EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_schema_error, -20007);
  e_attached_image EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_attached_image, -20008);
  e_access_denied EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_access_denied, -20009);
  e_link_end_not_found EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_link_end_not_found, -20010);
  e_message_context_changed EXCEPTION;
  PRAGMA EXCEPTION_INIT(e_message_context_changed, -20011);

  -- Raise one of the codes above with a message (cut to 2000 characters).
  -- Any other code is a programming error and is raised as -20001 naming the bad code.
  PROCEDURE raise_error(p_code IN PLS_INTEGER, p_message IN VARCHAR2);

  -- Shorthands, one per code.
  PROCEDURE invalid_argument(p_message IN VARCHAR2);
  PROCEDURE record_not_found(p_message IN VARCHAR2);
  PROCEDURE duplicate_record(p_message IN VARCHAR2);
  PROCEDURE invalid_filter(p_message IN VARCHAR2);
  PROCEDURE invalid_link(p_message IN VARCHAR2);
  PROCEDURE dimension_mismatch(p_message IN VARCHAR2);
  PROCEDURE schema_error(p_message IN VARCHAR2);
  PROCEDURE attached_image(p_message IN VARCHAR2);
  PROCEDURE access_denied(p_message IN VARCHAR2);
  PROCEDURE link_end_not_found(p_message IN VARCHAR2);
  PROCEDURE message_context_changed(p_message IN VARCHAR2);
END AGENT_MEMORY_ERRORS;
/
