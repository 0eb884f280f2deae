CREATE OR REPLACE PACKAGE AGENT_MEMORY_FILTER AUTHID DEFINER AS
  /*
   * AGENT_MEMORY_FILTER: the metadata filter language of docs/store-contract.md in the database.
   *
   *   filter     := {key: expression, ...}            AND across keys
   *   expression := operators | nested | exact
   *   operators  := {"$array_contains": v-or-list, "$array_contains_any": list, "$not": expression}
   *   nested     := {key: expression, ...}             the stored value is an object
   *   exact      := scalar | list                      JSON equality, lists in order
   *
   * Two halves that always run together in the store's queries:
   *   prefilter(): compiles the positive, index-friendly part of a filter to SQL/JSON
   *     predicates (JSON_EXISTS with a PASSING clause whose values come from the bound filter
   *     document itself), so a JSON search index on metadata can narrow the rows. Field names
   *     reach the SQL text only when they match c_safe_key (a whitelist); values never do.
   *     The compiled predicate is a necessary condition (lax-mode superset), never a
   *     sufficient one.
   *   matches(): the exact evaluator (same semantics as stores/metadata_filter.py: true is
   *     not 1, 1 equals 1.0, lists equal in order, $not matches a missing field), applied to
   *     every row the prefilter lets through. Usable from SQL:
   *       SELECT id FROM AGENT_MEMORY_RECORDS r
   *        WHERE AGENT_MEMORY_FILTER.matches(r.metadata, JSON('{"tags": {"$array_contains": "a"}}')) = 1;
   *
   * AUTHID DEFINER, no ACCESSIBLE BY: called inside SQL statements (an ACCESSIBLE BY unit
   * cannot be called from SQL) and by other applications; it reads no table.
   */
  c_safe_key CONSTANT VARCHAR2(40 CHAR) := '^[A-Za-z][A-Za-z0-9_]{0,63}$';

  -- Raise -20004 naming the offending key when p_filter is not a valid filter (NULL is valid).
  PROCEDURE validate(p_filter IN JSON);

  -- 1 when the stored metadata satisfies the (validated) filter, else 0. NULL filter: 1.
  FUNCTION matches(p_metadata IN JSON, p_filter IN JSON) RETURN NUMBER DETERMINISTIC;

  -- SQL text of the compiled prefilter for a validated filter: conditions on the column
  -- r.metadata that read their values from the column flt.f (the bound filter document).
  -- '1 = 1' when nothing can be compiled. Callers must expose exactly those two aliases.
  -- dynamic-sql: whitelisted field names checked against c_safe_key ([A-Za-z][A-Za-z0-9_]*)
  FUNCTION prefilter(p_filter IN JSON) RETURN VARCHAR2;
END AGENT_MEMORY_FILTER;
/
