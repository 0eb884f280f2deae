"""Row rules for an end user, enforced around a backend that has none of its own.

The Oracle backend enforces end-user rules in the database (VPD policies). The embedded
backend has no such thing, so this layer of its chain (``stores.guarded``) sits in front of
it: inside an end-user security context every contract operation sees and changes only the
rows the policies granted to that end user allow, and an operation touching rows that has
no rule here is refused. Outside a context it passes everything through.

Rules (policy names as stored):

* ``user_own_rows``: rows whose ``user_id`` is the end user are visible and writable;
* ``global_memories``: memory-like rows without a user are visible, never writable;
* nothing granted: nothing visible, nothing writable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from oracleagentmemory._end_user import EndUser, current_end_user
from oracleagentmemory._vocabulary import (
    MEMORY_TYPES,
    PRINCIPAL_KINDS,
    SECURITY_POLICIES,
    SUMMARY_TYPE,
)
from oracleagentmemory.stores.errors import AccessDeniedError, LinkEndNotFoundError
from oracleagentmemory.stores.middleware import Layer
from oracleagentmemory.stores.operations import (
    AppendMessages,
    DeleteCascade,
    DeleteLinks,
    DeleteRecords,
    GetRecords,
    ListLinks,
    ListMessages,
    Operation,
    PurgeExpired,
    R,
    Runner,
    Search,
    UpdateLink,
    UpdateRecord,
    WriteRecords,
)
from oracleagentmemory.stores.protocol import (
    ENDPOINT_KEYS,
    CascadeResult,
    LinkedHit,
    LinkOut,
    LinkQuery,
    MessageBatchResult,
    RecordIn,
    RecordOut,
    RecordQuery,
    ScopeDimension,
    SearchHit,
    SearchRequest,
    scope_of,
    within_limit,
)

OWN_ROWS, GLOBAL_MEMORIES = SECURITY_POLICIES
LOCAL_USER, GROUP = PRINCIPAL_KINDS


@dataclass(frozen=True)
class SecuritySettings:
    """The policies registered on a store and what was granted to whom."""

    policies: frozenset[str] = frozenset()
    grants: frozenset[tuple[str, str, str]] = frozenset()
    """(principal kind, principal name, policy name)."""

    def granted(self, user: EndUser) -> frozenset[str]:
        """The registered policies granted to the user, directly or through a group."""
        mine = {(LOCAL_USER, user.username), *((GROUP, group) for group in user.groups)}
        return frozenset(policy for kind, name, policy in self.grants
                         if (kind, name) in mine and policy in self.policies)


@dataclass(frozen=True)
class Rules:
    """What one end user may do."""

    username: str
    own_rows: bool
    global_memories: bool

    def visible(self, record: Mapping[str, Any]) -> bool:
        user = record.get("user_id")
        if self.own_rows and user == self.username:
            return True
        return bool(self.global_memories and user is None
                    and record.get("record_type") in MEMORY_TYPES)

    def writable(self, record: Mapping[str, Any]) -> bool:
        return self.own_rows and record.get("user_id") == self.username


class EndUserGuard(Layer):
    """A middleware layer that applies the current end user's rules to the backend below."""

    def __init__(self, inner: Runner, settings: Callable[[], SecuritySettings]) -> None:
        super().__init__(inner)
        self._settings = settings

    def _rules(self) -> Rules | None:
        user = current_end_user()
        if user is None:
            return None
        granted = self._settings().granted(user)
        return Rules(user.username, OWN_ROWS in granted, GLOBAL_MEMORIES in granted)

    def _denied(self, rules: Rules, what: str) -> AccessDeniedError:
        return AccessDeniedError(f"end user {rules.username!r} may not {what}")

    def _visible_ids(self, rules: Rules, ids: Iterable[str], writable: bool,
                     record_types: Sequence[str], thread_id: str | None = None) -> set[str]:
        """The ids among ``ids`` that name at least one record of ``record_types`` (of
        ``thread_id`` when given) and only records the rules let the user see (or change).
        Ids are unique per id space only: a record of another type never vouches for an id,
        and an id naming both an allowed and a forbidden record is refused."""
        query: RecordQuery = {"ids": sorted(set(ids)), "record_types": list(record_types)}
        if thread_id is not None:
            query["thread_id"] = thread_id
        test = rules.writable if writable else rules.visible
        allowed: set[str] = set()
        refused: set[str] = set()
        for record in self.below.get_records(query):
            (allowed if test(record) else refused).add(record["id"])
        return allowed - refused

    def passed(self, operation: Operation[R]) -> R:
        """An operation without a rule here: refused inside a context when it touches rows
        (a new operation is closed to end users until it has its rule)."""
        rules = self._rules()
        if rules is not None and operation.touches_rows:
            raise self._denied(rules, f"call {operation.name}")
        return self.inner.run(operation)

    def on_purge_expired(self, op: PurgeExpired) -> int:
        rules = self._rules()
        if rules is not None:
            raise self._denied(rules, "purge the store")
        return self.inner.run(op)

    # -- writes -----------------------------------------------------------------------

    def _check_writes(self, rules: Rules, records: Sequence[RecordIn],
                      thread_id: str | None) -> None:
        """Records go into threads the end user may change (the thread's owner counts, not
        only the records' user_id), attach to messages it may change, and are its own. A
        summary's id is its thread's, so it names that thread too (and a thread record
        naming another thread than itself names that one); a user profile's id is its
        user, so it is the end user's."""
        named = [record.get("thread_id") for record in records
                 if record.get("record_type") != "thread"
                 or record.get("thread_id") != record.get("id")] + [thread_id] + [
                 record.get("id") for record in records
                 if record.get("record_type") == SUMMARY_TYPE]
        threads = sorted({name for name in named if isinstance(name, str)})
        if threads and any(not rules.writable(found) for found in self.below.get_records(
                {"ids": threads, "record_types": ["thread"]})):
            raise self._denied(rules, "write into a thread it does not own")
        messages = sorted({attached for record in records
                           if record.get("record_type") != "message"
                           and isinstance(attached := record.get("message_id"), str)})
        if messages and any(not rules.writable(found) for found in self.below.get_records(
                {"ids": messages, "record_types": ["message"]})):
            raise self._denied(rules, "attach records to a message it does not own")
        if not all(rules.writable(record) for record in records):
            raise self._denied(rules, "write records of another user or of no user")
        if any(record.get("record_type") == "user_profile"
               and record.get("id") != rules.username for record in records):
            raise self._denied(rules, "write the profile of another user")

    def on_append_messages(self, op: AppendMessages) -> MessageBatchResult:
        rules = self._rules()
        if rules is None or not isinstance(op.batch, Mapping):  # the backend names the error
            return self.inner.run(op)
        records = op.batch.get("records") or []
        self._check_writes(rules, records if isinstance(records, list) else [],
                           op.batch.get("thread_id"))
        result = self.inner.run(op)
        last = result["last_message"]
        summary = result["thread_summary"]
        if summary is not None and not self._visible_ids(
                rules, [op.batch["thread_id"]], False, [SUMMARY_TYPE]):
            summary = None  # a summary named like the thread that the user may not read
        return {**result, "messages": [m for m in result["messages"] if rules.visible(m)],
                "last_message": last if last is None or rules.visible(last) else None,
                "thread_summary": summary}

    def _scoped(self, rules: Rules, records: Sequence[RecordIn]) -> list[RecordIn]:
        """The records with the scope a ``scope_from`` gives them, from a memory the user
        may read (another is not there for it: LinkEndNotFoundError, as on Oracle)."""
        named = sorted({record["scope_from"] for record in records if "scope_from" in record})
        if not named:
            return list(records)
        sources = {found["id"]: found for found in self.below.get_records(
            {"ids": named, "record_types": list(MEMORY_TYPES)}) if rules.visible(found)}
        scoped: list[RecordIn] = []
        for record in records:
            if "scope_from" in record:
                source = sources.get(record["scope_from"])
                if source is None:
                    raise LinkEndNotFoundError(
                        f"scope_from {record['scope_from']!r} is not a stored memory")
                record = {**scope_of(source), **record}
            scoped.append(record)
        return scoped

    def on_write_records(self, op: WriteRecords) -> list[str]:
        rules = self._rules()
        if rules is not None:
            op = WriteRecords(self._scoped(rules, op.records), op.links, op.replace,
                              op.thread_id)
            self._check_writes(rules, op.records, op.thread_id)
            ends = {end for link in op.links for end in (link.get("source_id"),
                                                         link.get("target_id")) if end}
            new = {record.get("id") for record in op.records
                   if record.get("record_type") in MEMORY_TYPES}
            if ends - new - self._visible_ids(rules, ends - new, True, MEMORY_TYPES):
                raise self._denied(rules, "link records it does not own")
        return self.inner.run(op)

    def on_update_record(self, op: UpdateRecord) -> RecordOut | None:
        rules = self._rules()
        if rules is not None and not self._visible_ids(rules, [op.record_id], True,
                                                       op.record_types, op.thread_id):
            return None
        return self.inner.run(op)

    def on_delete_records(self, op: DeleteRecords) -> int:
        rules = self._rules()
        if rules is not None:
            allowed = sorted(self._visible_ids(rules, op.record_ids, True, op.record_types,
                                               op.thread_id))
            if not allowed:
                return 0
            op = DeleteRecords(allowed, op.record_types, op.thread_id)
        return self.inner.run(op)

    def on_delete_cascade(self, op: DeleteCascade) -> CascadeResult:
        rules = self._rules()
        if rules is not None:
            allowed = (op.owner_type == "user" and op.owner_id == rules.username
                       and rules.own_rows
                       or op.owner_type == "thread"
                       and self._visible_ids(rules, [op.owner_id], True, ["thread"]))
            if not allowed:
                raise self._denied(rules, f"delete {op.owner_type} {op.owner_id!r}")
        return self.inner.run(op)

    # -- reads ------------------------------------------------------------------------

    def on_get_records(self, op: GetRecords) -> list[RecordOut]:
        rules = self._rules()
        if rules is None:
            return self.inner.run(op)
        found = [record for record in self.below.get_records({**op.query, "limit": None})
                 if rules.visible(record)]
        return within_limit(found, op.query)

    def on_list_messages(self, op: ListMessages) -> list[RecordOut]:
        rules = self._rules()
        if rules is not None and not self._visible_ids(rules, [op.thread_id], False,
                                                       ["thread"]):
            return []
        messages = self.inner.run(op)
        return messages if rules is None else [m for m in messages if rules.visible(m)]

    def on_search(self, op: Search) -> list[SearchHit]:
        rules = self._rules()
        request = op.request
        if rules is None:
            return self.inner.run(op)
        hits: list[SearchHit] = []
        if rules.own_rows:
            hits += self._search_as(request, rules.username, request.get("record_types"))
        if rules.global_memories:
            wanted = request.get("record_types") or list(MEMORY_TYPES)
            memory_types = [t for t in wanted if t in MEMORY_TYPES]
            if memory_types:
                hits += self._search_as(request, None, memory_types)
        hits.sort(key=lambda hit: hit["distance"])
        return [{**hit, "linked": _readable_linked(rules, hit)}
                for hit in hits[:request.get("max_results", 10)]]

    def _search_as(self, request: SearchRequest, user_id: str | None,
                   record_types: list[str] | None) -> list[SearchHit]:
        """The search with its user dimension pinned to ``user_id`` (an exact user asked
        for by the caller that differs finds nothing)."""
        asked = (request.get("scope") or {}).get("user_id")
        if asked is not None and asked["exact"] and asked["value"] != user_id:
            return []
        scope: dict[str, ScopeDimension] = {**(request.get("scope") or {}),
                                            "user_id": {"value": user_id, "exact": True}}
        return self.below.search({**request, "scope": scope,
                                  "record_types": record_types or []})

    # -- links ------------------------------------------------------------------------

    def _allowed_links(self, rules: Rules, links: list[LinkOut],
                       writable: bool) -> list[LinkOut]:
        """The links both of whose ends the rules let the user see (or change), the ends of
        all of them looked up in one read."""
        if not links:
            return links
        ends = {end for link in links for end in (link["source_id"], link["target_id"])}
        allowed = self._visible_ids(rules, ends, writable, MEMORY_TYPES)
        return [link for link in links
                if link["source_id"] in allowed and link["target_id"] in allowed]

    def _changeable_link(self, rules: Rules, query: LinkQuery) -> bool:
        """Is there a link matching ``query`` (an id or the endpoint tuple: at most one)
        that the user may change?"""
        found = self.below.list_links(query)
        return bool(self._allowed_links(rules, found[:1], writable=True))

    def on_list_links(self, op: ListLinks) -> list[LinkOut]:
        rules = self._rules()
        links = self.inner.run(op)
        if rules is None:
            return links
        return self._allowed_links(rules, links, writable=False)

    def on_update_link(self, op: UpdateLink) -> int:
        rules = self._rules()
        if rules is not None and not self._changeable_link(rules, {"ids": [op.relation_id]}):
            return 0
        return self.inner.run(op)

    def on_delete_links(self, op: DeleteLinks) -> int:
        rules = self._rules()
        if rules is not None:
            query: LinkQuery = {}
            if "id" in op.selector:
                query["ids"] = [op.selector["id"]]
            else:
                for key in ENDPOINT_KEYS:
                    if key in op.selector:
                        query[key] = op.selector[key]
            if not self._changeable_link(rules, query):
                return 0
        return self.inner.run(op)


def _readable_linked(rules: Rules, hit: SearchHit) -> list[LinkedHit]:
    """The linked records of a hit that the user may read and that were reached only
    through records it may read: the inner backend walks through every record, so a record
    behind another user's would otherwise come back with that record's id (as
    ``via_record_id`` and in ``relation``), a link the user may not read. The walk is breadth
    first, so a record's ``via_record_id`` is the hit or a record listed before it."""
    reached = {hit["record"]["id"]}
    readable: list[LinkedHit] = []
    for item in hit["linked"]:
        if item["via_record_id"] in reached and rules.visible(item["record"]):
            reached.add(item["record"]["id"])
            readable.append(item)
    return readable
