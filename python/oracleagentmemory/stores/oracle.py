"""OracleBackend: the store contract marshalled to the AGENT_MEMORY PL/SQL facade.

The logic lives in the database; this module only turns each contract call into one
PL/SQL call with named binds (``OracleCaller``: JSON documents bound as native ``JSON``, the
end user bound and unbound in the same block), one round trip per logical operation, and
the facade's ``RAISE_APPLICATION_ERROR`` codes mapped to the contract's Python exceptions.

End-user isolation: with ``end_user_id`` every operation binds that end user, inside an
``OracleMemoryEndUserSecurityContext`` the context's end user with its groups
(``oracle_calls.py``; docs/oracle.md, "End-user isolation").

Opening applies the schema policy through the store's administration
(``OracleBackend.administration``, an ``OracleStoreAdmin``: schema checks, install, upgrade,
uninstall), which lives apart from this data path; deep data security administration is
``OracleSecurityAdmin`` (``oracle_security.py``).

Another owner's store: with ``schema_owner`` every call names ``OWNER.<prefix>...`` (the
runtime user needs EXECUTE grants on the facade and session packages, no synonym and no
``CURRENT_SCHEMA``); such a store is never installed, upgraded or repaired from here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from oracleagentmemory.stores.embedding_models import LEGACY_EMBEDDING_MODEL
from oracleagentmemory.stores.errors import InvalidArgumentError, StoreError
from oracleagentmemory.stores.limits import MAX_ID_LENGTH
from oracleagentmemory.stores.oracle_admin import (
    SCHEMA_POLICIES,
    OracleStoreAdmin,
    StoreChoices,
)
from oracleagentmemory.stores.oracle_calls import (
    CLEAR_END_USER,
    END_USER_BIND,
    END_USER_GROUPS_BIND,
    PACKAGE_ALIASES,
    SET_END_USER,
    SET_END_USER_CONTEXT,
    OracleCaller,
)
from oracleagentmemory.stores.oracle_security import OracleSecurityAdmin, session_end_user
from oracleagentmemory.stores.oracle_sql.render import DEFAULT_PREFIX, validate_name
from oracleagentmemory.stores.protocol import (
    CascadeResult,
    LinkChanges,
    LinkIn,
    LinkOut,
    LinkQuery,
    LinkSelector,
    MessageBatch,
    MessageBatchResult,
    OwnerType,
    RecordChanges,
    RecordIn,
    RecordOut,
    RecordQuery,
    SearchHit,
    SearchRequest,
)

__all__ = ["CLEAR_END_USER", "END_USER_BIND", "END_USER_GROUPS_BIND", "PACKAGE_ALIASES",
           "SCHEMA_POLICIES", "SET_END_USER", "SET_END_USER_CONTEXT", "OracleBackend",
           "OracleSecurityAdmin", "session_end_user"]
"""The names callers of earlier releases imported from here keep working."""


class OracleBackend:
    """The Oracle backend. ``connection`` is an ``oracledb`` connection or pool.

    ``search_strategy``, ``sync_mode`` and ``vector_index`` left as None mean "the store's
    own" for an installed store and the defaults for a new one; given values that differ
    from an installed store's are refused by ``administration.upgrade``.
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
        self.end_user_id = end_user_id
        self.schema_owner = (None if schema_owner is None
                             else validate_name(schema_owner, "schema_owner"))
        self._caller = OracleCaller(connection, store_id=store_id,
                                    schema_owner=self.schema_owner, end_user_id=end_user_id)
        self.facade = self._caller.facade
        self.embedding_dimension = embedding_dimension
        self.search_strategy = search_strategy or "VECTOR"
        self.administration = OracleStoreAdmin(
            self._caller, StoreChoices(embedding_dimension, vector_index, search_strategy,
                                       sync_mode, embedding_model), progress)
        """Schema checks, install, upgrade and uninstall of this store (the owner's work)."""
        self.administration.open(schema_policy)

    # -- the contract --------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        return self._caller.call_function("API.DESCRIBE")

    def recorded_embedding_model(self) -> str | None:
        """The facade's ``recorded_embedding_model``; all-MiniLM-L6-v2 (the only default
        before models were recorded) when the store's packages predate it (a store opened
        without a schema check) or the call fails."""
        try:
            name = self._caller.call_function("API.RECORDED_EMBEDDING_MODEL")
        except StoreError:
            return LEGACY_EMBEDDING_MODEL
        return str(name) if name else None

    def record_embedding_model(self, name: str) -> None:
        """The facade's ``record_embedding_model`` (the first name stays). Best effort, as
        the embedded store's: a store that cannot record it (packages older than schema
        version 5) is left as it is."""
        try:
            self._caller.call("API.RECORD_EMBEDDING_MODEL", p_name=name, p_commit=True)
        except StoreError:
            return

    def write_records(self, records: Sequence[RecordIn], links: Sequence[LinkIn] = (),
                      replace: bool = False, thread_id: str | None = None) -> list[str]:
        return self._caller.call_function("API.WRITE_RECORDS", p_records=list(records),
                                   p_links=list(links), p_replace=bool(replace),
                                   p_thread_id=thread_id, p_commit=True)

    def append_messages(self, batch: MessageBatch) -> MessageBatchResult:
        return self._caller.call_function("API.APPEND_MESSAGES", p_batch=dict(batch),
                                          p_commit=True)

    def get_records(self, query: RecordQuery) -> list[RecordOut]:
        return self._caller.call_function("API.GET_RECORDS", p_query=dict(query))

    def list_messages(self, thread_id: str, start: int | None, end: int | None,
                      include_bytes: bool = False) -> list[RecordOut]:
        return self._caller.call_function("API.LIST_MESSAGES", p_thread_id=thread_id, p_start=start,
                                   p_end=end, p_include_bytes=bool(include_bytes))

    def update_record(self, record_id: str, record_types: Sequence[str],
                      changes: RecordChanges, thread_id: str | None = None
                      ) -> RecordOut | None:
        return self._caller.call_function("API.UPDATE_RECORD", p_record_id=record_id,
                                   p_record_types=list(record_types), p_changes=dict(changes),
                                   p_thread_id=thread_id, p_commit=True)

    def delete_records(self, record_ids: Sequence[str], record_types: Sequence[str],
                       thread_id: str | None = None) -> int:
        return self._caller.call_function("API.DELETE_RECORDS", p_record_ids=list(record_ids),
                                   p_record_types=list(record_types), p_thread_id=thread_id,
                                   p_commit=True)

    def delete_cascade(self, owner_type: OwnerType, owner_id: str) -> CascadeResult:
        return self._caller.call_function("API.DELETE_CASCADE", p_owner_type=owner_type,
                                   p_owner_id=owner_id, p_commit=True)

    def search(self, request: SearchRequest) -> list[SearchHit]:
        return self._caller.call_function("API.SEARCH", p_request=dict(request))

    def update_link(self, relation_id: str, thread_id: str | None,
                    changes: LinkChanges) -> int:
        return self._caller.call_function("API.UPDATE_LINK", p_relation_id=relation_id,
                                   p_thread_id=thread_id, p_changes=dict(changes),
                                   p_commit=True)

    def delete_links(self, selector: LinkSelector, thread_id: str | None) -> int:
        return self._caller.call_function("API.DELETE_LINKS", p_selector=dict(selector),
                                   p_thread_id=thread_id, p_commit=True)

    def list_links(self, query: LinkQuery) -> list[LinkOut]:
        return self._caller.call_function("API.LIST_LINKS", p_query=dict(query))

    def purge_expired(self) -> int:
        return self._caller.call_function("API.PURGE_EXPIRED", p_commit=True)

    def close(self) -> None:
        """Forget the connection (the caller owns and closes its connection or pool)."""
        self._caller.closed = True


