"""OracleBackend: the store contract marshalled to the AGENT_MEMORY PL/SQL facade.

The logic lives in the database; this module only turns each contract call into one
PL/SQL call with named binds (JSON documents bound as native ``JSON``), one round trip per
logical operation, and maps the facade's ``RAISE_APPLICATION_ERROR`` codes to the contract's
Python exceptions.

Calls go through ``_call("API.MEMBER", p_x=...)`` / ``_call_function(...)`` with literal
member names and keyword binds named after the PL/SQL parameters: the static gate reads
this file and checks every such call against the facade specification (``PACKAGE_ALIASES``
maps the alias to the spec it checks; at run time the alias is the store's own prefix).

End-user isolation: with ``end_user_id`` every operation's block binds that end user first
(``SESSION.SET_END_USER``) and unbinds it afterwards (``CLEAR_END_USER``, also when the call
fails), in the same block and so in the same round trip, so the database's VPD policy
restricts every statement to that user's records and a pooled connection goes back unbound
(docs/oracle.md, "End-user isolation"). Inside an ``OracleMemoryEndUserSecurityContext``
(the context variable of ``oracleagentmemory._end_user``, read when each operation is sent,
so every thread and asyncio task binds its own) the block binds that end user with its
groups instead (``SESSION.SET_END_USER_CONTEXT``): the deep data security policies granted
to them decide what the operation sees. Without either nothing changes.

Deep data security administration: ``OracleSecurityAdmin`` calls the owner-only
``<prefix>_SECURITY`` package of a store named by its owner and prefix.

Install: ``install`` creates what is missing (a second run completes a partial install),
``install_state`` tells "not installed", "partly installed" and "not visible" (no grant)
apart, and ``upgrade`` moves an older store to this version (its table steps, then the
packages re-rendered with the store's own recorded choices).

Another owner's store: with ``schema_owner`` every call names ``OWNER.<prefix>...`` (the
runtime user needs EXECUTE grants on the facade and session packages, no synonym and no
``CURRENT_SCHEMA``); such a store is never installed, upgraded or repaired from here.
"""

from __future__ import annotations

import base64
import re
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import numpy as np

from oracleagentmemory._end_user import current_end_user
from oracleagentmemory._vocabulary import PRINCIPAL_KINDS, SECURITY_POLICIES
from oracleagentmemory.stores.embedding_models import LEGACY_EMBEDDING_MODEL
from oracleagentmemory.stores.errors import (
    ERRORS_BY_CODE,
    AccessDeniedError,
    DuplicateRecordError,
    InvalidArgumentError,
    SchemaError,
    StoreClosedError,
    StoreError,
)
from oracleagentmemory.stores.oracle_sql.render import (
    DEFAULT_DIMENSION,
    DEFAULT_PREFIX,
    DEFAULT_VECTOR_INDEX,
    SCHEMA_VERSION,
    object_names,
    render_install,
    render_uninstall,
    sql_in,
    validate_name,
    validate_prefix,
)
from oracleagentmemory.stores.oracle_sql.statements import split_script
from oracleagentmemory.stores.protocol import (
    CascadeResult,
    LinkChanges,
    LinkIn,
    LinkOut,
    LinkQuery,
    LinkSelector,
    OwnerType,
    RecordChanges,
    RecordIn,
    RecordOut,
    RecordQuery,
    SearchHit,
    SearchRequest,
)

PACKAGE_ALIASES = {"API": "AGENT_MEMORY", "SESSION": "AGENT_MEMORY_SESSION",
                   "SECURITY": "AGENT_MEMORY_SECURITY"}
"""Alias -> package whose spec the static gate checks the calls below against (the default
store's names; at run time the AGENT_MEMORY prefix is replaced by the store's own)."""

SET_END_USER = "SET_END_USER"
SET_END_USER_CONTEXT = "SET_END_USER_CONTEXT"
CLEAR_END_USER = "CLEAR_END_USER"
END_USER_BIND = "am_end_user"
END_USER_GROUPS_BIND = "am_end_user_groups"
"""The SESSION members and the binds that wrap an operation of a store bound to an end user
(tests/oracle_store checks them against the session package spec)."""

RETURNS_NUMBER = frozenset({"DELETE_RECORDS", "UPDATE_LINK", "DELETE_LINKS", "PURGE_EXPIRED",
                            "FILL_KEYWORD_TEXT"})
RETURNS_BOOLEAN = frozenset({"ENSURE_PURGE_JOB"})
RETURNS_TEXT = frozenset({"END_USER_ID", "RECORDED_EMBEDDING_MODEL"})
"""Functions returning NUMBER, BOOLEAN or VARCHAR2; every other function returns JSON. A
VARCHAR2 result is a ``DB_TYPE_VARCHAR`` variable of the driver's default size, 4000 for a
string variable (python-oracledb ``Cursor.var``,
https://python-oracledb.readthedocs.io/en/stable/api_manual/cursor.html): an end user's name
has at most 512 characters."""

SCHEMA_POLICIES = ("REQUIRE_EXISTING", "CREATE_IF_NECESSARY", "CREATE_IF_EMPTY", "RECREATE",
                   "NO_CHECK")
"""What opening does with the store's schema (core/dbschemapolicy.py, by name):
REQUIRE_EXISTING changes nothing; CREATE_IF_NECESSARY installs what is missing and upgrades
an older store; CREATE_IF_EMPTY installs only where nothing of the store exists, and
otherwise requires it complete and current (never upgrades or repairs); RECREATE does what
CREATE_IF_NECESSARY does, then empties the store; NO_CHECK checks nothing."""
_CHANGES_SCHEMA = frozenset({"CREATE_IF_NECESSARY", "RECREATE"})
"""The policies that may upgrade an older store or complete a partial install."""

_SECURITY_POLICY_NAMES = sql_in(tuple(name.upper() for name in SECURITY_POLICIES))
_PRINCIPAL_KIND_NAMES = sql_in(tuple(kind.upper() for kind in PRINCIPAL_KINDS))
TABLE_STEPS: tuple[tuple[int, tuple[str, ...]], ...] = (
    # Version 2: client-level relations have no thread.
    # Checked: ALTER TABLE ... MODIFY (column NULL) (modify_col_properties, inline NULL
    #   constraint), https://docs.oracle.com/cd/B28359_01/server.111/b28286/statements_3001.htm
    #   (23ai column_clauses: https://docs.oracle.com/cd/F82042_01/sqlrf/img_text/column_clauses.html)
    (2, ("ALTER TABLE {t_relations} MODIFY (thread_id NULL)",)),
    # Version 3: deep data security, the registered policies and the grants (the statements
    # of sql/templates/tables.sql.j2, which a new store gets at install; IF NOT EXISTS: a
    # step that ran before changes nothing).
    (3, (
        "CREATE TABLE IF NOT EXISTS {t_sec_policies} (policy_name VARCHAR2(30 CHAR) NOT NULL, "
        "created_at TIMESTAMP(6) NOT NULL, "
        "CONSTRAINT {t_sec_policies}_PK PRIMARY KEY (policy_name), "
        "CONSTRAINT {t_sec_policies}_NAME_CK CHECK (policy_name IN ("
        f"{_SECURITY_POLICY_NAMES})))",
        "CREATE TABLE IF NOT EXISTS {t_sec_grants} (principal_kind VARCHAR2(16 CHAR) NOT NULL, "
        "principal_name VARCHAR2(512 CHAR) NOT NULL, policy_name VARCHAR2(30 CHAR) NOT NULL, "
        "created_at TIMESTAMP(6) NOT NULL, "
        "CONSTRAINT {t_sec_grants}_PK PRIMARY KEY (principal_kind, principal_name, policy_name), "
        "CONSTRAINT {t_sec_grants}_KIND_CK CHECK (principal_kind IN ("
        f"{_PRINCIPAL_KIND_NAMES})), "
        "CONSTRAINT {t_sec_grants}_POLICY_FK FOREIGN KEY (policy_name) "
        "REFERENCES {t_sec_policies} (policy_name) ON DELETE CASCADE)",
        "CREATE INDEX IF NOT EXISTS {t_sec_grants}_POLICY_IX ON {t_sec_grants} (policy_name)",
    )),
    # Version 4: the keyword text (Han and Hangul as character bigrams) that the text index
    # reads instead of content. The old index over content goes; after the packages are
    # re-created, KEYWORD_STEPS fill the column and create the new index over it.
    # Checked: ALTER TABLE ... ADD (column datatype),
    #   https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/ALTER-TABLE.html
    #   DROP INDEX [IF EXISTS] ... FORCE (a domain index),
    #   https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/DROP-INDEX.html
    (4, (
        "ALTER TABLE {t_records} ADD (keyword_text CLOB)",
        "DROP INDEX IF EXISTS {ix_text} FORCE",
    )),
    # Version 5: the keyword text is cut again (NFKC, single characters, Han apart from
    # Hangul, Han beyond the BMP): emptied here, filled again by KEYWORD steps below.
    # Checked: UPDATE, https://docs.oracle.com/en/database/oracle/oracle-database/23/sqlrf/UPDATE.html
    (5, ("UPDATE {t_records} SET keyword_text = NULL WHERE keyword_text IS NOT NULL",)),
)
"""The table changes of each schema version, run by ``upgrade`` for every version above the
store's (install/upgrade.sql has the same steps). Object names come from the validated
prefix; a step that already ran (ORA-01451: the column is already nullable; IF NOT EXISTS
for the tables of version 3) is skipped."""
_ALREADY_DONE_CODES = frozenset({1451, 1430})
"""ORA-01451 "column to be modified to NULL cannot be modified to NULL": the step already ran
(an interrupted upgrade). Not found in the Oracle error pages available here; observed in
https://gist.github.com/velll/12043255b542ef87cc0b9787e840accd (a first run against a
database confirms it, tests/oracle/first_contact.sh runs the upgrade). ORA-01430 "column
being added already exists in table": the version 4 column is there already."""
KEYWORD_TEXT_VERSION = 5
"""The last version whose upgrade fills records' keyword_text (and creates the text index
over it when missing) once the packages exist (``_upgrade_keyword_text``): 4 added the
column, 5 cuts the text again."""
KEYWORD_FILL_BATCH = 1000
"""Records per committed batch when the upgrade fills keyword_text."""

MINIMUM_RELEASE = 23
MAX_ID_LENGTH = 512
"""Ids (user_id included) are VARCHAR2(512 CHAR): 512 characters, whatever their bytes."""
_ORA_PREFIX = re.compile(r"^ORA-\d{5}:\s*")
_MISSING_OBJECT_CODES = {4043, 6550, 942}
"""ORA-04043 object does not exist, ORA-06550 PL/SQL compilation error, ORA-00942 table:
the store may be missing, partly installed or not granted; install_state tells which."""


def _plain(value: Any) -> Any:
    """JSON-ready copies of contract values: vectors as float lists, bytes as base64."""
    if isinstance(value, dict):
        return {key: _plain_field(key, item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _plain_field(key: str, value: Any) -> Any:
    if key in ("embedding", "query_vector") and value is not None:
        return [float(x) for x in np.asarray(value, dtype=np.float32)]
    if key == "image_bytes" and value is not None:
        return base64.b64encode(bytes(value)).decode("ascii")
    return _plain(value)


def _decoded(value: Any, key: str | None = None) -> Any:
    """Contract values from facade output, converted once at this boundary: JSON numbers
    arrive as ``decimal.Decimal`` (python-oracledb maps JSON NUMBER to Decimal on query and
    OUT binds, https://python-oracledb.readthedocs.io/en/stable/user_guide/json_data_type.html)
    and become ``int`` when integral, else ``float`` (a distance is always a float); base64
    image bytes become bytes."""
    if isinstance(value, dict):
        return {name: _decoded(item, name) for name, item in value.items()}
    if isinstance(value, list):
        return [_decoded(item) for item in value]
    if isinstance(value, Decimal):
        if key == "distance" or value != value.to_integral_value():
            return float(value)
        return int(value)
    if key == "image_bytes" and isinstance(value, str):
        return base64.b64decode(value)
    return value


class OracleBackend:
    """The Oracle backend. ``connection`` is an ``oracledb`` connection or pool.

    ``search_strategy``, ``sync_mode`` and ``vector_index`` left as None mean "the store's
    own" for an installed store and the defaults for a new one; given values that differ
    from an installed store's are refused by ``upgrade``.
    """

    backend = "oracle"

    def __init__(
        self,
        connection: Any,
        embedding_dimension: int | None = None,
        schema_policy: str = "CREATE_IF_NECESSARY",
        search_strategy: str | None = None,
        store_id: str = DEFAULT_PREFIX,
        sync_mode: str | None = None,
        vector_index: str | None = None,
        embedding_model: str | None = None,
        progress: Callable[[str], None] | None = None,
        end_user_id: str | None = None,
        schema_owner: str | None = None,
    ) -> None:
        if end_user_id is not None and (not isinstance(end_user_id, str) or not end_user_id
                                        or len(end_user_id) > MAX_ID_LENGTH):
            raise InvalidArgumentError(
                f"end_user_id must be a non-empty str of at most {MAX_ID_LENGTH} characters")
        if schema_policy not in SCHEMA_POLICIES:
            raise InvalidArgumentError(
                f"schema_policy must be one of {', '.join(SCHEMA_POLICIES)}, got {schema_policy!r}")
        self._source = connection
        self._lock = threading.Lock()
        self._closed = False
        self._binds_end_users = True
        """False for the owner's administration calls (OracleSecurityAdmin): never bound."""
        self.end_user_id = end_user_id
        self.schema_owner = (None if schema_owner is None
                             else validate_name(schema_owner, "schema_owner"))
        self.facade = validate_prefix(store_id)
        self.embedding_dimension = embedding_dimension
        self.search_strategy = search_strategy or "VECTOR"
        self._given = {
            "dimension": embedding_dimension, "vector_index": vector_index,
            "search_strategy": search_strategy, "sync_mode": sync_mode,
            "embedding_model": embedding_model.upper() if embedding_model else None,
        }
        """The options the caller chose (None: not chosen), for install and upgrade."""
        self._progress = progress or (lambda message: None)
        self._apply_schema_policy(schema_policy)

    # -- connections and calls ---------------------------------------------------------

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        if self._closed:
            raise StoreClosedError("the store is closed")
        if hasattr(self._source, "acquire"):
            with self._source.acquire() as conn:
                yield conn
        else:
            with self._lock:
                yield self._source

    def _member(self, member: str) -> str:
        alias, name = member.split(".")
        if alias not in PACKAGE_ALIASES:
            raise ValueError(f"unknown package alias {alias!r}")
        package = f"{self.facade}{PACKAGE_ALIASES[alias][len(DEFAULT_PREFIX):]}"
        return f"{self._qualified(package)}.{name}"

    def _qualified(self, name: str) -> str:
        """``OWNER.NAME`` for another owner's store, else the name (resolved in the session's
        current schema)."""
        return name if self.schema_owner is None else f"{self.schema_owner}.{name}"

    def _binding(self, cursor: Any) -> tuple[str, dict[str, Any]] | None:
        """The call that binds the end user of this operation, and its binds: the end user
        of the current security context with its groups, else ``end_user_id``, else None
        (read now, so each thread and asyncio task binds its own). A context for another
        user than ``end_user_id`` is refused: it would widen a store bound to one user."""
        if not self._binds_end_users:
            return None
        session = self._member("SESSION.SET_END_USER").rsplit(".", 1)[0]
        user = current_end_user()
        if user is not None:
            if self.end_user_id is not None and user.username != self.end_user_id:
                raise AccessDeniedError(
                    f"this store is bound to end user {self.end_user_id!r}; a security context "
                    f"for {user.username!r} cannot use it")
            groups = self._binds(cursor, {END_USER_GROUPS_BIND: list(user.groups)})
            return (f"{session}.{SET_END_USER_CONTEXT}(p_username => :{END_USER_BIND}, "
                    f"p_groups => :{END_USER_GROUPS_BIND})",
                    {END_USER_BIND: user.username, **groups})
        if self.end_user_id is not None:
            return (f"{session}.{SET_END_USER}(p_user_id => :{END_USER_BIND})",
                    {END_USER_BIND: self.end_user_id})
        return None

    def _block(self, cursor: Any, call: str,
               binds: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The anonymous block of one operation and its binds. With an end user to bind
        (``_binding``) the same block binds it first and unbinds it afterwards, also when the
        call fails, so an operation stays one round trip and a pooled connection goes back
        unbound."""
        binding = self._binding(cursor)
        if binding is None:
            return f"BEGIN {call}; END;", binds
        bind_call, bind_values = binding
        session = self._member("SESSION.CLEAR_END_USER").rsplit(".", 1)[0]
        block = (f"BEGIN {bind_call}; {call}; "
                 f"{session}.{CLEAR_END_USER}; "
                 f"EXCEPTION WHEN OTHERS THEN BEGIN {session}.{CLEAR_END_USER}; "
                 "EXCEPTION WHEN OTHERS THEN NULL; END; RAISE; END;")
        return block, {**bind_values, **binds}

    def _call_function(self, member: str, **binds: Any) -> Any:
        """Run one facade function; JSON results come back as Python values."""
        import oracledb

        name = member.split(".")[1]
        arguments = ", ".join(f"{key} => :{key}" for key in binds)
        result_type = (oracledb.DB_TYPE_NUMBER if name in RETURNS_NUMBER
                       else oracledb.DB_TYPE_BOOLEAN if name in RETURNS_BOOLEAN
                       else oracledb.DB_TYPE_VARCHAR if name in RETURNS_TEXT
                       else oracledb.DB_TYPE_JSON)
        with self._connection() as conn, conn.cursor() as cursor:
            result = cursor.var(result_type)
            block, values = self._block(cursor,
                                        f":result := {self._member(member)}({arguments})",
                                        self._binds(cursor, binds))
            self._execute(cursor, block, {"result": result, **values})
            value = result.getvalue()
        if name in RETURNS_NUMBER:
            return int(value or 0)
        if name in RETURNS_BOOLEAN:
            return bool(value)
        if name in RETURNS_TEXT:
            return value
        return _decoded(value)

    def _call(self, member: str, **binds: Any) -> None:
        """Run one facade procedure."""
        arguments = ", ".join(f"{key} => :{key}" for key in binds)
        with self._connection() as conn, conn.cursor() as cursor:
            block, values = self._block(cursor, f"{self._member(member)}({arguments})",
                                        self._binds(cursor, binds))
            self._execute(cursor, block, values)

    @staticmethod
    def _binds(cursor: Any, binds: dict[str, Any]) -> dict[str, Any]:
        import oracledb

        values: dict[str, Any] = {}
        for key, value in binds.items():
            if isinstance(value, (dict, list, tuple)):
                variable = cursor.var(oracledb.DB_TYPE_JSON)
                variable.setvalue(0, _plain(value))
                values[key] = variable
            else:
                values[key] = value
        return values

    @staticmethod
    def _execute(cursor: Any, block: str, binds: dict[str, Any]) -> None:
        import oracledb

        try:
            cursor.execute(block, binds)
        except oracledb.DatabaseError as error:
            raise _translate(error) from error

    # -- schema policy -----------------------------------------------------------------

    def _apply_schema_policy(self, policy: str) -> None:
        if policy == "NO_CHECK":
            return
        try:
            self._check_schema()
        except (_MissingSchema, SchemaError) as problem:
            self._repair_or_raise(policy, problem)
        if policy == "RECREATE":
            self._call("API.RESET_STORE", p_commit=True)

    def _check_schema(self) -> None:
        """-20007 unless the store is at this library's version (and dimension, when given)."""
        self._call("API.CHECK_SCHEMA", p_dimension=self.embedding_dimension,
                   p_version=SCHEMA_VERSION)

    def _may_change_schema(self) -> bool:
        """A store bound to an end user, or opened inside an end-user security context, is
        never installed nor upgraded from here (and ``install`` / ``upgrade`` refuse a session
        that is not the store's owner)."""
        return self.end_user_id is None and current_end_user() is None

    def _repair_or_raise(self, policy: str, problem: Exception) -> None:
        """After a failed schema check: upgrade an older store, install a missing one or
        complete a partial install where the policy allows it; else a SchemaError that says
        which case it is."""
        older = self._older_version()
        if older is not None:
            if policy in _CHANGES_SCHEMA and self._may_change_schema():
                # the store's own choices; a dimension that differs is refused by the check
                self._upgrade(dict.fromkeys(self._given))
                self._check_schema()
                return
            raise SchemaError(
                f"the agent-memory store {self.facade} has schema version {older}; this library "
                f"needs {SCHEMA_VERSION}: upgrade it as the owner (oracleagentmemory upgrade, or "
                f"install/upgrade.sql); {policy} never upgrades") from None
        if isinstance(problem, SchemaError):
            raise problem
        state = self.install_state()
        if state["state"] == "not_visible":
            raise SchemaError(
                f"the agent-memory store {self.facade} is not visible in schema "
                f"{state['schema']}: it is not installed there, or this user lacks "
                f"EXECUTE on {state['schema']}.{self.facade} (install/grants_runtime.sql)"
            ) from None
        if state["state"] == "installed":
            raise SchemaError(
                f"the agent-memory store {self.facade} is installed but cannot be called "
                f"({problem}); check the grants (install/grants_owner.sql) and "
                "SELECT * FROM user_errors"
            ) from None
        creates = policy in _CHANGES_SCHEMA or (
            policy == "CREATE_IF_EMPTY" and state["state"] == "not_installed")
        if not creates or not self._may_change_schema():
            raise SchemaError(_state_message(self.facade, state, policy,
                                             not self._may_change_schema())) from None
        self.install()

    def _older_version(self) -> int | None:
        """The store's recorded schema version when it is older than this library's (the
        owner reads it from the META table; others see no table and get None)."""
        with self._connection() as conn, conn.cursor() as cursor:
            recorded = self._stored_options(cursor).get("schema_version")
        if recorded is None or not str(recorded).isdigit():
            return None
        return int(recorded) if int(recorded) < SCHEMA_VERSION else None

    def install_state(self) -> dict[str, Any]:
        """Which objects of this store exist in its owner's schema (``schema_owner``, else the
        current schema), told apart as
        ``installed``, ``not_installed``, ``partly_installed`` (``missing`` and ``invalid``
        list them) and ``not_visible`` (another user's schema shows nothing: not installed
        there, or no EXECUTE grant)."""
        expected = _created_objects(render_install(**self._render_options({})))
        with self._connection() as conn, conn.cursor() as cursor:
            self._execute(cursor, _SCHEMA_QUERY, {})
            schema, user = cursor.fetchone() or (None, None)
            schema = self.schema_owner or schema
            present = {key: status for key, status in self._existing_objects(cursor).items()
                       if key in expected}  # not another store whose prefix starts alike
        if schema != user and not present:
            return {"state": "not_visible", "schema": schema, "missing": [], "invalid": []}
        missing = [f"{kind} {name}" for kind, name in expected if (kind, name) not in present]
        invalid = [f"{kind} {name}" for (kind, name), status in sorted(present.items())
                   if status != "VALID"]
        state = ("not_installed" if not present else
                 "installed" if not missing and not invalid else "partly_installed")
        return {"state": state, "schema": schema, "missing": missing, "invalid": invalid}

    def _existing_objects(self, cursor: Any) -> dict[tuple[str, str], str]:
        """(object type, name) -> status of this store's objects in its owner's schema."""
        self._execute(cursor, _OBJECTS_QUERY,
                      {"owner": self.schema_owner,
                       "prefix": self.facade.replace("_", "\\_") + "%"})
        return {(kind, name): status for name, kind, status in cursor.fetchall()}

    def _render_options(self, stored: dict[str, str | None],
                        given: dict[str, Any] | None = None) -> dict[str, Any]:
        """Rendering options: the caller's choice (``given``, by default the constructor's),
        else the store's recorded one, else the default."""
        given = self._given if given is None else given

        def pick(key: str, default: Any) -> Any:
            if given[key] is not None:
                return given[key]
            return stored.get(key) or default

        dimension = pick("dimension", DEFAULT_DIMENSION)
        return {"prefix": self.facade, "dimension": int(dimension),
                "vector_index": pick("vector_index", DEFAULT_VECTOR_INDEX),
                "search_strategy": pick("search_strategy", "VECTOR"),
                "sync_mode": pick("sync_mode", "ON_COMMIT"),
                "embedding_model": pick("embedding_model", None)}

    def install(self) -> None:
        """Create whatever of this store is missing (needs the owner's privileges).

        Tables and indexes that exist are kept (a second run completes a partial install),
        packages and views are re-created. An HNSW index the database cannot hold (no vector
        memory pool) becomes IVF, with a warning.
        """
        with self._connection() as conn, conn.cursor() as cursor:
            release = cursor.var(int)
            cursor.execute("BEGIN :v := DBMS_DB_VERSION.VERSION; END;", {"v": release})
            if (release.getvalue() or 0) < MINIMUM_RELEASE:
                raise SchemaError(
                    f"agent memory needs Oracle AI Database 23ai or later; this database is "
                    f"release {release.getvalue()}"
                )
            self._execute(cursor, _SCHEMA_QUERY, {})
            schema, user = cursor.fetchone() or (None, None)
            if schema != user or self.schema_owner not in (None, user):
                raise SchemaError(f"install the store as the owner: this session works in "
                                  f"schema {schema} as user {user}")
            options = self._render_options(self._stored_options(cursor))
            model = options["embedding_model"]
            if model:
                cursor.execute("SELECT COUNT(*) FROM user_mining_models WHERE model_name = :m",
                               {"m": model})
                if not cursor.fetchone()[0]:
                    raise SchemaError(
                        f"the embedding model {model} is not loaded in this schema; "
                        "load it first with install/load_onnx_model.sql"
                    )
            existing = self._existing_objects(cursor)
            vector_index = object_names(self.facade)["ix_vector"]
            fell_back = False
            for name, text in render_install(**options):
                self._progress(f"running {name}")
                for statement in split_script(text):
                    created = _created_object(statement)
                    if created in existing and created[0] in ("TABLE", "INDEX", "TYPE"):
                        self._progress(f"  kept {created[0]} {created[1]}")
                        continue
                    if created == ("INDEX", vector_index) and options["vector_index"] == "HNSW":
                        fell_back = self._create_hnsw(cursor, statement, options)
                    else:
                        self._execute(cursor, statement, {})
            if fell_back:
                cursor.execute(f"UPDATE {object_names(self.facade)['t_meta']} SET meta_value = "
                               "'IVF' WHERE meta_key = 'vector_index'")
                conn.commit()
            cursor.execute(
                "SELECT name, type, line, position, text FROM user_errors"
                " WHERE name LIKE :prefix ESCAPE '\\' ORDER BY name, type, sequence",
                {"prefix": self.facade.replace("_", "\\_") + "%"},
            )
            errors = cursor.fetchall()
            isolation = self._stored_options(cursor).get("end_user_isolation")
        if errors:
            raise SchemaError(_compile_message(errors))
        if isolation == "UNAVAILABLE":
            warnings.warn(
                "end-user isolation is not available in this database edition (DBMS_RLS "
                "is Enterprise Edition only): the store works for its owner and trusted "
                "services, and refuses to bind an end user", UserWarning, stacklevel=3)
        if not self._call_function("API.ENSURE_PURGE_JOB"):
            warnings.warn(
                "the purge job was not created (no CREATE JOB privilege): expired records "
                "stay hidden but are not removed until a privileged user creates the job",
                UserWarning, stacklevel=3,
            )

    def _create_hnsw(self, cursor: Any, statement: str, options: dict[str, Any]) -> bool:
        """Create the HNSW index; where the vector memory pool is missing or full, create
        the IVF one instead and warn. True when it fell back."""
        import oracledb

        try:
            cursor.execute(statement)
            return False
        except oracledb.DatabaseError as error:
            code = getattr(error.args[0], "code", None) if error.args else None
            if code not in _VECTOR_POOL_CODES:
                raise _translate(error) from error
        warnings.warn(
            f"HNSW needs the vector memory pool (ORA-{code:05d}; set VECTOR_MEMORY_SIZE, "
            "docs/oracle.md): the store uses an IVF vector index instead",
            UserWarning, stacklevel=4)
        ivf = dict(render_install(**{**options, "vector_index": "IVF"}))
        index = object_names(self.facade)["ix_vector"]
        for ivf_statement in split_script(ivf[f"{self.facade.lower()}_indexes.sql"]):
            if _created_object(ivf_statement) == ("INDEX", index):
                self._execute(cursor, ivf_statement, {})
        return True

    def _stored_options(self, cursor: Any) -> dict[str, str | None]:
        """The store's recorded facts (its META rows), or {} when there is no store yet."""
        import oracledb

        table = self._qualified(object_names(self.facade)["t_meta"])
        try:
            cursor.execute(f"SELECT meta_key, meta_value FROM {table}")
        except oracledb.DatabaseError as error:
            if getattr(error.args[0], "code", None) == 942:  # ORA-00942: no such table
                return {}
            raise _translate(error) from error
        rows = dict(cursor.fetchall())
        if not rows:
            return {}
        return {"dimension": rows.get("embedding_dimension"),
                **{key: rows.get(key) for key in ("vector_index", "search_strategy",
                                                  "sync_mode", "schema_version",
                                                  "end_user_isolation")},
                "embedding_model": rows.get("embedding_model") or None}

    def upgrade(self) -> None:
        """Move the store to this library's schema version: the table steps of every version
        above the store's (``TABLE_STEPS``), then the collection types and packages
        re-created (CREATE OR REPLACE keeps grants) with the store's own dimension, model,
        strategy, index and sync choices, then the new version recorded.

        The choices come from the store's META rows, not from the arguments: an argument
        that names another value is refused. A store newer than this library is refused.
        """
        self._upgrade(self._given)

    def _upgrade(self, given: dict[str, Any]) -> None:
        """``upgrade`` refusing the choices of ``given`` that differ from the store's (None:
        not chosen)."""
        with self._connection() as conn, conn.cursor() as cursor:
            self._execute(cursor, _SCHEMA_QUERY, {})
            schema, user = cursor.fetchone() or (None, None)
            if self.schema_owner not in (None, user):
                raise SchemaError(f"upgrade the store as its owner {self.schema_owner}: this "
                                  f"session is user {user}")
            stored = self._stored_options(cursor)
            if not stored:
                raise SchemaError(f"no agent-memory store {self.facade} here; install it first")
            stored_model = stored["embedding_model"]
            for key, value in given.items():
                recorded = stored_model if key == "embedding_model" else stored.get(key)
                if value is not None and str(value) != str(recorded):
                    raise SchemaError(
                        f"the store {self.facade} was installed with {key} {recorded}, not "
                        f"{value}: upgrade keeps the store's own choices (leave the option "
                        "out, or uninstall and install to change it)")
            installed = int(stored.get("schema_version") or 0)
            if installed > SCHEMA_VERSION:
                raise SchemaError(f"the store {self.facade} has schema version {installed}, "
                                  f"newer than this library ({SCHEMA_VERSION})")
            self._upgrade_tables(cursor, installed)
            rendered = render_install(**self._render_options(stored, given))
            for name, text in rendered:
                if name.endswith(("_types.sql", ".pks", ".pkb", "_isolation.sql")):
                    self._progress(f"running {name}")
                    for statement in split_script(text):
                        self._execute(cursor, statement, {})
        if installed < KEYWORD_TEXT_VERSION:
            self._upgrade_keyword_text(dict(rendered))
        self._call("API.SET_SCHEMA_VERSION", p_version=SCHEMA_VERSION)

    def _upgrade_keyword_text(self, rendered: dict[str, str]) -> None:
        """Version 4, once the packages exist: fill keyword_text of the stored records (in
        committed batches, by the facade's fill_keyword_text), then create the text lexer
        preference and the text index over keyword_text from the store's own indexes
        script (the vector index is kept)."""
        filled = self._call_function("API.FILL_KEYWORD_TEXT", p_batch=KEYWORD_FILL_BATCH)
        self._progress(f"version {KEYWORD_TEXT_VERSION}: keyword text of {filled} record(s)")
        text_index = object_names(self.facade)["ix_text"]
        with self._connection() as conn, conn.cursor() as cursor:
            existing = self._existing_objects(cursor)
            script = rendered[f"{self.facade.lower()}_indexes.sql"]
            for statement in split_script(script):
                created = _created_object(statement)
                lexer_block = statement.split()[0].upper() in ("DECLARE", "BEGIN")
                if lexer_block or (created == ("INDEX", text_index)
                                   and created not in existing):
                    self._progress(f"version {KEYWORD_TEXT_VERSION}: {statement.split()[0]} "
                                   f"{'lexer preference' if lexer_block else text_index}")
                    self._execute(cursor, statement, {})

    def _upgrade_tables(self, cursor: Any, installed: int) -> None:
        """The table steps of the versions above ``installed``, in order."""
        import oracledb

        names = object_names(self.facade)
        for version, statements in TABLE_STEPS:
            if installed >= version:
                continue
            for template in statements:
                statement = template.format(**names)
                self._progress(f"version {version}: {statement}")
                try:
                    cursor.execute(statement)
                except oracledb.DatabaseError as error:
                    code = getattr(error.args[0], "code", None) if error.args else None
                    if code not in _ALREADY_DONE_CODES:
                        raise _translate(error) from error

    def uninstall(self) -> None:
        """Drop every object of this store: purge job, packages, indexes and tables."""
        name, text = render_uninstall(self.facade)
        self._progress(f"running {name}")
        with self._connection() as conn, conn.cursor() as cursor:
            for statement in split_script(text):
                self._execute(cursor, statement, {})

    # -- the contract --------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        return self._call_function("API.DESCRIBE")

    def recorded_embedding_model(self) -> str | None:
        """The facade's ``recorded_embedding_model``; all-MiniLM-L6-v2 (the only default
        before models were recorded) when the store's packages predate it (a store opened
        without a schema check) or the call fails."""
        try:
            name = self._call_function("API.RECORDED_EMBEDDING_MODEL")
        except StoreError:
            return LEGACY_EMBEDDING_MODEL
        return str(name) if name else None

    def record_embedding_model(self, name: str) -> None:
        """The facade's ``record_embedding_model`` (the first name stays). Best effort, as
        the embedded store's: a store that cannot record it (packages older than schema
        version 5) is left as it is."""
        try:
            self._call("API.RECORD_EMBEDDING_MODEL", p_name=name, p_commit=True)
        except StoreError:
            return

    def write_records(self, records: Sequence[RecordIn], links: Sequence[LinkIn] = (),
                      replace: bool = False, thread_id: str | None = None) -> list[str]:
        return self._call_function("API.WRITE_RECORDS", p_records=list(records),
                                   p_links=list(links), p_replace=bool(replace),
                                   p_thread_id=thread_id, p_commit=True)

    def get_records(self, query: RecordQuery) -> list[RecordOut]:
        return self._call_function("API.GET_RECORDS", p_query=dict(query))

    def list_messages(self, thread_id: str, start: int | None, end: int | None,
                      include_bytes: bool = False) -> list[RecordOut]:
        return self._call_function("API.LIST_MESSAGES", p_thread_id=thread_id, p_start=start,
                                   p_end=end, p_include_bytes=bool(include_bytes))

    def update_record(self, record_id: str, record_types: Sequence[str],
                      changes: RecordChanges, thread_id: str | None = None
                      ) -> RecordOut | None:
        return self._call_function("API.UPDATE_RECORD", p_record_id=record_id,
                                   p_record_types=list(record_types), p_changes=dict(changes),
                                   p_thread_id=thread_id, p_commit=True)

    def delete_records(self, record_ids: Sequence[str], record_types: Sequence[str],
                       thread_id: str | None = None) -> int:
        return self._call_function("API.DELETE_RECORDS", p_record_ids=list(record_ids),
                                   p_record_types=list(record_types), p_thread_id=thread_id,
                                   p_commit=True)

    def delete_cascade(self, owner_type: OwnerType, owner_id: str) -> CascadeResult:
        return self._call_function("API.DELETE_CASCADE", p_owner_type=owner_type,
                                   p_owner_id=owner_id, p_commit=True)

    def search(self, request: SearchRequest) -> list[SearchHit]:
        return self._call_function("API.SEARCH", p_request=dict(request))

    def update_link(self, relation_id: str, thread_id: str | None,
                    changes: LinkChanges) -> int:
        return self._call_function("API.UPDATE_LINK", p_relation_id=relation_id,
                                   p_thread_id=thread_id, p_changes=dict(changes),
                                   p_commit=True)

    def delete_links(self, selector: LinkSelector, thread_id: str | None) -> int:
        return self._call_function("API.DELETE_LINKS", p_selector=dict(selector),
                                   p_thread_id=thread_id, p_commit=True)

    def list_links(self, query: LinkQuery) -> list[LinkOut]:
        return self._call_function("API.LIST_LINKS", p_query=dict(query))

    def purge_expired(self) -> int:
        return self._call_function("API.PURGE_EXPIRED", p_commit=True)

    def close(self) -> None:
        """Forget the connection (the caller owns and closes its connection or pool)."""
        self._closed = True


class OracleSecurityAdmin:
    """Deep data security administration of one Oracle store: the policies registered on it
    and what is granted to whom, kept in the store's tables by the owner-only package
    ``<owner>.<prefix>_SECURITY`` (docs/oracle.md, "Deep data security").

    ``owner_schema`` and ``store_id`` (the store's prefix) are checked like the backend's
    ``schema_owner`` and prefix before they are written into the call text; everything else
    is a bind. Names cross in the library's vocabulary (``user_own_rows``, ``local_user``)
    and are stored upper-case. Each method is one round trip; changes are committed. The
    calls are never bound to an end user, whatever security context is active: only the
    owner may make them: any other session user gets ``AccessDeniedError``, from the
    package's -20009 or, without EXECUTE on it (the normal case), from PLS-00201 and the
    session user (``_explained``).
    """

    def __init__(self, connection: Any, owner_schema: str, store_id: str) -> None:
        owner = validate_name(owner_schema, "owner_schema")
        prefix = validate_name(store_id, "memory_store_id")
        self._store = OracleBackend(connection, store_id=prefix, schema_owner=owner,
                                    schema_policy="NO_CHECK")
        self._store._binds_end_users = False
        self._owner = owner
        self._package = f"{owner}.{prefix}_SECURITY"

    @contextmanager
    def _explained(self) -> Iterator[None]:
        """A package the session cannot call says why. EXECUTE on it is granted to nobody
        (install/grants_runtime.sql), so another database user meets PLS-00201 as for a
        missing package, not the package's own -20009: the session user tells them apart
        (one more round trip, on this error only), and that user gets the
        ``AccessDeniedError`` the owner-only rule promises. For the owner the store is not
        installed there, or older than schema version 3."""
        try:
            yield
        except _MissingSchema as problem:
            user = self._session_user()
            if user is not None and user != self._owner:
                raise AccessDeniedError(
                    f"{self._package} is reserved to the store owner {self._owner}; this "
                    f"session is user {user}") from None
            raise SchemaError(
                f"{self._package} cannot be called ({problem}): the store is not installed "
                "there, or older than schema version 3 (upgrade it: oracleagentmemory "
                "upgrade)"
            ) from None

    def _session_user(self) -> str | None:
        """The database user of the connection's sessions (SESSION_USER)."""
        with self._store._connection() as conn, conn.cursor() as cursor:
            self._store._execute(cursor, _SCHEMA_QUERY, {})
            row = cursor.fetchone()
        return None if row is None else row[1]

    def add_policies(self, names: Sequence[str]) -> None:
        """Register policies (registering one twice changes nothing)."""
        with self._explained():
            self._store._call("SECURITY.ADD_POLICIES", p_policies=_stored_names(names),
                              p_commit=True)

    def remove_policies(self, names: Sequence[str]) -> None:
        """Unregister policies; their grants go with them."""
        with self._explained():
            self._store._call("SECURITY.REMOVE_POLICIES", p_policies=_stored_names(names),
                              p_commit=True)

    def list_policies(self) -> list[str]:
        """The registered policies' names, sorted."""
        with self._explained():
            names = self._store._call_function("SECURITY.LIST_POLICIES")
        return sorted(name.lower() for name in names)

    def grant(self, principals: Sequence[tuple[str, str]], names: Sequence[str]) -> None:
        """Grant registered policies to (kind, name) principals (InvalidArgumentError for a
        policy that is not registered)."""
        with self._explained():
            self._store._call("SECURITY.GRANT_POLICIES",
                              p_principals=_stored_principals(principals),
                              p_policies=_stored_names(names), p_commit=True)

    def revoke(self, principals: Sequence[tuple[str, str]], names: Sequence[str]) -> None:
        """Withdraw grants (one that does not exist changes nothing)."""
        with self._explained():
            self._store._call("SECURITY.REVOKE_POLICIES",
                              p_principals=_stored_principals(principals),
                              p_policies=_stored_names(names), p_commit=True)

    def list_grants(self) -> list[tuple[str, str, list[str]]]:
        """(principal kind, principal name, sorted policy names) of every principal with a
        grant, sorted by kind and name (code point order, whatever the session's NLS_SORT)."""
        with self._explained():
            grants = self._store._call_function("SECURITY.LIST_GRANTS")
        return sorted((entry["kind"].lower(), entry["name"],
                       sorted(name.lower() for name in entry["policies"]))
                      for entry in grants)


def session_end_user(connection: Any) -> str | None:
    """The end user bound in the session of ``connection`` (a pool: of the connection it
    hands out) for the default store in the session's current schema, or None. The library
    itself unbinds after every operation, so this reports a binding the application made
    with ``AGENT_MEMORY_SESSION.set_end_user`` / ``set_end_user_context`` on that session."""
    store = OracleBackend(connection, schema_policy="NO_CHECK")
    store._binds_end_users = False
    return store._call_function("SESSION.END_USER_ID")


def _stored_names(names: Sequence[str]) -> list[str]:
    """Policy names as the store keeps them (upper-case)."""
    return [name.upper() for name in names]


def _stored_principals(principals: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """(kind, name) principals as the security package reads them."""
    return [{"kind": kind.upper(), "name": name} for kind, name in principals]


_SCHEMA_QUERY = ("SELECT SYS_CONTEXT('USERENV', 'CURRENT_SCHEMA'), "
                 "SYS_CONTEXT('USERENV', 'SESSION_USER') FROM dual")
_OBJECTS_QUERY = ("SELECT object_name, object_type, status FROM all_objects"
                  " WHERE owner = NVL(:owner, SYS_CONTEXT('USERENV', 'CURRENT_SCHEMA'))"
                  " AND object_name LIKE :prefix ESCAPE '\\'")
"""ALL_OBJECTS of the store's owner (schema_owner, else the current schema): the owner sees
every object of the store, a runtime user only what it has privileges on."""
_CREATED = re.compile(
    r"^CREATE\s+(?:OR\s+REPLACE\s+)?(?:VECTOR\s+|SEARCH\s+)?"
    r"(TABLE|INDEX|VIEW|PACKAGE\s+BODY|PACKAGE|TYPE)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)",
    re.IGNORECASE)
_VECTOR_POOL_CODES = frozenset({51950, 51961, 51962, 52307})
"""The vector memory pool cannot be used / is out of space (Database Error Messages,
https://docs.oracle.com/en/error-help/db/ora-51950, .../oci-51962, .../ora-52307)."""
_UNIQUE_CONSTRAINT_CODE = 1
"""ORA-00001 "unique constraint violated": the facade checks ids first (-20003), but under
VPD a bound end user's check cannot see another user's row, so the insert itself meets
the primary key. Its text is not passed on: with ERROR_MESSAGE_DETAILS the database may add
the row's column values (https://docs.oracle.com/en/error-help/db/oci-03301)."""
_POLICY_CHECK_CODES = frozenset({28115})
"""ORA-28115 "policy with check option violation": the VPD write policy (update_check)
refused an insert or update of a row the bound end user may not change (docs/oracle.md,
"End-user isolation"; the utPLSQL suite ut_agent_memory_isolation expects it): the
``PermissionError`` the embedded backend raises for the same write."""
_MISSING_GRANT = re.compile(r"PLS-00201: identifier '([\w.$#]+)' must be declared")


def _created_object(statement: str) -> tuple[str, str] | None:
    """(USER_OBJECTS type, name) of the object a CREATE statement makes, else None."""
    match = _CREATED.match(statement)
    if not match:
        return None
    return " ".join(match.group(1).upper().split()), match.group(2).upper()


def _created_objects(scripts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every object an installation creates, in order."""
    objects = [_created_object(statement) for _, text in scripts
               for statement in split_script(text)]
    return [created for created in objects if created is not None]


def _state_message(facade: str, state: dict[str, Any], policy: str, bound: bool) -> str:
    if state["state"] == "not_installed":
        what = f"the agent-memory store {facade} is not installed"
    else:
        gaps = ", ".join(state["missing"] + [f"{item} (invalid)" for item in state["invalid"]])
        what = (f"the agent-memory store {facade} is partly installed (missing: {gaps}); "
                "install it again as the owner to complete it")
    if bound:
        return (f"{what}, and a store bound to an end user does not install: install as the "
                "owner, then open it with REQUIRE_EXISTING")
    return f"{what} ({policy})"


def _compile_message(errors: list[tuple]) -> str:
    """Compile errors of the store's packages; an identifier the owner may not see is a
    missing grant (install/grants_owner.sql)."""
    grants = sorted({match.group(1) for *_, text in errors
                     for match in [_MISSING_GRANT.search(text)] if match})
    message = "the store's packages did not compile: " + "; ".join(
        f"{name} {kind} {line}:{position} {text.strip()}"
        for name, kind, line, position, text in errors[:10])
    if grants:
        message += (f". Missing grant: the owner needs EXECUTE on {', '.join(grants)} "
                    "(install/grants_owner.sql)")
    return message


class _MissingSchema(StoreError):
    """The facade or its tables do not exist yet."""


def _translate(error: Any) -> Exception:
    """The contract exception for an ORA error raised by the facade (other ORA errors keep
    their code in the message, e.g. ORA-01031 for a missing privilege)."""
    details = error.args[0] if error.args else None
    code = getattr(details, "code", None)
    full = getattr(details, "message", str(error)).splitlines()[0]
    message = _ORA_PREFIX.sub("", full)
    if code is not None and -code in ERRORS_BY_CODE:
        return ERRORS_BY_CODE[-code](message)
    if code in _POLICY_CHECK_CODES:
        return AccessDeniedError(full)
    if code == _UNIQUE_CONSTRAINT_CODE:
        return DuplicateRecordError("the id is already in use (ORA-00001)")
    if code in _MISSING_OBJECT_CODES:
        return _MissingSchema(message)
    return StoreError(full)
