"""Durable runtime settings of a thread and their resolution order.

Explicit call override > stored thread config > client default > SDK default. Only the
settings a caller set explicitly are persisted, so a later change of a client default
still reaches threads that never overrode it.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.core.extractors.memoryextractionconfig import MemoryExtractionConfig
from oracleagentmemory.core.imageinputlimitconfig import ImageInputLimitConfig
from oracleagentmemory.core.searchconfig import MemorySearchConfig

SDK_DEFAULTS: dict[str, Any] = {
    "context_card_token_limit": 100_000,
    "context_card_type_search_concurrency": 5,
    "max_message_token_length": 4_096,
    "message_shortening_input_token_limit": 30_000,
    "persist_messages_in_config": False,
}
"""Scalar settings and their SDK defaults."""

CONFIG_MODELS = {
    "memory_extraction_config": MemoryExtractionConfig,
    "image_input_limit_config": ImageInputLimitConfig,
    "search_config": MemorySearchConfig,
}
"""Grouped settings (pydantic models or dataclasses), persisted as their explicitly set fields."""

DEPRECATED_EXTRACTION_ARGUMENTS = {
    "memory_extraction_window": "memory_extraction_window",
    "memory_extraction_frequency": "memory_extraction_frequency",
    "memory_extraction_token_limit": "memory_extraction_token_limit",
    "context_summary_update_frequency": "context_summary_update_frequency",
    "enable_context_summary": "enable_context_summary",
    "memory_extraction_custom_instructions": "custom_instructions",
    "memory_extraction_inherit_message_metadata": "inherit_message_metadata",
}
"""Deprecated per-thread arguments and the MemoryExtractionConfig field each maps to."""

SETTING_NAMES = (*SDK_DEFAULTS, *CONFIG_MODELS)


def explicit_settings(arguments: dict[str, Any]) -> dict[str, Any]:
    """The JSON form of the settings a call set explicitly (deprecated arguments folded in)."""
    arguments = fold_deprecated(arguments)
    settings: dict[str, Any] = {}
    for name in SDK_DEFAULTS:
        value = arguments.get(name, NOT_SET_MARKER)
        if value is NOT_SET_MARKER:
            continue
        settings[name] = _check_scalar(name, value)
    for name, model in CONFIG_MODELS.items():
        value = arguments.get(name, NOT_SET_MARKER)
        if value is NOT_SET_MARKER or value is None:
            continue
        if isinstance(value, dict):
            value = model(**value)
        if not isinstance(value, model):
            raise TypeError(f"{name} must be a {model.__name__}, got {type(value).__name__}")
        settings[name] = (
            {item.name: getattr(value, item.name) for item in dataclasses.fields(value)
             if getattr(value, item.name) is not NOT_SET_MARKER}
            if dataclasses.is_dataclass(value)
            else value.model_dump(mode="json", exclude_none=True,
                                  exclude_unset=name != "memory_extraction_config"))
    return settings


def fold_deprecated(arguments: dict[str, Any]) -> dict[str, Any]:
    """Map deprecated extraction arguments into memory_extraction_config, with a warning."""
    given = {
        name: arguments[name]
        for name in DEPRECATED_EXTRACTION_ARGUMENTS
        if arguments.get(name, NOT_SET_MARKER) is not NOT_SET_MARKER
    }
    if not given:
        return arguments
    if arguments.get("memory_extraction_config", NOT_SET_MARKER) not in (NOT_SET_MARKER, None):
        raise ValueError(
            "pass memory_extraction_config or the deprecated extraction arguments "
            f"({', '.join(sorted(given))}), not both"
        )
    warnings.warn(
        f"{', '.join(sorted(given))} deprecated since 26.6.0 and removed in 27.1; "
        "use memory_extraction_config",
        DeprecationWarning,
        stacklevel=4,
    )
    folded = {k: v for k, v in arguments.items() if k not in DEPRECATED_EXTRACTION_ARGUMENTS}
    folded["memory_extraction_config"] = MemoryExtractionConfig(
        **{DEPRECATED_EXTRACTION_ARGUMENTS[name]: value for name, value in given.items()}
    )
    return folded


def _check_scalar(name: str, value: Any) -> Any:
    if name == "persist_messages_in_config":
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be a bool")
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if name == "context_card_type_search_concurrency" and value < 1:
        raise ValueError(f"{name} must be at least 1")
    return value


def resolve_settings(
    call: dict[str, Any], stored: dict[str, Any], client: dict[str, Any]
) -> dict[str, Any]:
    """Effective settings: each layer's explicit values over the broader ones."""
    resolved: dict[str, Any] = {}
    for name, default in SDK_DEFAULTS.items():
        resolved[name] = next(
            (layer[name] for layer in (call, stored, client) if name in layer), default
        )
    for name, model in CONFIG_MODELS.items():
        merged: dict[str, Any] = {}
        for layer in (client, stored, call):
            merged.update(layer.get(name, {}))
        resolved[name] = model(**merged)
    return resolved
