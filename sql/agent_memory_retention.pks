CREATE OR REPLACE PACKAGE AGENT_MEMORY_RETENTION AUTHID DEFINER
  ACCESSIBLE BY (PACKAGE AGENT_MEMORY, PACKAGE AGENT_MEMORY_RECORD_API, PACKAGE AGENT_MEMORY_ADMIN)
AS
  /*
   * AGENT_MEMORY_RETENTION: expiry (TTL) and the purge of expired records.
   *
   * expires_at = anchor + ttl_days, the anchor being the store's creation time (CREATED_AT)
   * or the record's event timestamp (TIMESTAMP, which must then be given). A record whose
   * expires_at is not in the future is invisible to every read; purge_expired removes it,
   * run by the DBMS_SCHEDULER job AGENT_MEMORY_PURGE_JOB (see ensure_purge_job).
   *
   * AUTHID DEFINER: the purge job and the facade run it with the owner's rights on the
   * store tables. ACCESSIBLE BY: only the facade, the record API and admin call it.
   */

  -- Expiry of a record from the ttl_days / ttl_anchor members of p_values (RecordIn or
  -- RecordChanges). p_created_at is the creation time, p_event_utc the parsed event time
  -- (NULL when none). NULL when ttl_days is absent or null. p_where prefixes messages.
  FUNCTION expires_at(p_values IN JSON_OBJECT_T, p_created_at IN TIMESTAMP,
                      p_event_utc IN TIMESTAMP, p_where IN VARCHAR2) RETURN TIMESTAMP;

  -- Delete every record whose expiry has passed (with its relations and attached images).
  -- Returns how many records were removed. Does not commit.
  FUNCTION purge_expired RETURN NUMBER;

  -- Create (or keep) the scheduler job that runs the purge. Without the CREATE JOB
  -- privilege it prints a warning with DBMS_OUTPUT and returns FALSE instead of failing.
  FUNCTION ensure_purge_job(p_repeat_interval IN VARCHAR2 DEFAULT 'FREQ=HOURLY;INTERVAL=1')
    RETURN BOOLEAN;

  -- Drop the purge job when it exists.
  PROCEDURE drop_purge_job;
END AGENT_MEMORY_RETENTION;
/
