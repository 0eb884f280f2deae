CREATE OR REPLACE PACKAGE ut_agent_memory_search AS
  --%suite(agent memory: search)
  --%suitepath(agent_memory)
  --%rollback(auto)

  --%beforeeach
  PROCEDURE seed;

  --%test(vector search ranks by cosine distance, best first)
  PROCEDURE vector_ranking;
  --%test(an exact scope dimension filters, null matching only null)
  PROCEDURE exact_scope;
  --%test(a non-exact scope dimension ranks matching records closer without filtering)
  PROCEDURE scope_affinity;
  --%test(include_invalid false skips invalid records; the metadata filter applies)
  PROCEDURE status_and_filter;
  --%test(search_rows gives the same hits to plain SQL)
  PROCEDURE search_rows_from_sql;
  --%test(an unknown strategy is an invalid argument)
  --%throws(-20001)
  PROCEDURE unknown_strategy;
  --%test(a query vector of another dimension is rejected)
  --%throws(-20006)
  PROCEDURE query_dimension;
  --%test(keyword search matches any word of the query after commit)
  --%rollback(manual)
  PROCEDURE keyword_search;
END ut_agent_memory_search;
/
