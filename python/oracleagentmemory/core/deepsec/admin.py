"""Administering deep data security: policies on a store, and who is granted them.

``connection`` names the store's database: an embedded location (a file path), an open
embedded backend, or an ``oracledb`` connection or pool. ``owner_schema`` and
``memory_store_id`` say which store of that database: on Oracle the owner's schema and the
store's prefix (checked like ``schema_owner`` and the prefix: upper-case SQL names of at
most 30 characters), whose ``<prefix>_SECURITY`` package keeps policies and grants in the
store's tables and which only the owner may call (``PermissionError`` otherwise); on the
embedded backend a file holds one store and they are checked only for being names.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from oracleagentmemory._end_user import current_end_user
from oracleagentmemory.core.deepsec.policies import POLICIES, DeepDataSecurityPolicy
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError
from oracleagentmemory.stores.backend_for_connection import is_oracle_connection
from oracleagentmemory.stores.end_user_guard import GROUP, LOCAL_USER, SecuritySettings

__all__ = [
    "LocalEndUserPrincipal",
    "OciGroupPrincipal",
    "Principal",
    "add_deep_data_security_policies",
    "get_end_user_username",
    "grant_agent_memory_policies",
    "list_agent_memory_granted_policies",
    "list_deep_data_security_policies",
    "remove_deep_data_security_policies",
    "revoke_agent_memory_policies",
]


class Principal:
    """Whom policies are granted to: a ``LocalEndUserPrincipal`` or an
    ``OciGroupPrincipal`` (the base itself is not granted). Two principals are equal when
    they are of the same kind and name."""

    kind = ""
    name = ""

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.name == self.name

    def __hash__(self) -> int:
        return hash((self.kind, self.name))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class LocalEndUserPrincipal(Principal):
    """One end user, by the user name the security context names.

    Args:
        username: The end user's name, as given to ``OracleMemoryEndUserSecurityContext``.

    Raises:
        ArgumentTypeError: ``username`` is not a str (a ``TypeError``).
        InvalidArgumentError: ``username`` is empty or blank (a ``ValueError``).
    """

    kind = LOCAL_USER

    def __init__(self, username: str) -> None:
        self.username = _name(username, "username")
        self.name = self.username


class OciGroupPrincipal(Principal):
    """Every end user in a group (an identity-provider group the context lists).

    Args:
        group_name: The group's name, as listed in the security context's ``groups``.

    Raises:
        ArgumentTypeError: ``group_name`` is not a str (a ``TypeError``).
        InvalidArgumentError: ``group_name`` is empty or blank (a ``ValueError``).
    """

    kind = GROUP

    def __init__(self, group_name: str) -> None:
        self.group_name = _name(group_name, "group_name")
        self.name = self.group_name


_PRINCIPALS: dict[str, Callable[[str], Principal]] = {
    LOCAL_USER: LocalEndUserPrincipal, GROUP: OciGroupPrincipal}


def _name(value: Any, argument: str) -> str:
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{argument} must be a str, got {type(value).__name__}")
    if not value.strip():
        raise InvalidArgumentError(f"{argument} must not be empty")
    return value


def _policies(policies: Any) -> list[DeepDataSecurityPolicy]:
    if not isinstance(policies, (list, tuple)) or not all(
            isinstance(policy, DeepDataSecurityPolicy) and policy.name in POLICIES
            for policy in policies):
        raise ArgumentTypeError(
            "policies must be a list of UserOwnRowsDeepDataSecurityPolicy / "
            "GlobalMemoriesDeepDataSecurityPolicy")
    return list(policies)


def _principals(principals: Any) -> list[Principal]:
    if not isinstance(principals, (list, tuple)) or not all(
            isinstance(p, (LocalEndUserPrincipal, OciGroupPrincipal)) for p in principals):
        raise ArgumentTypeError(
            "principals must be a list of LocalEndUserPrincipal / OciGroupPrincipal")
    return list(principals)


def _oracle(connection: Any, owner_schema: Any, memory_store_id: Any) -> Any:
    """The Oracle store's security administration, or None when ``connection`` is not an
    ``oracledb`` connection or pool."""
    if not is_oracle_connection(connection):
        return None
    _name(owner_schema, "owner_schema")
    _name(memory_store_id, "memory_store_id")
    from oracleagentmemory.stores.oracle_security import OracleSecurityAdmin

    return OracleSecurityAdmin(connection, owner_schema, memory_store_id)


@contextmanager
def _embedded(connection: Any, owner_schema: Any, memory_store_id: Any) -> Iterator[Any]:
    """The embedded backend a connection argument names (opened and closed here when given
    as a path)."""
    _name(owner_schema, "owner_schema")
    _name(memory_store_id, "memory_store_id")
    if hasattr(connection, "security_settings"):
        yield connection
        return
    if not isinstance(connection, (str, os.PathLike)):
        raise ArgumentTypeError("connection must be an embedded store location or backend, "
                                f"got {type(connection).__name__}")
    from oracleagentmemory.stores.embedded import EmbeddedBackend

    backend = EmbeddedBackend(connection, schema_policy="REQUIRE_EXISTING")
    try:
        yield backend
    finally:
        backend.close()


def _change(connection: Any, owner_schema: Any, memory_store_id: Any,
            change: Callable[[SecuritySettings], SecuritySettings]) -> None:
    with _embedded(connection, owner_schema, memory_store_id) as backend:
        backend.save_security_settings(change(backend.security_settings()))


def add_deep_data_security_policies(connection: Any, owner_schema: str, memory_store_id: str,
                                    policies: list[DeepDataSecurityPolicy]) -> None:
    """Register policies on a store (adding one twice changes nothing).

    Args:
        connection: The store's database: an embedded store's path, an open embedded
            backend, or an ``oracledb`` connection or pool (of the store's owner).
        owner_schema: The Oracle schema owning the store (checked as a name on the
            embedded backend).
        memory_store_id: The store's prefix on Oracle (checked as a name on the embedded
            backend).
        policies: The policies, as a list of ``UserOwnRowsDeepDataSecurityPolicy`` /
            ``GlobalMemoriesDeepDataSecurityPolicy`` instances.

    Raises:
        ArgumentTypeError: ``policies`` is not a list of the classes above, a name is
            not a str, or ``connection`` is not a store location, backend or connection.
        InvalidArgumentError: ``owner_schema`` or ``memory_store_id`` is empty (on Oracle:
            not an upper-case SQL name of at most 30 characters).
        AccessDeniedError: On Oracle, the session is not the store's owner (a
            ``PermissionError``).
        SchemaError: The store does not exist, or is older than schema version 3.
        StorageError: The embedded store's file cannot be opened or written.
    """
    names = {policy.name for policy in _policies(policies)}
    oracle = _oracle(connection, owner_schema, memory_store_id)
    if oracle is not None:
        oracle.add_policies(sorted(names))
        return
    _change(connection, owner_schema, memory_store_id,
            lambda s: SecuritySettings(s.policies | names, s.grants))


def remove_deep_data_security_policies(connection: Any, owner_schema: str,
                                       memory_store_id: str,
                                       policies: list[DeepDataSecurityPolicy]) -> None:
    """Unregister policies; their grants go with them.

    Args:
        connection: The store's database: an embedded store's path, an open embedded
            backend, or an ``oracledb`` connection or pool (of the store's owner).
        owner_schema: The Oracle schema owning the store (checked as a name on the
            embedded backend).
        memory_store_id: The store's prefix on Oracle (checked as a name on the embedded
            backend).
        policies: The policies, as a list of ``UserOwnRowsDeepDataSecurityPolicy`` /
            ``GlobalMemoriesDeepDataSecurityPolicy`` instances.

    Raises:
        ArgumentTypeError: ``policies`` is not a list of the classes above, a name is
            not a str, or ``connection`` is not a store location, backend or connection.
        InvalidArgumentError: ``owner_schema`` or ``memory_store_id`` is empty (on Oracle:
            not an upper-case SQL name of at most 30 characters).
        AccessDeniedError: On Oracle, the session is not the store's owner (a
            ``PermissionError``).
        SchemaError: The store does not exist, or is older than schema version 3.
        StorageError: The embedded store's file cannot be opened or written.
    """
    names = {policy.name for policy in _policies(policies)}
    oracle = _oracle(connection, owner_schema, memory_store_id)
    if oracle is not None:
        oracle.remove_policies(sorted(names))
        return
    _change(connection, owner_schema, memory_store_id,
            lambda s: SecuritySettings(s.policies - names,
                                       frozenset(g for g in s.grants if g[2] not in names)))


def list_deep_data_security_policies(connection: Any, owner_schema: str,
                                     memory_store_id: str) -> list[DeepDataSecurityPolicy]:
    """The policies registered on a store.

    Args:
        connection: The store's database: an embedded store's path, an open embedded
            backend, or an ``oracledb`` connection or pool (of the store's owner).
        owner_schema: The Oracle schema owning the store (checked as a name on the
            embedded backend).
        memory_store_id: The store's prefix on Oracle (checked as a name on the embedded
            backend).

    Returns:
        The registered policies, one instance each.

    Raises:
        ArgumentTypeError: A name is not a str, or ``connection`` is not a store location,
            backend or connection.
        InvalidArgumentError: ``owner_schema`` or ``memory_store_id`` is empty (on Oracle:
            not an upper-case SQL name of at most 30 characters).
        AccessDeniedError: On Oracle, the session is not the store's owner (a
            ``PermissionError``).
        SchemaError: The store does not exist, or is older than schema version 3.
        StorageError: The embedded store's file cannot be opened or written.
    """
    oracle = _oracle(connection, owner_schema, memory_store_id)
    if oracle is not None:
        return [POLICIES[name]() for name in oracle.list_policies()]
    with _embedded(connection, owner_schema, memory_store_id) as backend:
        return [POLICIES[name]() for name in sorted(backend.security_settings().policies)]


def grant_agent_memory_policies(connection: Any, memory_store_id: str, owner_schema: str,
                                principals: list[Principal],
                                policies: list[DeepDataSecurityPolicy]) -> None:
    """Grant registered policies to principals; granting one twice changes nothing.

    Args:
        connection: The store's database: an embedded store's path, an open embedded
            backend, or an ``oracledb`` connection or pool (of the store's owner).
        memory_store_id: The store's prefix on Oracle (checked as a name on the embedded
            backend).
        owner_schema: The Oracle schema owning the store (checked as a name on the
            embedded backend).
        principals: Whom to grant to, as a list of ``LocalEndUserPrincipal`` /
            ``OciGroupPrincipal`` instances.
        policies: The policies, as a list of ``UserOwnRowsDeepDataSecurityPolicy`` /
            ``GlobalMemoriesDeepDataSecurityPolicy`` instances.

    Raises:
        ArgumentTypeError: ``policies`` or ``principals`` is not a list of the classes
            above, a name is not a str, or ``connection`` is not a store location, backend
            or connection.
        InvalidArgumentError: ``owner_schema`` or ``memory_store_id`` is empty (on Oracle:
            not an upper-case SQL name of at most 30 characters); a policy is not
            registered on the store (a ``ValueError``).
        AccessDeniedError: On Oracle, the session is not the store's owner (a
            ``PermissionError``).
        SchemaError: The store does not exist, or is older than schema version 3.
        StorageError: The embedded store's file cannot be opened or written.
    """
    chosen, names = _principals(principals), {p.name for p in _policies(policies)}
    oracle = _oracle(connection, owner_schema, memory_store_id)
    if oracle is not None:
        oracle.grant([(p.kind, p.name) for p in chosen], sorted(names))
        return

    def grant(settings: SecuritySettings) -> SecuritySettings:
        missing = sorted(names - settings.policies)
        if missing:
            raise InvalidArgumentError(f"policies not registered on the store: {missing}; "
                                       "add them with add_deep_data_security_policies first")
        return SecuritySettings(settings.policies, settings.grants | {
            (p.kind, p.name, name) for p in chosen for name in names})

    _change(connection, owner_schema, memory_store_id, grant)


def revoke_agent_memory_policies(connection: Any, memory_store_id: str, owner_schema: str,
                                 principals: list[Principal],
                                 policies: list[DeepDataSecurityPolicy]) -> None:
    """Withdraw grants (a grant that does not exist changes nothing).

    Args:
        connection: The store's database: an embedded store's path, an open embedded
            backend, or an ``oracledb`` connection or pool (of the store's owner).
        memory_store_id: The store's prefix on Oracle (checked as a name on the embedded
            backend).
        owner_schema: The Oracle schema owning the store (checked as a name on the
            embedded backend).
        principals: Whom to grant to, as a list of ``LocalEndUserPrincipal`` /
            ``OciGroupPrincipal`` instances.
        policies: The policies, as a list of ``UserOwnRowsDeepDataSecurityPolicy`` /
            ``GlobalMemoriesDeepDataSecurityPolicy`` instances.

    Raises:
        ArgumentTypeError: ``policies`` or ``principals`` is not a list of the classes
            above, a name is not a str, or ``connection`` is not a store location, backend
            or connection.
        InvalidArgumentError: ``owner_schema`` or ``memory_store_id`` is empty (on Oracle:
            not an upper-case SQL name of at most 30 characters).
        AccessDeniedError: On Oracle, the session is not the store's owner (a
            ``PermissionError``).
        SchemaError: The store does not exist, or is older than schema version 3.
        StorageError: The embedded store's file cannot be opened or written.
    """
    chosen, names = _principals(principals), {p.name for p in _policies(policies)}
    oracle = _oracle(connection, owner_schema, memory_store_id)
    if oracle is not None:
        oracle.revoke([(p.kind, p.name) for p in chosen], sorted(names))
        return
    revoked = {(p.kind, p.name, name) for p in chosen for name in names}
    _change(connection, owner_schema, memory_store_id,
            lambda s: SecuritySettings(s.policies, s.grants - revoked))


def list_agent_memory_granted_policies(connection: Any, memory_store_id: str,
                                       owner_schema: str
                                       ) -> list[tuple[Principal, list[DeepDataSecurityPolicy]]]:
    """Each principal with the policies granted to it.

    Args:
        connection: The store's database: an embedded store's path, an open embedded
            backend, or an ``oracledb`` connection or pool (of the store's owner).
        memory_store_id: The store's prefix on Oracle (checked as a name on the embedded
            backend).
        owner_schema: The Oracle schema owning the store (checked as a name on the
            embedded backend).

    Returns:
        ``(principal, policies)`` pairs, principals in kind and name order.

    Raises:
        ArgumentTypeError: A name is not a str, or ``connection`` is not a store location,
            backend or connection.
        InvalidArgumentError: ``owner_schema`` or ``memory_store_id`` is empty (on Oracle:
            not an upper-case SQL name of at most 30 characters).
        AccessDeniedError: On Oracle, the session is not the store's owner (a
            ``PermissionError``).
        SchemaError: The store does not exist, or is older than schema version 3.
        StorageError: The embedded store's file cannot be opened or written.
    """
    oracle = _oracle(connection, owner_schema, memory_store_id)
    if oracle is not None:
        grants = {(kind, name, policy) for kind, name, policies in oracle.list_grants()
                  for policy in policies}
    else:
        with _embedded(connection, owner_schema, memory_store_id) as backend:
            grants = set(backend.security_settings().grants)
    by_principal: dict[tuple[str, str], list[str]] = {}
    for kind, name, policy in sorted(grants):
        by_principal.setdefault((kind, name), []).append(policy)
    return [(_PRINCIPALS[kind](name), [POLICIES[p]() for p in policies])
            for (kind, name), policies in by_principal.items()]


def get_end_user_username(connection: Any) -> str | None:
    """The end user the caller acts for: the user of the current security context, which
    every memory operation of this thread or task binds (on Oracle in the database session,
    for the length of each operation). Outside a context: on the Oracle backend the end user
    bound in the connection's own session (one the application bound itself with
    ``AGENT_MEMORY_SESSION``; the library leaves none bound), else None.

    Args:
        connection: The store's database; only an ``oracledb`` connection or pool is read
            (outside a security context), anything else is not looked at.

    Returns:
        The end user's name, or None when the caller acts for no end user.

    Raises:
        oracledb.DatabaseError: Reading the Oracle session's end user failed.
    """
    user = current_end_user()
    if user is not None:
        return user.username
    if is_oracle_connection(connection):
        from oracleagentmemory.stores.oracle_security import session_end_user

        return session_end_user(connection)
    return None


