"""How one Oracle store is called: connections, one anonymous block per call (binding the
end user when there is one), binds and results, and the ORA error -> contract exception
mapping. The data path (``OracleBackend``) and the administration (``OracleStoreAdmin``,
``OracleSecurityAdmin``) both call through an ``OracleCaller``, so neither reaches into
the other.

Calls go through ``call("API.MEMBER", p_x=...)`` / ``call_function(...)`` with literal
member names and keyword binds named after the PL/SQL parameters: the static gate reads the
modules that call and checks every such call against the package specifications
(``PACKAGE_ALIASES`` maps the alias to the spec it checks; at run time the alias is the
store's own prefix). JSON documents are bound as native ``JSON``.

End-user binding: with ``end_user_id`` every call's block binds that end user first
(``SESSION.SET_END_USER``) and unbinds it afterwards (``CLEAR_END_USER``, also when the call
fails), in the same block and so in the same round trip, so the database's VPD policy
restricts every statement to that user's records and a pooled connection goes back unbound
(docs/oracle.md, "End-user isolation"). Inside an ``OracleMemoryEndUserSecurityContext``
(the context variable of ``oracleagentmemory._end_user``, read when each call is sent, so
every thread and asyncio task binds its own) the block binds that end user with its groups
instead (``SESSION.SET_END_USER_CONTEXT``). A caller made with ``binds_end_users=False``
(the owner's administration) never binds.

Another owner's store: with ``schema_owner`` every call names ``OWNER.<prefix>...``.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import numpy as np

from oracleagentmemory._end_user import current_end_user
from oracleagentmemory.stores.errors import (
    ERRORS_BY_CODE,
    AccessDeniedError,
    DuplicateRecordError,
    InvalidArgumentError,
    StoreClosedError,
    StoreError,
)
from oracleagentmemory.stores.operations import NUMBER_MEMBERS
from oracleagentmemory.stores.oracle_sql.render import DEFAULT_PREFIX, validate_prefix

PACKAGE_ALIASES = {"API": "AGENT_MEMORY", "SESSION": "AGENT_MEMORY_SESSION",
                   "SECURITY": "AGENT_MEMORY_SECURITY"}
"""Alias -> package whose spec the static gate checks the calls against (the default
store's names; at run time the AGENT_MEMORY prefix is replaced by the store's own)."""

SET_END_USER = "SET_END_USER"
SET_END_USER_CONTEXT = "SET_END_USER_CONTEXT"
CLEAR_END_USER = "CLEAR_END_USER"
END_USER_BIND = "am_end_user"
END_USER_GROUPS_BIND = "am_end_user_groups"
"""The SESSION members and the binds that wrap a call of a store bound to an end user
(tests/oracle_store checks them against the session package spec)."""

RETURNS_NUMBER = NUMBER_MEMBERS | frozenset({"FILL_KEYWORD_TEXT"})
RETURNS_BOOLEAN = frozenset({"ENSURE_PURGE_JOB"})
RETURNS_TEXT = frozenset({"END_USER_ID", "DEEP_DATA_SECURITY", "RECORDED_EMBEDDING_MODEL"})
"""Functions returning NUMBER (the contract's, as ``stores.operations`` declares them, and
an administration one), BOOLEAN or VARCHAR2; every other function returns JSON. A
VARCHAR2 result is a ``DB_TYPE_VARCHAR`` variable of the driver's default size, 4000 for a
string variable (python-oracledb ``Cursor.var``): an end user's name
has at most 512 characters."""

_ORA_PREFIX = re.compile(r"^ORA-\d{5}:\s*")
MISSING_OBJECT_CODES = frozenset({4043, 6550, 942})
"""ORA-04043 object does not exist, ORA-06550 PL/SQL compilation error, ORA-00942 table:
the store may be missing, partly installed or not granted (``OracleStoreAdmin`` tells
which)."""
_UNIQUE_CONSTRAINT_CODE = 1
"""ORA-00001 "unique constraint violated": the facade checks ids first (-20003), but under
VPD a bound end user's check cannot see another user's row, so the insert itself meets
the primary key. Its text is not passed on: with ERROR_MESSAGE_DETAILS the database may add
the row's column values."""
_POLICY_CHECK_CODES = frozenset({28115})
"""ORA-28115 "policy with check option violation": the VPD write policy (update_check)
refused an insert or update of a row the bound end user may not change (docs/oracle.md,
"End-user isolation"; the utPLSQL suite ut_agent_memory_isolation expects it): the
``PermissionError`` the embedded backend raises for the same write."""


MAX_JSON_BYTES = 32 * 1024 * 1024
"""A JSON type instance holds at most 32 MB (docs/oracle.md, "JSON documents between Python
and PL/SQL"). Every document crosses as one JSON bind (``DB_TYPE_JSON``): one record
fits many times over (content of at most 1,000,000 characters, 4 MB of UTF-8), a batch may
not. A document whose JSON text is larger is refused before it is sent; its UTF-8 text is
measured, which is at least its binary size for strings and larger for numbers."""
_JSON_TOO_LARGE = 40604
"""ORA-40604 "exceeded maximum size for a JSON data type object": a result document over
32 MB."""


class MissingSchema(StoreError):
    """The facade or its tables do not exist yet, or cannot be seen."""


def error_code(error: Any) -> int | None:
    """The ORA code of a python-oracledb ``DatabaseError`` (0 for a driver's own DPY
    error, None for an error without details)."""
    return getattr(error.args[0], "code", None) if error.args else None


def translate(error: Any) -> Exception:
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
    if code == _JSON_TOO_LARGE:
        return StoreError(f"{full}: the result is larger than one JSON document may be "
                          "(32 MB); ask for fewer records at a time")
    if code in MISSING_OBJECT_CODES:
        return MissingSchema(message)
    return StoreError(full)


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


def _check_json_size(key: str, document: Any) -> None:
    """InvalidArgumentError naming the argument when a document is larger than one JSON
    type instance may be (``MAX_JSON_BYTES``)."""
    size = len(json.dumps(document, ensure_ascii=False, separators=(",", ":"),
                          default=str).encode("utf-8"))
    if size > MAX_JSON_BYTES:
        argument = key[2:] if key.startswith("p_") else key
        raise InvalidArgumentError(
            f"{argument} is {size} bytes as JSON, more than one JSON document may hold "
            f"({MAX_JSON_BYTES} bytes on Oracle): send it in smaller batches")


def decoded(value: Any, key: str | None = None) -> Any:
    """Contract values from facade output, converted once at this boundary: JSON numbers
    arrive as ``decimal.Decimal`` (python-oracledb maps JSON NUMBER to Decimal on query and
    OUT binds; docs/oracle.md, "JSON numbers from the driver")
    and become ``int`` when integral, else ``float`` (a distance is always a float); base64
    image bytes become bytes."""
    if isinstance(value, dict):
        return {name: decoded(item, name) for name, item in value.items()}
    if isinstance(value, list):
        return [decoded(item) for item in value]
    if isinstance(value, Decimal):
        if key == "distance" or value != value.to_integral_value():
            return float(value)
        return int(value)
    if key == "image_bytes" and isinstance(value, str):
        return base64.b64decode(value)
    return value


class OracleCaller:
    """The calls of one store (``store_id`` is its prefix) over an ``oracledb`` connection
    or pool. ``end_user_id`` binds every call to that end user; ``binds_end_users=False``
    never binds (the owner's administration)."""

    def __init__(self, connection: Any, store_id: str = DEFAULT_PREFIX,
                 schema_owner: str | None = None, end_user_id: str | None = None,
                 binds_end_users: bool = True) -> None:
        self.facade = validate_prefix(store_id)
        self.schema_owner = schema_owner
        self.end_user_id = end_user_id
        self.binds_end_users = binds_end_users
        self._source = connection
        self._lock = threading.Lock()
        self.closed = False

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """A connection for one call: acquired from a pool, else the one connection (one
        call at a time). A connection or pool the application closed is the driver's
        ``InterfaceError`` (DPY-1001, DPY-1002), which is no ``DatabaseError``: it becomes a
        ``StoreError`` carrying the driver's code, as other database errors do."""
        import oracledb

        if self.closed:
            raise StoreClosedError("the store is closed")
        try:
            if hasattr(self._source, "acquire"):
                with self._source.acquire() as conn:
                    yield conn
            else:
                with self._lock:
                    yield self._source
        except oracledb.InterfaceError as error:
            raise translate(error) from error

    def member(self, member: str) -> str:
        """``ALIAS.MEMBER`` as the store's own (qualified) ``PACKAGE.MEMBER``."""
        alias, name = member.split(".")
        if alias not in PACKAGE_ALIASES:
            raise ValueError(f"unknown package alias {alias!r}")
        package = f"{self.facade}{PACKAGE_ALIASES[alias][len(DEFAULT_PREFIX):]}"
        return f"{self.qualified(package)}.{name}"

    def qualified(self, name: str) -> str:
        """``OWNER.NAME`` for another owner's store, else the name (resolved in the session's
        current schema)."""
        return name if self.schema_owner is None else f"{self.schema_owner}.{name}"

    def bound_to_end_user(self) -> bool:
        """Whether the calls made now act for an end user (``end_user_id`` or a security
        context): such calls never install nor upgrade."""
        return self.end_user_id is not None or current_end_user() is not None

    def _binding(self, cursor: Any) -> tuple[str, dict[str, Any]] | None:
        """The call that binds the end user of this call, and its binds: the end user of
        the current security context with its groups, else ``end_user_id``, else None (read
        now, so each thread and asyncio task binds its own). A context for another user
        than ``end_user_id`` is refused: it would widen a store bound to one user."""
        if not self.binds_end_users:
            return None
        session = self.member("SESSION.SET_END_USER").rsplit(".", 1)[0]
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
        """The anonymous block of one call and its binds. With an end user to bind
        (``_binding``) the same block binds it first and unbinds it afterwards, also when the
        call fails, so an operation stays one round trip and a pooled connection goes back
        unbound. A failed call is rolled back before the unbinding: nothing of it stays
        half-written, and the session package refuses to unbind a runtime user with a
        transaction open (ON COMMIT text sync reads under the binding of the moment)."""
        binding = self._binding(cursor)
        if binding is None:
            return f"BEGIN {call}; END;", binds
        bind_call, bind_values = binding
        session = self.member("SESSION.CLEAR_END_USER").rsplit(".", 1)[0]
        block = (f"BEGIN {bind_call}; {call}; "
                 f"{session}.{CLEAR_END_USER}; "
                 f"EXCEPTION WHEN OTHERS THEN ROLLBACK; BEGIN {session}.{CLEAR_END_USER}; "
                 "EXCEPTION WHEN OTHERS THEN NULL; END; RAISE; END;")
        return block, {**bind_values, **binds}

    def call_function(self, member: str, **binds: Any) -> Any:
        """Run one package function; JSON results come back as Python values."""
        import oracledb

        name = member.split(".")[1]
        arguments = ", ".join(f"{key} => :{key}" for key in binds)
        result_type = (oracledb.DB_TYPE_NUMBER if name in RETURNS_NUMBER
                       else oracledb.DB_TYPE_BOOLEAN if name in RETURNS_BOOLEAN
                       else oracledb.DB_TYPE_VARCHAR if name in RETURNS_TEXT
                       else oracledb.DB_TYPE_JSON)
        with self.connection() as conn, conn.cursor() as cursor:
            result = cursor.var(result_type)
            block, values = self._block(cursor,
                                        f":result := {self.member(member)}({arguments})",
                                        self._binds(cursor, binds))
            self.execute(cursor, block, {"result": result, **values})
            value = result.getvalue()
        if name in RETURNS_NUMBER:
            return int(value or 0)
        if name in RETURNS_BOOLEAN:
            return bool(value)
        if name in RETURNS_TEXT:
            return value
        return decoded(value)

    def call(self, member: str, **binds: Any) -> None:
        """Run one package procedure."""
        arguments = ", ".join(f"{key} => :{key}" for key in binds)
        with self.connection() as conn, conn.cursor() as cursor:
            block, values = self._block(cursor, f"{self.member(member)}({arguments})",
                                        self._binds(cursor, binds))
            self.execute(cursor, block, values)

    @staticmethod
    def _binds(cursor: Any, binds: dict[str, Any]) -> dict[str, Any]:
        import oracledb

        values: dict[str, Any] = {}
        for key, value in binds.items():
            if isinstance(value, (dict, list, tuple)):
                document = _plain(value)
                _check_json_size(key, document)
                variable = cursor.var(oracledb.DB_TYPE_JSON)
                variable.setvalue(0, document)
                values[key] = variable
            else:
                values[key] = value
        return values

    @staticmethod
    def execute(cursor: Any, statement: str, binds: dict[str, Any]) -> None:
        """Execute one statement; ORA errors become contract exceptions (``translate``)."""
        import oracledb

        try:
            cursor.execute(statement, binds)
        except oracledb.DatabaseError as error:
            raise translate(error) from error
