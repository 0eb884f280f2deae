CREATE OR REPLACE PACKAGE ut_agent_memory_isolation AS
  --%suite(agent memory: end-user isolation)
  --%suitepath(agent_memory)
  --%rollback(auto)

  -- Runs as the store owner. The owner is bound like any session (a bound session is
  -- restricted whoever it is), which lets one schema play users A and B; the application
  -- context AGENT_MEMORY_CTX must exist (install/grants_owner.sql). Context values are not
  -- transactional, so every test unbinds afterwards.

  --%aftereach
  PROCEDURE unbind;

  --%test(unbound, the owner sees the records of every user and of no user)
  PROCEDURE unbound_owner_sees_all;
  --%test(bound to A, get_records returns only A's records, whatever the query asks)
  PROCEDURE get_records_only_own;
  --%test(bound to A, search and search_rows never return B's records)
  PROCEDURE search_only_own;
  --%test(bound to A, list_messages of B's thread is empty)
  PROCEDURE list_messages_only_own;
  --%test(bound to A, update_record of B's record matches nothing and changes nothing)
  PROCEDURE cannot_update_other;
  --%test(bound to A, delete_records and delete_cascade leave B's records alone)
  PROCEDURE cannot_delete_other;
  --%test(bound to A, writing a record for B is rejected by the policy check)
  --%throws(-28115)
  PROCEDURE cannot_write_for_other;
  --%test(bound to A, B's links are invisible and cannot be changed or deleted)
  PROCEDURE links_only_own;
  --%test(bound to A, direct SELECTs on the views and tables return only A's rows)
  PROCEDURE views_only_own;
  --%test(bound to A, records with user_id NULL are invisible)
  PROCEDURE null_user_invisible_when_bound;
  --%test(bound to A, purge_expired removes only A's expired records)
  PROCEDURE purge_only_own;
  --%test(bound, reset_store is refused)
  --%throws(-20001)
  PROCEDURE reset_store_refused_when_bound;
  --%test(set_end_user refuses NULL)
  --%throws(-20001)
  PROCEDURE null_end_user_refused;
  --%test(clear_end_user restores the unrestricted owner view)
  PROCEDURE clear_restores_owner_view;
  --%test(bound to A, replace_images on A's message neither deletes nor takes over B's images)
  PROCEDURE replace_images_only_own;
END ut_agent_memory_isolation;
/
