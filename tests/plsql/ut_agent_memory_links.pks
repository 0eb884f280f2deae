CREATE OR REPLACE PACKAGE ut_agent_memory_links AS
  --%suite(agent memory: link graph)
  --%suitepath(agent_memory)
  --%rollback(auto)

  --%beforeeach
  PROCEDURE seed;

  --%test(a second relation between the same two records, in either direction, is a duplicate)
  --%throws(-20003)
  PROCEDURE one_direction_per_pair;
  --%test(built-in types fix the opposite label; custom types keep the given one)
  PROCEDURE labels;
  --%test(search walks links breadth-first in both directions up to num_hops)
  PROCEDURE expansion;
  --%test(max_linked_results caps the linked records of a hit)
  PROCEDURE expansion_cap;
  --%test(an endpoint of another thread is not linkable)
  --%throws(-20005)
  PROCEDURE other_thread;
  --%test(a relation is deleted by id or by its whole stored-direction tuple)
  PROCEDURE delete_by_selector;
END ut_agent_memory_links;
/
