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
  --%test(schema 2: a link without thread_id joins memories of different threads and has no thread)
  PROCEDURE client_level_link;
  --%test(schema 2: a link without thread_id between memories of one thread belongs to it)
  PROCEDURE client_level_link_in_one_thread;
  --%test(schema 2: a client-level link still needs existing memory-like endpoints)
  --%throws(-20005)
  PROCEDURE client_level_link_to_nothing;
  --%test(schema 2: list_links matches every present LinkQuery key exactly, oldest first)
  PROCEDURE link_query;
  --%test(schema 2: a NULL thread updates and deletes any relation, a thread only its own)
  PROCEDURE null_thread_means_any;
  --%test(schema 2: a linked hit carries the whole stored relation)
  PROCEDURE linked_hit_relation;
END ut_agent_memory_links;
/
