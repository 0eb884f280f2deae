-- Generated from the contract's cases (python/oracleagentmemory/conformance/cases.py) by
-- python -m oracleagentmemory_devtools.plsql_cases; edit the cases or
-- tests/plsql/templates/, never this file (tests/oracle_sql/test_plsql_cases.py checks it).
CREATE OR REPLACE PACKAGE ut_agent_memory_filter AS
  --%suite(agent memory: metadata filter and scope rules)
  --%suitepath(agent_memory)

  --%test(JSON equality: 1 equals 1.0, true is not 1, null matches only a present null)
  PROCEDURE json_equality;

  --%test(a field the record lacks matches nothing but a negation, no metadata being an empty object)
  PROCEDURE missing_fields;

  --%test($array_contains needs every value, $array_contains_any one, both only in a list)
  PROCEDURE array_membership;

  --%test($not inverts an expression, and matches a missing field)
  PROCEDURE negation;

  --%test(lists are equal in order and length; nested objects recurse)
  PROCEDURE lists_and_nesting;

  --%test(every key of a filter must match; an empty filter matches everything)
  PROCEDURE every_key;

  --%test(an invalid filter: an unknown operator)
  --%throws(-20004)
  PROCEDURE invalid_filter_01;

  --%test(an invalid filter: an unknown operator)
  --%throws(-20004)
  PROCEDURE invalid_filter_02;

  --%test(an invalid filter: an operator in place of a field name)
  --%throws(-20004)
  PROCEDURE invalid_filter_03;

  --%test(an invalid filter: an operator in place of a field name)
  --%throws(-20004)
  PROCEDURE invalid_filter_04;

  --%test(an invalid filter: operators mixed with field names)
  --%throws(-20004)
  PROCEDURE invalid_filter_05;

  --%test(an invalid filter: operators mixed with field names)
  --%throws(-20004)
  PROCEDURE invalid_filter_06;

  --%test(an invalid filter: $array_contains_any of a value that is not a list)
  --%throws(-20004)
  PROCEDURE invalid_filter_07;

  --%test(an invalid filter: an empty membership list)
  --%throws(-20004)
  PROCEDURE invalid_filter_08;

  --%test(an invalid filter: an empty membership list)
  --%throws(-20004)
  PROCEDURE invalid_filter_09;

  --%test(an invalid filter: an unknown operator in a nested object)
  --%throws(-20004)
  PROCEDURE invalid_filter_10;

  --%test(an invalid filter: an empty field name)
  --%throws(-20004)
  PROCEDURE invalid_filter_11;

  --%test(scope: without a scope every record passes)
  PROCEDURE scope_no_scope;

  --%test(scope: an exact dimension keeps the records holding its value)
  PROCEDURE scope_exact_value;

  --%test(scope: an exact dimension drops the records of another value)
  PROCEDURE scope_exact_other_value;

  --%test(scope: an exact null keeps the records without a value)
  PROCEDURE scope_exact_null_matches_null;

  --%test(scope: an exact null drops the records with a value)
  PROCEDURE scope_exact_null_drops_values;

  --%test(scope: an exact value drops the records without one)
  PROCEDURE scope_exact_value_drops_null;

  --%test(scope: a non-exact dimension drops nothing)
  PROCEDURE scope_non_exact_never_drops;

  --%test(scope: a non-exact dimension the record holds ranks it closer)
  PROCEDURE scope_non_exact_affinity;

  --%test(scope: each matching non-exact dimension counts once)
  PROCEDURE scope_affinity_per_dimension;

  --%test(scope: an exact dimension adds no affinity)
  PROCEDURE scope_exact_dimensions_add_no_affinity;

  --%test(the prefilter compiles whitelisted keys only and never splices values)
  PROCEDURE prefilter_whitelist;
END ut_agent_memory_filter;
/
