CREATE OR REPLACE PACKAGE AGENT_MEMORY_SCOPE AUTHID DEFINER AS
  /*
   * AGENT_MEMORY_SCOPE: the contract's scope rules, usable from SQL by other applications.
   *
   * A record has three scope columns (user_id, agent_id, thread_id). In a search each
   * dimension is absent (no filter), exact (the column IS the value: NULL matches only NULL)
   * or non-exact (no filter, but a record whose column IS the value ranks as if its distance
   * were c_affinity smaller, once per matching dimension).
   *
   *   SELECT r.id FROM AGENT_MEMORY_RECORDS r
   *    WHERE AGENT_MEMORY_SCOPE.matches(r.user_id, r.agent_id, r.thread_id,
   *            JSON('{"user_id": {"value": "u1", "exact": true}}')) = 1;
   *
   * AUTHID DEFINER and no ACCESSIBLE BY: pure functions over their arguments, callable from
   * any SQL statement; they read no table.
   */
  -- rendered from oracleagentmemory/stores/ranking.py SCOPE_AFFINITY
  c_affinity CONSTANT NUMBER := 0.05;

  TYPE dimension_t IS RECORD (
    present BOOLEAN := FALSE,
    exact   BOOLEAN := FALSE,
    value   VARCHAR2(512 CHAR)
  );
  TYPE scope_t IS RECORD (
    user_dim   dimension_t,
    agent_dim  dimension_t,
    thread_dim dimension_t
  );

  -- 1 when the column passes one dimension: p_exact = 0, or p_record_value IS p_value.
  FUNCTION dimension_matches(p_record_value IN VARCHAR2, p_value IN VARCHAR2, p_exact IN NUMBER)
    RETURN NUMBER DETERMINISTIC;

  -- 1 when the record passes every exact dimension of p_scope (a SearchRequest "scope").
  FUNCTION matches(p_user_id IN VARCHAR2, p_agent_id IN VARCHAR2, p_thread_id IN VARCHAR2,
                   p_scope IN JSON) RETURN NUMBER DETERMINISTIC;

  -- Number of non-exact dimensions of p_scope whose value the record's column IS (0..3).
  FUNCTION affinity(p_user_id IN VARCHAR2, p_agent_id IN VARCHAR2, p_thread_id IN VARCHAR2,
                    p_scope IN JSON) RETURN NUMBER DETERMINISTIC;

  -- Validate a scope object (messages as the embedded backend) and return its dimensions.
  FUNCTION parse(p_scope IN JSON_OBJECT_T) RETURN scope_t;
END AGENT_MEMORY_SCOPE;
/
