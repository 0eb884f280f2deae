"""The public API against the list of everything the reference pages document.

DOCUMENTED lists each class with its import path and, per method, the parameter names in
order (``**`` marks a documented ``**kwargs``/``**store_kwargs``) and the defaults the pages
state literally. A missing class, method, async twin, parameter or default fails here.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker

SEARCH = ["query", "user_id", "agent_id", "thread_id", "exact_user_match", "exact_agent_match",
          "exact_thread_match", "max_results", "token_budget", "soft_token_budget",
          "record_types", "metadata_filter", "include_invalid_results", "num_hops",
          "max_linked_results", "scope"]
CONTEXT_CARD = ["fallback_message_count", "max_relevant_results", "token_budget",
                "soft_token_budget", "max_recent_messages", "except_last_messages",
                "min_relevant_results_by_type", "metadata_filter", "include_invalid_results",
                "**"]
LINK_SELECTOR = ["source_record_id", "source_record_type", "target_record_id",
                 "target_record_type", "relation_type", "relation_id"]

THREAD_METHODS: dict[str, list[str]] = {
    "add_image": ["image", "description", "mime_type", "image_id", "user_id", "agent_id",
                  "thread_id", "metadata", "timestamp", "ttl_days", "ttl_anchor", "**"],
    "add_memory": ["content", "memory_type", "user_id", "agent_id", "thread_id", "memory_id",
                   "metadata", "timestamp", "ttl_days", "ttl_anchor", "status",
                   "autonomous_linking", "memory_id_to_link", "link_type", "link_id",
                   "link_timestamp", "link_metadata", "**"],
    "add_messages": ["messages", "metadata", "ttl_days", "ttl_anchor", "**"],
    "delete_image": ["image_id"],
    "delete_memory": ["memory_id"],
    "delete_message": ["message_id"],
    "delete_record_link": LINK_SELECTOR,
    "get_context_card": CONTEXT_CARD,
    "get_message": ["message_id", "included_image_ids"],
    "get_messages": ["start", "end", "include_image_bytes"],
    "get_summary": ["except_last", "token_budget", "**"],
    "link_records": ["source_record_id", "source_record_type", "target_record_id",
                     "target_record_type", "relation_type", "opposite_relation_type",
                     "relation_id", "timestamp", "metadata"],
    "list_images": ["image_id", "metadata_filter", "include_bytes", "limit"],
    "search": SEARCH,
    "update_image": ["image_id", "image", "description", "mime_type", "metadata", "timestamp",
                     "ttl_days", "ttl_anchor", "**"],
    "update_memory": ["memory_id", "content", "metadata", "timestamp", "ttl_days", "ttl_anchor",
                      "status", "**"],
    "update_message": ["message_id", "content", "metadata", "ttl_days", "ttl_anchor", "**"],
    "update_record_link": ["relation_id", "relation_type", "opposite_relation_type",
                           "timestamp", "metadata"],
    "wait_for_memory_extraction": ["timeout"],
}
THREAD_INIT = ["store", "thread_id", "user_id", "agent_id", "metadata",
               "persist_messages_in_config", "llm", "memory_extraction_config",
               "image_input_limit_config", "memory_extraction_window",
               "context_summary_update_frequency", "memory_extraction_frequency",
               "memory_extraction_token_limit", "context_card_token_limit",
               "context_card_type_search_concurrency", "max_message_token_length",
               "message_shortening_input_token_limit", "enable_context_summary",
               "memory_extraction_custom_instructions",
               "memory_extraction_inherit_message_metadata", "search_config", "client"]
CLIENT_METHODS: dict[str, list[str] | None] = {
    "add_agent": None, "add_memory": None, "add_user": None, "close": [],
    "create_thread": None, "delete_agent": None, "delete_memory": None,
    "delete_thread": None, "delete_user": None, "get_thread": None, "search": SEARCH,
    "update_memory": None, "update_thread": None, "wait_for_memory_extraction": ["timeout"],
}
CLIENT_ASYNC = ["add_memory", "close", "delete_memory", "search", "update_memory",
                "wait_for_memory_extraction"]
CLIENT_INIT = ["connection", "embedder", "llm", "memory_extraction_config", "schema_policy",
               "search_strategy", "search_index_sync"]
DEFAULTS = {
    ("OracleThread", "wait_for_memory_extraction", "timeout"): 300,
    ("OracleAgentMemory", "wait_for_memory_extraction", "timeout"): 300,
    ("OracleThread", "get_messages", "include_image_bytes"): False,
    ("OracleThread", "list_images", "include_bytes"): False,
}
CLASSES = {
    "oracleagentmemory.core": ["OracleAgentMemory", "OracleThread", "OracleSearchResult",
                               "MemoryExtractionConfig", "MemoryExtractionMode",
                               "BackgroundExtractionQueueFullBehavior", "SchemaPolicy",
                               "SearchStrategy", "SearchIndexSyncMode", "TimeToLiveAnchor",
                               "MemoryRetentionConfig", "RecordStatus", "ImageInputLimitConfig",
                               "MemorySearchConfig"],
    "oracleagentmemory.apis.scope": ["Scope", "NOT_SET_MARKER"],
    "oracleagentmemory.apis.searchscope": ["SearchScope", "NOT_SET_MARKER"],
    "oracleagentmemory.apis.thread": ["IThread", "Message"],
    "oracleagentmemory.apis.message": ["Message", "MessageContent", "TextContent",
                                       "ImageContent", "ImageMimeType"],
    "oracleagentmemory.apis.contextcard": ["ContextCard"],
    "oracleagentmemory.apis.summary": ["Summary"],
    "oracleagentmemory.core.contextcard": ["OracleContextCard"],
    "oracleagentmemory.core.summary": ["OracleSummary"],
    "oracleagentmemory.core.embedders": ["OracleDBEmbedder"],
    "oracleagentmemory._notset": ["_NotSetMarker"],
}
CONSTRUCTORS = {
    ("oracleagentmemory.apis.message", "Message"): ["role", "content", "timestamp", "metadata",
                                                    "id"],
    ("oracleagentmemory.apis.message", "TextContent"): ["text", "id", "timestamp"],
    ("oracleagentmemory.apis.message", "ImageContent"): ["bytes", "mime_type", "description",
                                                         "id", "timestamp"],
    ("oracleagentmemory.core.contextcard", "OracleContextCard"): [
        "summary", "topics", "relevant_results", "recent_messages", "message_format"],
    ("oracleagentmemory.core.summary", "OracleSummary"): ["content"],
    ("oracleagentmemory.core", "OracleSearchResult"): ["distance", "record", "id"],
    ("oracleagentmemory.apis.scope", "Scope"): ["user_id", "agent_id", "thread_id"],
    ("oracleagentmemory.apis.searchscope", "SearchScope"): [
        "user_id", "agent_id", "thread_id", "exact_user_match", "exact_agent_match",
        "exact_thread_match"],
    ("oracleagentmemory.core.embedders", "OracleDBEmbedder"): ["connection", "model",
                                                               "embedding_dimension"],
}
ENUMS = {
    "MemoryExtractionMode": {"INLINE": "INLINE", "BACKGROUND": "BACKGROUND"},
    "BackgroundExtractionQueueFullBehavior": {"DROP": "DROP", "WAIT_THEN_DROP": "WAIT_THEN_DROP",
                                              "WAIT_THEN_RAISE": "WAIT_THEN_RAISE"},
    "TimeToLiveAnchor": {"CREATED_AT": "CREATED_AT", "TIMESTAMP": "TIMESTAMP"},
}
ENUM_MEMBERS = {
    "SchemaPolicy": {"CREATE_IF_NECESSARY", "NO_CHECK"},
    "SearchStrategy": {"HYBRID"},
    "SearchIndexSyncMode": {"ON_COMMIT"},
    "RecordStatus": {"VALID"},
}


def parameter_names(function) -> list[str]:
    names = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.name == "self":
            continue
        names.append("**" if parameter.kind is parameter.VAR_KEYWORD else parameter.name)
    return names


@pytest.mark.parametrize(("module", "name"), [(m, n) for m, ns in CLASSES.items() for n in ns])
def test_documented_names_import(module, name):
    assert hasattr(importlib.import_module(module), name)


def _core(name):
    return getattr(importlib.import_module("oracleagentmemory.core"), name)


@pytest.mark.parametrize("method", list(THREAD_METHODS))
def test_thread_method_and_async_twin(method):
    cls = _core("OracleThread")
    for name in (method, f"{method}_async"):
        assert callable(getattr(cls, name, None)), f"OracleThread.{name} is missing"
        assert parameter_names(getattr(cls, name)) == THREAD_METHODS[method]
    assert inspect.iscoroutinefunction(getattr(cls, f"{method}_async"))


@pytest.mark.parametrize("method", list(CLIENT_METHODS))
def test_client_method(method):
    cls = _core("OracleAgentMemory")
    assert callable(getattr(cls, method, None))
    expected = CLIENT_METHODS[method]
    if expected is not None:
        assert parameter_names(getattr(cls, method)) == expected
    if method in CLIENT_ASYNC:
        assert inspect.iscoroutinefunction(getattr(cls, f"{method}_async"))


def test_constructors():
    assert parameter_names(_core("OracleThread").__init__)[: len(THREAD_INIT)] == THREAD_INIT
    assert parameter_names(_core("OracleAgentMemory").__init__)[: len(CLIENT_INIT)] == CLIENT_INIT
    for (module, name), expected in CONSTRUCTORS.items():
        cls = getattr(importlib.import_module(module), name)
        parameters = inspect.signature(cls.__init__).parameters
        assert set(expected) <= set(parameters), name
        extras = [p for n, p in parameters.items() if n not in expected and n != "self"]
        assert all(p.default is not p.empty for p in extras), name  # extensions are optional


def test_documented_defaults():
    for (cls_name, method, parameter), default in DEFAULTS.items():
        signature = inspect.signature(getattr(_core(cls_name), method))
        assert signature.parameters[parameter].default == default, (cls_name, method)


def test_omitted_state_is_the_not_set_marker():
    assert isinstance(NOT_SET_MARKER, _NotSetMarker)
    signature = inspect.signature(_core("OracleThread").search)
    for name in SEARCH[1:]:
        if name != "metadata_filter":
            assert signature.parameters[name].default is NOT_SET_MARKER, name


def test_enums_are_str_enums_with_documented_values():
    for name, members in ENUMS.items():
        enum = _core(name)
        assert issubclass(enum, str)
        assert {m.name: m.value for m in enum} == members
    for name, members in ENUM_MEMBERS.items():
        assert members <= {m.name for m in _core(name)}
    mime = importlib.import_module("oracleagentmemory.apis.message").ImageMimeType
    assert {m.name for m in mime} == {"JPEG", "PNG", "WEBP"}
    assert all(m.value.lower().startswith("image/") for m in mime)


def test_search_result_properties_exist():
    cls = _core("OracleSearchResult")
    for name in ("distance", "record", "id", "content", "metadata", "timestamp",
                 "formatted_content"):
        assert isinstance(getattr(cls, name), property), name
