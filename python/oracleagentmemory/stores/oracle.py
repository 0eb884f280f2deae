"""OracleBackend: the store contract marshalled to the AGENT_MEMORY PL/SQL facade.

The logic lives in the database; this module only turns each contract call into one
PL/SQL call with named binds (JSON documents bound as native ``JSON``), one round trip per
logical operation, and maps the facade's ``RAISE_APPLICATION_ERROR`` codes to the contract's
Python exceptions.

Calls go through ``_call("API.MEMBER", p_x=...)`` / ``_call_function(...)`` with literal
member names and keyword binds named after the PL/SQL parameters: the static gate reads
this file and checks every such call against the facade specification (``PACKAGE_ALIASES``
maps the alias to the spec it checks; at run time the alias is the store's own prefix).

End-user isolation: with ``end_user_id`` the store binds that end user on every connection it
uses, for the duration of one operation (``SESSION.SET_END_USER`` before, ``CLEAR_END_USER``
after, on the same connection), so the database's VPD policy restricts every statement to
that user's records (docs/oracle.md, "End-user isolation"). Without it nothing changes.
"""

from __future__ import annotations

import base64
import re
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from decimal import Decimal
from typing import Any

import numpy as np

from oracleagentmemory.stores.errors import (
    ERRORS_BY_CODE,
    InvalidArgumentError,
    SchemaError,
    StoreError,
)
from oracleagentmemory.stores.oracle_sql.render import (
    DEFAULT_DIMENSION,
    DEFAULT_PREFIX,
    SCHEMA_VERSION,
    render_install,
    render_uninstall,
    validate_prefix,
)
from oracleagentmemory.stores.oracle_sql.statements import split_script

PACKAGE_ALIASES = {"API": "AGENT_MEMORY", "SESSION": "AGENT_MEMORY_SESSION"}
"""Alias -> package whose spec the static gate checks the calls below against (the default
store's names; at run time the AGENT_MEMORY prefix is replaced by the store's own)."""

RETURNS_NUMBER = frozenset({"DELETE_RECORDS", "UPDATE_LINK", "DELETE_LINKS", "PURGE_EXPIRED"})
RETURNS_BOOLEAN = frozenset({"ENSURE_PURGE_JOB"})
"""Facade functions returning NUMBER or BOOLEAN; every other function returns JSON."""

MINIMUM_RELEASE = 23
MAX_ID_LENGTH = 512
"""Ids (user_id included) are VARCHAR2(512 CHAR): 512 characters, whatever their bytes."""
_ORA_PREFIX = re.compile(r"^ORA-\d{5}:\s*")
_MISSING_OBJECT_CODES = {4043, 6550, 942}
"""ORA-04043 object does not exist, ORA-06550 PL/SQL compilation error, ORA-00942 table."""


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
    """The Oracle backend. ``connection`` is an ``oracledb`` connection or pool."""

    backend = "oracle"

    def __init__(
        self,
        connection: Any,
        embedding_dimension: int | None = None,
        schema_policy: str = "CREATE_IF_NECESSARY",
        search_strategy: str = "VECTOR",
        store_id: str = DEFAULT_PREFIX,
        sync_mode: str = "ON_COMMIT",
        vector_index: str = "HNSW",
        embedding_model: str | None = None,
        progress: Callable[[str], None] | None = None,
        end_user_id: str | None = None,
    ) -> None:
        if end_user_id is not None and (not isinstance(end_user_id, str) or not end_user_id
                                        or len(end_user_id) > MAX_ID_LENGTH):
            raise InvalidArgumentError(
                f"end_user_id must be a non-empty str of at most {MAX_ID_LENGTH} characters")
        self._source = connection
        self._lock = threading.Lock()
        self._local = threading.local()
        self._closed = False
        self.end_user_id = end_user_id
        self.facade = validate_prefix(store_id)
        self.embedding_dimension = embedding_dimension
        self.search_strategy = search_strategy
        self._install_options = {
            "prefix": self.facade, "dimension": embedding_dimension or DEFAULT_DIMENSION,
            "vector_index": vector_index, "search_strategy": search_strategy,
            "sync_mode": sync_mode, "embedding_model": embedding_model,
        }
        self._progress = progress or (lambda message: None)
        self._apply_schema_policy(schema_policy)

    # -- connections and calls ---------------------------------------------------------

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        pinned = getattr(self._local, "conn", None)
        if pinned is not None:  # inside _bound: the end user is bound on this connection
            yield pinned
            return
        if self._closed:
            raise StoreError("the store is closed")
        if hasattr(self._source, "acquire"):
            with self._source.acquire() as conn, self._bound(conn):
                yield conn
        else:
            with self._lock, self._bound(self._source):
                yield self._source

    @contextmanager
    def _bound(self, conn: Any) -> Iterator[None]:
        """Bind ``end_user_id`` on ``conn`` for one operation, and unbind it afterwards so a
        pooled connection goes back without an end user."""
        if self.end_user_id is None:
            yield
            return
        self._local.conn = conn
        try:
            self._call("SESSION.SET_END_USER", p_user_id=self.end_user_id)
            try:
                yield
            except BaseException:
                with suppress(Exception):
                    self._call("SESSION.CLEAR_END_USER")
                raise
            self._call("SESSION.CLEAR_END_USER")
        finally:
            self._local.conn = None

    def _member(self, member: str) -> str:
        alias, name = member.split(".")
        if alias not in PACKAGE_ALIASES:
            raise ValueError(f"unknown package alias {alias!r}")
        return f"{self.facade}{PACKAGE_ALIASES[alias][len(DEFAULT_PREFIX):]}.{name}"

    def _call_function(self, member: str, **binds: Any) -> Any:
        """Run one facade function; JSON results come back as Python values."""
        import oracledb

        name = member.split(".")[1]
        arguments = ", ".join(f"{key} => :{key}" for key in binds)
        block = f"BEGIN :result := {self._member(member)}({arguments}); END;"
        result_type = (oracledb.DB_TYPE_NUMBER if name in RETURNS_NUMBER
                       else oracledb.DB_TYPE_BOOLEAN if name in RETURNS_BOOLEAN
                       else oracledb.DB_TYPE_JSON)
        with self._connection() as conn, conn.cursor() as cursor:
            result = cursor.var(result_type)
            self._execute(cursor, block, {"result": result, **self._binds(cursor, binds)})
            value = result.getvalue()
        if name in RETURNS_NUMBER:
            return int(value or 0)
        if name in RETURNS_BOOLEAN:
            return bool(value)
        return _decoded(value)

    def _call(self, member: str, **binds: Any) -> None:
        """Run one facade procedure."""
        arguments = ", ".join(f"{key} => :{key}" for key in binds)
        block = f"BEGIN {self._member(member)}({arguments}); END;"
        with self._connection() as conn, conn.cursor() as cursor:
            self._execute(cursor, block, self._binds(cursor, binds))

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
            self._call("API.CHECK_SCHEMA", p_dimension=self.embedding_dimension)
        except _MissingSchema:
            if policy == "REQUIRE_EXISTING":
                raise SchemaError(
                    f"the agent-memory store {self.facade} is not installed (REQUIRE_EXISTING)"
                ) from None
            if self.end_user_id is not None:
                raise SchemaError(
                    f"the agent-memory store {self.facade} is not installed, and a store bound "
                    "to an end user does not install: install as the owner, then open it with "
                    "REQUIRE_EXISTING"
                ) from None
            self.install()
            return
        if policy == "RECREATE":
            self._call("API.RESET_STORE", p_commit=True)

    def install(self) -> None:
        """Render and run the install scripts of this store (needs the owner's privileges)."""
        with self._connection() as conn, conn.cursor() as cursor:
            release = cursor.var(int)
            cursor.execute("BEGIN :v := DBMS_DB_VERSION.VERSION; END;", {"v": release})
            if (release.getvalue() or 0) < MINIMUM_RELEASE:
                raise SchemaError(
                    f"agent memory needs Oracle AI Database 23ai or later; this database is "
                    f"release {release.getvalue()}"
                )
            model = self._install_options["embedding_model"]
            if model:
                cursor.execute("SELECT COUNT(*) FROM user_mining_models WHERE model_name = :m",
                               {"m": model.upper()})
                if not cursor.fetchone()[0]:
                    raise SchemaError(
                        f"the embedding model {model.upper()} is not loaded in this schema; "
                        "load it first with install/load_onnx_model.sql"
                    )
            for name, text in render_install(**self._install_options):
                self._progress(f"running {name}")
                for statement in split_script(text):
                    self._execute(cursor, statement, {})
            cursor.execute(
                "SELECT name, type, line, position, text FROM user_errors"
                " WHERE name LIKE :prefix ESCAPE '\\' ORDER BY name, type, sequence",
                {"prefix": self.facade.replace("_", "\\_") + "%"},
            )
            errors = cursor.fetchall()
        if errors:
            raise SchemaError("the store's packages did not compile: " + "; ".join(
                f"{name} {kind} {line}:{position} {text.strip()}"
                for name, kind, line, position, text in errors[:10]))
        if not self._call_function("API.ENSURE_PURGE_JOB"):
            warnings.warn(
                "the purge job was not created (no CREATE JOB privilege): expired records "
                "stay hidden but are not removed until a privileged user creates the job",
                UserWarning, stacklevel=3,
            )

    def upgrade(self) -> None:
        """Re-create the packages (CREATE OR REPLACE keeps grants), then record the version.

        Schema version 1 is the first, so there are no table steps yet; later versions add
        theirs here, each guarded by the installed version.
        """
        with self._connection() as conn, conn.cursor() as cursor:
            for name, text in render_install(**self._install_options):
                if name.endswith((".pks", ".pkb", "_isolation.sql")):
                    self._progress(f"running {name}")
                    for statement in split_script(text):
                        self._execute(cursor, statement, {})
        self._call("API.SET_SCHEMA_VERSION", p_version=SCHEMA_VERSION)

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

    def write_records(self, records: Sequence[dict[str, Any]],
                      links: Sequence[dict[str, Any]] = (), replace: bool = False) -> list[str]:
        return self._call_function("API.WRITE_RECORDS", p_records=list(records),
                                   p_links=list(links), p_replace=bool(replace), p_commit=True)

    def get_records(self, query: dict[str, Any]) -> list[dict[str, Any]]:
        return self._call_function("API.GET_RECORDS", p_query=dict(query))

    def list_messages(self, thread_id: str, start: int | None, end: int | None,
                      include_bytes: bool = False) -> list[dict[str, Any]]:
        return self._call_function("API.LIST_MESSAGES", p_thread_id=thread_id, p_start=start,
                                   p_end=end, p_include_bytes=bool(include_bytes))

    def update_record(self, record_id: str, record_types: Sequence[str],
                      changes: dict[str, Any], thread_id: str | None = None
                      ) -> dict[str, Any] | None:
        return self._call_function("API.UPDATE_RECORD", p_record_id=record_id,
                                   p_record_types=list(record_types), p_changes=dict(changes),
                                   p_thread_id=thread_id, p_commit=True)

    def delete_records(self, record_ids: Sequence[str], record_types: Sequence[str],
                       thread_id: str | None = None) -> int:
        return self._call_function("API.DELETE_RECORDS", p_record_ids=list(record_ids),
                                   p_record_types=list(record_types), p_thread_id=thread_id,
                                   p_commit=True)

    def delete_cascade(self, owner_type: str, owner_id: str) -> dict[str, int]:
        return self._call_function("API.DELETE_CASCADE", p_owner_type=owner_type,
                                   p_owner_id=owner_id, p_commit=True)

    def search(self, request: dict[str, Any]) -> list[dict[str, Any]]:
        return self._call_function("API.SEARCH", p_request=dict(request))

    def update_link(self, relation_id: str, thread_id: str, changes: dict[str, Any]) -> int:
        return self._call_function("API.UPDATE_LINK", p_relation_id=relation_id,
                                   p_thread_id=thread_id, p_changes=dict(changes),
                                   p_commit=True)

    def delete_links(self, selector: dict[str, Any], thread_id: str) -> int:
        return self._call_function("API.DELETE_LINKS", p_selector=dict(selector),
                                   p_thread_id=thread_id, p_commit=True)

    def list_links(self, thread_id: str) -> list[dict[str, Any]]:
        return self._call_function("API.LIST_LINKS", p_thread_id=thread_id)

    def purge_expired(self) -> int:
        return self._call_function("API.PURGE_EXPIRED", p_commit=True)

    def close(self) -> None:
        """Forget the connection (the caller owns and closes its connection or pool)."""
        self._closed = True


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
    if code in _MISSING_OBJECT_CODES:
        return _MissingSchema(message)
    return StoreError(full)
