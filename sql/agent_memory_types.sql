-- SQL collection types of the agent-memory store "AGENT_MEMORY". Rendered from
-- sql/templates/types.sql.j2. Lists of record sequence numbers and of ids / record types
-- travel between the store's packages as these types and are read in SQL with the TABLE
-- collection expression (the element is the COLUMN_VALUE pseudocolumn), instead of JSON
-- array text re-parsed with JSON_TABLE. Idempotent: IF NOT EXISTS keeps an existing type
-- (the packages that use it stay valid); install and upgrade both run this script. The
-- owner needs the CREATE TYPE privilege (install/grants_owner.sql).

-- Record (and relation) sequence numbers.
CREATE TYPE IF NOT EXISTS AGENT_MEMORY_NUMBER_LIST AS TABLE OF NUMBER;
/

-- Ids (at most 512 characters) and record type names.
CREATE TYPE IF NOT EXISTS AGENT_MEMORY_TEXT_LIST AS TABLE OF VARCHAR2(512 CHAR);
/
