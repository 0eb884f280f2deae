CREATE OR REPLACE PACKAGE ut_agent_memory_deepsec AS
  --%suite(agent memory: deep data security policies and grants)
  --%suitepath(agent_memory)
  --%rollback(auto)

  -- Runs as the store owner, which is also the only session allowed to administer policies
  -- (every change below passes p_commit => FALSE, so utPLSQL rolls it back). The owner binds
  -- end users with set_end_user_context like a runtime user would; a bound session is
  -- restricted whoever it is. The application context AGENT_MEMORY_CTX must exist
  -- (install/grants_owner.sql). Context values are not transactional, so every test unbinds
  -- afterwards.
  --
  -- Every test seeds (unbound, as the owner): alice (memory a1, message ma), bob (memory
  -- b1), dave (memory d1), erin (memory e1), the memories of no user g1 and g2 (linked to
  -- each other), a message of no user gm, and a link from a1 to g1. Policies USER_OWN_ROWS
  -- and GLOBAL_MEMORIES registered; granted: alice USER_OWN_ROWS; group readers
  -- GLOBAL_MEMORIES; dave both; group staff USER_OWN_ROWS. carol and mallory have no grant
  -- of their own.

  --%aftereach
  PROCEDURE unbind;

  --%test(USER_OWN_ROWS: an end user sees its own rows only)
  PROCEDURE own_rows_only;
  --%test(GLOBAL_MEMORIES: a reader sees the memories of no user, not their messages, not other users)
  PROCEDURE global_memories_readable;
  --%test(GLOBAL_MEMORIES: the memories of no user cannot be updated or deleted, through the facade or SQL)
  PROCEDURE global_memories_read_only;
  --%test(GLOBAL_MEMORIES: writing a memory of no user is refused with -20009)
  --%throws(-20009)
  PROCEDURE global_memory_write_refused;
  --%test(both policies: own rows read and write, global memories read only, in search too)
  PROCEDURE both_policies;
  --%test(nothing granted: nothing visible through the facade, the views or the tables)
  PROCEDURE nothing_granted_sees_nothing;
  --%test(nothing granted: even its own record is refused with -20009)
  --%throws(-20009)
  PROCEDURE nothing_granted_writes_nothing;
  --%test(nothing granted: direct SQL inserts fail the policy check)
  --%throws(-28115)
  PROCEDURE nothing_granted_direct_insert;
  --%test(a policy granted to one of the groups applies)
  PROCEDURE group_grant_applies;
  --%test(a revoke takes effect at the next bind)
  PROCEDURE revoke_takes_effect_on_next_bind;
  --%test(removing a policy withdraws its grants)
  PROCEDURE remove_policy_withdraws_grants;
  --%test(links: readable when both ends are, changeable only when both are own)
  PROCEDURE links_follow_their_ends;
  --%test(linking a memory of no user is refused with -20009)
  --%throws(-20009)
  PROCEDURE link_to_global_refused;
  --%test(purging is refused with -20009 in a security context)
  --%throws(-20009)
  PROCEDURE purge_refused;
  --%test(deleting another user is refused with -20009)
  --%throws(-20009)
  PROCEDURE delete_other_user_refused;
  --%test(deleting itself with USER_OWN_ROWS removes only its own rows)
  PROCEDURE delete_own_user;
  --%test(set_end_user still means own rows, whatever is granted)
  PROCEDURE set_end_user_unchanged;
  --%test(granting an unregistered policy is refused with -20001)
  --%throws(-20001)
  PROCEDURE grant_unregistered_refused;
  --%test(policies and grants are listed as JSON)
  PROCEDURE listing;
  --%test(the mode follows the database: NATIVE only where Deep Data Security exists)
  PROCEDURE mode_follows_the_database;
  --%test(writing its own records into another user's thread is refused with -20009)
  --%throws(-20009)
  PROCEDURE write_into_other_thread_refused;
  --%test(naming another user's thread as the write's thread is refused with -20009, not -20002)
  --%throws(-20009)
  PROCEDURE write_naming_other_thread_refused;
  --%test(set_end_user: writing into another user's thread is refused with -20009 too)
  --%throws(-20009)
  PROCEDURE bound_write_into_other_thread_refused;
  --%test(its own thread and a thread id without a record still take its writes; the owner lookup leaves nothing visible)
  PROCEDURE write_into_own_thread_allowed;
END ut_agent_memory_deepsec;
/
