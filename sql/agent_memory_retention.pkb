CREATE OR REPLACE PACKAGE BODY AGENT_MEMORY_RETENTION AS
  c_job_name CONSTANT VARCHAR2(128 CHAR) := 'AGENT_MEMORY_PURGE_JOB';

  FUNCTION expires_at(p_values IN JSON_OBJECT_T, p_created_at IN TIMESTAMP,
                      p_event_utc IN TIMESTAMP, p_where IN VARCHAR2) RETURN TIMESTAMP IS
    l_days   NUMBER;
    l_anchor VARCHAR2(32 CHAR);
  BEGIN
    l_days := AGENT_MEMORY_CODEC.opt_number(p_values, 'ttl_days', p_where || '.ttl_days');
    IF l_days IS NULL THEN
      RETURN NULL;
    END IF;
    IF l_days < 0 THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_where || '.ttl_days must not be negative');
    END IF;
    l_anchor := NVL(AGENT_MEMORY_CODEC.opt_text(p_values, 'ttl_anchor', p_where || '.ttl_anchor', 32),
                    'CREATED_AT');
    IF l_anchor NOT IN ('CREATED_AT', 'TIMESTAMP') THEN
      AGENT_MEMORY_ERRORS.invalid_argument(p_where || '.ttl_anchor must be CREATED_AT or TIMESTAMP');
    END IF;
    IF l_anchor = 'TIMESTAMP' THEN
      IF p_event_utc IS NULL THEN
        AGENT_MEMORY_ERRORS.invalid_argument(p_where
          || ': ttl_anchor TIMESTAMP needs a concrete ISO-8601 timestamp');
      END IF;
      RETURN p_event_utc + NUMTODSINTERVAL(l_days, 'DAY');
    END IF;
    RETURN p_created_at + NUMTODSINTERVAL(l_days, 'DAY');
  END expires_at;

  FUNCTION purge_expired RETURN NUMBER IS
    l_now   TIMESTAMP := AGENT_MEMORY_CODEC.now_utc;
    l_seqs  AGENT_MEMORY_NUMBER_LIST;
    l_links NUMBER;
  BEGIN
    -- Purging is the trusted service's job: an end user of a deep data security context is
    -- refused, as by the embedded backend (a session bound with set_end_user purges its own
    -- expired records, as in earlier releases).
    IF AGENT_MEMORY_SESSION.security_context_bound THEN
      AGENT_MEMORY_SESSION.deny('purge the store');
    END IF;
    SELECT r.seq BULK COLLECT INTO l_seqs
      FROM AGENT_MEMORY_RECORDS r
     WHERE r.expires_at IS NOT NULL
       AND r.expires_at <= l_now
     ORDER BY r.seq;
    l_links := AGENT_MEMORY_RECORD_API.delete_seqs(l_seqs);
    RETURN l_seqs.COUNT;
  END purge_expired;

  FUNCTION ensure_purge_job(p_repeat_interval IN VARCHAR2 DEFAULT 'FREQ=HOURLY;INTERVAL=1')
    RETURN BOOLEAN IS
    e_no_privilege EXCEPTION;
    PRAGMA EXCEPTION_INIT(e_no_privilege, -27486);
    e_already_exists EXCEPTION;
    PRAGMA EXCEPTION_INIT(e_already_exists, -27477);
    e_insufficient EXCEPTION;
    PRAGMA EXCEPTION_INIT(e_insufficient, -1031);
  BEGIN
    -- The action is a constant block calling the facade (an anonymous block may not call an
    -- ACCESSIBLE BY package); it contains no caller input.
    DBMS_SCHEDULER.CREATE_JOB(
      job_name        => c_job_name,
      job_type        => 'PLSQL_BLOCK',
      job_action      => 'DECLARE l_removed NUMBER; BEGIN l_removed := AGENT_MEMORY.purge_expired(p_commit => TRUE); END;',
      start_date      => SYSTIMESTAMP,
      repeat_interval => p_repeat_interval,
      enabled         => TRUE,
      auto_drop       => FALSE,
      comments        => 'Removes expired agent-memory records of store AGENT_MEMORY');
    RETURN TRUE;
  EXCEPTION
    WHEN e_already_exists THEN
      RETURN TRUE;
    WHEN e_no_privilege OR e_insufficient THEN
      DBMS_OUTPUT.PUT_LINE('WARNING: no CREATE JOB privilege; the purge job ' || c_job_name
        || ' was not created. Expired records stay hidden from every read; run '
        || 'AGENT_MEMORY.purge_expired periodically or grant CREATE JOB and run '
        || 'AGENT_MEMORY.ensure_purge_job.');
      RETURN FALSE;
  END ensure_purge_job;

  PROCEDURE drop_purge_job IS
    e_unknown_job EXCEPTION;
    PRAGMA EXCEPTION_INIT(e_unknown_job, -27475);
  BEGIN
    DBMS_SCHEDULER.DROP_JOB(job_name => c_job_name, force => TRUE);
  EXCEPTION
    WHEN e_unknown_job THEN
      NULL;
  END drop_purge_job;
END AGENT_MEMORY_RETENTION;
/
