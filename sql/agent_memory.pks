CREATE OR REPLACE PACKAGE AGENT_MEMORY AUTHID DEFINER AS
  /*
   * AGENT_MEMORY: the public PL/SQL API of the agent-memory store "AGENT_MEMORY".
   * One member per operation of docs/store-contract.md (the Python protocol
   * python/oracleagentmemory/stores/protocol.py mirrors the same list). JSON in, JSON out:
   * the documents have exactly the contract's shapes (RecordIn, RecordOut, RecordQuery,
   * RecordChanges, LinkIn, LinkOut, LinkChanges, LinkSelector, SearchRequest, SearchHit).
   *
   *   contract operation   member                                     returns
   *   -------------------  -----------------------------------------  --------------------------
   *   describe             describe                                   JSON object
   *   write_records        write_records(p_records, p_links,          JSON array of ids
   *                          p_replace, p_commit)
   *   append_messages      append_messages(p_batch, p_commit)         MessageBatchResult
   *   get_records          get_records(p_query)                       JSON array of RecordOut
   *   list_messages        list_messages(p_thread_id, p_start,        JSON array of RecordOut
   *                          p_end, p_include_bytes)
   *   update_record        update_record(p_record_id, p_record_types, RecordOut or SQL NULL
   *                          p_changes, p_thread_id, p_commit)
   *   delete_records       delete_records(p_record_ids,               NUMBER
   *                          p_record_types, p_thread_id, p_commit)
   *   delete_cascade       delete_cascade(p_owner_type, p_owner_id,   {"owner","records","links"}
   *                          p_commit)
   *   search               search(p_request)                          JSON array of SearchHit
   *                        search_rows(p_request)  (pipelined, SQL)   rows of search_row_t
   *   update_link          update_link(p_relation_id, p_thread_id,    NUMBER 0 or 1
   *                          p_changes, p_commit)
   *   delete_links         delete_links(p_selector, p_thread_id,      NUMBER 0 or 1
   *                          p_commit)
   *   list_links           list_links(p_query)                        JSON array of LinkOut
   *   purge_expired        purge_expired(p_commit)                    NUMBER
   *   close                (client side: release the connection; no member)
   *   recorded_embedding_  recorded_embedding_model                   VARCHAR2 or NULL
   *     model
   *   record_embedding_    record_embedding_model(p_name, p_commit)   -
   *     model
   *   administration       check_schema, reset_store, sync_text_index, ensure_purge_job,
   *                        drop_purge_job, set_schema_version, fill_keyword_text
   *
   * Calling conventions
   *   - Named binds from clients: agent_memory.write_records(p_records => :p_records, ...).
   *   - Every write member is one transaction: it sets a savepoint, rolls back to it on any
   *     error (nothing of the batch stays) and commits at the end unless p_commit => FALSE
   *     (then the caller owns the transaction).
   *   - Read members (describe, get_records, list_messages, search, search_rows, list_links)
   *     do no DML and are callable from SQL, e.g.
   *       SELECT AGENT_MEMORY.search(JSON('{"query_text": "pizza", "strategy": "KEYWORD"}')) FROM dual;
   *       SELECT h.record_id, h.distance
   *         FROM AGENT_MEMORY.search_rows(JSON('{"query_text": "pizza", "strategy": "KEYWORD"}')) h;
   *   - Image bytes travel inside the JSON documents as base64 text ("image_bytes").
   *   - A RecordIn without an "embedding" key (absent, not null) is embedded in the database
   *     with the model rendered into the store (none: such records get no vector);
   *     "embedding": null stores no vector. A SearchRequest without query_vector is embedded
   *     the same way.
   *   - Timestamps out are UTC "YYYY-MM-DDTHH:MM:SS.ffffffZ"; "timestamp" too (stored in UTC).
   *   - A RecordOut of a message carries "seq_no": its insertion sequence, increasing within a
   *     thread (not necessarily contiguous).
   *   - Errors: RAISE_APPLICATION_ERROR codes -20001..-20011 listed in AGENT_MEMORY_ERRORS.
   *
   * AUTHID DEFINER, on purpose: the runtime user gets EXECUTE on this package only and no
   * privilege on any table; every internal package is ACCESSIBLE BY this facade (and each
   * other) so it cannot be called around it. AGENT_MEMORY_SCOPE and AGENT_MEMORY_FILTER stay public
   * because they are pure functions meant for other applications' SQL.
   *
   * End-user isolation (see AGENT_MEMORY_SESSION for the rules and the threat model): after
   * AGENT_MEMORY_SESSION.set_end_user(p_user_id) every member below reads, writes, updates,
   * deletes, searches, expands links and purges only records whose user_id is the bound id
   * (a VPD policy on the store tables adds the predicate to every statement, so no request
   * argument can widen it); records of other users, and records with user_id NULL, behave as
   * if they did not exist. With no end user bound, the store owner and trusted services
   * (trust_service) get exactly the contract's behaviour; any other database user sees
   * nothing. reset_store, sync_text_index, ensure_purge_job, drop_purge_job,
   * set_schema_version and fill_keyword_text need such an unrestricted session (-20001
   * otherwise).
   *
   * Deep data security: after AGENT_MEMORY_SESSION.set_end_user_context(p_username, p_groups)
   * the policies granted to the user or its groups (AGENT_MEMORY_SECURITY) decide instead:
   * USER_OWN_ROWS its own records as above, GLOBAL_MEMORIES also reading (never changing)
   * the memory-like records of no user, nothing granted nothing at all. Such a session gets
   * the refusals of the embedded backend (-20009, AccessDeniedError): write_records of a
   * record it may not change or linking one, delete_cascade of another user, of a thread it
   * may not change or of an agent, and purge_expired. update_record, delete_records,
   * update_link and delete_links of rows it may read but not change find nothing (NULL / 0).
   */

  -- One row of search_rows: rank (1 = best), the record's id and type, the reported distance,
  -- the RecordOut document and the "linked" array (JSON text).
  TYPE search_row_t IS RECORD (
    rank        NUMBER,
    record_id   VARCHAR2(512 CHAR),
    record_type VARCHAR2(16 CHAR),
    distance    NUMBER,
    record_json CLOB,
    linked_json CLOB
  );
  TYPE search_rows_t IS TABLE OF search_row_t;

  -- {"backend": "oracle", "store_id", "schema_version", "embedding_dimension",
  --  "search_strategy", "vector_index", "sync_mode", "embedding_model", "purge_job"}.
  FUNCTION describe RETURN JSON;

  -- The local embedding model whose vectors the store holds, so a client picks the same one:
  -- the name recorded by record_embedding_model; else the model whose in-database form the
  -- store was rendered with (none for this store); else
  -- 'all-MiniLM-L6-v2' when the store holds vectors (a store made before models
  -- were recorded, when that model was the only default); else NULL. Does no DML.
  FUNCTION recorded_embedding_model RETURN VARCHAR2;

  -- Record p_name as the model of the store's vectors unless one is recorded (the first
  -- name stays; META key 'vector_model'). Any session may call it: a client
  -- records the model it embeds with when it opens the store.
  --   p_name    the model's name, 1 to 200 characters (-20001 otherwise)
  --   p_commit  commit on success
  PROCEDURE record_embedding_model(p_name IN VARCHAR2, p_commit IN BOOLEAN DEFAULT TRUE);

  -- Insert every record, then every link, atomically; returns the ids in input order
  -- (a generated id is a dashed version 7 UUID, xxxxxxxx-xxxx-7xxx-yxxx-xxxxxxxxxxxx).
  --   p_records  JSON array of RecordIn (only record_type is required). Imports may add
  --              "created_at", "updated_at", "expires_at" (ISO-8601, no zone = UTC): kept
  --              as given instead of the clock; created_at is then the CREATED_AT anchor of
  --              ttl_days, updated_at defaults to created_at, and a present "expires_at"
  --              (null = never) replaces the ttl_days computation. A RecordIn with
  --              "scope_from" (a memory's id) takes each scope key it leaves out (user_id,
  --              agent_id, thread_id) from that visible memory-like record, read in this
  --              call (-20010 when there is none)
  --   p_links    JSON array of LinkIn, may point at records of the same batch (NULL = none);
  --              an end without "source_type" / "target_type" is of its stored type;
  --              with a "thread_id" both endpoints must belong to that thread; without one
  --              (a client-level link) they may belong to any threads, and the link is stored
  --              with their thread when both have the same one, else with thread_id null;
  --              an import may add "created_at", kept as given
  --   p_replace  TRUE: an id already used in its id space replaces the old record (and its
  --              links) when that record has the same record_type, user_id, agent_id,
  --              thread_id and message_id; held by any other record it is -20003, as
  --              always with FALSE. Every id is checked, then the replaced records are
  --              deleted (a message with its attached images), then the batch inserted:
  --              each id returned is stored
  --   p_commit   commit on success (default TRUE)
  --   p_thread_id  the thread the batch is written into: its (unexpired) thread record is
  --              locked first, and a missing one is -20002 with nothing written, so a thread
  --              deleted by another session is never written to (default NULL: no check)
  -- A content of more than 1000000 characters, or a metadata object of more than
  -- 262144 characters as JSON text, is -20001 (python/oracleagentmemory/stores/limits.py).
  -- Metadata numbers hold at most 40 significant digits, magnitudes 1e-130 to below 1e126
  -- (an Oracle NUMBER), and field names at most 65535 UTF-8 bytes: python-oracledb cannot
  -- encode others into p_records (DPY-4003, DPY-3020), and the Python layer refuses them
  -- before the call; this function does not check them again.
  FUNCTION write_records(p_records IN JSON, p_links IN JSON DEFAULT NULL,
                         p_replace IN BOOLEAN DEFAULT FALSE, p_commit IN BOOLEAN DEFAULT TRUE,
                         p_thread_id IN VARCHAR2 DEFAULT NULL)
    RETURN JSON;

  -- Write a batch of one thread's messages in one transaction with what one add_messages
  -- needs (one round trip): the thread, the message the batch follows, the extraction
  -- counters, and what the extraction or summary refresh the batch makes due reads.
  --   p_batch   MessageBatch {"thread_id", "records", "thread_required", "after_message_id",
  --             "schedule"}: "records" are RecordIn of messages and their attached images,
  --             all of thread_id and without "scope_from" (-20001 otherwise); with
  --             "thread_required" (default true)
  --             the unexpired thread record must exist (-20002), and is locked FOR UPDATE
  --             as write_records' p_thread_id locks it; with "after_message_id" (an id or
  --             null: no message) the thread's last visible message must be that one, else
  --             nothing is written; with a "schedule" {"extraction_frequency",
  --             "extraction_window", "summary_frequency", "unsummarised"} the batch's
  --             messages are counted in the thread record's config (state.extraction:
  --             messages_since_extraction, messages_since_summary; its settings untouched)
  --             by the rule of python/oracleagentmemory/stores/extraction_schedule.py
  --   p_commit  commit on success (default TRUE)
  -- Returns {"ids": [...], "written": true|false, "last_message": RecordOut or null (when
  -- not written: the thread's last message), "extraction_window": n, "summary_window": n,
  -- "messages": the thread's last max(windows) messages when either is > 0,
  -- "thread_summary": the content of the thread's stored rolling summary then}. A bound end
  -- user may write only into threads it may change (-20009), as with write_records.
  FUNCTION append_messages(p_batch IN JSON, p_commit IN BOOLEAN DEFAULT TRUE) RETURN JSON;

  -- Visible (non-expired) records matching a RecordQuery, oldest first.
  --   p_query  {"ids", "record_types", "user_id", "agent_id", "thread_id", "message_id",
  --            "metadata_filter", "include_bytes", "limit", "newest"}; every key optional;
  --            a scope key that is present matches exactly, null included. "limit" keeps
  --            the first matches, or with "newest": true the last ones (highest insertion
  --            order), returned oldest first all the same. NULL = every visible record.
  FUNCTION get_records(p_query IN JSON DEFAULT NULL) RETURN JSON;

  -- Visible messages of one thread in insertion order, sliced like Python's [start:end].
  --   p_thread_id      the thread id
  --   p_start, p_end   integers, negative counts from the end, NULL is open
  --   p_include_bytes  add "image_bytes" (base64) to image records
  FUNCTION list_messages(p_thread_id IN VARCHAR2, p_start IN NUMBER DEFAULT NULL,
                         p_end IN NUMBER DEFAULT NULL, p_include_bytes IN BOOLEAN DEFAULT FALSE)
    RETURN JSON;

  -- Replace the fields present in p_changes of one visible record; SQL NULL when none matched.
  --   p_record_id     the record id
  --   p_record_types  JSON array of the record types to look in
  --   p_changes       RecordChanges: content, embedding, metadata (whole), timestamp, status,
  --                   ttl_days / ttl_anchor (expiry recomputed; -20008 for an image
  --                   attached to a message, whose expiry is its message's), parts, config,
  --                   settings (a thread's, layered over its stored config.settings: each
  --                   key replaces, memory_extraction_config field by field; the rest of the
  --                   config kept), keep_bookkeeping (a boolean; with metadata: the
  --                   stored LangGraph bookkeeping is kept when the new metadata does not
  --                   set it),
  --                   after_message_id (a message's: the id of the message expected right
  --                   before it, or null for none; -20011 and nothing changes otherwise;
  --                   a malformed one, or keep_bookkeeping, is -20001 even for a missing record),
  --                   mime_type,
  --                   image_bytes, and for a message replace_images (JSON array of RecordIn)
  --                   setting its attached images: listed ids without image_bytes are kept,
  --                   listed images with image_bytes are inserted or replace the image of
  --                   that id attached to this message (taking the message's id as
  --                   message_id and its user/agent/thread; an id any other record holds
  --                   is -20003 and nothing changes),
  --                   unlisted attached images are deleted (with their bytes); attached
  --                   images always carry the message's expiry, so replace_images or a
  --                   ttl_days / ttl_anchor change re-applies it to them; scope never changes
  --   p_thread_id     when not NULL, only a record of that thread matches
  --   p_commit        commit on success
  FUNCTION update_record(p_record_id IN VARCHAR2, p_record_types IN JSON, p_changes IN JSON,
                         p_thread_id IN VARCHAR2 DEFAULT NULL, p_commit IN BOOLEAN DEFAULT TRUE)
    RETURN JSON;

  -- Delete matching records (expired ones included), their relations and the images attached
  -- to deleted messages; returns how many records matched. -20008 for an image attached to
  -- a message.
  --   p_record_ids    JSON array of ids
  --   p_record_types  JSON array of record types
  --   p_thread_id     when not NULL, only records of that thread
  --   p_commit        commit on success
  FUNCTION delete_records(p_record_ids IN JSON, p_record_types IN JSON,
                          p_thread_id IN VARCHAR2 DEFAULT NULL, p_commit IN BOOLEAN DEFAULT TRUE)
    RETURN NUMBER;

  -- Delete a thread, user or agent with everything it owns, in one transaction.
  --   p_owner_type  'thread' | 'user' | 'agent'
  --   p_owner_id    the thread id, or the user_id / agent_id
  --   p_commit      commit on success
  -- Returns {"owner": 0|1, "records": n, "links": n}.
  FUNCTION delete_cascade(p_owner_type IN VARCHAR2, p_owner_id IN VARCHAR2,
                          p_commit IN BOOLEAN DEFAULT TRUE) RETURN JSON;

  -- Scoped, filtered VECTOR / KEYWORD / HYBRID search with link expansion, best first.
  --   p_request  SearchRequest {"query_text", "query_vector", "strategy", "scope",
  --              "record_types", "metadata_filter", "include_invalid", "max_results",
  --              "num_hops", "max_linked_results"}; defaults as in the contract:
  --              strategy VECTOR, max_results 10, num_hops 0, max_linked_results 100,
  --              include_invalid true, record_types every searchable type; without a
  --              query_vector the in-database model (when configured) embeds query_text;
  --              KEYWORD reads the first 4000 characters of query_text, Han and Hangul
  --              cut into character bigrams as <prefix>_KEYWORD indexes them; HYBRID fuses
  --              both rankings' scores, each weighted by how far its top score stands out
  --              (docs/store-contract.md, "HYBRID")
  -- Returns [{"record": RecordOut, "distance": n, "linked": [{"record", "relation",
  -- "relation_id", "relation_type", "via_record_id", "hops"}]}]: "relation" is the whole
  -- stored relation (LinkOut), "relation_type" the label read in the walking direction.
  FUNCTION search(p_request IN JSON) RETURN JSON;

  -- The same search as rows, for SELECT ... FROM AGENT_MEMORY.search_rows(...).
  --   p_request  SearchRequest as for search
  FUNCTION search_rows(p_request IN JSON) RETURN search_rows_t PIPELINED;

  -- Update one relation; returns 0 (no such relation) or 1.
  --   p_relation_id  the relation id
  --   p_thread_id    its thread (only a relation stored with that thread_id matches); NULL:
  --                  any relation
  --   p_changes      LinkChanges {"relation_type", "opposite_relation_type", "timestamp",
  --                  "metadata"}; a built-in relation_type fixes the opposite label
  --   p_commit       commit on success
  FUNCTION update_link(p_relation_id IN VARCHAR2, p_thread_id IN VARCHAR2, p_changes IN JSON,
                       p_commit IN BOOLEAN DEFAULT TRUE) RETURN NUMBER;

  -- Delete one relation by {"id"} or by the whole stored-direction tuple
  -- {"source_id", "source_type", "target_id", "target_type", "relation_type"}; returns 0 or 1.
  --   p_selector   LinkSelector
  --   p_thread_id  its thread (only a relation stored with that thread_id matches); NULL: any
  --                relation
  --   p_commit     commit on success
  FUNCTION delete_links(p_selector IN JSON, p_thread_id IN VARCHAR2,
                        p_commit IN BOOLEAN DEFAULT TRUE) RETURN NUMBER;

  -- Relations matching a LinkQuery, oldest first (LinkOut documents).
  --   p_query  {"ids", "thread_id", "source_id", "source_type", "target_id", "target_type",
  --            "relation_type", "metadata_filter", "limit"}; every key optional; a key that is
  --            present matches exactly ("thread_id": null selects the client-level links,
  --            stored without a thread); "ids": [] matches nothing. NULL = every relation.
  FUNCTION list_links(p_query IN JSON DEFAULT NULL) RETURN JSON;

  -- Physically remove expired records (relations and attached images too); returns the count.
  --   p_commit  commit on success (the purge job passes TRUE)
  FUNCTION purge_expired(p_commit IN BOOLEAN DEFAULT TRUE) RETURN NUMBER;

  -- -- administration ------------------------------------------------------------------------
  -- (each member below but check_schema needs an unrestricted session, see the header)

  -- -20007 when the schema version differs from this package's or, when given, from
  -- p_version (the version the caller was written for), or, when p_dimension is given, when
  -- the store's vector dimension differs from it.
  --   p_dimension  the caller's vector dimension
  --   p_version    the schema version the caller needs
  PROCEDURE check_schema(p_dimension IN NUMBER DEFAULT NULL, p_version IN NUMBER DEFAULT NULL);

  -- Delete every record, image and relation, and the deep data security policies and grants
  -- (SchemaPolicy RECREATE on a matching schema).
  --   p_commit  commit on success
  PROCEDURE reset_store(p_commit IN BOOLEAN DEFAULT TRUE);

  -- Synchronise the text index (needed with SearchIndexSyncMode MANUAL).
  PROCEDURE sync_text_index;

  -- Create the DBMS_SCHEDULER purge job; FALSE (with a DBMS_OUTPUT warning) without the
  -- CREATE JOB privilege.
  --   p_repeat_interval  scheduler calendar string
  FUNCTION ensure_purge_job(p_repeat_interval IN VARCHAR2 DEFAULT 'FREQ=HOURLY;INTERVAL=1')
    RETURN BOOLEAN;

  -- Drop the purge job when it exists.
  PROCEDURE drop_purge_job;

  -- Record the schema version (install/upgrade.sql, after the version steps ran).
  --   p_version  the new version
  PROCEDURE set_schema_version(p_version IN NUMBER);

  -- Set the keyword text (AGENT_MEMORY_KEYWORD.keyword_text of the content: what the text index
  -- reads) of every record that has none, committing every p_batch records: the data step
  -- of the upgrade to version 4 (install/upgrade.sql, OracleBackend.upgrade), after which
  -- the text index is created over it. Returns the number of records set.
  --   p_batch  records per committed batch (at least 1)
  FUNCTION fill_keyword_text(p_batch IN PLS_INTEGER DEFAULT 1000) RETURN NUMBER;
END AGENT_MEMORY;
/
