CREATE OR REPLACE PACKAGE ut_agent_memory_messages AS
  --%suite(agent memory: a thread's messages in one call)
  --%suitepath(agent_memory)
  --%rollback(auto)

  -- agent_memory.append_messages: the thread checked, the batch written, its messages
  -- counted in the thread record and what is due returned, in one call. The counting
  -- cases are those of tests/llm/test_scheduler.py (the rule of
  -- python/oracleagentmemory/stores/extraction_schedule.py). Every test writes thread t1
  -- of user u1 first.

  --%test(a batch is written and counted; the due extraction returns its window and resets the counter)
  PROCEDURE counts_and_returns_the_window;
  --%test(the summary is checked only after a due extraction)
  PROCEDURE summary_checked_after_extraction;
  --%test(without extraction the summary is checked on every batch)
  PROCEDURE summary_without_extraction;
  --%test(a positive extraction window returns that many newest messages)
  PROCEDURE positive_window;
  --%test(messages given back to the summary are counted without a batch)
  PROCEDURE unsummarised_given_back;
  --%test(a thread that does not exist is -20002, nothing written)
  --%throws(-20002)
  PROCEDURE missing_thread;
  --%test(a thread without a record takes the batch when not required, and keeps no counters)
  PROCEDURE thread_not_required;
  --%test(another last message than expected: nothing written, that message returned)
  PROCEDURE stale_last_message;
  --%test(a record of another thread, or not a message or image, is -20001)
  --%throws(-20001)
  PROCEDURE record_of_another_thread;
  --%test(the settings in the thread's config are kept when the counters change)
  PROCEDURE settings_kept;
  --%test(an update of the settings keeps the counters)
  PROCEDURE counters_kept;
END ut_agent_memory_messages;
/
