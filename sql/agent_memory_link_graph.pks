CREATE OR REPLACE PACKAGE AGENT_MEMORY_LINK_GRAPH AUTHID DEFINER
  ACCESSIBLE BY (PACKAGE AGENT_MEMORY, PACKAGE AGENT_MEMORY_RECORD_API, PACKAGE AGENT_MEMORY_SEARCH)
AS
  /*
   * AGENT_MEMORY_LINK_GRAPH: relations between memory-like records of one thread, and their
   * traversal for search.
   *
   * One stored direction per endpoint pair (unique pair_low/pair_high). Walking source->target
   * reports relation_type, walking target->source reports opposite_relation_type. Built-in
   * types fix the opposite label: supersedes/is_superseded_by, refines/is_refined_by,
   * supports/is_supported_by, contradicts/contradicts, duplicates/duplicates; a custom type's
   * opposite is the given one or the same label.
   *
   * AUTHID DEFINER (owner's rights on the tables), ACCESSIBLE BY the store's packages.
   */

  -- The stored reverse label (fixed for built-in types); -20005 for an empty/too long label.
  FUNCTION opposite_label(p_relation_type IN VARCHAR2, p_opposite IN VARCHAR2,
                          p_opposite_given IN BOOLEAN) RETURN VARCHAR2;

  -- Insert one LinkIn; both endpoints must be visible memory-like records of thread_id.
  -- Returns the relation id. -20003 when the id or the endpoint pair is already used.
  -- created_at is p_now unless the LinkIn carries "created_at" (an import), kept as given.
  FUNCTION insert_link(p_link IN JSON_OBJECT_T, p_now IN TIMESTAMP) RETURN VARCHAR2;

  -- Contract operations (documented in AGENT_MEMORY).
  FUNCTION update_link(p_relation_id IN VARCHAR2, p_thread_id IN VARCHAR2, p_changes IN JSON)
    RETURN NUMBER;
  FUNCTION delete_links(p_selector IN JSON, p_thread_id IN VARCHAR2) RETURN NUMBER;
  FUNCTION list_links(p_thread_id IN VARCHAR2) RETURN JSON;

  -- Breadth-first walk from one memory-like record over relations in both directions, up to
  -- p_num_hops, at most p_max_linked records, each once, never the start; expired and (unless
  -- p_include_invalid) invalid records are neither returned nor walked through.
  -- Returns [{"record", "relation_id", "relation_type", "via_record_id", "hops"}].
  FUNCTION expand(p_start_id IN VARCHAR2, p_num_hops IN NUMBER, p_max_linked IN NUMBER,
                  p_include_invalid IN BOOLEAN, p_now IN TIMESTAMP) RETURN JSON_ARRAY_T;
END AGENT_MEMORY_LINK_GRAPH;
/
