"""The store contract over any implementation of the public store interface.

A caller may give the client a store of their own (``IMemoryStore``). The client's code
speaks the contract, so this one adapter translates every contract operation into calls of
that interface, and keeps the contract's rules that the interface has no field for itself:
event times in UTC, a search request's checks, a link's thread (its ends' shared thread),
the labels of a walked link, an image's message (the message whose parts name it), and a
write of several calls taken back when one of them fails. What it cannot give, and what it
does instead, is listed in docs/custom-store.md ("What the adapter gives").

Thread records: a store with the thread-record methods of ``OracleMemoryStore`` keeps them
itself (settings as ``runtime_config``, extraction state as ``runtime_state``); any other
store keeps them as records whose content is ``{"settings": ..., "state": ...}``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any, Protocol, TypeAlias, TypedDict, cast

from oracleagentmemory._ids import new_id
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory._vocabulary import ALL_TYPES, MEMORY_TYPES
from oracleagentmemory.apis.memorystore import (
    IMemoryStore,
    PerRecordEmbeddingsInput,
    PerRecordIndexTextInput,
    RecordContentInput,
)
from oracleagentmemory.apis.message import ImageContent, MetadataValue
from oracleagentmemory.apis.records import Record, RecordStatus, ThreadRecord
from oracleagentmemory.apis.relations import RecordRelation
from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.stores import metadata_filter as mf
from oracleagentmemory.stores.errors import (
    AttachedImageError,
    InvalidArgumentError,
    InvalidLinkError,
    LinkEndNotFoundError,
    RecordNotFoundError,
)
from oracleagentmemory.stores.extraction_schedule import (
    Due,
    batch_thread,
    check_batch_records,
    check_schedule,
    count_batch,
    counted,
    not_written,
    stored_counters,
)
from oracleagentmemory.stores.interface_records import (
    image_part_ids,
    link_in,
    link_out,
    message_content,
    public_type,
    record_batch,
    record_in,
    record_out,
    thread_content,
    whole_days,
)
from oracleagentmemory.stores.protocol import (
    ENDPOINT_KEYS,
    SCOPE_KEYS,
    CascadeResult,
    LinkChanges,
    LinkedHit,
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
    RecordScope,
    SearchHit,
    SearchRequest,
    Vector,
    scope_of,
    within_limit,
)
from oracleagentmemory.stores.record_changes import (
    check_change_values,
    check_context,
    keep_bookkeeping,
    layered_settings,
)
from oracleagentmemory.stores.relations import BUILTIN_OPPOSITES
from oracleagentmemory.stores.search_request import check_search_request
from oracleagentmemory.stores.timestamps import normalize

logger = logging.getLogger(__name__)

_OWNER_TYPES = {"user": "user_profile", "agent": "agent_profile"}
_THREAD_METHODS = ("_create_thread_record", "_get_thread_record", "_update_thread_record")

Steps: TypeAlias = list[Callable[[], object]]
"""What takes back each interface call a write made so far, in the order they were made."""
Known: TypeAlias = dict[tuple[str, str], RecordOut | None]
"""Records read during one operation, by type and id (a link's ends are read once)."""


class _ThreadRecords(Protocol):
    """The thread-record methods of ``OracleMemoryStore`` (the Oracle-style interface)."""

    def _create_thread_record(self, thread_id: str, user_id: str | None,
                              agent_id: str | None, metadata: dict[str, Any] | None,
                              runtime_config: dict[str, Any] | None) -> str: ...

    def _get_thread_record(self, thread_id: str) -> ThreadRecord | None: ...

    def _update_thread_record(self, thread_id: str, *, metadata: Any, runtime_config: Any,
                              runtime_state: Any) -> int: ...


class _UpdateArguments(TypedDict, total=False):
    """The keyword arguments of ``IMemoryStore.update`` a contract change sets."""

    content: RecordContentInput
    index_text: PerRecordIndexTextInput | None
    embedding: PerRecordEmbeddingsInput | None
    metadata: MetadataValue
    timestamp: str | None
    status: RecordStatus
    ttl_days: int | None
    ttl_anchor: TimeToLiveAnchor


@contextmanager
def _taken_back_on_failure() -> Iterator[Steps]:
    """The undo log of a write that takes several interface calls. A store of yours has no
    transaction to hold them: when one call fails, what the calls before it did is taken
    back, last first, and the error is raised. Best effort: a step that cannot be taken
    back is logged, and the write's own error is still the one raised."""
    steps: Steps = []
    try:
        yield steps
    except BaseException:
        for step in reversed(steps):
            try:
                step()
            except Exception:
                logger.warning("a failed write to a caller's store could not be taken back "
                               "completely", exc_info=True)
        raise


def _prepared(record: RecordIn) -> RecordIn:
    """A record as the adapter hands it on: its event time checked and in UTC."""
    if record.get("timestamp") is None:
        return record
    return {**record, "timestamp": normalize(record["timestamp"])}


def _vector(vector: Vector) -> list[float]:
    return [float(x) for x in vector]


class InterfaceBackend:
    """A contract backend that forwards to a caller's ``IMemoryStore``."""

    backend = "interface"

    def __init__(self, store: IMemoryStore) -> None:
        self.store = store
        keeps = all(callable(getattr(store, name, None)) for name in _THREAD_METHODS)
        self._threads = cast(_ThreadRecords, store) if keeps else None

    def describe(self) -> dict[str, Any]:
        return {"backend": self.backend, "store_class": type(self.store).__name__,
                "schema_version": None, "embedding_dimension": None}

    # -- writes -----------------------------------------------------------------------

    def write_records(self, records: Sequence[RecordIn], links: Sequence[LinkIn] = (),
                      replace: bool = False, thread_id: str | None = None) -> list[str]:
        # A store of your own has no transaction to check the thread in: checked before.
        if thread_id is not None and self._get("thread", thread_id) is None:
            raise RecordNotFoundError(f"thread {thread_id!r} does not exist")
        prepared = [_prepared(self._scoped(record)) for record in records]
        with _taken_back_on_failure() as steps:
            if replace:
                for record_type, record_id in self._replaced(prepared):
                    self._remove(record_type, record_id, steps)
            ids = self._add(prepared, steps)
            if links:
                # typed once the batch is stored: an untyped end may be one of its records
                self._add_links([self._typed(link) for link in links], steps)
        return ids

    def _scoped(self, record: RecordIn) -> RecordIn:
        """The record with the scope keys it leaves out taken from its ``scope_from``."""
        if "scope_from" not in record:
            return record
        source = self._find(record["scope_from"], MEMORY_TYPES, None)
        if source is None:
            raise LinkEndNotFoundError(f"scope_from {record['scope_from']!r} is not a stored "
                                       "memory")
        return {**scope_of(source), **record}

    def _typed(self, link: LinkIn) -> LinkIn:
        """The link with an end given without a type typed as stored."""
        typed: LinkIn = {**link}
        if "source_type" not in link:
            typed["source_type"] = self._stored_type(link.get("source_id"), "source")
        if "target_type" not in link:
            typed["target_type"] = self._stored_type(link.get("target_id"), "target")
        return typed

    def _stored_type(self, record_id: str | None, side: str) -> str:
        found = self._find(record_id, MEMORY_TYPES, None) if record_id else None
        if found is None:
            raise LinkEndNotFoundError(f"{side} record {record_id!r} does not exist")
        return found["record_type"]

    def append_messages(self, batch: MessageBatch) -> MessageBatchResult:
        # The contract's steps one after the other: a store of your own has no transaction
        # to hold them in, so the counters are read, then written back.
        thread_id, required = batch_thread(batch)
        records = check_batch_records(batch, thread_id)
        schedule = check_schedule(batch.get("schedule"))
        thread = self._get("thread", thread_id)
        if thread is None and required:
            raise RecordNotFoundError(f"thread {thread_id!r} does not exist")
        if "after_message_id" in batch:
            last = self.list_messages(thread_id, -1, None)
            if (last[0]["id"] if last else None) != batch["after_message_id"]:
                return not_written(last[0] if last else None)
        config = thread.get("config") if thread is not None else None
        added = sum(record["record_type"] == "message" for record in records)
        due = Due(0, 0, stored_counters(config))
        with _taken_back_on_failure() as steps:
            ids = self._add([_prepared(record) for record in records], steps)
            if schedule is not None:
                due = count_batch(due.counters, added, schedule)
                if thread is not None:
                    self._set_thread_state(thread, counted(config, due)["state"])
        window = max(due.extraction_window, due.summary_window)
        summary = self._get("summary", thread_id) if window else None
        return {"ids": ids, "written": True, "last_message": None,
                "extraction_window": due.extraction_window,
                "summary_window": due.summary_window,
                "messages": self.list_messages(thread_id, -window, None) if window else [],
                "thread_summary": summary["content"] if summary is not None else None}

    def update_record(self, record_id: str, record_types: Sequence[str],
                      changes: RecordChanges, thread_id: str | None = None) -> RecordOut | None:
        if "settings" in changes and "config" in changes:
            raise InvalidArgumentError("changes: give settings or config, not both")
        check_change_values(changes)
        found = self._find(record_id, record_types, thread_id)
        if found is None:
            return None
        # read above: your store has no transaction
        check_context(self._attach([found])[0], changes, lambda: self._message_before(found))
        record_type = found["record_type"]
        with _taken_back_on_failure() as steps:
            if record_type == "message" and changes.get("replace_images") is not None:
                self._replace_images(found, changes["replace_images"], steps)
            given = self._field_arguments(changes)
            if "metadata" in changes and changes.get("keep_bookkeeping"):
                given["metadata"] = keep_bookkeeping(found.get("metadata"), changes["metadata"])
            given.update(self._content_arguments(found, changes))
            updated = 1
            if record_type == "thread":
                updated = self._update_thread(found, changes, given)
            elif given:
                updated = self.store.update(public_type(record_type), record_id, **given)
        out = self._get(record_type, record_id) if updated else None
        return None if out is None else self._attach([out])[0]

    def _message_before(self, message: RecordOut) -> str | None:
        ids = [m["id"] for m in self.list_messages(message.get("thread_id") or "", None, None)]
        position = ids.index(message["id"]) if message["id"] in ids else 0
        return ids[position - 1] if position else None

    def delete_records(self, record_ids: Sequence[str], record_types: Sequence[str],
                       thread_id: str | None = None) -> int:
        found = [out for out in (self._find(record_id, record_types, thread_id)
                                 for record_id in record_ids) if out is not None]
        for out in self._attach(found):
            if out["record_type"] == "image" and out.get("message_id") is not None:
                raise AttachedImageError(
                    "the image is attached to a message; delete or update the message instead")
        deleted = 0
        for out in found:
            if out["record_type"] == "message":
                for image in self._images_of(out):
                    self.store.delete("image", image["id"])
            deleted += self.store.delete(public_type(out["record_type"]), out["id"])
        return deleted

    def delete_cascade(self, owner_type: OwnerType, owner_id: str) -> CascadeResult:
        # The interface says whether the owner existed, not what went with it.
        if owner_type == "thread":
            owner = self.store.delete_thread(owner_id)
        else:
            owner = self.store.delete(_OWNER_TYPES[owner_type], owner_id, cascade=True)
        return {"owner": owner, "records": owner, "links": 0}

    def purge_expired(self) -> int:
        return 0  # the interface has no purge: expiry is the store's business

    def close(self) -> None:
        close = getattr(self.store, "close", None)
        if callable(close):
            close()

    # -- how a write is made of interface calls ---------------------------------------

    def _add(self, records: Sequence[RecordIn], steps: Steps) -> list[str]:
        """Add records in one ``add_batches`` call (which the interface makes atomic), but
        the thread records of a store that keeps threads itself, each created by it."""
        batched = [record for record in records if not self._kept_apart(record)]
        added = self.store.add_batches([record_batch(record) for record in batched]) \
            if batched else []
        keys = [(record["record_type"], record_id)
                for record, record_id in zip(batched, added, strict=True)]
        steps.append(partial(self._delete_each, keys))
        written = iter(added)
        return [self._create_thread(record, steps) if self._kept_apart(record)
                else next(written) for record in records]

    def _delete_each(self, keys: Sequence[tuple[str, str]]) -> None:
        for record_type, record_id in keys:
            self.store.delete(public_type(record_type), record_id)

    def _remove(self, record_type: str, record_id: str, steps: Steps) -> None:
        """Delete a record within a write, keeping what takes it back: the record and its
        relations written again (its vector is then the store's to compute: the interface
        gives no vector back). A message goes with its attached images, as a replaced
        message does on the other backends."""
        record = self._get(record_type, record_id, include_bytes=True)
        if record is None:
            return
        relations = self._relations_of(record_id) if record_type in MEMORY_TYPES else []
        self.store.delete(public_type(record_type), record_id)
        steps.append(partial(self._restore, record, relations))
        if record_type == "message":
            for image in self._images_of(record):
                self._remove("image", image["id"], steps)

    def _restore(self, record: RecordOut, relations: Sequence[RecordRelation]) -> None:
        self._add([record_in(record)], [])
        if relations:
            self._add_links([link_in(relation) for relation in relations], [])

    def _replaced(self, records: Sequence[RecordIn]) -> list[tuple[str, str]]:
        """(type, id) of the stored records a replacing batch takes the place of, every id
        checked before any is removed, as the other backends do: removing a message first
        took its attached images with it, so an image id the batch could not replace
        looked free. When one holder cannot be replaced, none is: the store then refuses
        the batch as a plain write, with nothing changed."""
        replaced = []
        for record in records:
            if not record.get("id"):
                continue
            holder = self._replaceable(record)
            if holder is None:
                continue
            if not holder:
                return []
            replaced.append((record["record_type"], record["id"]))
        return replaced

    def _replaceable(self, record: RecordIn) -> bool | None:
        """Whether a replace may take the place of the record holding the id (None: no
        record of its type holds it): one of the same type, scope and message. Another
        holder is left for the store to refuse, as
        it refuses a write without replace, so a replace never takes over a record of
        another scope and answers as a plain write does."""
        holder = self._get(record["record_type"], record["id"])
        if holder is None:
            return None
        if any(holder.get(key) != record.get(key) for key in SCOPE_KEYS):
            return False
        if record["record_type"] != "image":
            return True
        return self._attach([holder])[0].get("message_id") == record.get("message_id")

    def _replace_images(self, message: RecordOut, images: Sequence[RecordIn],
                        steps: Steps) -> None:
        """A message's attached images set as listed (an image is attached to the message
        whose parts name it): attached images listed with bytes are replaced, unlisted ones
        deleted, and every other listed image with bytes is added, so an id another record
        holds is refused by the store as a plain write is, before anything changes."""
        attached = set(image_part_ids(message.get("parts")))
        listed = {image["id"] for image in images}
        with_bytes = [image for image in images if image.get("image_bytes") is not None]
        for image in with_bytes:
            if image["id"] in attached:
                self._remove("image", image["id"], steps)
        scope = scope_of(message)
        self._add([_prepared(cast(RecordIn, {**image, **scope, "record_type": "image",
                                             "message_id": message["id"]}))
                   for image in with_bytes], steps)
        for image_id in sorted(attached - listed):
            self._remove("image", image_id, steps)

    # -- thread records ---------------------------------------------------------------

    def _kept_apart(self, record: RecordIn) -> bool:
        return self._threads is not None and record["record_type"] == "thread"

    def _create_thread(self, record: RecordIn, steps: Steps) -> str:
        """A thread record created by a store that keeps threads itself; the fields its
        ``_create_thread_record`` takes no argument for are set by an update."""
        threads = cast(_ThreadRecords, self._threads)
        config = thread_content(record.get("config"))
        thread_id = record.get("id") or new_id()
        threads._create_thread_record(thread_id, record.get("user_id"), record.get("agent_id"),
                                      record.get("metadata"), config["settings"])
        steps.append(partial(self.store.delete, "thread", thread_id))
        if config["state"]:
            threads._update_thread_record(thread_id, metadata=NOT_SET_MARKER,
                                          runtime_config=NOT_SET_MARKER,
                                          runtime_state=config["state"])
        rest = self._field_arguments(cast(RecordChanges, {
            key: value for key, value in record.items()
            if key in ("timestamp", "status", "ttl_days", "ttl_anchor")}))
        if rest:
            self.store.update("thread", thread_id, **rest)
        return thread_id

    def _update_thread(self, thread: RecordOut, changes: RecordChanges,
                       given: _UpdateArguments) -> int:
        """A thread record's settings (its state kept as stored), or its whole config, and
        the fields every record has."""
        config: dict[str, Any] | None = None
        if "config" in changes:
            config = thread_content(changes["config"])
        elif "settings" in changes:
            stored = thread_content(thread.get("config"))
            config = {**stored, "settings": layered_settings(stored.get("settings"),
                                                             changes["settings"])}
        if self._threads is None:
            if config is not None:
                given["content"] = config
            return self.store.update("thread", thread["id"], **given) if given else 1
        updated = 1
        if config is not None:
            updated = self._threads._update_thread_record(
                thread["id"], metadata=NOT_SET_MARKER, runtime_config=config["settings"],
                runtime_state=config["state"] if "config" in changes else NOT_SET_MARKER)
        if given:
            updated = self.store.update("thread", thread["id"], **given) and updated
        return updated

    def _set_thread_state(self, thread: RecordOut, state: dict[str, Any]) -> None:
        if self._threads is not None:
            self._threads._update_thread_record(thread["id"], metadata=NOT_SET_MARKER,
                                                runtime_config=NOT_SET_MARKER,
                                                runtime_state=state)
        else:
            content = {**thread_content(thread.get("config")), "state": state}
            self.store.update("thread", thread["id"], content=content)

    # -- updates ----------------------------------------------------------------------

    def _field_arguments(self, changes: RecordChanges) -> _UpdateArguments:
        """The fields every record type has, as ``update`` takes them."""
        given: _UpdateArguments = {}
        if "metadata" in changes:
            given["metadata"] = changes["metadata"]
        if "timestamp" in changes:
            given["timestamp"] = normalize(changes["timestamp"])
        if "status" in changes:
            given["status"] = RecordStatus(changes["status"])
        if "ttl_days" in changes:
            given["ttl_days"] = whole_days(changes["ttl_days"])
        if "ttl_anchor" in changes:
            given["ttl_anchor"] = TimeToLiveAnchor[changes["ttl_anchor"]]
        return given

    def _content_arguments(self, found: RecordOut, changes: RecordChanges) -> _UpdateArguments:
        """A new content as ``update`` takes it for the record's type: an image's bytes with
        its description as the text to index, a message's parts, a summary's object. A
        vector goes with it when the change has one (else the store computes its own)."""
        given: _UpdateArguments = {}
        record_type = found["record_type"]
        if record_type == "image" and ("content" in changes or "image_bytes" in changes):
            given["content"] = changes.get("image_bytes") or self._image_bytes(found["id"])
            given["index_text"] = changes.get("content", found.get("content"))
        elif record_type == "message" and ("content" in changes or "parts" in changes):
            parts = changes.get("parts")
            given["content"] = message_content(parts) if parts else changes.get(
                "content", found.get("content"))
        elif record_type == "summary" and "content" in changes:
            given["content"] = {"summary": changes["content"]}
        elif "content" in changes:
            given["content"] = changes["content"]
        if changes.get("embedding") is not None:
            given["embedding"] = _vector(cast(Vector, changes["embedding"]))
        return given

    def _image_bytes(self, image_id: str) -> bytes | None:
        image = self._get("image", image_id, include_bytes=True)
        return None if image is None else image.get("image_bytes")

    # -- reads ------------------------------------------------------------------------

    def _get(self, record_type: str, record_id: str,
             include_bytes: bool = False) -> RecordOut | None:
        record: Record | None
        if self._threads is not None and record_type == "thread":
            record = self._threads._get_thread_record(record_id)
        else:
            record = self.store.get(public_type(record_type), record_id, include_bytes)
        return None if record is None else record_out(record)

    def _find(self, record_id: str, record_types: Sequence[str],
              thread_id: str | None) -> RecordOut | None:
        for record_type in record_types:
            out = self._get(record_type, record_id)
            if out is not None and (thread_id is None or out.get("thread_id") == thread_id):
                return out
        return None

    def _attach(self, outs: list[RecordOut]) -> list[RecordOut]:
        """Images with the message that holds them: the message of their thread whose
        parts name them (the interface has no message field on an image it is given)."""
        held: dict[str, dict[str, str]] = {}
        for out in outs:
            thread_id = out.get("thread_id")
            if out["record_type"] != "image" or out.get("message_id") or thread_id is None:
                continue
            if thread_id not in held:
                held[thread_id] = {
                    part.id: message.id
                    for message in self.store.list_thread_messages(thread_id)
                    if not isinstance(message.content, str)
                    for part in message.content if isinstance(part, ImageContent)}
            out["message_id"] = held[thread_id].get(out["id"])
        return outs

    def _attached_to(self, message_id: str, include_bytes: bool) -> list[RecordOut]:
        """The images a message's parts name, of the message's thread."""
        message = self._get("message", message_id)
        if message is None:
            return []
        return [{**image, "message_id": message_id}
                for image in self._images_of(message, include_bytes)]

    def _images_of(self, message: RecordOut, include_bytes: bool = False) -> list[RecordOut]:
        """The stored images ``message``'s parts name, of its thread."""
        images = [self._get("image", image_id, include_bytes)
                  for image_id in image_part_ids(message.get("parts"))]
        return [image for image in images
                if image is not None and image.get("thread_id") == message.get("thread_id")]

    def get_records(self, query: RecordQuery) -> list[RecordOut]:
        # Without record_types no type is left out, threads and summaries included.
        types = query.get("record_types")
        types = list(ALL_TYPES) if types is None else types
        include_bytes = bool(query.get("include_bytes"))
        metadata_filter = mf.validate_filter(query.get("metadata_filter"))
        scope = cast(RecordScope, {key: query[key] for key in SCOPE_KEYS if key in query})
        found: list[RecordOut] = []
        # message_id null: the records of no message, matched once images are attached
        unattached = "message_id" in query and query["message_id"] is None
        message_id = query.get("message_id")
        for record_type in types:
            if message_id is not None or "ids" in query:
                if message_id is not None:
                    outs = self._attached_to(message_id, include_bytes) \
                        if record_type == "image" else []
                else:
                    outs = [out for out in (self._get(record_type, record_id, include_bytes)
                                            for record_id in query["ids"]) if out is not None]
                if "ids" in query:
                    outs = [out for out in outs if out["id"] in query["ids"]]
                outs = [out for out in outs
                        if all(out.get(key) == value for key, value in scope.items())
                        and mf.matches(metadata_filter, out.get("metadata"))]
            else:
                # The store's own limit keeps its first records: the newest are cut here.
                outs = [record_out(record) for record in self.store.list(
                    public_type(record_type),
                    limit=None if query.get("newest") or unattached else query.get("limit"),
                    **scope, metadata_filter=metadata_filter, include_bytes=include_bytes)]
            found.extend(outs)
        found = self._attach(found)
        if unattached:
            found = [out for out in found if out.get("message_id") is None]
        return within_limit(found, query)

    def list_messages(self, thread_id: str, start: int | None, end: int | None,
                      include_bytes: bool = False) -> list[RecordOut]:
        records = self.store.list_thread_messages(thread_id, include_bytes=include_bytes)
        return [record_out(record) for record in records][start:end]

    def search(self, request: SearchRequest) -> list[SearchHit]:
        # The interface runs the store's own strategy: request["strategy"] has no argument.
        checked = check_search_request(request)

        def dimension(name: str) -> tuple[str | None, bool]:
            given = checked["scope"].get(name)
            return (None, False) if given is None else (given["value"], given["exact"])

        user, exact_user = dimension("user_id")
        agent, exact_agent = dimension("agent_id")
        thread, exact_thread = dimension("thread_id")
        vector = checked["query_vector"]
        results = self.store.search(
            checked["query_text"] or None, checked["max_results"],
            query_vector=None if vector is None else _vector(vector),
            user_id=user, agent_id=agent, thread_id=thread, exact_user_match=exact_user,
            exact_agent_match=exact_agent, exact_thread_match=exact_thread,
            record_types={public_type(t) for t in request.get("record_types") or []} or None,
            metadata_filter=checked["metadata_filter"], num_hops=checked["num_hops"],
            max_linked_results=checked["max_linked_results"],
            include_invalid_results=checked["include_invalid"])
        outs = [record_out(record) for record, _ in results]
        linked = [[(relation, record_out(record)) for relation, record in hit.linked_results]
                  for hit, _ in results]
        known: Known = {(out["record_type"], out["id"]): out for out in self._attach(
            outs + [out for pairs in linked for _, out in pairs])}
        return [{"record": out, "distance": float(distance),
                 "linked": self._walked(out["id"], pairs, known)}
                for out, (_, distance), pairs in zip(outs, results, linked, strict=True)]

    # -- links ------------------------------------------------------------------------

    def _add_links(self, links: Sequence[LinkIn], steps: Steps) -> None:
        known: Known = {}
        for link in links:
            if link.get("thread_id") is not None:
                self._check_thread_link(link, known)
        opposites = [link.get("opposite_relation_type")
                     or BUILTIN_OPPOSITES.get(link["relation_type"], link["relation_type"])
                     for link in links]  # one label per link: the one its store would give
        ids = self.store.add_relations(
            [link["source_id"] for link in links], [link["source_type"] for link in links],
            [link["target_id"] for link in links], [link["target_type"] for link in links],
            [link["relation_type"] for link in links],
            opposite_relation_types=opposites,
            relation_ids=[link.get("id") for link in links],
            timestamps=[normalize(link.get("timestamp")) for link in links],
            metadata=[link.get("metadata") for link in links])
        steps.append(partial(self.store.delete_relations, list(ids)))

    def _check_thread_link(self, link: LinkIn, known: Known) -> None:
        """A thread's own link joins memory-like records of that thread."""
        for end, record_type, record_id in (("source", link["source_type"], link["source_id"]),
                                            ("target", link["target_type"], link["target_id"])):
            if record_type not in MEMORY_TYPES:
                raise InvalidLinkError(
                    f"{end}_type must be a memory-like type, got {record_type!r}")
            record = self._known(known, record_type, record_id)
            if record is None or record.get("thread_id") != link["thread_id"]:
                raise LinkEndNotFoundError(
                    f"{end} {record_type} {record_id!r} is not a record of thread "
                    f"{link['thread_id']!r}")

    def _known(self, known: Known, record_type: str, record_id: str) -> RecordOut | None:
        if (record_type, record_id) not in known:
            known[record_type, record_id] = self._get(record_type, record_id)
        return known[record_type, record_id]

    def _link_thread(self, relation: RecordRelation, known: Known) -> str | None:
        """A relation's thread, which the interface does not keep: its ends' thread when
        they share one (a record's thread never changes), else None."""
        ends = [self._known(known, relation.source_record_type, relation.source_record_id),
                self._known(known, relation.target_record_type, relation.target_record_id)]
        threads = {None if end is None else end.get("thread_id") for end in ends}
        return threads.pop() if len(threads) == 1 else None

    def _walked(self, hit_id: str, pairs: Sequence[tuple[RecordRelation, RecordOut]],
                known: Known) -> list[LinkedHit]:
        """A hit's linked records as the contract reports them: each reached from the
        relation's other end (the hit, or a record reached before it), one hop further,
        with the label read in the direction walked."""
        hops = {hit_id: 0}
        walked: list[LinkedHit] = []
        for relation, record in pairs:
            forward = record["id"] == relation.target_record_id
            via = relation.source_record_id if forward else relation.target_record_id
            hops[record["id"]] = hops.get(via, 0) + 1
            walked.append({
                "record": record, "relation": link_out(relation,
                                                       self._link_thread(relation, known)),
                "relation_id": relation.id,
                "relation_type": relation.relation_type if forward
                else relation.opposite_relation_type,
                "via_record_id": via, "hops": hops[record["id"]]})
        return walked

    def _relations_of(self, record_id: str) -> list[RecordRelation]:
        relations = {relation.id: relation for relation in [
            *self.store.list_relations(source_record_id=record_id),
            *self.store.list_relations(target_record_id=record_id)]}
        return list(relations.values())

    def update_link(self, relation_id: str, thread_id: str | None,
                    changes: LinkChanges) -> int:
        if thread_id is not None:
            relation = self.store.get_relation(relation_id=relation_id)
            if relation is None or self._link_thread(relation, {}) != thread_id:
                return 0
        relation_type = changes.get("relation_type", NOT_SET_MARKER)
        opposite: str | _NotSetMarker = changes.get("opposite_relation_type", NOT_SET_MARKER)
        if isinstance(relation_type, str) and relation_type in BUILTIN_OPPOSITES:
            opposite = BUILTIN_OPPOSITES[relation_type]
        timestamp = normalize(changes["timestamp"]) if "timestamp" in changes \
            else NOT_SET_MARKER
        updated = self.store.update_relations(
            relation_id, relation_types=relation_type, opposite_relation_types=opposite,
            timestamps=timestamp, metadata=changes.get("metadata", NOT_SET_MARKER))
        return len(updated)

    def delete_links(self, selector: LinkSelector, thread_id: str | None) -> int:
        if "id" in selector:
            if any(key in selector for key in ENDPOINT_KEYS):
                raise InvalidArgumentError(
                    "give relation_id alone, or the endpoint tuple without relation_id")
            relation = self.store.get_relation(relation_id=selector["id"])
        else:
            missing = [key for key in ENDPOINT_KEYS if selector.get(key) is None]
            if missing:
                raise InvalidArgumentError(
                    "deleting a relation by endpoints needs " + ", ".join(missing))
            relation = self.store.get_relation(
                source_record_id=selector["source_id"], source_record_type=selector["source_type"],
                target_record_id=selector["target_id"], target_record_type=selector["target_type"],
                relation_type=selector["relation_type"])
        if relation is None or (thread_id is not None
                                and self._link_thread(relation, {}) != thread_id):
            return 0
        return self.store.delete_relations(relation.id)

    def list_links(self, query: LinkQuery) -> list[LinkOut]:
        # A thread or ids are matched here, so the store's limit would cut too early.
        matched_here = "thread_id" in query or "ids" in query
        relations = self.store.list_relations(
            relation_type=query.get("relation_type", NOT_SET_MARKER),
            source_record_id=query.get("source_id", NOT_SET_MARKER),
            source_record_type=query.get("source_type", NOT_SET_MARKER),
            target_record_id=query.get("target_id", NOT_SET_MARKER),
            target_record_type=query.get("target_type", NOT_SET_MARKER),
            limit=NOT_SET_MARKER if matched_here else query.get("limit", NOT_SET_MARKER),
            metadata_filter=query.get("metadata_filter", NOT_SET_MARKER))
        if "ids" in query:
            wanted = set(query["ids"])
            relations = [relation for relation in relations if relation.id in wanted]
        known: Known = {}
        links = [link_out(relation, self._link_thread(relation, known))
                 for relation in relations]
        if "thread_id" in query:
            links = [link for link in links if link["thread_id"] == query["thread_id"]]
        limit = query.get("limit")
        return links[:limit] if limit else links

