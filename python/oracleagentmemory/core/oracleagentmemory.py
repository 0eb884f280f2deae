"""OracleAgentMemory: the client every application starts from."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Literal

from oracleagentmemory._async_twins import named_only
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker, value_or
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.apis.agentmemory import IAgentMemory
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.memorystore import IMemoryStore
from oracleagentmemory.apis.message import ImageMimeType, new_id
from oracleagentmemory.apis.records import (
    AgentProfileRecord,
    ImageRecord,
    MemoryRecord,
    MessageRecord,
    RecordStatus,
    ThreadRecord,
    UserProfileRecord,
)
from oracleagentmemory.apis.relations import check_memory_link_type
from oracleagentmemory.apis.searchscope import SearchScope
from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.core import scope_resolution
from oracleagentmemory.core.arguments import (
    check_flag,
    check_timeout,
    reject_store_kwargs,
    scope_id,
    thread_key,
)
from oracleagentmemory.core.arguments import (
    check_id_argument as check_id,
)
from oracleagentmemory.core.dbschemapolicy import SchemaPolicy
from oracleagentmemory.core.dbsearch import SearchIndexSyncMode, SearchStrategy
from oracleagentmemory.core.derived_memory import caption_with
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    MemoryExtractionConfig,
    resolve_memory_extraction_config_argument,
)
from oracleagentmemory.core.image_records import describe, image_record
from oracleagentmemory.core.image_validation import validate_image
from oracleagentmemory.core.imageinputlimitconfig import ImageInputLimitConfig
from oracleagentmemory.core.links import link_changes, link_selector, new_link
from oracleagentmemory.core.memory_service import MemoryService, search_options
from oracleagentmemory.core.observation import AGENT_MEMORY_OPERATIONS, observe_methods
from oracleagentmemory.core.oracledbmemorystore import (
    OracleDBMemoryStore,
    list_limit,
    profile_record,
)
from oracleagentmemory.core.records import to_record
from oracleagentmemory.core.retention import MemoryRetentionConfig, ttl_fields
from oracleagentmemory.core.searchconfig import MemorySearchConfig, PruningMemorySearchConfig
from oracleagentmemory.core.searchresult import OracleSearchResult
from oracleagentmemory.core.store_arguments import open_store
from oracleagentmemory.core.thread import (
    OracleThread,
    link_new_memory,
    list_images,
    open_thread,
    update_image,
)
from oracleagentmemory.core.thread_settings import (
    SettingsLayer,
    layer_from_arguments,
    layer_from_json,
)
from oracleagentmemory.errors import (
    ArgumentTypeError,
    ClosedError,
    InvalidArgumentError,
    NotFoundError,
)
from oracleagentmemory.stores.errors import LinkEndNotFoundError
from oracleagentmemory.stores.protocol import RecordChanges, RecordIn, RecordOut, RecordScope

__all__ = ["DbStoreBackend", "OracleAgentMemory"]

DbStoreBackend = OracleDBMemoryStore
"""The store a client opens over a database connection (the reference's older name)."""

IMAGE_OWNER_SCOPE_REQUIRED = "An image owner scope is required."
"""The reference's words when ``list_images`` is given no owner (no user, agent or thread)."""

_THREAD_SETTINGS = ("max_message_token_length", "message_shortening_input_token_limit",
                    "context_card_token_limit", "context_card_type_search_concurrency",
                    "image_input_limit_config", "search_config")
_INLINE_EXTRACTION = ("extract_memories", "memory_extraction_window",
                      "context_summary_update_frequency", "memory_extraction_frequency",
                      "memory_extraction_token_limit", "memory_extraction_custom_instructions",
                      "memory_extraction_inherit_message_metadata", "enable_context_summary")


def _call_layer(method: str, arguments: dict[str, Any]) -> SettingsLayer:
    """The explicit thread settings of a create/get/update call."""
    extraction = resolve_memory_extraction_config_argument(
        method, arguments.get("memory_extraction_config", NOT_SET_MARKER),
        {name: arguments.get(name, NOT_SET_MARKER) for name in _INLINE_EXTRACTION})
    return layer_from_arguments({**{name: arguments.get(name, NOT_SET_MARKER)
                                    for name in _THREAD_SETTINGS},
                                 "memory_extraction_config": extraction})


CLOSED = "OracleAgentMemory is closed."
"""The reference's words for a call made after ``close()``."""


def _refused_when_closed(cls: type[OracleAgentMemory]) -> type[OracleAgentMemory]:
    """Every operation but ``close`` raises ``ClosedError`` (a ``RuntimeError``) once the
    client is closed, before it looks at its arguments: the reference does, and a closed
    store would otherwise answer with whatever the call reached first."""
    for name in AGENT_MEMORY_OPERATIONS:
        if name != "close":
            setattr(cls, name, _open_only(getattr(cls, name)))
    return cls


def _open_only(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def guarded(self: OracleAgentMemory, *args: Any, **kwargs: Any) -> Any:
        if self._closed:
            raise ClosedError(CLOSED)
        return method(self, *args, **kwargs)
    return guarded


@observe_methods("agent_memory", AGENT_MEMORY_OPERATIONS,
                 result_names={"add_memory": "memory_id"})
@_refused_when_closed
class OracleAgentMemory(IAgentMemory):
    """Agent memory client backed by Oracle AI Database, an embedded file, or a
    caller-provided store.

    Give ``connection`` (an ``oracledb`` pool or connection, an embedded file path, or
    ``":memory:"``) or ``store`` (an ``IMemoryStore``). Without ``embedder`` the local
    all-MiniLM-L6-v2 model is used, offline and on the CPU. Every argument is keyword-only;
    docs/configuration.md lists them with their defaults.

    Args:
        store: A store to work on (``OracleDBMemoryStore`` or an ``IMemoryStore`` of your
            own), instead of ``connection``.
        connection: An ``oracledb`` connection or pool (Oracle backend), a path to an
            SQLite file or ``":memory:"`` (embedded backend). A store given here counts as
            ``store``. Exactly one of the two is required.
        embedder: An ``IEmbedder``, or the name of a model an OpenAI-compatible endpoint
            serves. Default: the local all-MiniLM-L6-v2 model; with a store of your own,
            none (the store embeds).
        llm: The ``ILlm`` for extraction, summaries, topics, linking and image captions.
            Default: None (no LLM: no extraction, transcripts instead of summaries).
        memory_extraction_config: Client-wide extraction settings. Default:
            ``MemoryExtractionConfig()`` (extraction on, inline, when there is an LLM).
        image_input_limit_config: Client-wide image limits. Default:
            ``ImageInputLimitConfig()`` (10 MiB per image, 100 images and 100 MiB per LLM
            request).
        schema_policy: What to do with the store's tables on opening. Default:
            ``SchemaPolicy.CREATE_IF_NECESSARY``.
        memory_store_id: The store's name (on Oracle, the prefix of its tables and
            packages). Default: ``table_name_prefix``, else ``"AGENT_MEMORY"``.
        table_name_prefix: The reference's name for ``memory_store_id`` (give one, or both
            equal). Default: ``memory_store_id``, else ``"AGENT_MEMORY"``.
        schema_owner: Oracle only: the schema that owns the store. Default: the connected
            user.
        search_strategy: ``VECTOR``, ``KEYWORD`` or ``HYBRID``. Default:
            ``SearchStrategy.HYBRID`` (``VECTOR`` with a ``store`` of your own).
        search_index_sync: Oracle keyword and hybrid index maintenance. Default:
            ``SearchIndexSyncMode.ON_COMMIT``.
        extract_memories: False turns automatic extraction off for every thread.
            Default: True (extraction runs when there is an LLM).
        memory_extraction_custom_instructions: Deprecated (a ``DeprecationWarning``): use
            ``memory_extraction_config``. Default: None.
        memory_retention_config: Default and maximum TTL of new records. Default:
            ``MemoryRetentionConfig()`` (records never expire).
        search_config: How searches pick and refine results. Default: a
            ``PruningMemorySearchConfig`` with ``pruner_llm`` when that is given, else
            top-k with 10 results.
        pruner_llm: Without ``search_config``: every search prunes its results with this
            LLM. Default: None (no pruning).

    Raises:
        InvalidArgumentError: Neither or both of ``store`` and ``connection``, a
            ``memory_store_id`` that differs from ``table_name_prefix``, or another value
            that is not allowed (a ``ValueError``).
        ArgumentTypeError: An argument of the wrong type, such as an ``llm`` that is not
            an ``ILlm`` (a ``TypeError``).
        ValueError: An enum argument that names no member of its enum.
        SchemaError: The store's tables are missing (with
            ``SchemaPolicy.REQUIRE_EXISTING``), of another version or of another vector
            dimension (a ``RuntimeError``).
        StorageError: The embedded file cannot be opened or created (an ``OSError``).
    """

    def __init__(
        self,
        *,
        store: IMemoryStore | _NotSetMarker = NOT_SET_MARKER,
        connection: object | _NotSetMarker = NOT_SET_MARKER,
        embedder: IEmbedder | str | _NotSetMarker = NOT_SET_MARKER,
        llm: ILlm | None | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_config: MemoryExtractionConfig | _NotSetMarker = NOT_SET_MARKER,
        image_input_limit_config: ImageInputLimitConfig | _NotSetMarker = NOT_SET_MARKER,
        schema_policy: SchemaPolicy | str | _NotSetMarker = NOT_SET_MARKER,
        memory_store_id: str | _NotSetMarker = NOT_SET_MARKER,
        table_name_prefix: str | _NotSetMarker = NOT_SET_MARKER,
        schema_owner: str | _NotSetMarker = NOT_SET_MARKER,
        search_strategy: SearchStrategy | _NotSetMarker = NOT_SET_MARKER,
        search_index_sync: SearchIndexSyncMode | _NotSetMarker = NOT_SET_MARKER,
        extract_memories: bool | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_custom_instructions: str | _NotSetMarker = NOT_SET_MARKER,
        memory_retention_config: MemoryRetentionConfig | _NotSetMarker = NOT_SET_MARKER,
        search_config: MemorySearchConfig | _NotSetMarker = NOT_SET_MARKER,
        pruner_llm: ILlm | _NotSetMarker = NOT_SET_MARKER,
    ) -> None:
        for name, value in (("llm", llm), ("pruner_llm", pruner_llm)):
            if value is not NOT_SET_MARKER and value is not None and not isinstance(value, ILlm):
                raise ArgumentTypeError(f"{name} must be an ILlm, got {type(value).__name__}")
        retention = value_or(memory_retention_config, MemoryRetentionConfig())
        if not isinstance(retention, MemoryRetentionConfig):
            raise ArgumentTypeError("memory_retention_config must be a MemoryRetentionConfig")
        if search_config is NOT_SET_MARKER and not isinstance(pruner_llm, _NotSetMarker):
            search_config = PruningMemorySearchConfig(pruner=pruner_llm)
        defaults = _call_layer("OracleAgentMemory", {
            "memory_extraction_config": memory_extraction_config,
            "image_input_limit_config": image_input_limit_config,
            "search_config": search_config, "extract_memories": extract_memories,
            "memory_extraction_custom_instructions": memory_extraction_custom_instructions,
        })
        opened = open_store(
            store=store, connection=connection, embedder=embedder,
            schema_policy=schema_policy, memory_store_id=memory_store_id,
            table_name_prefix=table_name_prefix, schema_owner=schema_owner,
            search_strategy=search_strategy, search_index_sync=search_index_sync,
            retention=retention)
        self.store: IMemoryStore = opened.store
        """The store this client works on (the caller's, or the one it opened)."""
        self.embedder: IEmbedder | None = opened.embedder
        self.llm: ILlm | None = value_or(llm, None)
        self.memory_store_id: str = opened.memory_store_id
        self.memory_service = MemoryService(
            opened.backend, opened.embedder, retention=retention, strategy=opened.strategy,
            strategy_given=opened.strategy_given,
            llm=self.llm, defaults=defaults, pruner_llm=value_or(pruner_llm, None))
        self._closed = False

    @property
    def memory_retention_config(self) -> MemoryRetentionConfig:
        """The TTL defaults and ceiling this client applies to new records."""
        return self.memory_service.retention

    @property
    def search_strategy(self) -> SearchStrategy:
        """How the store ranks search results: vector, keyword or hybrid."""
        return self.memory_service.strategy

    # -- profiles ---------------------------------------------------------------------

    def add_user(self, user_id: str, information: str,
                 metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER) -> str:
        """Store a user profile; its id is the ``user_id`` the application uses.

        Args:
            user_id: The user's id, the one the application scopes records with.
            information: What is known about the user (embedded, so searches find it).
            metadata: A JSON object to filter on. Default: None.

        Returns:
            The profile's id (``user_id``).

        Raises:
            InvalidArgumentError: An empty id or ``information``, or a profile with this
                id already stored (``DuplicateRecordError``); each a ``ValueError``.
            ArgumentTypeError: An id or ``information`` that is not a str.
        """
        return self._add_profile("user_profile", "user_id", user_id, information, metadata)

    def add_agent(self, agent_id: str, information: str,
                  metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER) -> str:
        """Store an agent profile; its id is the ``agent_id`` the application uses.

        Args:
            agent_id: The agent's id, the one the application scopes records with.
            information: What the agent is and does (embedded, so searches find it).
            metadata: A JSON object to filter on. Default: None.

        Returns:
            The profile's id (``agent_id``).

        Raises:
            InvalidArgumentError: An empty id or ``information``, or a profile with this
                id already stored (``DuplicateRecordError``); each a ``ValueError``.
            ArgumentTypeError: An id or ``information`` that is not a str.
        """
        return self._add_profile("agent_profile", "agent_id", agent_id, information, metadata)

    def _add_profile(self, record_type: str, scope_key: Literal["user_id", "agent_id"],
                     profile_id: object, information: object,
                     metadata: dict[str, Any] | None | _NotSetMarker) -> str:
        record = profile_record(record_type, scope_key, profile_id, information, metadata,
                                self.memory_service.embed)
        return self.memory_service.backend.write_records([record])[0]

    def delete_user(self, user_id: str, cascade: bool = True) -> int:
        """Delete a user profile and (by default) everything scoped to the user.

        Waits first for background extraction this client accepted for the user's threads,
        so no memory of theirs is written after the delete.

        Args:
            user_id: The user whose profile to delete.
            cascade: Also delete the user's threads, messages, memories, summaries,
                images and links. Default: True.

        Returns:
            How many profiles were deleted: 1, or 0 when there was none (with
            ``cascade``, the user's records are deleted either way).

        Raises:
            InvalidArgumentError: An empty ``user_id`` (a ``ValueError``).
            ArgumentTypeError: A ``user_id`` that is not a str or a ``cascade`` that is
                not a bool.
            OperationTimeoutError: The wait for background extraction ran out (300 s).
        """
        return self._delete_owner("user", "user_id", user_id, cascade)

    def delete_agent(self, agent_id: str, cascade: bool = True) -> int:
        """Delete an agent profile and (by default) everything scoped to the agent.

        Waits first for background extraction this client accepted for the agent's threads.

        Args:
            agent_id: The agent whose profile to delete.
            cascade: Also delete the agent's threads, messages, memories, summaries,
                images and links. Default: True.

        Returns:
            How many profiles were deleted: 1, or 0 when there was none.

        Raises:
            InvalidArgumentError: An empty ``agent_id`` (a ``ValueError``).
            ArgumentTypeError: An ``agent_id`` that is not a str or a ``cascade`` that is
                not a bool.
            OperationTimeoutError: The wait for background extraction ran out (300 s).
        """
        return self._delete_owner("agent", "agent_id", agent_id, cascade)

    def _delete_owner(self, owner: Literal["user", "agent"],
                      column: Literal["user_id", "agent_id"], owner_id: object,
                      cascade: object) -> int:
        owner_key = check_id(owner_id, column)
        service = self.memory_service
        if not check_flag(cascade, "cascade"):
            return service.backend.delete_records([owner_key], [f"{owner}_profile"])
        service.wait_for_owner(column, owner_key)
        return service.backend.delete_cascade(owner, owner_key)["owner"]

    # -- threads ----------------------------------------------------------------------

    def create_thread(
        self,
        *,
        thread_id: str | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        llm: ILlm | _NotSetMarker = NOT_SET_MARKER,
        max_message_token_length: int | _NotSetMarker = NOT_SET_MARKER,
        message_shortening_input_token_limit: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_config: MemoryExtractionConfig | _NotSetMarker = NOT_SET_MARKER,
        image_input_limit_config: ImageInputLimitConfig | _NotSetMarker = NOT_SET_MARKER,
        search_config: MemorySearchConfig | _NotSetMarker = NOT_SET_MARKER,
        context_card_token_limit: int | _NotSetMarker = NOT_SET_MARKER,
        context_card_type_search_concurrency: int | _NotSetMarker = NOT_SET_MARKER,
        extract_memories: bool | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_window: int | _NotSetMarker = NOT_SET_MARKER,
        context_summary_update_frequency: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_frequency: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_token_limit: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_custom_instructions: str | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_inherit_message_metadata: bool | Sequence[str] | _NotSetMarker = (
            NOT_SET_MARKER),
        enable_context_summary: bool | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> OracleThread:
        """Create and persist a thread; omitted ids are generated.

        The settings given here are stored with the thread, so ``get_thread`` reopens it
        with them (``llm`` and ``search_config``, live objects, are not stored).

        Args:
            thread_id: The thread's id. Default: a new UUID.
            user_id: The user the thread belongs to (None: no user; an int is taken as its
                text, as for every user, agent and thread id). Default: a new UUID.
            agent_id: The agent the thread belongs to (None: no agent). Default: a new
                UUID.
            metadata: A JSON object stored with the thread. Default: None.
            llm: The LLM this thread extracts, summarises and links with. Default: the
                client's.
            max_message_token_length: A message longer than this many tokens is shortened
                (by the LLM, else cut) in extraction and summary prompts; the stored
                message is kept whole. Default: the client's, else 15,000.
            message_shortening_input_token_limit: How many tokens of an oversized message
                are sent to be shortened. Default: the client's, else 30,000.
            memory_extraction_config: The thread's extraction settings; its unset fields
                take the client's. Default: the client's.
            image_input_limit_config: The thread's image limits. Default: the client's.
            search_config: The thread's search config (kept in memory only). Default: the
                client's.
            context_card_token_limit: Token limit of the prompts that build a context
                card's summary and topics. Default: the client's, else 100,000.
            context_card_type_search_concurrency: Searches a context card runs at once for
                its per-type minimums. Default: the client's, else 5.
            extract_memories: False turns automatic extraction off for this thread.
                Default: the extraction config's (True).
            memory_extraction_window: Deprecated (a ``DeprecationWarning``): the
                ``MemoryExtractionConfig`` field of this name. Default: the config's.
            context_summary_update_frequency: Deprecated, as ``memory_extraction_window``.
            memory_extraction_frequency: Deprecated, as ``memory_extraction_window``.
            memory_extraction_token_limit: Deprecated, as ``memory_extraction_window``.
            memory_extraction_custom_instructions: Deprecated, as
                ``memory_extraction_window``.
            memory_extraction_inherit_message_metadata: Deprecated, as
                ``memory_extraction_window``.
            enable_context_summary: Deprecated, as ``memory_extraction_window``.

        Returns:
            A handle on the new thread.

        Raises:
            InvalidArgumentError: An empty id, a thread id already taken
                (``DuplicateRecordError``), both ``memory_extraction_config`` and a
                deprecated extraction argument, or another value not allowed (each a
                ``ValueError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("create_thread", kwargs)
        arguments = dict(locals())
        call = _call_layer("create_thread", arguments)
        record: RecordIn = {
            "record_type": "thread",
            "id": new_id() if value_or(thread_id, None) in (None, "") else thread_key(thread_id),
            "user_id": scope_id(user_id, "user_id") if user_id is not NOT_SET_MARKER
            else new_id(),
            "agent_id": scope_id(agent_id, "agent_id")
            if agent_id is not NOT_SET_MARKER else new_id(),
            "metadata": value_or(metadata, None),
            "config": {"settings": call.to_json(), "state": {}},
        }
        record["thread_id"] = record["id"]
        self.memory_service.backend.write_records([record])
        # the handle is opened on what was written: one store call, not a read back
        written: RecordOut = {"id": record["id"], "record_type": "thread",
                              "user_id": record["user_id"], "agent_id": record["agent_id"],
                              "thread_id": record["id"], "metadata": record["metadata"],
                              "config": record["config"]}
        return open_thread(self.memory_service, written, llm,
                           SettingsLayer(search_config=call.search_config,
                                         image_input_limit_config=call.image_input_limit_config),
                           new=True)

    def get_thread(
        self,
        thread_id: str,
        *,
        llm: ILlm | _NotSetMarker = NOT_SET_MARKER,
        max_message_token_length: int | _NotSetMarker = NOT_SET_MARKER,
        message_shortening_input_token_limit: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_config: MemoryExtractionConfig | _NotSetMarker = NOT_SET_MARKER,
        image_input_limit_config: ImageInputLimitConfig | _NotSetMarker = NOT_SET_MARKER,
        search_config: MemorySearchConfig | _NotSetMarker = NOT_SET_MARKER,
        context_card_token_limit: int | _NotSetMarker = NOT_SET_MARKER,
        context_card_type_search_concurrency: int | _NotSetMarker = NOT_SET_MARKER,
        extract_memories: bool | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_window: int | _NotSetMarker = NOT_SET_MARKER,
        context_summary_update_frequency: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_frequency: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_token_limit: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_custom_instructions: str | None | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_inherit_message_metadata: bool | Sequence[str] | _NotSetMarker = (
            NOT_SET_MARKER),
        enable_context_summary: bool | _NotSetMarker = NOT_SET_MARKER,
    ) -> OracleThread:
        """Reopen a thread; explicit arguments win over its stored runtime configuration.

        The arguments are those of ``create_thread`` and mean the same; they apply to the
        returned handle only (``update_thread`` stores settings).

        Args:
            thread_id: The thread to open.
            llm: As in ``create_thread``. Default: the client's.
            max_message_token_length: As in ``create_thread``. Default: the thread's
                stored value, else the client's, else 15,000.
            message_shortening_input_token_limit: As in ``create_thread``. Default: the
                stored value, else the client's, else 30,000.
            memory_extraction_config: As in ``create_thread``. Default: the stored
                config over the client's.
            image_input_limit_config: As in ``create_thread``. Default: the stored
                limits, else the client's.
            search_config: As in ``create_thread``. Default: the client's.
            context_card_token_limit: As in ``create_thread``. Default: the stored value,
                else the client's, else 100,000.
            context_card_type_search_concurrency: As in ``create_thread``. Default: the
                stored value, else the client's, else 5.
            extract_memories: As in ``create_thread``. Default: the stored setting.
            memory_extraction_window: Deprecated, as in ``create_thread``.
            context_summary_update_frequency: Deprecated, as in ``create_thread``.
            memory_extraction_frequency: Deprecated, as in ``create_thread``.
            memory_extraction_token_limit: Deprecated, as in ``create_thread``.
            memory_extraction_custom_instructions: Deprecated, as in ``create_thread``.
            memory_extraction_inherit_message_metadata: Deprecated, as in
                ``create_thread``.
            enable_context_summary: Deprecated, as in ``create_thread``.

        Returns:
            A handle on the stored thread.

        Raises:
            NotFoundError: No thread with this id (or it expired); a ``KeyError``.
            InvalidArgumentError: An empty ``thread_id``, or a setting not allowed (a
                ``ValueError``).
            ArgumentTypeError: A value of the wrong type.
        """
        call = _call_layer("get_thread", dict(locals()))
        return open_thread(self.memory_service, self._load_thread(thread_id), llm, call)

    def update_thread(
        self,
        thread_id: str,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        llm: ILlm | _NotSetMarker = NOT_SET_MARKER,
        extract_memories: bool | _NotSetMarker = NOT_SET_MARKER,
        max_message_token_length: int | _NotSetMarker = NOT_SET_MARKER,
        message_shortening_input_token_limit: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_window: int | _NotSetMarker = NOT_SET_MARKER,
        context_summary_update_frequency: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_frequency: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_token_limit: int | _NotSetMarker = NOT_SET_MARKER,
        context_card_token_limit: int | _NotSetMarker = NOT_SET_MARKER,
        enable_context_summary: bool | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_custom_instructions: str | None | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_inherit_message_metadata: bool | Sequence[str] | _NotSetMarker = (
            NOT_SET_MARKER),
        memory_extraction_config: MemoryExtractionConfig | _NotSetMarker = NOT_SET_MARKER,
        image_input_limit_config: ImageInputLimitConfig | _NotSetMarker = NOT_SET_MARKER,
        search_config: MemorySearchConfig | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> OracleThread:
        """Persist new metadata (replaced whole) and durable runtime settings; the thread's
        owners and its extraction state never change here.

        Args:
            thread_id: The thread to update.
            metadata: The thread's new metadata (None clears it). Default: kept.
            llm: The LLM of the returned handle (not stored). Default: the client's.
            extract_memories: As in ``create_thread``. Default: kept.
            max_message_token_length: As in ``create_thread``. Default: kept.
            message_shortening_input_token_limit: As in ``create_thread``. Default: kept.
            memory_extraction_window: Deprecated, as in ``create_thread``.
            context_summary_update_frequency: Deprecated, as in ``create_thread``.
            memory_extraction_frequency: Deprecated, as in ``create_thread``.
            memory_extraction_token_limit: Deprecated, as in ``create_thread``.
            context_card_token_limit: As in ``create_thread``. Default: kept.
            enable_context_summary: Deprecated, as in ``create_thread``.
            memory_extraction_custom_instructions: Deprecated, as in ``create_thread``.
            memory_extraction_inherit_message_metadata: Deprecated, as in
                ``create_thread``.
            memory_extraction_config: As in ``create_thread``. Default: kept.
            image_input_limit_config: As in ``create_thread``. Default: kept.
            search_config: The returned handle's search config (not stored). Default:
                the client's.

        Returns:
            A handle on the updated thread.

        Raises:
            NotFoundError: No thread with this id (or it expired); a ``KeyError``.
            InvalidArgumentError: An empty ``thread_id``, or a setting not allowed (a
                ``ValueError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("update_thread", kwargs)
        call = _call_layer("update_thread", dict(locals()))
        thread_id = thread_key(thread_id)
        record = self._load_thread(thread_id)
        stored = layer_from_json((record.get("config") or {}).get("settings"))
        # only the settings: the store keeps the rest of the config (the extraction counters
        # other clients may be counting meanwhile)
        changes: RecordChanges = {"settings": call.over(stored).to_json()}
        if not isinstance(metadata, _NotSetMarker):
            changes["metadata"] = metadata
        updated = self.memory_service.backend.update_record(thread_id, ["thread"], changes)
        if updated is None:
            raise NotFoundError(f"thread {thread_id!r} does not exist")
        return open_thread(self.memory_service, updated, llm, SettingsLayer(
            search_config=call.search_config))

    def delete_thread(self, thread_id: str) -> int:
        """Delete a thread with its messages, memories, summaries, images and links.

        Waits first for background extraction this client accepted for the thread, so no
        extracted memory lands in a deleted thread.

        Args:
            thread_id: The thread to delete.

        Returns:
            1 when the thread existed, else 0.

        Raises:
            InvalidArgumentError: An empty ``thread_id`` (a ``ValueError``).
            ArgumentTypeError: A ``thread_id`` that is neither a str nor an int.
            OperationTimeoutError: The wait for background extraction ran out (300 s).
        """
        thread_id = thread_key(thread_id)
        self.memory_service.wait_for_threads([thread_id])
        return self.memory_service.backend.delete_cascade("thread", thread_id)["owner"]

    def _load_thread(self, thread_id: Any) -> RecordOut:
        key = thread_key(thread_id)
        found = self.memory_service.find(key, ["thread"])
        if found is None:
            raise NotFoundError(f"thread {key!r} does not exist")
        return found

    # -- memories ---------------------------------------------------------------------

    def add_memory(
        self,
        content: str,
        *,
        memory_type: str | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        memory_id: str | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        status: RecordStatus | _NotSetMarker = NOT_SET_MARKER,
        autonomous_linking: bool | _NotSetMarker = NOT_SET_MARKER,
        memory_id_to_link: str | _NotSetMarker = NOT_SET_MARKER,
        link_type: str | _NotSetMarker = NOT_SET_MARKER,
        link_id: str | _NotSetMarker = NOT_SET_MARKER,
        link_timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        link_metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> str:
        """Add a memory attributed to the given user, agent and thread (each may be left
        out); optionally linked to an existing memory.

        Args:
            content: The memory's text (embedded for search).
            memory_type: ``"memory"``, ``"fact"``, ``"preference"`` or ``"guideline"``.
                Default: ``"memory"``.
            user_id: The user it is about. Default: none (with ``memory_id_to_link``,
                the linked memory's user, which also replaces None).
            agent_id: The agent it belongs to. Default: none (as ``user_id``).
            thread_id: The thread it belongs to. Default: none (as ``user_id``).
            memory_id: Its id. Default: a new UUID.
            metadata: A JSON object to filter on. Default: none.
            timestamp: Its event time, ISO-8601. Default: none (its creation time is used).
            ttl_days: Days until it expires; None: ``max_ttl_days`` (never, if unset).
                Default: the retention config's ``default_ttl_days`` (never, if unset).
            ttl_anchor: What the TTL counts from. Default: its creation time.
            status: ``RecordStatus.VALID`` or ``INVALID``. Default: valid.
            autonomous_linking: Let the LLM link it to related memories of its thread.
                Default: True when the client has an LLM and the memory has a thread,
                else False (True without a thread is an ``InvalidArgumentError``).
            memory_id_to_link: An existing memory to link it to.
            link_type: The relation to that memory (``"supports"``...).
            link_id: The relation's id. Default: a new UUID.
            link_timestamp: The relation's event time.
            link_metadata: The relation's metadata.

        Returns:
            The memory's id.

        Raises:
            InvalidArgumentError: A value that is not allowed, a ``link_type`` that is not
                a built-in ``MemoryLinkType`` ("Invalid memory link type."), an id already
                taken (``DuplicateRecordError``); each a ``ValueError``.
            LinkEndNotFoundError: A ``memory_id_to_link`` that is not a stored memory (a
                ``KeyError`` and a ``ValueError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("add_memory", store_kwargs)
        if (memory_id_to_link is NOT_SET_MARKER) != (link_type is NOT_SET_MARKER):
            raise InvalidArgumentError("memory_id_to_link and link_type must be given together")
        scope = _explicit_scope(user_id, agent_id, thread_id)
        links = []
        if memory_id_to_link is not NOT_SET_MARKER:
            check_memory_link_type(link_type)
            target = self.memory_service.find(check_id(memory_id_to_link, "memory_id_to_link"),
                                              MEMORY_TYPES)
            if target is None:
                raise LinkEndNotFoundError(f"memory_id_to_link {memory_id_to_link!r} is not a "
                                           "stored memory")
            scope = _filled_scope(scope, target)
            links.append(new_link(None, source=None,
                                  target=(target["id"], target["record_type"]),
                                  relation_type=link_type, relation_id=link_id,
                                  timestamp=value_or(link_timestamp, None),
                                  metadata=value_or(link_metadata, None)))
        owner_thread = scope.get("thread_id")
        linking = check_flag(value_or(autonomous_linking, self.llm is not None
                                      and owner_thread is not None), "autonomous_linking")
        if linking and owner_thread is None:
            raise InvalidArgumentError("autonomous_linking links memories of one thread: "
                                       "give thread_id, or add the memory through the thread")
        record = self.memory_service.memory_record(
            content, scope, memory_id=memory_id, memory_type=memory_type,
            metadata=value_or(metadata, None), timestamp=value_or(timestamp, None),
            ttl_days=ttl_days, ttl_anchor=ttl_anchor, status=status)
        new_id = self.memory_service.write_memory(record, links)
        if linking and self.llm is not None and owner_thread is not None:
            link_new_memory(self.get_thread(owner_thread), new_id, content,
                            record["record_type"])
        return new_id

    def update_memory(
        self,
        memory_id: str,
        content: str | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        status: RecordStatus | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> str:
        """Update a memory-like record; omitted fields and the scope stay as stored.

        Args:
            memory_id: The memory, fact, preference or guideline to update.
            content: Its new text (embedded again). Default: kept.
            metadata: Its new metadata, replaced whole (None clears it). Default: kept.
            timestamp: Its new event time, ISO-8601 (None clears it). Default: kept.
            ttl_days: Days until it expires, counted again from the anchor; None:
                ``max_ttl_days`` (never, if unset). Default: kept, unless ``ttl_anchor``
                is given (then the retention config's ``default_ttl_days``).
            ttl_anchor: What the TTL counts from. Default: kept, unless ``ttl_days`` is
                given (then the creation time).
            status: ``RecordStatus.VALID`` or ``INVALID``. Default: kept.

        Returns:
            The memory's id.

        Raises:
            NotFoundError: No memory-like record with this id (a ``KeyError``).
            InvalidArgumentError: An empty id or content, or another value not allowed (a
                ``ValueError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("update_memory", kwargs)
        return self.memory_service.update_memory(
            memory_id, None, content=content, metadata=metadata, timestamp=timestamp,
            ttl_days=ttl_days, ttl_anchor=ttl_anchor, status=status)

    def delete_memory(self, memory_id: str) -> int:
        """Delete a memory-like record (memory, fact, preference or guideline) by id.

        When the memory belongs to a thread, waits first for background extraction this
        client accepted for that thread.

        Args:
            memory_id: The record to delete.

        Returns:
            1 when it was deleted, 0 when there was no such record.

        Raises:
            InvalidArgumentError: An empty ``memory_id`` (a ``ValueError``).
            ArgumentTypeError: A ``memory_id`` that is not a str.
            OperationTimeoutError: The wait for background extraction ran out (300 s).
        """
        check_id(memory_id, "memory_id")
        found = self.memory_service.find(memory_id, MEMORY_TYPES)
        owner_thread = found.get("thread_id") if found is not None else None
        if owner_thread is not None:
            self.memory_service.wait_for_threads([owner_thread])
        return self.memory_service.backend.delete_records([memory_id], list(MEMORY_TYPES))

    # -- images -----------------------------------------------------------------------

    def add_image(
        self,
        image: bytes,
        description: str | None | _NotSetMarker = NOT_SET_MARKER,
        mime_type: ImageMimeType | _NotSetMarker = NOT_SET_MARKER,
        image_id: str | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> str:
        """Store an image in any scope; its description is its searchable text.

        Args:
            image: The PNG, JPEG or WebP bytes (not animated).
            description: The searchable text. Default (or None): a caption by the
                client's LLM, empty without one.
            mime_type: The image's type, checked against the bytes. Default: detected
                from the bytes.
            image_id: Its id. Default: a new UUID.
            user_id: The user it belongs to. Default: none.
            agent_id: The agent it belongs to. Default: none.
            thread_id: The thread it belongs to. Default: none.
            metadata: A JSON object to filter on. Default: None.
            timestamp: Its event time, ISO-8601. Default: none.
            ttl_days: Days until it expires; None: ``max_ttl_days`` (never, if unset).
                Default: the retention config's ``default_ttl_days`` (never, if unset).
            ttl_anchor: What the TTL counts from. Default: its creation time.

        Returns:
            The image's id.

        Raises:
            InvalidArgumentError: Empty, unsupported, animated or oversized image bytes,
                a ``mime_type`` the bytes contradict, an id already taken
                (``DuplicateRecordError``); each a ``ValueError``.
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("add_image", store_kwargs)
        scope = _explicit_scope(user_id, agent_id, thread_id)
        mime = validate_image(image, mime_type, self.memory_service.defaults
                              .image_input_limit_config or ImageInputLimitConfig())
        record = image_record(
            self.memory_service, image_id=image_id, data=image, mime=mime,
            description=describe(image, mime, description, self._caption), scope=scope,
            metadata=value_or(metadata, None), timestamp=value_or(timestamp, None),
            ttl=ttl_fields(ttl_days, ttl_anchor, self.memory_service.retention))
        return self.memory_service.backend.write_records([record])[0]

    def _caption(self, data: bytes, mime: ImageMimeType) -> str:
        return caption_with(self.llm, data, mime)

    def update_image(
        self,
        image_id: str,
        image: bytes | _NotSetMarker = NOT_SET_MARKER,
        description: str | None | _NotSetMarker = NOT_SET_MARKER,
        mime_type: ImageMimeType | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> str:
        """Update an image of any scope; omitted values are kept.

        Args:
            image_id: The image to update.
            image: New bytes; ``mime_type`` must come with them. Default: kept.
            description: A new searchable text; None: a new caption by the client's LLM.
                Default: kept.
            mime_type: The type of the new bytes. Required with ``image``, refused
                without it.
            metadata: New metadata, replaced whole (None clears it). Default: kept.
            timestamp: New event time, ISO-8601 (None clears it). Default: kept.
            ttl_days: As in ``update_memory``. Default: kept.
            ttl_anchor: As in ``update_memory``. Default: kept.

        Returns:
            The image's id.

        Raises:
            NotFoundError: No image with this id (a ``KeyError``).
            InvalidArgumentError: ``image`` without ``mime_type`` or the reverse, bytes
                not allowed, or a TTL change of an image attached to a message (change
                the message's instead); each a ``ValueError``.
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("update_image", kwargs)
        limits = self.memory_service.defaults.image_input_limit_config or ImageInputLimitConfig()
        return update_image(self.memory_service, check_id(image_id, "image_id"), None, limits,
                            self._caption, image=image, description=description,
                            mime_type=mime_type, metadata=metadata, timestamp=timestamp,
                            ttl_days=ttl_days, ttl_anchor=ttl_anchor)

    def delete_image(self, image_id: str) -> int:
        """Delete an image that is not attached to a message.

        Args:
            image_id: The image to delete.

        Returns:
            1 when it was deleted, 0 when there was no such image.

        Raises:
            AttachedImageError: The image belongs to a message (delete or update the
                message instead); a ``ValueError``.
            InvalidArgumentError: An empty ``image_id`` (a ``ValueError``).
            ArgumentTypeError: An ``image_id`` that is not a str.
        """
        check_id(image_id, "image_id")
        return self.memory_service.backend.delete_records([image_id], ["image"])

    def list_images(
        self,
        image_id: str | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        include_bytes: bool | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[ImageRecord]:
        """Images of an owner, oldest first; a given scope id matches exactly (None too).

        Give at least one of ``user_id``, ``agent_id`` and ``thread_id`` (None counts: it
        selects images without one), or ``image_id``: a listing of every image of the store
        is refused, as the reference refuses it.

        Args:
            image_id: Only this image. Default: any.
            user_id: Only images of this user (None: without a user). Default: any user.
            agent_id: Only images of this agent (None: without one). Default: any agent.
            thread_id: Only images of this thread (None: without one). Default: any
                thread.
            metadata_filter: Entries the metadata must match (docs/concepts.md,
                "Metadata filters"). Default: no filter.
            include_bytes: Load the image bytes (only with ``image_id``). Default: False.
            limit: How many images at most. Default: 100; None: no limit of its own.

        Returns:
            The images, each with its description and (when asked) its bytes.

        Raises:
            InvalidArgumentError: No owner scope and no ``image_id`` ("An image owner
                scope is required."), ``include_bytes=True`` without ``image_id``, an
                empty id or a malformed filter (each a ``ValueError``).
            ArgumentTypeError: A value of the wrong type.
        """
        scope = _given_scope(user_id, agent_id, thread_id)
        if not scope and image_id is NOT_SET_MARKER:
            raise InvalidArgumentError(IMAGE_OWNER_SCOPE_REQUIRED)
        return list_images(self.memory_service, scope, image_id, metadata_filter,
                           include_bytes, limit)

    # -- listing ----------------------------------------------------------------------

    def _list(self, record_types: Sequence[str], scope: RecordScope, metadata_filter: Any,
              limit: Any, newest: bool = False) -> list[Any]:
        """Records of a list call, oldest first; with ``newest`` a limit keeps the most
        recent ones (the reference's messages, threads and memories lists do)."""
        records = self.memory_service.backend.get_records({
            "record_types": list(record_types), **scope,
            "metadata_filter": value_or(metadata_filter, None),
            "limit": list_limit(limit), "newest": newest})
        return [to_record(record) for record in records]

    def list_threads(
        self,
        user_id: str | None,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[ThreadRecord]:
        """Threads of a user (and agent, when given), oldest first; a ``limit`` keeps the
        newest.

        Args:
            user_id: The user whose threads to list (None: threads without a user).
            agent_id: Only threads of this agent (None: without one). Default: any agent.
            metadata_filter: Entries the thread's metadata must match. Default: no
                filter.
            limit: How many at most (the most recent), 1 to 10,000. Default (or None): 10,000.

        Returns:
            The thread records, with their stored settings.

        Raises:
            InvalidArgumentError: A ``limit`` outside 1 to 10,000, an empty id, or a
                malformed filter (``InvalidFilterError``); each a ``ValueError``.
            ArgumentTypeError: A value of the wrong type.
        """
        return self._list(["thread"], _given_scope(user_id, agent_id, NOT_SET_MARKER),
                          metadata_filter, limit, newest=True)

    def list_users(self, metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
                   limit: int | None | _NotSetMarker = NOT_SET_MARKER
                   ) -> list[UserProfileRecord]:
        """User profiles, oldest first.

        Args:
            metadata_filter: Entries the profile's metadata must match. Default: no
                filter.
            limit: How many at most, 1 to 10,000. Default (or None): 10,000.

        Returns:
            The user profiles.

        Raises:
            InvalidArgumentError: A ``limit`` outside 1 to 10,000, an empty id, or a
                malformed filter (``InvalidFilterError``); each a ``ValueError``.
            ArgumentTypeError: A value of the wrong type.
        """
        return self._list(["user_profile"], {}, metadata_filter, limit)

    def list_agents(self,
                    metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
                    limit: int | None | _NotSetMarker = NOT_SET_MARKER
                    ) -> list[AgentProfileRecord]:
        """Agent profiles, oldest first.

        Args:
            metadata_filter: Entries the profile's metadata must match. Default: no
                filter.
            limit: How many at most, 1 to 10,000. Default (or None): 10,000.

        Returns:
            The agent profiles.

        Raises:
            InvalidArgumentError: A ``limit`` outside 1 to 10,000, an empty id, or a
                malformed filter (``InvalidFilterError``); each a ``ValueError``.
            ArgumentTypeError: A value of the wrong type.
        """
        return self._list(["agent_profile"], {}, metadata_filter, limit)

    def list_memories(
        self,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[MemoryRecord]:
        """Memory-like records (memories, facts, preferences, guidelines), oldest first; a
        ``limit`` keeps the newest.

        Args:
            user_id: Only records of this user (None: without a user). Default: any.
            agent_id: Only records of this agent (None: without one). Default: any.
            thread_id: Only records of this thread (None: without one). Default: any.
            metadata_filter: Entries the record's metadata must match. Default: no
                filter.
            limit: How many at most (the most recent), 1 to 10,000. Default (or None): 10,000.

        Returns:
            The records, each of the class of its type (``FactRecord``...).

        Raises:
            InvalidArgumentError: A ``limit`` outside 1 to 10,000, an empty id, or a
                malformed filter (``InvalidFilterError``); each a ``ValueError``.
            ArgumentTypeError: A value of the wrong type.
        """
        return self._list(MEMORY_TYPES, _given_scope(user_id, agent_id, thread_id),
                          metadata_filter, limit, newest=True)

    def list_messages(
        self,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
        include_image_bytes: bool | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[MessageRecord]:
        """Raw messages of any thread in scope, oldest first; a ``limit`` keeps the newest.

        Args:
            user_id: Only messages of this user (None: without a user). Default: any.
            agent_id: Only messages of this agent (None: without one). Default: any.
            thread_id: Only messages of this thread (None: without one). Default: any.
            metadata_filter: Entries the message's metadata must match. Default: no
                filter.
            limit: How many at most (the most recent), 1 to 10,000. Default (or None): 10,000.
            include_image_bytes: Accepted for compatibility; the listed messages never
                carry image bytes (``OracleThread.get_messages`` loads them).

        Returns:
            The message records.

        Raises:
            InvalidArgumentError: A ``limit`` outside 1 to 10,000, an empty id, or a
                malformed filter (``InvalidFilterError``); each a ``ValueError``.
            ArgumentTypeError: A value of the wrong type.
        """
        return self._list(["message"], _given_scope(user_id, agent_id, thread_id),
                          metadata_filter, limit, newest=True)

    # -- links ------------------------------------------------------------------------

    def link_records(
        self,
        source_record_id: str,
        source_record_type: str,
        target_record_id: str,
        target_record_type: str,
        relation_type: str,
        opposite_relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        relation_id: str | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> str:
        """Create a directed relation between two memory-like records of any threads.

        Args:
            source_record_id: The record the relation starts from.
            source_record_type: Its type (``"memory"``, ``"fact"``...).
            target_record_id: The record the relation points to.
            target_record_type: Its type.
            relation_type: The label read from source to target: a built-in
                ``MemoryLinkType`` (``"supports"``...) or a label of your own.
            opposite_relation_type: The label read from target to source; ignored for a
                built-in type, whose opposite is fixed (``"is_supported_by"``...).
                Default: the same label as ``relation_type``.
            relation_id: The relation's id. Default: a new UUID.
            timestamp: Its event time, ISO-8601. Default: none.
            metadata: A JSON object stored with it. Default: None.

        Returns:
            The relation's id.

        Raises:
            LinkEndNotFoundError: An endpoint that does not exist (a ``KeyError`` and a
                ``ValueError``).
            InvalidLinkError: An endpoint of the wrong type, a record linked to itself, an
                empty or overlong label (a ``ValueError``).
            InvalidArgumentError: An empty ``relation_id``, or an id already taken
                (``DuplicateRecordError``); each a ``ValueError``.
            ArgumentTypeError: An id that is not a str.
        """
        link = new_link(None, source=(source_record_id, source_record_type),
                        target=(target_record_id, target_record_type),
                        relation_type=relation_type, relation_id=relation_id,
                        opposite_relation_type=opposite_relation_type,
                        timestamp=value_or(timestamp, None), metadata=value_or(metadata, None))
        self.memory_service.backend.write_records([], links=[link])
        return link["id"]

    def update_record_link(
        self,
        relation_id: str,
        relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        opposite_relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> int:
        """Update a relation; omitted values are kept.

        Args:
            relation_id: The relation to update.
            relation_type: Its new label. Default: kept.
            opposite_relation_type: Its new reverse label (for a label of your own).
                Default: kept.
            timestamp: Its new event time (None clears it). Default: kept.
            metadata: Its new metadata, replaced whole (None clears it). Default: kept.

        Returns:
            1 when the relation was updated, 0 when there is none with this id.

        Raises:
            InvalidLinkError: An empty or overlong label (a ``ValueError``).
            InvalidArgumentError: An empty ``relation_id`` (a ``ValueError``).
            ArgumentTypeError: A ``relation_id`` that is not a str.
        """
        return self.memory_service.backend.update_link(
            check_id(relation_id, "relation_id"), None,
            link_changes(relation_type, opposite_relation_type, timestamp, metadata))

    def delete_record_link(
        self,
        source_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        source_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        relation_id: str | _NotSetMarker = NOT_SET_MARKER,
    ) -> int:
        """Delete a relation by id, or by its stored-direction endpoints.

        Give ``relation_id`` alone, or all five endpoint arguments without it.

        Args:
            source_record_id: The source record of the relation, as stored.
            source_record_type: The source record's type.
            target_record_id: The target record.
            target_record_type: The target record's type.
            relation_type: The relation's label.
            relation_id: The relation's id.

        Returns:
            How many relations were deleted (0 or 1).

        Raises:
            InvalidArgumentError: ``relation_id`` together with endpoint arguments, or an
                endpoint tuple with a part missing (a ``ValueError``).
        """
        return self.memory_service.backend.delete_links(link_selector(
            source_record_id, source_record_type, target_record_id, target_record_type,
            relation_type, relation_id), None)

    # -- search -----------------------------------------------------------------------

    # Returns the concrete results; IAgentMemory (like the reference) declares list[SearchResult],
    # and a list is invariant, so the narrower list is an override mypy cannot accept.
    def search(  # type: ignore[override]
        self,
        query: str,
        *,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        exact_user_match: bool | _NotSetMarker = NOT_SET_MARKER,
        exact_agent_match: bool | _NotSetMarker = NOT_SET_MARKER,
        exact_thread_match: bool | _NotSetMarker = NOT_SET_MARKER,
        max_results: int | _NotSetMarker = NOT_SET_MARKER,
        token_budget: int | _NotSetMarker = NOT_SET_MARKER,
        soft_token_budget: int | _NotSetMarker = NOT_SET_MARKER,
        record_types: list[str] | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        num_hops: int | _NotSetMarker = NOT_SET_MARKER,
        max_linked_results: int | _NotSetMarker = NOT_SET_MARKER,
        include_invalid_results: bool | _NotSetMarker = NOT_SET_MARKER,
        scope: SearchScope | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[OracleSearchResult]:
        """Search records relevant to ``query``; ``user_id`` (or a scope with it) is required.

        Args:
            query: The text to search for (embedded as a query; keyword and hybrid
                strategies also match its words).
            user_id: The user whose records to search. Required.
            agent_id: The agent whose records to search. Default: any agent.
            thread_id: The thread whose records to search. Default: any thread.
            exact_user_match: Omitted or True: a client search only returns records of
                exactly ``user_id`` (None: only records without a user); False is an
                ``InvalidArgumentError``.
            exact_agent_match: True: only records of exactly ``agent_id`` (None: only
                records without an agent); False: records of any agent, those of
                ``agent_id`` ranked higher. Default: True when ``agent_id`` is given
                (True without it is an ``InvalidArgumentError``).
            exact_thread_match: As ``exact_agent_match``, for the thread. Default: True
                when ``thread_id`` is given.
            max_results: How many results at most. Default: the search config's
                ``max_results``, else 10.
            token_budget: Cut the results once their formatted text passes this many
                tokens. Default: the search config's, else no budget.
            soft_token_budget: As ``token_budget`` but the result crossing it is kept.
                Default: the search config's, else no budget.
            record_types: Public record types to search (``"memory"``, ``"fact"``,
                ``"message"``...). Default: every searchable type.
            metadata_filter: Entries the record's metadata must match
                (docs/concepts.md, "Metadata filters"). Default: no filter.
            num_hops: How many relations to follow from each memory result (0 to 5).
                Default: 0.
            max_linked_results: Linked records kept per result. Default: 100.
            include_invalid_results: Also return records marked invalid. Default: True.
            scope: A prebuilt ``SearchScope`` instead of the six scope arguments.

        Returns:
            The results, best first (smallest ``distance``: the cosine distance to the
            query, brought closer by matching words with the hybrid strategy; see
            ``OracleSearchResult``), each with its record and the records linked to it.

        Raises:
            InvalidArgumentError: A value that is not allowed (a ``ValueError``): a
                malformed filter (``InvalidFilterError``), ``max_results`` below 1,
                ``num_hops`` out of range, a scope given twice, no ``user_id``.
            ArgumentTypeError: A value of the wrong type (a ``TypeError``).
        """
        values = scope_resolution.scope_arguments(scope, {
            "user_id": user_id, "agent_id": agent_id, "thread_id": thread_id,
            "exact_user_match": exact_user_match, "exact_agent_match": exact_agent_match,
            "exact_thread_match": exact_thread_match,
        })
        options = search_options({
            "max_results": max_results, "token_budget": token_budget,
            "soft_token_budget": soft_token_budget, "record_types": record_types,
            "metadata_filter": metadata_filter, "num_hops": num_hops,
            "max_linked_results": max_linked_results,
            "include_invalid_results": include_invalid_results,
        }, self.memory_service.defaults.search_config)
        return self.memory_service.search(query, scope_resolution.client_scope(values), options)

    # -- lifecycle --------------------------------------------------------------------

    def wait_for_memory_extraction(self, timeout: float | None = 300.0) -> None:
        """Wait for background extraction this client accepted before the call, all threads.

        Failed extraction counts as finished. Inline extraction (the default mode) has
        nothing to wait for.

        Args:
            timeout: Seconds to wait at most; None: no limit. Default: 300.

        Raises:
            OperationTimeoutError: The timeout expired first (a ``TimeoutError``).
            InvalidArgumentError: A negative ``timeout``, or one that is not a number
                (a ``ValueError``).
        """
        self.memory_service.wait_for_threads(None, timeout)

    def purge_expired(self) -> int:
        """Physically remove expired records now (reads never show them anyway).

        Returns:
            How many records were removed.

        Raises:
            StorageError: The embedded file cannot be written (an ``OSError``).
        """
        return self.memory_service.backend.purge_expired()

    def close(self, timeout: float | None = 300.0) -> None:
        """Stop accepting background work, wait for it, and release the store and the HTTP
        connections of the client's ``Llm`` and ``Embedder``. Idempotent.

        When the wait times out, jobs not finished are dropped with one WARNING naming how
        many (their messages are stored); progress is logged while waiting.

        Args:
            timeout: Seconds to wait for background work; None: no limit. Default: 300.

        Raises:
            InvalidArgumentError: A negative ``timeout`` (a ``ValueError``), checked also
                when the client is closed already.
            ArgumentTypeError: A ``timeout`` that is not a number or None.
        """
        timeout = check_timeout(timeout)
        if self._closed:
            return
        self._closed = True
        self.memory_service.close(timeout)

    def __enter__(self) -> OracleAgentMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    _async_twins = (*IAgentMemory._async_twins, "close")
    _async_twin_shapes = {"update_thread": named_only("thread_id", "metadata")}


def _given_scope(user_id: object, agent_id: object, thread_id: object) -> RecordScope:
    """The scope keys a list call was given (None included: it selects unscoped records)."""
    scope: RecordScope = {}
    if user_id is not NOT_SET_MARKER:
        scope["user_id"] = scope_id(user_id, "user_id")
    if agent_id is not NOT_SET_MARKER:
        scope["agent_id"] = scope_id(agent_id, "agent_id")
    if thread_id is not NOT_SET_MARKER:
        scope["thread_id"] = scope_id(thread_id, "thread_id")
    return scope


def _explicit_scope(user_id: object, agent_id: object, thread_id: object) -> RecordScope:
    """Every scope dimension of a new record: the given id, or None when omitted."""
    return {"user_id": scope_id(value_or(user_id, None), "user_id"),
            "agent_id": scope_id(value_or(agent_id, None), "agent_id"),
            "thread_id": scope_id(value_or(thread_id, None), "thread_id")}


def _filled_scope(scope: RecordScope, stored: RecordOut) -> RecordScope:
    """``scope`` with each dimension that is None taken from a stored record."""
    user, agent, thread = scope.get("user_id"), scope.get("agent_id"), scope.get("thread_id")
    return {"user_id": stored.get("user_id") if user is None else user,
            "agent_id": stored.get("agent_id") if agent is None else agent,
            "thread_id": stored.get("thread_id") if thread is None else thread}
