-- Tables of the agent-memory store "AGENT_MEMORY" (schema version 5).
-- Rendered from sql/templates/tables.sql.j2 by oracleagentmemory.stores.oracle_sql.render;
-- mirrors python/oracleagentmemory/stores/embedded/schema.py (same rows, same uniqueness).
-- Idempotent: every table and index is created IF NOT EXISTS and the facts are merged, so a
-- second run after a partial install completes it (IF [NOT] EXISTS, Oracle Database 23ai).

-- Key/value facts about the store: schema_version, embedding_dimension, search_strategy, ...
CREATE TABLE IF NOT EXISTS AGENT_MEMORY_META (
  meta_key   VARCHAR2(128 CHAR)  NOT NULL,
  meta_value VARCHAR2(4000 CHAR),
  CONSTRAINT AGENT_MEMORY_META_PK PRIMARY KEY (meta_key)
);

-- One row per record of every record_type. seq orders rows by insertion (identity, ORDER).
-- id is unique per id space: the memory-like types share the space 'memory', every other
-- type is its own space. created_at / updated_at / expires_at are UTC; event_ts keeps the
-- caller's ISO-8601 text as given and event_utc its parsed UTC value (TTL anchor).
CREATE TABLE IF NOT EXISTS AGENT_MEMORY_RECORDS (
  seq          NUMBER GENERATED ALWAYS AS IDENTITY (START WITH 1 INCREMENT BY 1 ORDER) NOT NULL,
  id           VARCHAR2(512 CHAR)  NOT NULL,
  id_space     VARCHAR2(16 CHAR)   NOT NULL,
  record_type  VARCHAR2(16 CHAR)   NOT NULL,
  user_id      VARCHAR2(512 CHAR),
  agent_id     VARCHAR2(512 CHAR),
  thread_id    VARCHAR2(512 CHAR),
  role         VARCHAR2(4000 CHAR),
  content      CLOB           DEFAULT EMPTY_CLOB() NOT NULL,
  -- AGENT_MEMORY_KEYWORD.keyword_text(content), set by the record API with every write of
  -- content: what the text index reads (Han and Hangul as character bigrams).
  keyword_text CLOB,
  metadata     JSON,
  parts        JSON,
  config       JSON,
  mime_type    VARCHAR2(255 CHAR),
  event_ts     VARCHAR2(64 CHAR),
  event_utc    TIMESTAMP(6),
  created_at   TIMESTAMP(6)   NOT NULL,
  updated_at   TIMESTAMP(6)   NOT NULL,
  expires_at   TIMESTAMP(6),
  status       VARCHAR2(8 CHAR)    DEFAULT 'VALID' NOT NULL,
  message_id   VARCHAR2(512 CHAR),
  embedding    VECTOR(384, FLOAT32),
  CONSTRAINT AGENT_MEMORY_RECORDS_PK PRIMARY KEY (seq),
  CONSTRAINT AGENT_MEMORY_RECORDS_ID_UK UNIQUE (id_space, id),
  -- the vocabulary below is rendered from python/oracleagentmemory/_vocabulary.py
  CONSTRAINT AGENT_MEMORY_RECORDS_TYPE_CK CHECK (record_type IN (
    'memory', 'fact', 'guideline', 'preference', 'message', 'image', 'user_profile', 'agent_profile', 'thread', 'summary')),
  CONSTRAINT AGENT_MEMORY_RECORDS_SPACE_CK CHECK (
    id_space = CASE WHEN record_type IN ('memory', 'fact', 'guideline', 'preference')
                    THEN 'memory' ELSE record_type END),
  CONSTRAINT AGENT_MEMORY_RECORDS_STATUS_CK CHECK (status IN ('VALID', 'INVALID'))
);

CREATE INDEX IF NOT EXISTS AGENT_MEMORY_RECORDS_TYPE_USER_IX ON AGENT_MEMORY_RECORDS (record_type, user_id);
CREATE INDEX IF NOT EXISTS AGENT_MEMORY_RECORDS_THREAD_IX ON AGENT_MEMORY_RECORDS (thread_id, record_type);
CREATE INDEX IF NOT EXISTS AGENT_MEMORY_RECORDS_AGENT_IX ON AGENT_MEMORY_RECORDS (agent_id);
CREATE INDEX IF NOT EXISTS AGENT_MEMORY_RECORDS_EXPIRY_IX ON AGENT_MEMORY_RECORDS (expires_at);
CREATE INDEX IF NOT EXISTS AGENT_MEMORY_RECORDS_MESSAGE_IX ON AGENT_MEMORY_RECORDS (message_id);
CREATE INDEX IF NOT EXISTS AGENT_MEMORY_RECORDS_ID_IX ON AGENT_MEMORY_RECORDS (id);

-- Image payloads, one per image record; removed with their record.
CREATE TABLE IF NOT EXISTS AGENT_MEMORY_IMAGES (
  seq   NUMBER NOT NULL,
  bytes BLOB   NOT NULL,
  CONSTRAINT AGENT_MEMORY_IMAGES_PK PRIMARY KEY (seq),
  CONSTRAINT AGENT_MEMORY_IMAGES_RECORD_FK FOREIGN KEY (seq)
    REFERENCES AGENT_MEMORY_RECORDS (seq) ON DELETE CASCADE
);

-- Directed relations between memory-like records. thread_id is the thread that owns the
-- relation: both endpoints belong to it; NULL for a client-level relation between records
-- of different threads (or of none); schema version 1 had it NOT NULL (install/upgrade.sql).
-- pair_low / pair_high are the sorted endpoint ids, so the unique key allows one stored
-- direction per pair.
CREATE TABLE IF NOT EXISTS AGENT_MEMORY_RELATIONS (
  seq                    NUMBER GENERATED ALWAYS AS IDENTITY (START WITH 1 INCREMENT BY 1 ORDER) NOT NULL,
  id                     VARCHAR2(512 CHAR) NOT NULL,
  thread_id              VARCHAR2(512 CHAR),
  source_id              VARCHAR2(512 CHAR) NOT NULL,
  source_type            VARCHAR2(16 CHAR)  NOT NULL,
  target_id              VARCHAR2(512 CHAR) NOT NULL,
  target_type            VARCHAR2(16 CHAR)  NOT NULL,
  relation_type          VARCHAR2(128 CHAR) NOT NULL,
  opposite_relation_type VARCHAR2(128 CHAR) NOT NULL,
  event_ts               VARCHAR2(64 CHAR),
  metadata               JSON,
  created_at             TIMESTAMP(6)  NOT NULL,
  pair_low               VARCHAR2(512 CHAR) GENERATED ALWAYS AS (LEAST(source_id, target_id)) VIRTUAL,
  pair_high              VARCHAR2(512 CHAR) GENERATED ALWAYS AS (GREATEST(source_id, target_id)) VIRTUAL,
  CONSTRAINT AGENT_MEMORY_RELATIONS_PK PRIMARY KEY (seq),
  CONSTRAINT AGENT_MEMORY_RELATIONS_ID_UK UNIQUE (id),
  CONSTRAINT AGENT_MEMORY_RELATIONS_PAIR_UK UNIQUE (pair_low, pair_high),
  CONSTRAINT AGENT_MEMORY_RELATIONS_SELF_CK CHECK (source_id <> target_id)
);

CREATE INDEX IF NOT EXISTS AGENT_MEMORY_RELATIONS_SOURCE_IX ON AGENT_MEMORY_RELATIONS (source_id);
CREATE INDEX IF NOT EXISTS AGENT_MEMORY_RELATIONS_TARGET_IX ON AGENT_MEMORY_RELATIONS (target_id);
CREATE INDEX IF NOT EXISTS AGENT_MEMORY_RELATIONS_THREAD_IX ON AGENT_MEMORY_RELATIONS (thread_id);

-- Deep data security (schema version 3): the policies registered on the store, and which
-- principal (one end user, or a group of end users) is granted which policy. The owner
-- changes them with AGENT_MEMORY_SECURITY; AGENT_MEMORY_SESSION.set_end_user_context reads them when
-- it binds an end user. The policy names and principal kinds render from
-- python/oracleagentmemory/_vocabulary.py. Removing a policy removes its grants (ON DELETE
-- CASCADE). Names are compared exactly (case and spaces count), as the embedded store does.
-- the migration list (python/oracleagentmemory/stores/oracle_sql/migrations.py) creates
-- the same tables in an older store (tests/oracle_store/test_deep_security_admin.py checks
-- the three texts agree).
CREATE TABLE IF NOT EXISTS AGENT_MEMORY_SEC_POLICIES (
  policy_name VARCHAR2(30 CHAR) NOT NULL,
  created_at  TIMESTAMP(6) NOT NULL,
  CONSTRAINT AGENT_MEMORY_SEC_POLICIES_PK PRIMARY KEY (policy_name),
  CONSTRAINT AGENT_MEMORY_SEC_POLICIES_NAME_CK CHECK (policy_name IN ('USER_OWN_ROWS', 'GLOBAL_MEMORIES'))
);

-- principal_name is a user name (the user_id of the end user's records, up to 512
-- characters like every id) or a group name.
CREATE TABLE IF NOT EXISTS AGENT_MEMORY_SEC_GRANTS (
  principal_kind VARCHAR2(16 CHAR) NOT NULL,
  principal_name VARCHAR2(512 CHAR) NOT NULL,
  policy_name    VARCHAR2(30 CHAR) NOT NULL,
  created_at     TIMESTAMP(6) NOT NULL,
  CONSTRAINT AGENT_MEMORY_SEC_GRANTS_PK PRIMARY KEY (principal_kind, principal_name, policy_name),
  CONSTRAINT AGENT_MEMORY_SEC_GRANTS_KIND_CK CHECK (principal_kind IN ('LOCAL_USER', 'GROUP')),
  CONSTRAINT AGENT_MEMORY_SEC_GRANTS_POLICY_FK FOREIGN KEY (policy_name) REFERENCES AGENT_MEMORY_SEC_POLICIES (policy_name) ON DELETE CASCADE
);

-- The foreign key's column: removing a policy finds its grants without a full scan.
CREATE INDEX IF NOT EXISTS AGENT_MEMORY_SEC_GRANTS_POLICY_IX ON AGENT_MEMORY_SEC_GRANTS (policy_name);

-- The store's facts, written once: a re-run keeps the values of the first install.
MERGE INTO AGENT_MEMORY_META m
USING (SELECT 'schema_version' AS k, '5' AS v FROM dual
       UNION ALL SELECT 'embedding_dimension', '384' FROM dual
       UNION ALL SELECT 'search_strategy', 'VECTOR' FROM dual
       UNION ALL SELECT 'vector_index', 'IVF' FROM dual
       UNION ALL SELECT 'sync_mode', 'ON_COMMIT' FROM dual
       UNION ALL SELECT 'embedding_model', '' FROM dual) s
   ON (m.meta_key = s.k)
 WHEN NOT MATCHED THEN INSERT (meta_key, meta_value) VALUES (s.k, s.v);
COMMIT;
