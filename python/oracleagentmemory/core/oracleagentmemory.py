"""OracleAgentMemory: the client every application starts from."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Literal

from oracleagentmemory._async_twins import named_only
from oracleagentmemory._ids import new_id
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker, value_or
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.apis.agentmemory import IAgentMemory
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.memorystore import IMemoryStore
from oracleagentmemory.apis.message import ImageMimeType
from oracleagentmemory.apis.records import (
    AgentProfileRecord,
    ImageRecord,
    MemoryRecord,
    MessageRecord,
    ThreadRecord,
    UserProfileRecord,
)
from oracleagentmemory.core import scope_resolution
from oracleagentmemory.core.arguments import (
    check_flag,
    check_id_argument,
    check_timeout,
    reject_store_kwargs,
    scope_id,
    thread_key,
)
from oracleagentmemory.core.dbschemapolicy import SchemaPolicy
from oracleagentmemory.core.dbsearch import SearchIndexSyncMode, SearchStrategy
from oracleagentmemory.core.derived_memory import caption_with
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    MemoryExtractionConfig,
    resolve_memory_extraction_config_argument,
)
from oracleagentmemory.core.imageinputlimitconfig import ImageInputLimitConfig
from oracleagentmemory.core.memory_service import MemoryService, SearchOptions
from oracleagentmemory.core.observation import AGENT_MEMORY_OPERATIONS, observe_methods
from oracleagentmemory.core.oracledbmemorystore import (
    OracleDBMemoryStore,
    list_limit,
    profile_record,
)
from oracleagentmemory.core.records import to_record
from oracleagentmemory.core.retention import MemoryRetentionConfig
from oracleagentmemory.core.scoped_operations import ScopedOperations, given_scope
from oracleagentmemory.core.searchconfig import MemorySearchConfig, PruningMemorySearchConfig
from oracleagentmemory.core.searchresult import OracleSearchResult
from oracleagentmemory.core.store_arguments import open_store
from oracleagentmemory.core.thread import OracleThread, link_new_memory, open_thread
from oracleagentmemory.core.thread_settings import (
    SettingsLayer,
    layer_from_arguments,
)
from oracleagentmemory.errors import (
    ArgumentTypeError,
    ClosedError,
    InvalidArgumentError,
    NotFoundError,
)
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
class OracleAgentMemory(IAgentMemory, ScopedOperations):
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
        # ScopedOperations: the client reaches every record of its store
        self._service = self.memory_service
        self._own_thread = self._write_thread = None
        self._image_limits = defaults.image_input_limit_config or ImageInputLimitConfig()
        self._search_config = defaults.search_config

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
        owner_key = check_id_argument(owner_id, column)
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
        # The call's settings, which the store layers over the stored ones in the update
        # (as ``call.over(stored)``) and keeps the rest of the config: settings or counters
        # another client writes meanwhile are never lost.
        changes: RecordChanges = {"settings": call.to_json()}
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

    def _load_thread(self, thread_id: str) -> RecordOut:
        key = thread_key(thread_id)
        found = self.memory_service.find(key, ["thread"])
        if found is None:
            raise NotFoundError(f"thread {key!r} does not exist")
        return found

    # -- images -----------------------------------------------------------------------

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
        scope = given_scope(user_id, agent_id, thread_id)
        if not scope and image_id is NOT_SET_MARKER:
            raise InvalidArgumentError(IMAGE_OWNER_SCOPE_REQUIRED)
        return self._list_images(scope, image_id, metadata_filter, include_bytes, limit)

    # -- listing ----------------------------------------------------------------------

    def _list(self, record_types: Sequence[str], scope: RecordScope,
              metadata_filter: dict[str, Any] | None | _NotSetMarker,
              limit: int | None | _NotSetMarker, newest: bool = False) -> list[Any]:
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
        return self._list(["thread"], given_scope(user_id, agent_id, NOT_SET_MARKER),
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
        return self._list(MEMORY_TYPES, given_scope(user_id, agent_id, thread_id),
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
        return self._list(["message"], given_scope(user_id, agent_id, thread_id),
                          metadata_filter, limit, newest=True)

    # -- lifecycle --------------------------------------------------------------------

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

    # -- the client's reach: the whole store (ScopedOperations) -------------------------

    def _caption(self, data: bytes, mime: ImageMimeType) -> str:
        return caption_with(self.llm, data, mime)

    def _image_scope(self, user_id: str | None | _NotSetMarker,
                     agent_id: str | None | _NotSetMarker,
                     thread_id: str | _NotSetMarker) -> RecordScope:
        """Every scope dimension: the one given, or None."""
        return _every_dimension(given_scope(user_id, agent_id, thread_id))

    def _memory_scope(self, given: RecordScope, linked: bool) -> RecordScope:
        """The dimensions given (None where omitted); with a linked memory, each that is
        None is left out (the linked memory's)."""
        if not linked:
            return _every_dimension(given)
        kept: RecordScope = {}
        if given.get("user_id") is not None:
            kept["user_id"] = given["user_id"]
        if given.get("agent_id") is not None:
            kept["agent_id"] = given["agent_id"]
        if given.get("thread_id") is not None:
            kept["thread_id"] = given["thread_id"]
        return kept

    def _memory_thread(self, scope: RecordScope, linked: str | None,
                       requested: bool | _NotSetMarker) -> str | None:
        """The thread given; else the linked memory's, read first only when the memory may be
        linked autonomously (then several calls follow anyway)."""
        if linked is None or "thread_id" in scope or (
                self.llm is None and requested is not True):
            return scope.get("thread_id")
        found = self.memory_service.find(linked, MEMORY_TYPES)
        if found is None:
            raise self._not_linkable(linked)
        return found.get("thread_id")

    def _linking_thread(self, requested: bool | _NotSetMarker,
                        thread_id: str | None) -> str | None:
        """Linking happens in the memory's own thread; a memory without one cannot be."""
        linking = check_flag(value_or(requested, self.llm is not None and thread_id is not None),
                             "autonomous_linking")
        if linking and thread_id is None:
            raise InvalidArgumentError("autonomous_linking links memories of one thread: "
                                       "give thread_id, or add the memory through the thread")
        return thread_id if linking and self.llm is not None else None

    def _link_new_memory(self, thread_id: str, memory_id: str, content: str,
                         memory_type: str) -> None:
        link_new_memory(self.get_thread(thread_id), memory_id, content, memory_type)

    def _search(self, query: str, values: dict[str, Any],
                options: SearchOptions) -> list[OracleSearchResult]:
        return self.memory_service.search(query, scope_resolution.client_scope(values), options)

    _async_twins = (*IAgentMemory._async_twins, "close")
    _async_twin_shapes = {"update_thread": named_only("thread_id", "metadata")}


def _every_dimension(given: RecordScope) -> RecordScope:
    """Every scope dimension of a new record: the given id, or None when omitted."""
    return {"user_id": given.get("user_id"), "agent_id": given.get("agent_id"),
            "thread_id": given.get("thread_id")}
