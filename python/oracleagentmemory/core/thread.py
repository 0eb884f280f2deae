"""OracleThread: one conversation, its messages, and the memories scoped to it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from oracleagentmemory._async_twins import positional_or_keyword
from oracleagentmemory._ids import new_id
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker, value_or
from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.message import ImageMimeType, Message
from oracleagentmemory.apis.records import ImageRecord, ThreadRecordType
from oracleagentmemory.apis.thread import (
    IThread,
    NormalizedMessageT,
    ThreadMessageContentT,
    ThreadMessageMappingT,
    ThreadMessageTypedDictT,
)
from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.core import derived_memory, index_text, scope_resolution
from oracleagentmemory.core.arguments import (
    check_flag,
    check_id_argument,
    check_optional_int,
    reject_store_kwargs,
    scope_id,
)
from oracleagentmemory.core.context_card_assembly import build_context_card
from oracleagentmemory.core.contextcard import OracleContextCard
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    MemoryExtractionConfig,
    resolve_memory_extraction_config_argument,
)
from oracleagentmemory.core.image_records import message_images
from oracleagentmemory.core.imageinputlimitconfig import ImageInputLimitConfig
from oracleagentmemory.core.memory_service import MemoryService, SearchOptions, ServiceHolder
from oracleagentmemory.core.message_batches import KnownTail, append_batch, update_content
from oracleagentmemory.core.message_input import to_messages
from oracleagentmemory.core.observation import (
    THREAD_OPERATIONS,
    observe_methods,
    observed_llm,
    unobserved,
)
from oracleagentmemory.core.records import load_messages
from oracleagentmemory.core.retention import ttl_changes, ttl_fields
from oracleagentmemory.core.scoped_operations import ScopedOperations
from oracleagentmemory.core.searchconfig import MemorySearchConfig
from oracleagentmemory.core.searchresult import OracleSearchResult
from oracleagentmemory.core.store_arguments import service_for_store
from oracleagentmemory.core.summary import OracleSummary
from oracleagentmemory.core.summary_assembly import DEFAULT_SUMMARY_TOKEN_BUDGET, thread_summary
from oracleagentmemory.core.thread_context import ThreadContext
from oracleagentmemory.core.thread_settings import (
    CONTEXT_CARD_TOKEN_LIMIT_DEFAULT,
    MAX_MESSAGE_TOKEN_LENGTH_DEFAULT,
    MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT,
    SettingsLayer,
    ThreadSettings,
    layer_from_arguments,
    layer_from_json,
    resolve_settings,
)
from oracleagentmemory.errors import InvalidArgumentError, NotFoundError
from oracleagentmemory.observability.instrumentation import observe_operation
from oracleagentmemory.observability.operation_kind import OperationKind
from oracleagentmemory.stores.protocol import RecordIn, RecordOut, RecordScope

__all__ = [
    "CONTEXT_CARD_TOKEN_LIMIT_DEFAULT",
    "DEFAULT_MESSAGE_HISTORY_LIMIT",
    "DEFAULT_SUMMARY_TOKEN_BUDGET",
    "MAX_MESSAGE_TOKEN_LENGTH_DEFAULT",
    "MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT",
    "NormalizedMessageT",
    "OracleThread",
    "ThreadMessageContentT",
    "ThreadMessageMappingT",
    "ThreadMessageTypedDictT",
]

T = TypeVar("T")

DEFAULT_MESSAGE_HISTORY_LIMIT = 100
"""How many recent messages ``get_messages()`` returns when no range is given."""


def _per_message(value: T | Sequence[T], count: int, argument: str) -> list[T]:
    """A scalar applies to the whole batch; a list gives one value per message."""
    if isinstance(value, list):
        if len(value) != count:
            raise InvalidArgumentError(f"{argument} has {len(value)} entries for {count} messages")
        return value
    # anything but a list is one value (a tuple too), which the type cannot say
    return [value] * count  # type: ignore[list-item]


@observe_methods("thread", THREAD_OPERATIONS, result_names={"add_memory": "memory_id"})
class OracleThread(IThread, ScopedOperations):
    """A thread backed by an Oracle (or embedded) store.

    Messages are stored one record each; searches default to the thread's user and agent
    exactly and to this thread loosely, so memories of the user's other threads can appear.

    Applications get threads from ``OracleAgentMemory.create_thread`` and ``get_thread``;
    the constructor makes a standalone thread over a store, with no stored thread record.
    Its settings mean what they mean for ``OracleAgentMemory.create_thread``.

    Args:
        store: What the thread stores into when no ``client`` is given: an
            ``OracleDBMemoryStore``, another ``IMemoryStore``, a contract backend, or a
            connection or path that an ``OracleDBMemoryStore`` is opened on.
        client: A client whose store, embedder, LLM and defaults the thread uses (then
            ``store`` is not used). Default: None.
        thread_id: The thread's id. Default: a new UUID.
        user_id: The thread's user (None: no user). Default: a new UUID.
        agent_id: The thread's agent (None: no agent). Default: a new UUID.
        metadata: The thread's metadata. Default: None.
        persist_messages_in_config: Accepted for compatibility (a bool); messages always
            live in the store. Default: False.
        llm: The LLM to extract, summarise and link with (None: none). Default: the
            client's, else none.
        memory_extraction_config: The thread's extraction settings. Default: the
            client's, else the SDK defaults.
        image_input_limit_config: The thread's image limits. Default: the client's, else
            ``ImageInputLimitConfig()``.
        max_message_token_length: As in ``create_thread``. Default: 15,000.
        message_shortening_input_token_limit: As in ``create_thread``. Default: 30,000.
        memory_extraction_window: Deprecated, as in ``create_thread``.
        context_summary_update_frequency: Deprecated, as in ``create_thread``.
        memory_extraction_frequency: Deprecated, as in ``create_thread``.
        memory_extraction_token_limit: Deprecated, as in ``create_thread``.
        context_card_token_limit: As in ``create_thread``. Default: 100,000.
        context_card_type_search_concurrency: As in ``create_thread``. Default: 5.
        enable_context_summary: Deprecated, as in ``create_thread``.
        memory_extraction_custom_instructions: Deprecated, as in ``create_thread``.
        memory_extraction_inherit_message_metadata: Deprecated, as in ``create_thread``.
        search_config: The thread's search config. Default: the client's, else top-k
            with 10 results.

    Raises:
        InvalidArgumentError: An empty id, both ``memory_extraction_config`` and a
            deprecated extraction argument, or a setting not allowed (a ``ValueError``).
        ArgumentTypeError: A value of the wrong type.
        SchemaError: ``store`` is a connection whose store cannot be used (a
            ``RuntimeError``).
        StorageError: ``store`` is a path whose file cannot be opened (an ``OSError``).
    """

    def __init__(
        self,
        store: object,
        client: ServiceHolder | None = None,
        thread_id: str | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        persist_messages_in_config: bool = False,
        llm: ILlm | None | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_config: MemoryExtractionConfig | _NotSetMarker = NOT_SET_MARKER,
        image_input_limit_config: ImageInputLimitConfig | _NotSetMarker = NOT_SET_MARKER,
        max_message_token_length: int = MAX_MESSAGE_TOKEN_LENGTH_DEFAULT,
        message_shortening_input_token_limit: int = MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT,
        memory_extraction_window: int | _NotSetMarker = NOT_SET_MARKER,
        context_summary_update_frequency: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_frequency: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_token_limit: int | _NotSetMarker = NOT_SET_MARKER,
        context_card_token_limit: int = CONTEXT_CARD_TOKEN_LIMIT_DEFAULT,
        context_card_type_search_concurrency: int = 5,
        enable_context_summary: bool | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_custom_instructions: str | None | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_inherit_message_metadata: bool | Sequence[str] | _NotSetMarker = (
            NOT_SET_MARKER),
        search_config: MemorySearchConfig | _NotSetMarker = NOT_SET_MARKER,
    ) -> None:
        service = client.memory_service if client is not None else service_for_store(store)
        extraction = resolve_memory_extraction_config_argument(
            "OracleThread", memory_extraction_config, {
                "memory_extraction_window": memory_extraction_window,
                "context_summary_update_frequency": context_summary_update_frequency,
                "memory_extraction_frequency": memory_extraction_frequency,
                "memory_extraction_token_limit": memory_extraction_token_limit,
                "enable_context_summary": enable_context_summary,
                "memory_extraction_custom_instructions": memory_extraction_custom_instructions,
                "memory_extraction_inherit_message_metadata":
                    memory_extraction_inherit_message_metadata,
            })
        check_flag(persist_messages_in_config, "persist_messages_in_config")
        layer = layer_from_arguments({
            "max_message_token_length": max_message_token_length,
            "message_shortening_input_token_limit": message_shortening_input_token_limit,
            "context_card_token_limit": context_card_token_limit,
            "context_card_type_search_concurrency": context_card_type_search_concurrency,
            "memory_extraction_config": extraction,
            "image_input_limit_config": image_input_limit_config,
            "search_config": search_config,
        })
        generated = {name: scope_id(value, name) if value is not NOT_SET_MARKER
                     else new_id()
                     for name, value in (("thread_id", thread_id), ("user_id", user_id),
                                         ("agent_id", agent_id))}
        self._bind(ThreadContext(
            service=service, thread_id=check_id_argument(generated["thread_id"], "thread_id"),
            user_id=generated["user_id"],
            agent_id=generated["agent_id"], llm=observed_llm(value_or(llm, service.llm)),
            settings=resolve_settings(layer.over(service.defaults)),
        ), value_or(metadata, None))

    def _bind(self, context: ThreadContext, metadata: dict[str, Any] | None,
              new: bool = False) -> None:
        """``new``: the thread was just created, so it has no message yet."""
        self._context = context
        # ScopedOperations: a thread reaches its own records
        self._service = context.service
        self._own_thread = context.thread_id
        self._write_thread = context.write_thread
        self._image_limits = context.settings.image_input_limit_config
        self._search_config = context.settings.search_config
        self._metadata = metadata
        self._tail = KnownTail(known=new)
        """The thread's last message as this handle knows it (``message_batches``)."""
        self.llm = unobserved(context.llm)
        """The LLM this thread extracts, summarises and links with (None: no LLM)."""

    # -- identity and settings ----------------------------------------------------------

    @property
    def thread_id(self) -> str:
        """The thread's id."""
        return self._context.thread_id

    # IThread (like the reference) declares str; a thread created with None, or stored
    # without an owner, has None here.
    @property
    def user_id(self) -> str:
        """The thread's user (None for a thread without one)."""
        return self._context.user_id  # type: ignore[return-value]

    @property
    def agent_id(self) -> str:
        """The thread's agent (None for a thread without one)."""
        return self._context.agent_id  # type: ignore[return-value]

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The thread's metadata as this handle was opened with it."""
        return self._metadata

    @property
    def settings(self) -> ThreadSettings:
        """The thread's effective runtime settings."""
        return self._context.settings

    @property
    def max_message_token_length(self) -> int:
        """Tokens above which a message is shortened in prompts (``settings`` has it too)."""
        return self._context.settings.max_message_token_length

    @property
    def message_shortening_input_token_limit(self) -> int:
        """Tokens of an oversized message sent to be shortened."""
        return self._context.settings.message_shortening_input_token_limit

    def _to_config(self) -> dict[str, Any]:
        """The thread's identity and settings as JSON. Never messages: every OracleThread is
        backed by a store, whose message table is the one place messages live."""
        return {"thread_id": self.thread_id, "user_id": self.user_id,
                "agent_id": self.agent_id, "metadata": self._metadata,
                "settings": {**layer_from_arguments({
                    "max_message_token_length": self.max_message_token_length,
                    "message_shortening_input_token_limit":
                        self.message_shortening_input_token_limit,
                    "context_card_token_limit": self.settings.context_card_token_limit,
                    "context_card_type_search_concurrency":
                        self.settings.context_card_type_search_concurrency,
                    "memory_extraction_config": self.settings.memory_extraction_config,
                }).to_json(), "persist_messages_in_config": False}}

    def __repr__(self) -> str:
        return (f"OracleThread(thread_id={self.thread_id!r}, user_id={self.user_id!r}, "
                f"agent_id={self.agent_id!r})")

    # -- messages ---------------------------------------------------------------------

    def add_messages(
        self,
        messages: Sequence[Message | ThreadMessageTypedDictT | ThreadMessageMappingT],
        metadata: dict[str, Any] | None | list[dict[str, Any] | None] | _NotSetMarker = (
            NOT_SET_MARKER),
        ttl_days: int | None | list[int | None] | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | list[TimeToLiveAnchor] | _NotSetMarker = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> list[str]:
        """Append messages and index them; the batch is stored whole or not at all.

        Args:
            messages: ``Message`` objects or mappings with ``role`` and ``content`` (text,
                or a list of text and image parts), optionally ``id``, ``timestamp`` and
                ``metadata``.
            metadata: One JSON object for every message, or one per message. Default:
                each message's own.
            ttl_days: Days until the messages expire, one value or one per message.
                Default: the retention config's ``default_ttl_days`` (never, if unset).
            ttl_anchor: What the TTL counts from, one or one per message. Default: the
                creation time.

        Returns:
            The messages' ids, in order.

        Raises:
            InvalidArgumentError: A string instead of a list, an empty role, a list of
                per-message values of the wrong length (a ``ValueError``).
            MissingFieldError: A message without ``role`` or ``content`` (a ``KeyError``).
            ArgumentTypeError: ``messages`` that is not a sequence, an item that is neither a
                ``Message`` nor a mapping, or an unknown keyword (a ``TypeError``).
            NotFoundError: The thread was deleted (a ``KeyError``).
        """
        reject_store_kwargs("add_messages", store_kwargs)
        batch = to_messages(messages)
        count = len(batch)
        metadatas = (
            [m.metadata for m in batch] if isinstance(metadata, _NotSetMarker)
            else _per_message(metadata, count, "metadata")
        )
        ttls = _per_message(ttl_days, count, "ttl_days")
        anchors = _per_message(ttl_anchor, count, "ttl_anchor")
        texts = [message.text for message in batch]
        turns = [index_text.Turn(m.role, m.text, m.timestamp) for m in batch]
        vectors = self._service.embed(index_text.message_index_texts(
            turns, self._tail.previous(self._context)))
        records: list[RecordIn] = []
        for index, message in enumerate(batch):
            message_id = message.id or new_id()
            ttl = ttl_fields(ttls[index], anchors[index], self._service.retention)
            parts, images = message_images(self._service, message, ttl, self._context.scope,
                                           self.settings.image_input_limit_config,
                                           self._caption)
            records.append({
                "record_type": "message", "id": message_id, **self._context.scope,
                "role": message.role, "content": texts[index], "metadata": metadatas[index],
                "timestamp": message.timestamp, "parts": parts, **ttl,
                "embedding": vectors[index],
            })
            records.extend({**image, "message_id": message_id} for image in images)
        # One store call: the thread checked, the batch written and counted, and what the
        # extraction or summary it makes due reads, in one transaction.
        written = append_batch(self._context, self._tail, records, turns)
        message_ids = [rid for rid, record in zip(written["ids"], records, strict=True)
                       if record["record_type"] == "message"]
        derived_memory.after_messages_added(self._context, written)
        return message_ids

    def get_messages(self, *, start: int | None | _NotSetMarker = NOT_SET_MARKER,
                     end: int | None | _NotSetMarker = NOT_SET_MARKER,
                     include_image_bytes: bool | _NotSetMarker = NOT_SET_MARKER
                     ) -> list[Message]:
        """Messages in chronological order; no range gives the most recent window.

        ``start`` and ``end`` are positions in the thread, as in a Python slice (negative
        ones count from the end).

        Args:
            start: The first position. Default: without ``end``, the last 100 messages;
                with it, the first message. None: the first message.
            end: The position after the last one (-1 or None: to the end). Default: 100
                messages after a non-negative ``start``, else to the end.
            include_image_bytes: Load the bytes of the messages' images. Default: False.

        Returns:
            The messages, oldest first.

        Raises:
            ArgumentTypeError: A ``start`` or ``end`` that is not an int, or an
                ``include_image_bytes`` that is not a bool.
        """
        first: int | None
        last: int | None
        if start is NOT_SET_MARKER and end is NOT_SET_MARKER:
            first, last = -DEFAULT_MESSAGE_HISTORY_LIMIT, None
        else:
            first = check_optional_int(value_or(start, None), "start")
            if end is NOT_SET_MARKER:
                last = None if first is None or first < 0 \
                    else first + DEFAULT_MESSAGE_HISTORY_LIMIT
            else:
                last = check_optional_int(end, "end")
                if last == -1:
                    last = None
        include_bytes = check_flag(value_or(include_image_bytes, False), "include_image_bytes")
        records = self._service.backend.list_messages(self.thread_id, first, last)
        return load_messages(self._service.backend, records, include_all_bytes=include_bytes)

    def get_message(self, message_id: str, *,
                    included_image_ids: list[str] | _NotSetMarker = NOT_SET_MARKER) -> Message:
        """One message of this thread.

        Args:
            message_id: The message to read.
            included_image_ids: The images of the message whose bytes to load. Default:
                none.

        Returns:
            The message.

        Raises:
            NotFoundError: No such message in this thread (a ``KeyError``).
            InvalidArgumentError: An empty ``message_id`` (a ``ValueError``).
            ArgumentTypeError: A ``message_id`` that is not a str.
        """
        found = self._service.find(check_id_argument(message_id, "message_id"), ["message"],
                                   self.thread_id)
        if found is None:
            raise NotFoundError(
                f"message {message_id!r} does not exist in thread {self.thread_id!r}")
        wanted = value_or(included_image_ids, None) or []
        return load_messages(self._service.backend, [found], wanted_image_ids=wanted)[0]

    def update_message(
        self,
        message_id: str,
        content: str | list[Mapping[str, Any]] | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> str:
        """Update a raw message of this thread; omitted fields keep their stored value.

        New content is embedded again and extraction takes it into account.

        Args:
            message_id: The message to update.
            content: Its new content: text, or a list of text and image parts (mappings
                as in ``add_messages``). Default: kept.
            metadata: Its new metadata, replaced whole (None clears it). Default: kept.
            ttl_days: As in ``OracleAgentMemory.update_memory``. Default: kept.
            ttl_anchor: As in ``OracleAgentMemory.update_memory``. Default: kept.

        Returns:
            The message's id.

        Raises:
            NotFoundError: No such message in this thread (a ``KeyError``).
            InvalidArgumentError: An empty id, or content that is not allowed (a
                ``ValueError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("update_message", kwargs)
        check_id_argument(message_id, "message_id")
        changes = ttl_changes(ttl_days, ttl_anchor, self._service.retention)
        if not isinstance(metadata, _NotSetMarker):
            changes["metadata"] = metadata
        if content is NOT_SET_MARKER:
            updated = self._service.backend.update_record(
                message_id, ["message"], changes, self.thread_id)
        else:
            message = to_messages([{"role": "user", "content": content}])[0]
            # Attached images always take their message's expiry (the store keeps it so).
            parts, images = message_images(
                self._service, message, {"ttl_days": None, "ttl_anchor": "CREATED_AT"},
                self._context.scope, self.settings.image_input_limit_config, self._caption)
            new_ids = {image["id"] for image in images}
            changes["content"] = message.text
            changes["parts"] = parts
            changes["replace_images"] = images + [
                {"id": part["id"]} for part in parts or []
                if part["type"] == "image" and part["id"] not in new_ids
            ]
            # its vector made with the message before it, checked by the store in the update
            updated, stored = update_content(self._context, self._tail, message_id,
                                             message.text, changes)
            if updated is not None:
                derived_memory.after_message_updated(
                    self._context, message_id,
                    [updated if record["id"] == message_id else record for record in stored])
        if updated is None:
            raise NotFoundError(
                f"message {message_id!r} does not exist in thread {self.thread_id!r}")
        return updated["id"]

    def delete_message(self, message_id: str) -> int:
        """Delete one raw message of this thread (derived memories stay).

        Waits first for background extraction of this thread that this client accepted
        earlier, so extraction never reads a message that is gone.

        Args:
            message_id: The message to delete.

        Returns:
            1 when it was deleted, 0 when there was no such message in this thread.

        Raises:
            OperationTimeoutError: The wait ran out (300 s); nothing was deleted.
            InvalidArgumentError: An empty ``message_id`` (a ``ValueError``).
            ArgumentTypeError: A ``message_id`` that is not a str.
        """
        check_id_argument(message_id, "message_id")
        self._service.wait_for_threads([self.thread_id])
        self._tail.forget()
        return self._service.backend.delete_records([message_id], ["message"], self.thread_id)

    # -- images -----------------------------------------------------------------------

    def list_images(
        self,
        image_id: str | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        include_bytes: bool | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[ImageRecord]:
        """Images of this thread in store order; bytes only for one given image_id.

        Args:
            image_id: Only this image. Default: any.
            metadata_filter: Entries the metadata must match. Default: no filter.
            include_bytes: Load the image bytes (only with ``image_id``). Default: False.
            limit: How many images at most. Default: 100; None: no limit of its own.

        Returns:
            The images.

        Raises:
            InvalidArgumentError: ``include_bytes=True`` without ``image_id``, an empty
                id or a malformed filter (each a ``ValueError``).
            ArgumentTypeError: A value of the wrong type.
        """
        return self._list_images({"thread_id": self.thread_id}, image_id, metadata_filter,
                                 include_bytes, limit)

    # -- summaries and context cards --------------------------------------------------

    def get_summary(self, except_last: int | _NotSetMarker = NOT_SET_MARKER,
                    token_budget: int | _NotSetMarker = NOT_SET_MARKER,
                    **kwargs: Any) -> OracleSummary:
        """A best-effort summary; without an LLM, a transcript of the recent messages.

        An LLM failure falls back to the transcript (and logs a warning).

        Args:
            except_last: Leave the last this many messages out. Default: 0.
            token_budget: Cut the summary to about this many tokens (None: no cut).
                Default: 1,000.

        Returns:
            The summary.

        Raises:
            InvalidArgumentError: A negative ``except_last`` (a ``ValueError``).
            ArgumentTypeError: A value that is not an int, or an unknown keyword.
        """
        reject_store_kwargs("get_summary", kwargs)
        return thread_summary(self._context, except_last, token_budget)

    def get_context_card(
        self,
        fallback_message_count: int | _NotSetMarker = NOT_SET_MARKER,
        max_relevant_results: int | _NotSetMarker = NOT_SET_MARKER,
        max_recent_messages: int | _NotSetMarker = NOT_SET_MARKER,
        except_last_messages: int | _NotSetMarker = NOT_SET_MARKER,
        min_relevant_results_by_type: (
            Mapping[ThreadRecordType, int] | None | _NotSetMarker) = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        include_invalid_results: bool | _NotSetMarker = NOT_SET_MARKER,
        token_budget: int | None | _NotSetMarker = NOT_SET_MARKER,
        soft_token_budget: int | None | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> OracleContextCard:
        """Summary, relevant records and recent messages, rendered for a prompt.

        The summary (with an LLM: the thread's summary and topics; without: a transcript
        of the last messages) is also the query that finds the relevant records: the
        thread's memories and its own messages, merged by distance.

        Args:
            fallback_message_count: Messages in the transcript summary used without an
                LLM (or when it fails). Default: 5.
            max_relevant_results: Relevant records at most (raised to the sum of
                ``min_relevant_results_by_type``). Default: 5.
            max_recent_messages: Last messages shown verbatim (0: none); with
                ``except_last_messages`` it must be 0 or equal to it. Default: 0.
            except_last_messages: Leave the last this many messages out of the summary
                and the relevant records. Default: 0.
            min_relevant_results_by_type: At least this many relevant records of each
                type (``{"fact": 2}``), searched first. Default: none.
            metadata_filter: Entries the relevant records' metadata must match.
                Default: no filter.
            include_invalid_results: Also show records marked invalid. Default: True.
            token_budget: Cut the relevant records once they pass this many tokens.
                Default: the search config's, else no budget.
            soft_token_budget: As ``token_budget``, keeping the record that crosses it.
                Default: the search config's, else no budget.

        Returns:
            The context card; its ``content`` is the prompt text.

        Raises:
            InvalidArgumentError: A negative count, ``max_recent_messages`` not 0 and not
                ``except_last_messages``, an unknown record type in
                ``min_relevant_results_by_type`` or a malformed filter (each a
                ``ValueError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("get_context_card", kwargs)
        return build_context_card(self._context, {
            "fallback_message_count": fallback_message_count,
            "max_relevant_results": max_relevant_results,
            "max_recent_messages": max_recent_messages,
            "except_last_messages": except_last_messages,
            "min_relevant_results_by_type": min_relevant_results_by_type,
            "metadata_filter": metadata_filter,
            "include_invalid_results": include_invalid_results,
            "token_budget": token_budget,
            "soft_token_budget": soft_token_budget,
        })

    # -- the thread's reach: this thread (ScopedOperations) -----------------------------

    def _caption(self, data: bytes, mime: ImageMimeType) -> str:
        return derived_memory.caption_with(self._context.llm, data, mime)

    def _image_scope(self, user_id: str | None | _NotSetMarker,
                     agent_id: str | None | _NotSetMarker,
                     thread_id: str | _NotSetMarker) -> RecordScope:
        """The thread's own scope, which scope arguments may only restate."""
        own = self._context.scope
        for name, value in (("user_id", user_id), ("agent_id", agent_id),
                            ("thread_id", thread_id)):
            if value is not NOT_SET_MARKER and scope_id(value, name) != own.get(name):
                raise InvalidArgumentError(
                    f"{name}={value!r} does not match this thread's {name} {own.get(name)!r}")
        return own

    def _memory_scope(self, given: RecordScope, linked: bool) -> RecordScope:
        """The thread's scope (the linked memory's, with one, left out), each dimension
        given replacing its part."""
        return RecordScope(**given) if linked else {**self._context.scope, **given}

    def _memory_thread(self, scope: RecordScope, linked: str | None,
                       requested: bool | _NotSetMarker) -> str | None:
        """The thread given, else this one (a memory linked here is one of its own)."""
        return scope.get("thread_id", self.thread_id)

    def _linking_thread(self, requested: bool | _NotSetMarker,
                        thread_id: str | None) -> str | None:
        """A thread links only its own memories: another's or none's stays unlinked."""
        linking = check_flag(value_or(requested, self.llm is not None), "autonomous_linking")
        return (thread_id if linking and self.llm is not None and thread_id == self.thread_id
                else None)

    def _link_new_memory(self, thread_id: str, memory_id: str, content: str,
                         memory_type: str) -> None:
        derived_memory.link_autonomously(self._context, memory_id, content, memory_type)

    def _search(self, query: str, values: dict[str, Any],
                options: SearchOptions) -> list[OracleSearchResult]:
        dims = scope_resolution.thread_scope(values, self.user_id, self.agent_id,
                                             self.thread_id)
        # The search itself is a memory operation, observed as the reference observes it:
        # an AgentMemory search pair inside the thread's.
        with observe_operation("agent_memory", "search", operation_kind=OperationKind.READ,
                               concrete_class="OracleAgentMemory",
                               arguments={"query": query, **values}) as operation:
            results = self._service.search(query, dims, options)
            operation.set_result(results)
            return results

    _async_twins = (
        "add_messages", "get_messages", "get_message", "update_message", "delete_message",
        "add_image", "update_image", "delete_image", "list_images",
        "add_memory", "update_memory", "delete_memory", "search", "link_records",
        "update_record_link", "delete_record_link", "get_summary", "get_context_card",
        "wait_for_memory_extraction",
    )
    _async_twin_shapes = {"get_messages": positional_or_keyword}


def open_thread(service: MemoryService, record: RecordOut, llm: ILlm | None | _NotSetMarker,
                call: SettingsLayer, *, new: bool = False) -> OracleThread:
    """A handle on a persisted thread: explicit call settings over its stored settings over
    the client's defaults. ``new``: the thread was just created (it has no message)."""
    stored = layer_from_json((record.get("config") or {}).get("settings"))
    thread = OracleThread.__new__(OracleThread)
    thread._bind(ThreadContext(
        service=service, thread_id=record["id"], user_id=record.get("user_id"),
        agent_id=record.get("agent_id"), llm=observed_llm(value_or(llm, service.llm)),
        settings=resolve_settings(call.over(stored).over(service.defaults)), persisted=True,
    ), record.get("metadata"), new)
    return thread


def link_new_memory(thread: OracleThread, memory_id: str, content: str,
                    memory_type: str) -> None:
    """Link a memory just stored in ``thread`` to related memories of it, with its LLM."""
    derived_memory.link_autonomously(thread._context, memory_id, content, memory_type)



