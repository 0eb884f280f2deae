"""The model classes have the reference's public surface: names, parameters in order with
their kinds and defaults, abstract methods, enum values and module constants."""

from __future__ import annotations

import importlib
import inspect

import pytest

from oracleagentmemory._notset import NOT_SET_MARKER

P, K = "POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY"
ALL = {
    "oracleagentmemory.apis.llms": ["ILlm", "LlmResponse"],
    "oracleagentmemory.apis.embedders": ["IEmbedder"],
    "oracleagentmemory.core.llms": ["Llm", "LlmApiType"],
    "oracleagentmemory.core.embedders": ["Embedder", "OracleDBEmbedder"],
}
GENERATE = [("prompt", P, None), ("response_json_schema", K, None), ("kwargs", "VAR_KEYWORD")]
EMBED = [("texts", P, None), ("is_query", K, False)]
METHODS = {
    ("oracleagentmemory.apis.llms.llm", "ILlm", "generate"): GENERATE,
    ("oracleagentmemory.core.llms.llm", "Llm", "generate"): GENERATE,
    ("oracleagentmemory.apis.embedders.embedder", "IEmbedder", "embed"): EMBED,
    ("oracleagentmemory.core.embedders.embedder", "Embedder", "embed"): EMBED,
    ("oracleagentmemory.core.embedders.oracledb", "OracleDBEmbedder", "embed"): [
        ("texts", P, None), ("is_query", P, False)],
}
UNSET = NOT_SET_MARKER
CONSTRUCTORS = {
    ("oracleagentmemory.core.llms.llm", "Llm"): [
        "model", "api_base", "api_key", "api_type", "stream", "temperature", "max_tokens",
        "reasoning_effort", "enable_structured_output_reminder", "supports_vision",
        "image_input_limit_config", "max_concurrent_requests", "key_file", "cert_file",
        "ca_file", "proxy", "trust_env", "default_kwargs"],
    ("oracleagentmemory.core.embedders.embedder", "Embedder"): [
        "model", "api_base", "api_key", "embedding_dimension", "max_input_tokens", "normalize",
        "query_prefix", "document_prefix", "truncate_prompt_tokens", "key_file", "cert_file",
        "ca_file", "proxy", "trust_env", "default_kwargs"],
    ("oracleagentmemory.core.embedders.oracledb", "OracleDBEmbedder"): [
        "connection", "model", "input_name", "embedding_dimension", "max_input_tokens",
        "normalize", "query_prefix", "batch_size", "provider", "provider_options"],
    ("oracleagentmemory.core.imageinputlimitconfig", "ImageInputLimitConfig"): [
        "max_raw_image_bytes", "max_images_per_llm_request",
        "max_total_raw_image_bytes_per_llm_request"],
}
MIB = 1048576
CONSTANTS = {
    "MIB": MIB,
    "MAX_RAW_IMAGE_BYTES_DEFAULT": 10 * MIB, "MAX_RAW_IMAGE_BYTES_ABSOLUTE": 32 * MIB,
    "MAX_IMAGES_PER_LLM_REQUEST_DEFAULT": 100, "MAX_IMAGES_PER_LLM_REQUEST_ABSOLUTE": 512,
    "MAX_TOTAL_RAW_IMAGE_BYTES_PER_LLM_REQUEST_DEFAULT": 100 * MIB,
    "MAX_TOTAL_RAW_IMAGE_BYTES_PER_LLM_REQUEST_ABSOLUTE": 256 * MIB,
}


def attribute(module: str, name: str):
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("module", list(ALL))
def test_all_lists_the_reference_names(module):
    assert sorted(importlib.import_module(module).__all__) == sorted(ALL[module])


@pytest.mark.parametrize(("where", "expected"), list(METHODS.items()))
def test_method_signatures(where, expected):
    module, cls, method = where
    owner = attribute(module, cls)
    for name in (method, f"{method}_async"):
        parameters = list(inspect.signature(getattr(owner, name)).parameters.values())[1:]
        got = [(p.name, p.kind.name) + (() if p.kind is p.VAR_KEYWORD
                                        else (None if p.default is p.empty else p.default,))
               for p in parameters]
        assert got == expected, name
    assert inspect.iscoroutinefunction(getattr(owner, f"{method}_async"))


@pytest.mark.parametrize(("where", "expected"), list(CONSTRUCTORS.items()))
def test_constructors_take_the_reference_parameters_with_unset_defaults(where, expected):
    parameters = list(inspect.signature(attribute(*where).__init__).parameters.values())[1:]
    assert [p.name for p in parameters] == expected
    optional = [p for p in parameters if p.default is not p.empty]
    assert all(p.default is UNSET for p in optional if p.name != "provider_options")


def test_abstract_methods_and_the_answer_type():
    assert attribute("oracleagentmemory.apis.llms", "ILlm").__abstractmethods__ == {
        "generate", "generate_async"}
    assert attribute("oracleagentmemory.apis.embedders", "IEmbedder").__abstractmethods__ == {
        "embed", "embed_async"}
    response = attribute("oracleagentmemory.apis.llms", "LlmResponse")
    assert response.__dataclass_params__.frozen and response.__slots__ == ("text",)


def test_llm_api_type_values():
    api_type = attribute("oracleagentmemory.core.llms", "LlmApiType")
    assert {m.name: m.value for m in api_type} == {"CHAT_COMPLETIONS": "chat_completions",
                                                   "RESPONSES": "responses"}
    assert issubclass(api_type, str)


def test_type_aliases_exist():
    module = importlib.import_module("oracleagentmemory.apis.llms.llm")
    for name in ("Prompt", "ChatMessages", "ChatMessageMappingT", "ChatMessageTypedDictT"):
        assert hasattr(module, name), name
    assert module.ChatMessageTypedDictT.__required_keys__ == {"role", "content"}


@pytest.mark.parametrize(("name", "value"), list(CONSTANTS.items()))
def test_image_limit_constants(name, value):
    assert attribute("oracleagentmemory.core.imageinputlimitconfig", name) == value
