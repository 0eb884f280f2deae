CREATE OR REPLACE PACKAGE AGENT_MEMORY_RECORD_API AUTHID DEFINER
  ACCESSIBLE BY (PACKAGE AGENT_MEMORY, PACKAGE AGENT_MEMORY_SEARCH, PACKAGE AGENT_MEMORY_RETENTION,
                 PACKAGE AGENT_MEMORY_LINK_GRAPH, PACKAGE AGENT_MEMORY_ADMIN)
AS
  /*
   * AGENT_MEMORY_RECORD_API: records of every type: write, read, list, update, delete, cascade.
   * Same semantics as python/oracleagentmemory/stores/embedded/store.py; the facade
   * AGENT_MEMORY documents each operation and owns the transaction (savepoint/commit).
   *
   * AUTHID DEFINER: runs with the owner's rights so the runtime user needs EXECUTE on the
   * facade only, never a grant on a table. ACCESSIBLE BY: internal to the store.
   * Static SQL everywhere except get_records, whose candidate query carries the compiled
   * metadata prefilter (see the dynamic-sql tag in the body).
   */

  -- The contract operations (see AGENT_MEMORY for their documentation). None commits.
  FUNCTION write_records(p_records IN JSON, p_links IN JSON, p_replace IN BOOLEAN,
                         p_thread_id IN VARCHAR2) RETURN JSON;
  FUNCTION get_records(p_query IN JSON) RETURN JSON;
  FUNCTION list_messages(p_thread_id IN VARCHAR2, p_start IN NUMBER, p_end IN NUMBER,
                         p_include_bytes IN BOOLEAN) RETURN JSON;
  FUNCTION update_record(p_record_id IN VARCHAR2, p_record_types IN JSON, p_changes IN JSON,
                         p_thread_id IN VARCHAR2) RETURN JSON;
  FUNCTION delete_records(p_record_ids IN JSON, p_record_types IN JSON,
                          p_thread_id IN VARCHAR2) RETURN NUMBER;
  FUNCTION delete_cascade(p_owner_type IN VARCHAR2, p_owner_id IN VARCHAR2) RETURN JSON;

  -- Delete the records whose seq is in p_seqs, every relation touching the memory-like ones
  -- and the image records attached to deleted messages. Returns the number of relations
  -- removed.
  FUNCTION delete_seqs(p_seqs IN AGENT_MEMORY_NUMBER_LIST) RETURN NUMBER;

  -- RecordOut documents of the records whose seq is in p_seqs, in that order (a message
  -- carries its seq as "seq_no").
  FUNCTION records_json(p_seqs IN AGENT_MEMORY_NUMBER_LIST, p_include_bytes IN BOOLEAN)
    RETURN JSON_ARRAY_T;

  -- A validated record_types list. p_searchable restricts it to the searchable types (the
  -- message then says "unknown or unsearchable").
  FUNCTION record_types(p_types IN JSON_ARRAY_T, p_searchable IN BOOLEAN)
    RETURN AGENT_MEMORY_TEXT_LIST;

  -- Is p_record_type one of the memory-like types?
  FUNCTION is_memory_type(p_record_type IN VARCHAR2) RETURN BOOLEAN;

  -- Embedding of a text with the in-database model as TO_VECTOR text, or NULL when the store
  -- was rendered without a model (none configured) or the text is empty.
  -- p_is_query: the text is a search query, not a stored text; a model that reads its input
  -- with a prefix gets it here as the client gives it (none for this model).
  FUNCTION embed_text(p_text IN CLOB, p_is_query IN BOOLEAN DEFAULT FALSE) RETURN CLOB;
END AGENT_MEMORY_RECORD_API;
/
