"""Durable runtime settings of a thread and their resolution order.

Explicit call override > stored thread config > client default > SDK default. Only the
settings a caller set explicitly are persisted (as JSON in the thread record), so a later
change of a client default still reaches threads that never overrode it. Runtime objects
(the LLM, a search config's reranker or pruner) are never persisted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    MemoryExtractionConfig,
    ResolvedExtractionConfig,
    extraction_config_from_json,
    extraction_config_to_json,
    resolve_extraction_config,
)
from oracleagentmemory.core.extractors.shortening import (
    MAX_MESSAGE_TOKEN_LENGTH_DEFAULT,
    MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT,
)
from oracleagentmemory.core.imageinputlimitconfig import ImageInputLimitConfig
from oracleagentmemory.core.searchconfig import MemorySearchConfig
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError

CONTEXT_CARD_TOKEN_LIMIT_DEFAULT = 100_000
CONTEXT_CARD_TYPE_SEARCH_CONCURRENCY_DEFAULT = 5

SDK_DEFAULTS: dict[str, Any] = {
    "context_card_token_limit": CONTEXT_CARD_TOKEN_LIMIT_DEFAULT,
    "context_card_type_search_concurrency": CONTEXT_CARD_TYPE_SEARCH_CONCURRENCY_DEFAULT,
    "max_message_token_length": MAX_MESSAGE_TOKEN_LENGTH_DEFAULT,
    "message_shortening_input_token_limit": MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT,
}
"""Scalar settings and their SDK defaults."""

SCALAR_SETTINGS = tuple(SDK_DEFAULTS)


@dataclass(frozen=True)
class ThreadSettings:
    """A thread's effective settings, every one concrete."""

    context_card_token_limit: int = CONTEXT_CARD_TOKEN_LIMIT_DEFAULT
    context_card_type_search_concurrency: int = CONTEXT_CARD_TYPE_SEARCH_CONCURRENCY_DEFAULT
    max_message_token_length: int = MAX_MESSAGE_TOKEN_LENGTH_DEFAULT
    message_shortening_input_token_limit: int = MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT
    extraction: ResolvedExtractionConfig = field(default_factory=ResolvedExtractionConfig)
    memory_extraction_config: MemoryExtractionConfig = field(
        default_factory=MemoryExtractionConfig)
    """The merged config the caller sees (only set fields); ``extraction`` is its resolution."""
    image_input_limit_config: ImageInputLimitConfig = field(
        default_factory=ImageInputLimitConfig)
    search_config: MemorySearchConfig | None = None
    """None: the default top-k search."""


@dataclass(frozen=True)
class SettingsLayer:
    """The settings one layer (call, stored thread, client) set explicitly."""

    scalars: dict[str, int] = field(default_factory=dict)
    extraction: MemoryExtractionConfig | None = None
    image_input_limit_config: ImageInputLimitConfig | None = None
    search_config: MemorySearchConfig | None = None

    def to_json(self) -> dict[str, Any]:
        """What a thread record stores: scalars and the extraction config's set fields."""
        stored: dict[str, Any] = dict(self.scalars)
        if self.extraction is not None:
            stored["memory_extraction_config"] = extraction_config_to_json(self.extraction)
        if self.image_input_limit_config is not None:
            stored["image_input_limit_config"] = _explicit_fields(self.image_input_limit_config)
        return stored

    def over(self, broader: SettingsLayer) -> SettingsLayer:
        """This layer's explicit values on top of a broader layer's."""
        extraction = self.extraction
        if broader.extraction is not None and extraction is not None:
            extraction = MemoryExtractionConfig(**{
                **extraction_config_to_json(broader.extraction),
                **extraction_config_to_json(extraction)})
        return SettingsLayer(
            scalars={**broader.scalars, **self.scalars},
            extraction=extraction if extraction is not None else broader.extraction,
            image_input_limit_config=(self.image_input_limit_config
                                      or broader.image_input_limit_config),
            search_config=self.search_config or broader.search_config,
        )


def layer_from_arguments(arguments: Mapping[str, Any]) -> SettingsLayer:
    """The explicit settings of one call (NOT_SET_MARKER values are left out)."""
    scalars = {}
    for name in SCALAR_SETTINGS:
        value = arguments.get(name, NOT_SET_MARKER)
        if value is not NOT_SET_MARKER:
            scalars[name] = _check_scalar(name, value)
    extraction = arguments.get("memory_extraction_config", NOT_SET_MARKER)
    if extraction is not NOT_SET_MARKER and extraction is not None and not isinstance(
            extraction, MemoryExtractionConfig):
        raise ArgumentTypeError("memory_extraction_config must be a MemoryExtractionConfig, got "
                        f"{type(extraction).__name__}")
    images = arguments.get("image_input_limit_config", NOT_SET_MARKER)
    if images is not NOT_SET_MARKER and images is not None and not isinstance(
            images, ImageInputLimitConfig):
        raise ArgumentTypeError("image_input_limit_config must be an ImageInputLimitConfig, got "
                        f"{type(images).__name__}")
    search = arguments.get("search_config", NOT_SET_MARKER)
    if search is not NOT_SET_MARKER and search is not None and not isinstance(
            search, MemorySearchConfig):
        raise ArgumentTypeError(f"search_config must be a MemorySearchConfig, got "
                        f"{type(search).__name__}")
    return SettingsLayer(
        scalars=scalars,
        extraction=extraction if isinstance(extraction, MemoryExtractionConfig) else None,
        image_input_limit_config=images if isinstance(images, ImageInputLimitConfig) else None,
        search_config=search if isinstance(search, MemorySearchConfig) else None,
    )


def layer_from_json(stored: Mapping[str, Any] | None) -> SettingsLayer:
    """The layer a thread record stores; unknown or malformed entries are ignored."""
    stored = stored or {}
    scalars = {name: stored[name] for name in SCALAR_SETTINGS
               if isinstance(stored.get(name), int) and not isinstance(stored.get(name), bool)}
    extraction = stored.get("memory_extraction_config")
    images = stored.get("image_input_limit_config")
    return SettingsLayer(
        scalars=scalars,
        extraction=extraction_config_from_json(extraction)
        if isinstance(extraction, Mapping) else None,
        image_input_limit_config=_image_limits(images) if isinstance(images, Mapping) else None,
    )


def resolve_settings(layer: SettingsLayer) -> ThreadSettings:
    """Effective settings from a fully merged layer, over the SDK defaults."""
    extraction = layer.extraction or MemoryExtractionConfig()
    return ThreadSettings(
        **{**SDK_DEFAULTS, **layer.scalars},
        extraction=resolve_extraction_config(extraction),
        memory_extraction_config=extraction,
        image_input_limit_config=layer.image_input_limit_config or ImageInputLimitConfig(),
        search_config=layer.search_config,
    )


def _explicit_fields(config: Any) -> dict[str, Any]:
    """The fields a config object was given (dataclass with NOT_SET_MARKER defaults)."""
    return {f.name: getattr(config, f.name) for f in fields(config)
            if getattr(config, f.name) is not NOT_SET_MARKER}


def _image_limits(data: Mapping[str, Any]) -> ImageInputLimitConfig | None:
    try:
        return ImageInputLimitConfig(**data)
    except (TypeError, ValueError):
        return None  # stored by another version: fall back to the broader layers


def _check_scalar(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"{name} must be an int, got {type(value).__name__}")
    if name == "context_card_type_search_concurrency" and value < 1:
        raise InvalidArgumentError(f"{name} must be at least 1, got {value}")
    return value
