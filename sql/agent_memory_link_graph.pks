CREATE OR REPLACE PACKAGE AGENT_MEMORY_LINK_GRAPH AUTHID DEFINER
  ACCESSIBLE BY (PACKAGE AGENT_MEMORY, PACKAGE AGENT_MEMORY_RECORD_API, PACKAGE AGENT_MEMORY_SEARCH)
AS
  /*
   * AGENT_MEMORY_LINK_GRAPH: relations between memory-like records, and their traversal for
   * search.
   *
   * A relation written with a thread_id belongs to that thread: both endpoints must be of
   * that thread. One written without (a client-level relation) may join records of any
   * threads; it is stored with their thread when both share one, else with thread_id NULL.
   * One stored direction per endpoint pair (unique pair_low/pair_high). Walking
   * source->target reports relation_type, walking target->source reports
   * opposite_relation_type. Built-in types fix the opposite label: supersedes/
   * is_superseded_by, refines/is_refined_by, supports/is_supported_by, contradicts/
   * contradicts, duplicates/duplicates; a custom type's opposite is the given one or the
   * same label.
   *
   * AUTHID DEFINER (owner's rights on the tables), ACCESSIBLE BY the store's packages.
   */

  -- The stored reverse label (fixed for built-in types); -20005 for an empty/too long label.
  FUNCTION opposite_label(p_relation_type IN VARCHAR2, p_opposite IN VARCHAR2,
                          p_opposite_given IN BOOLEAN) RETURN VARCHAR2;

  -- Insert the LinkIn documents of p_links in order, checked as if each were inserted alone:
  -- both endpoints visible memory-like records (of the link's thread_id when it has one),
  -- -20003 when an id or an endpoint pair is already used (stored or earlier in p_links).
  -- created_at is p_now unless a LinkIn carries "created_at" (an import), kept as given.
  PROCEDURE insert_links(p_links IN JSON_ARRAY_T, p_now IN TIMESTAMP);

  -- Contract operations (documented in AGENT_MEMORY).
  FUNCTION update_link(p_relation_id IN VARCHAR2, p_thread_id IN VARCHAR2, p_changes IN JSON)
    RETURN NUMBER;
  FUNCTION delete_links(p_selector IN JSON, p_thread_id IN VARCHAR2) RETURN NUMBER;
  FUNCTION list_links(p_query IN JSON) RETURN JSON;

  -- Breadth-first walk from one memory-like record over relations in both directions, up to
  -- p_num_hops, at most p_max_linked records, each once, never the start; expired and (unless
  -- p_include_invalid) invalid records are neither returned nor walked through.
  -- Returns [{"record", "relation", "relation_id", "relation_type", "via_record_id", "hops"}]
  -- ("relation": the whole stored relation, a LinkOut).
  FUNCTION expand(p_start_id IN VARCHAR2, p_num_hops IN NUMBER, p_max_linked IN NUMBER,
                  p_include_invalid IN BOOLEAN, p_now IN TIMESTAMP) RETURN JSON_ARRAY_T;
END AGENT_MEMORY_LINK_GRAPH;
/
