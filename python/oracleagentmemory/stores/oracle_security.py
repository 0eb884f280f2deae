"""Deep data security administration of one Oracle store, apart from its data path: the
policies registered on it and what is granted to whom, through the owner-only package
``<owner>.<prefix>_SECURITY`` (docs/oracle.md, "Deep data security"), and the end user a
session has bound.

Where the database has Deep Data Security (26ai), the package keeps the grants as the
database's own data roles and data grants; elsewhere in the store's tables, enforced by
VPD. The calls are the same either way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from oracleagentmemory.stores.errors import AccessDeniedError, SchemaError
from oracleagentmemory.stores.oracle_admin import SCHEMA_QUERY
from oracleagentmemory.stores.oracle_calls import MissingSchema, OracleCaller
from oracleagentmemory.stores.oracle_sql.render import validate_name


class OracleSecurityAdmin:
    """Deep data security administration of the store ``store_id`` of ``owner_schema``.

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
        self._caller = OracleCaller(connection, store_id=prefix, schema_owner=owner,
                                    binds_end_users=False)
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
        except MissingSchema as problem:
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
        with self._caller.connection() as conn, conn.cursor() as cursor:
            self._caller.execute(cursor, SCHEMA_QUERY, {})
            row = cursor.fetchone()
        return None if row is None else row[1]

    def add_policies(self, names: Sequence[str]) -> None:
        """Register policies (registering one twice changes nothing)."""
        with self._explained():
            self._caller.call("SECURITY.ADD_POLICIES", p_policies=_stored_names(names),
                              p_commit=True)

    def remove_policies(self, names: Sequence[str]) -> None:
        """Unregister policies; their grants go with them."""
        with self._explained():
            self._caller.call("SECURITY.REMOVE_POLICIES", p_policies=_stored_names(names),
                              p_commit=True)

    def list_policies(self) -> list[str]:
        """The registered policies' names, sorted."""
        with self._explained():
            names = self._caller.call_function("SECURITY.LIST_POLICIES")
        return sorted(name.lower() for name in names)

    def grant(self, principals: Sequence[tuple[str, str]], names: Sequence[str]) -> None:
        """Grant registered policies to (kind, name) principals (InvalidArgumentError for a
        policy that is not registered)."""
        with self._explained():
            self._caller.call("SECURITY.GRANT_POLICIES",
                              p_principals=_stored_principals(principals),
                              p_policies=_stored_names(names), p_commit=True)

    def revoke(self, principals: Sequence[tuple[str, str]], names: Sequence[str]) -> None:
        """Withdraw grants (one that does not exist changes nothing)."""
        with self._explained():
            self._caller.call("SECURITY.REVOKE_POLICIES",
                              p_principals=_stored_principals(principals),
                              p_policies=_stored_names(names), p_commit=True)

    def deep_data_security(self) -> str:
        """'NATIVE' where the store also keeps its policies and grants as the database's own
        Deep Data Security objects (26ai), else 'VPD' (docs/oracle.md, "Deep data
        security")."""
        with self._explained():
            mode: str = self._caller.call_function("SECURITY.DEEP_DATA_SECURITY")
        return mode

    def list_grants(self) -> list[tuple[str, str, list[str]]]:
        """(principal kind, principal name, sorted policy names) of every principal with a
        grant, sorted by kind and name (code point order, whatever the session's NLS_SORT)."""
        with self._explained():
            grants = self._caller.call_function("SECURITY.LIST_GRANTS")
        return sorted((entry["kind"].lower(), entry["name"],
                       sorted(name.lower() for name in entry["policies"]))
                      for entry in grants)


def session_end_user(connection: Any) -> str | None:
    """The end user bound in the session of ``connection`` (a pool: of the connection it
    hands out) for the default store in the session's current schema, or None. The library
    itself unbinds after every operation, so this reports a binding the application made
    with ``AGENT_MEMORY_SESSION.set_end_user`` / ``set_end_user_context`` on that session."""
    caller = OracleCaller(connection, binds_end_users=False)
    value: str | None = caller.call_function("SESSION.END_USER_ID")
    return value


def _stored_names(names: Sequence[str]) -> list[str]:
    """Policy names as the store keeps them (upper-case)."""
    return [name.upper() for name in names]


def _stored_principals(principals: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """(kind, name) principals as the security package reads them."""
    return [{"kind": kind.upper(), "name": name} for kind, name in principals]
