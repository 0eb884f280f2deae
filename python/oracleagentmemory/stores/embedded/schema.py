"""SQLite schema of the embedded backend and how a store file is opened."""

from __future__ import annotations

import sqlite3
import time
import uuid

from oracleagentmemory.stores.embedded import changelog
from oracleagentmemory.stores.errors import SchemaError
from oracleagentmemory.stores.keyword_text import stored_keyword_text

SCHEMA_VERSION = 5
"""2: records.scope_tokens and a keyword index that holds them; 3: relations.thread_id may
be null (a relation made through the client between memories of different threads);
4: records.keyword_text (Han and Hangul cut into character bigrams, see
stores/keyword_text.py) and a keyword index over it; 5: keyword_text computed again (NFKC
folding, single Han and Hangul characters indexed, Han apart from Hangul, Han beyond the
Basic Multilingual Plane), and record_changes.mark (a random mark per change-log entry, see
changelog.py). Older files are upgraded on open, one step per version."""

SCOPE_TOKEN_LETTERS = {"user_id": "u", "agent_id": "a", "thread_id": "t"}
SCOPE_TOKENS_SQL = " || ".join(
    f"'{' ' if index else ''}{letter}' || hex({column})"
    for index, (column, letter) in enumerate(SCOPE_TOKEN_LETTERS.items())
)
"""One keyword-index token per scope dimension: a letter and the id's UTF-8 bytes in hex
(the letter alone for null), so a scoped KEYWORD search asks the full-text index for the
scope too and reads only that scope's postings instead of every match in the table."""


def scope_token(column: str, value: str | None) -> str:
    """The token SCOPE_TOKENS_SQL stores for one scope value (what a search asks for)."""
    return SCOPE_TOKEN_LETTERS[column] + ("" if value is None else value.encode().hex())

KEYWORD_BODY_SQL = "coalesce(keyword_text, content)"
"""What the keyword index reads: the stored keyword text (content with Han and Hangul runs
cut into bigrams), which is NULL when it equals the content, so a store without such text
does not hold its content twice."""

DDL = f"""
CREATE TABLE IF NOT EXISTS store_meta (
    key   TEXT PRIMARY KEY,
    value TEXT
);
CREATE TABLE IF NOT EXISTS records (
    seq          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL,
    id_space     TEXT NOT NULL,
    record_type  TEXT NOT NULL,
    user_id      TEXT,
    agent_id     TEXT,
    thread_id    TEXT,
    role         TEXT,
    content      TEXT NOT NULL DEFAULT '',
    metadata     TEXT,
    extra        TEXT,
    event_ts     TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    expires_at   TEXT,
    status       TEXT NOT NULL DEFAULT 'VALID',
    message_id   TEXT,
    embedding    BLOB,
    scope_tokens TEXT GENERATED ALWAYS AS ({SCOPE_TOKENS_SQL}) VIRTUAL,
    keyword_text TEXT,
    keyword_body TEXT GENERATED ALWAYS AS ({KEYWORD_BODY_SQL}) VIRTUAL,
    UNIQUE (id_space, id)
);
CREATE INDEX IF NOT EXISTS records_by_type_user ON records (record_type, user_id);
CREATE INDEX IF NOT EXISTS records_by_thread ON records (thread_id, record_type);
CREATE INDEX IF NOT EXISTS records_by_agent ON records (agent_id);
CREATE INDEX IF NOT EXISTS records_by_expiry ON records (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS records_by_message ON records (message_id) WHERE message_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS image_data (
    seq   INTEGER PRIMARY KEY REFERENCES records (seq) ON DELETE CASCADE,
    bytes BLOB NOT NULL
);
"""

RELATIONS_DDL = """
CREATE TABLE IF NOT EXISTS relations (
    seq                    INTEGER PRIMARY KEY,
    id                     TEXT NOT NULL UNIQUE,
    thread_id              TEXT,
    source_id              TEXT NOT NULL,
    source_type            TEXT NOT NULL,
    target_id              TEXT NOT NULL,
    target_type            TEXT NOT NULL,
    relation_type          TEXT NOT NULL,
    opposite_relation_type TEXT NOT NULL,
    event_ts               TEXT,
    metadata               TEXT,
    created_at             TEXT NOT NULL,
    pair_low               TEXT NOT NULL,
    pair_high              TEXT NOT NULL,
    UNIQUE (pair_low, pair_high)
);
CREATE INDEX IF NOT EXISTS relations_by_source ON relations (source_id);
CREATE INDEX IF NOT EXISTS relations_by_target ON relations (target_id);
CREATE INDEX IF NOT EXISTS relations_by_thread ON relations (thread_id);
"""

FTS_DDL = """
CREATE VIRTUAL TABLE IF NOT EXISTS records_fts USING fts5 (
    keyword_body, scope_tokens, content='records', content_rowid='seq',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS records_fts_insert AFTER INSERT ON records BEGIN
    INSERT INTO records_fts (rowid, keyword_body, scope_tokens)
    VALUES (new.seq, new.keyword_body, new.scope_tokens);
END;
CREATE TRIGGER IF NOT EXISTS records_fts_delete AFTER DELETE ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, keyword_body, scope_tokens)
    VALUES ('delete', old.seq, old.keyword_body, old.scope_tokens);
END;
CREATE TRIGGER IF NOT EXISTS records_fts_update
AFTER UPDATE OF content, keyword_text, user_id, agent_id, thread_id ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, keyword_body, scope_tokens)
    VALUES ('delete', old.seq, old.keyword_body, old.scope_tokens);
    INSERT INTO records_fts (rowid, keyword_body, scope_tokens)
    VALUES (new.seq, new.keyword_body, new.scope_tokens);
END;
"""
"""The keyword index (FTS5, external content) over keyword_body and the scope tokens. Every
write that sets or changes a record's content sets its keyword_text in the same statement
(stores/embedded/store.py), so the triggers index the bigrams of the new content."""

FTS_TRIGGERS = ("records_fts_insert", "records_fts_delete", "records_fts_update")

V3_FTS_DDL = """
CREATE VIRTUAL TABLE IF NOT EXISTS records_fts USING fts5 (
    content, scope_tokens, content='records', content_rowid='seq',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS records_fts_insert AFTER INSERT ON records BEGIN
    INSERT INTO records_fts (rowid, content, scope_tokens)
    VALUES (new.seq, new.content, new.scope_tokens);
END;
CREATE TRIGGER IF NOT EXISTS records_fts_delete AFTER DELETE ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, content, scope_tokens)
    VALUES ('delete', old.seq, old.content, old.scope_tokens);
END;
CREATE TRIGGER IF NOT EXISTS records_fts_update
AFTER UPDATE OF content, user_id, agent_id, thread_id ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, content, scope_tokens)
    VALUES ('delete', old.seq, old.content, old.scope_tokens);
    INSERT INTO records_fts (rowid, content, scope_tokens)
    VALUES (new.seq, new.content, new.scope_tokens);
END;
"""
"""The keyword index of versions 2 and 3 (over content): what the 1 -> 2 step builds, before
3 -> 4 replaces it."""

TABLES = ("records_fts", "relations", "image_data", "record_changes", "records", "store_meta")


BUSY_TIMEOUT_SECONDS = 30.0
WAL_CHECKPOINT_PAGES = 16_384
"""Let the WAL grow to 64 MiB (4 KiB pages) between automatic checkpoints instead of
SQLite's 4 MiB: bulk ingestion then copies each hot index page back into the file far less
often (measured: 1M records ingested 15% faster)."""


def connect(location: str) -> sqlite3.Connection:
    """Open the file in WAL mode with a busy timeout, autocommit (explicit transactions).

    ``mmap_size`` stays 0 (pages are read with ``pread``), for the write connection and the
    read connections alike. Memory-mapped I/O (https://www.sqlite.org/mmap.html) saves a
    copy per page read, but an I/O error on a mapped page is a signal (SIGBUS) that ends
    the caller's process instead of an error this store turns into a StorageError, and it
    needs a unified buffer cache when other processes read the file without it. Measured on
    ingestion (benchmarks/README.md, "Where ingestion time goes"): no gain at 1M records,
    since in WAL mode pages whose newest version is in the log, and the log read back at
    checkpoints, are read with ``pread`` anyway."""
    conn = sqlite3.connect(location, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
                           check_same_thread=False)
    wait_when_busy(conn, BUSY_TIMEOUT_SECONDS)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA cache_size = -65536")
    # Deleted rows are overwritten with zeros, whatever the build's default
    # (SQLITE_SECURE_DELETE): an erased user's text leaves the file's free space.
    # FTS5's index keeps deleted words until a merge regardless (the pragma's page says so).
    conn.execute("PRAGMA secure_delete = ON")
    if location != ":memory:":
        _enable_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_PAGES}")
    return conn


def wait_when_busy(conn: sqlite3.Connection, seconds: float) -> None:
    """How long a statement of ``conn`` waits for another connection's lock (0: not at
    all, it fails at once)."""
    conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")


def _enable_wal(conn: sqlite3.Connection, budget: float = BUSY_TIMEOUT_SECONDS) -> None:
    """Switch the file to WAL, retrying while another process holds it.

    SQLite does not run the busy handler for a journal-mode change, so two processes
    opening a new file at once can get "database is locked" here; retry with backoff for
    the same time a busy write would wait, instead of handing that error to the user.
    """
    deadline = time.monotonic() + budget
    delay = 0.005
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) and "busy" not in str(error):
                raise
            if time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.25)


def schema_exists(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'records'"
    ).fetchone()
    return bool(row[0])


def create_schema(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _statements(DDL + RELATIONS_DDL + FTS_DDL + changelog.DDL):
            conn.execute(statement)
        conn.execute(
            "INSERT OR IGNORE INTO store_meta (key, value) VALUES ('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )
        _insert_epoch(conn)
        conn.execute("INSERT OR IGNORE INTO store_meta (key, value) VALUES (?, '1')",
                     (ZEROED_KEY,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def ensure_change_log(conn: sqlite3.Connection) -> None:
    """Add the change log to a file made before it existed (same schema version otherwise)."""
    present = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE name IN ('record_changes', "
        "'record_changes_insert', 'record_changes_update', 'record_changes_delete')"
    ).fetchone()[0]
    epoch = conn.execute("SELECT count(*) FROM store_meta WHERE key = 'epoch'").fetchone()[0]
    if present == 4 and epoch:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _statements(changelog.DDL):
            conn.execute(statement)
        _insert_epoch(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


ZEROED_KEY = "free_space_zeroed"
"""``store_meta`` key present when no deleted bytes are left in the file's free space: set
by ``create_schema`` (every connection sets secure_delete) and after the VACUUM of the first
erasure in a file made before the key (an older library may have written it with
secure_delete off)."""


def _insert_epoch(conn: sqlite3.Connection) -> None:
    """A random id of this incarnation of the schema: a recreated store gets a new one."""
    conn.execute(
        "INSERT OR IGNORE INTO store_meta (key, value) VALUES ('epoch', ?)",
        (uuid.uuid4().hex,),
    )


def drop_schema(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        for table in TABLES:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _version(conn: sqlite3.Connection) -> int | None:
    row = conn.execute("SELECT value FROM store_meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else None


def upgrade(conn: sqlite3.Connection) -> None:
    """Bring an older file to SCHEMA_VERSION, one step per version, each in its own
    transaction. Another process may be doing the same, so the version is read again under
    the write lock before each step."""
    while (version := _version(conn)) is not None and version < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if _version(conn) == version:
                MIGRATIONS[version](conn)
                conn.execute(
                    "UPDATE store_meta SET value = ? WHERE key = 'schema_version'",
                    (str(version + 1),),
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _add_scope_tokens(conn: sqlite3.Connection) -> None:
    """1 -> 2: scope tokens, and the keyword index rebuilt with them (seconds per million
    records, once)."""
    conn.execute(
        "ALTER TABLE records ADD COLUMN scope_tokens TEXT"
        f" GENERATED ALWAYS AS ({SCOPE_TOKENS_SQL}) VIRTUAL"
    )
    _rebuild_keyword_index(conn, V3_FTS_DDL)


def _rebuild_keyword_index(conn: sqlite3.Connection, fts_ddl: str) -> None:
    """Drop the keyword index and its triggers, create them from ``fts_ddl`` and index
    every record again."""
    for trigger in FTS_TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute("DROP TABLE IF EXISTS records_fts")
    for statement in _statements(fts_ddl):
        conn.execute(statement)
    conn.execute("INSERT INTO records_fts (records_fts) VALUES ('rebuild')")


def _nullable_relation_thread(conn: sqlite3.Connection) -> None:
    """2 -> 3: SQLite cannot drop a NOT NULL, so the relations table is copied over."""
    conn.execute("ALTER TABLE relations RENAME TO relations_v2")
    for index in ("relations_by_source", "relations_by_target", "relations_by_thread"):
        conn.execute(f"DROP INDEX IF EXISTS {index}")
    for statement in _statements(RELATIONS_DDL):
        conn.execute(statement)
    conn.execute("INSERT INTO relations SELECT * FROM relations_v2")
    conn.execute("DROP TABLE relations_v2")


KEYWORD_FILL_BATCH = 2000
"""Rows read per batch when versions 4 and 5 fill keyword_text for the records stored."""


def _add_keyword_text(conn: sqlite3.Connection) -> None:
    """3 -> 4: records.keyword_text filled for the records with Han or Hangul text, and the
    keyword index rebuilt over keyword_body (seconds per million records, once)."""
    _fill_keyword_text(conn)


def _fill_keyword_text(conn: sqlite3.Connection) -> None:
    """records.keyword_text set to what ``stored_keyword_text`` gives for every record (in
    batches of seq, so a large file is never read whole), then the keyword index rebuilt
    over keyword_body. The index and its triggers go first, so filling the column does not
    re-index row by row."""
    for trigger in FTS_TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute("DROP TABLE IF EXISTS records_fts")
    # table_xinfo lists generated columns too; a column already there (a file whose
    # version was set back by hand) is kept.
    columns = {row[1] for row in conn.execute("PRAGMA table_xinfo(records)")}
    if "keyword_text" not in columns:
        conn.execute("ALTER TABLE records ADD COLUMN keyword_text TEXT")
    if "keyword_body" not in columns:
        conn.execute("ALTER TABLE records ADD COLUMN keyword_body TEXT"
                     f" GENERATED ALWAYS AS ({KEYWORD_BODY_SQL}) VIRTUAL")
    last = -1
    while True:
        rows = conn.execute(
            "SELECT seq, content, keyword_text FROM records WHERE seq > ? ORDER BY seq LIMIT ?",
            (last, KEYWORD_FILL_BATCH),
        ).fetchall()
        if not rows:
            break
        last = rows[-1][0]
        changed = [(segmented, seq) for seq, content, stored in rows
                   if (segmented := stored_keyword_text(content or "")) != stored]
        if changed:
            conn.executemany("UPDATE records SET keyword_text = ? WHERE seq = ?", changed)
    _rebuild_keyword_index(conn, FTS_DDL)


def _mark_change_log(conn: sqlite3.Connection) -> None:
    """4 -> 5, second part: the change log gains its ``mark`` column. SQLite cannot add a
    column whose default is not a constant, so the log is copied into a new table (each
    entry kept gets a mark of its own) and the AUTOINCREMENT counter carried over, so no
    version is reused."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(record_changes)")}
    if not columns or "mark" in columns:
        return  # no log yet (ensure_change_log makes it with the mark) or already marked
    latest, _ = changelog.state(conn)
    for trigger in changelog.TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute("ALTER TABLE record_changes RENAME TO record_changes_v4")
    for statement in _statements(changelog.DDL):
        conn.execute(statement)
    conn.execute("INSERT INTO record_changes (version, seq)"
                 " SELECT version, seq FROM record_changes_v4")
    conn.execute("DROP TABLE record_changes_v4")
    conn.execute("DELETE FROM sqlite_sequence WHERE name = 'record_changes'")
    conn.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('record_changes', ?)",
                 (latest,))


def _upgrade_to_5(conn: sqlite3.Connection) -> None:
    """4 -> 5: keyword_text computed again, then the change log marked (after the fill, so
    the entries the fill logged are marked too)."""
    _fill_keyword_text(conn)
    _mark_change_log(conn)


MIGRATIONS = {1: _add_scope_tokens, 2: _nullable_relation_thread, 3: _add_keyword_text,
              4: _upgrade_to_5}
"""The embedded backend's one migration list: version N -> the step to N + 1 (``upgrade``
runs each in its own transaction). The Oracle backend's list is
``stores/oracle_sql/migrations.py``."""


def check_version(conn: sqlite3.Connection, location: str) -> None:
    """A SchemaError naming the store file unless its schema is this library's version."""
    version = _version(conn)
    if version != SCHEMA_VERSION:
        raise SchemaError(
            f"the store file {location!r} has schema version {version}, this library needs "
            f"{SCHEMA_VERSION}"
            + (" (a newer library wrote it)" if version is not None and version > SCHEMA_VERSION
               else "")
        )


def _statements(script: str) -> list[str]:
    """Split the DDL script on statement ends, keeping trigger bodies whole."""
    statements: list[str] = []
    current: list[str] = []
    for line in script.strip().splitlines():
        current.append(line)
        candidate = "\n".join(current)
        if line.rstrip().endswith(";") and sqlite3.complete_statement(candidate):
            statements.append(candidate)
            current = []
    return statements
