CREATE OR REPLACE PACKAGE AGENT_MEMORY_ADMIN AUTHID DEFINER
  ACCESSIBLE BY (PACKAGE AGENT_MEMORY)
AS
  /*
   * AGENT_MEMORY_ADMIN: store facts, schema version checks, reset, text index sync.
   *
   * SchemaPolicy is applied by the installer (Python or install/*.sql), which owns the DDL:
   *   REQUIRE_EXISTING     -> AGENT_MEMORY.check_schema raises -20007 when missing/other version
   *   CREATE_IF_NECESSARY  -> install what is missing, upgrade an older store, then check_schema
   *   CREATE_IF_EMPTY      -> install when nothing of the store exists; else as REQUIRE_EXISTING
   *   RECREATE             -> as CREATE_IF_NECESSARY, then reset_store
   *   NO_CHECK             -> nothing
   * Upgrade path: install/upgrade.sql runs the version steps, re-creates the packages
   * (CREATE OR REPLACE) and records the new version with set_schema_version.
   *
   * AUTHID DEFINER / ACCESSIBLE BY the facade.
   */
  c_schema_version CONSTANT PLS_INTEGER := 5;

  FUNCTION describe RETURN JSON;
  PROCEDURE check_schema(p_dimension IN NUMBER, p_version IN NUMBER);
  PROCEDURE reset_store;
  PROCEDURE sync_text_index;
  PROCEDURE set_schema_version(p_version IN NUMBER);
  -- Set keyword_text of the records that have none (stores from before version 4, or emptied by the upgrade to 5),
  -- p_batch rows per committed batch; the number of records set.
  FUNCTION fill_keyword_text(p_batch IN PLS_INTEGER) RETURN NUMBER;
  -- The local model whose vectors the store holds (see the facade's member of that name).
  FUNCTION recorded_embedding_model RETURN VARCHAR2;
  -- Record p_name as that model unless one is recorded.
  PROCEDURE record_embedding_model(p_name IN VARCHAR2);
END AGENT_MEMORY_ADMIN;
/
