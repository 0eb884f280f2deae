CREATE OR REPLACE PACKAGE ut_agent_memory_filter AS
  --%suite(agent memory: metadata filter and scope rules)
  --%suitepath(agent_memory)

  --%test(JSON equality: 1 equals 1.0, true is not 1)
  PROCEDURE json_equality;
  --%test($not matches a missing field and a non-array under negated membership)
  PROCEDURE not_matches_missing;
  --%test($array_contains needs all, $array_contains_any needs one)
  PROCEDURE array_membership;
  --%test(lists are equal in order and length; nested objects recurse)
  PROCEDURE lists_and_nesting;
  --%test(a $ key in place of a field name is an invalid filter)
  --%throws(-20004)
  PROCEDURE operator_as_field;
  --%test(an unknown operator is an invalid filter)
  --%throws(-20004)
  PROCEDURE unknown_operator;
  --%test(operators mixed with field names are an invalid filter)
  --%throws(-20004)
  PROCEDURE mixed_operators;
  --%test(an empty membership list is an invalid filter)
  --%throws(-20004)
  PROCEDURE empty_membership_list;
  --%test(the prefilter compiles whitelisted keys only and never splices values)
  PROCEDURE prefilter_whitelist;
  --%test(exact scope: null matches only null; non-exact dimensions add affinity)
  PROCEDURE scope_rules;
END ut_agent_memory_filter;
/
