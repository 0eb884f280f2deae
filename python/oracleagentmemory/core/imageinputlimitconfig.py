"""Limits on image bytes: per image, and per LLM request (count and total size).

Why three numbers: one image's raw size bounds what a caller may store or send, while the
count and the total bound one request to a vision model (providers reject oversized
requests, and base64 data URLs grow the body by a third). Every limit has a default and an
absolute ceiling that no configuration may exceed, so a typo cannot ask for gigabytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory.apis.message import ImageContent, Message
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError

MIB = 1024 * 1024

MAX_RAW_IMAGE_BYTES_DEFAULT = 10 * MIB
MAX_RAW_IMAGE_BYTES_ABSOLUTE = 32 * MIB
MAX_IMAGES_PER_LLM_REQUEST_DEFAULT = 100
MAX_IMAGES_PER_LLM_REQUEST_ABSOLUTE = 512
MAX_TOTAL_RAW_IMAGE_BYTES_PER_LLM_REQUEST_DEFAULT = 100 * MIB
MAX_TOTAL_RAW_IMAGE_BYTES_PER_LLM_REQUEST_ABSOLUTE = 256 * MIB


@dataclass(frozen=True)
class _ResolvedImageInputLimitConfig:
    """Limits with every value decided (defaults filled in)."""

    max_raw_image_bytes: int
    max_images_per_llm_request: int
    max_total_raw_image_bytes_per_llm_request: int


ABSOLUTE_IMAGE_INPUT_LIMIT_CONFIG = _ResolvedImageInputLimitConfig(
    max_raw_image_bytes=MAX_RAW_IMAGE_BYTES_ABSOLUTE,
    max_images_per_llm_request=MAX_IMAGES_PER_LLM_REQUEST_ABSOLUTE,
    max_total_raw_image_bytes_per_llm_request=MAX_TOTAL_RAW_IMAGE_BYTES_PER_LLM_REQUEST_ABSOLUTE,
)
"""The ceilings no configuration may exceed."""

_DEFAULTS = _ResolvedImageInputLimitConfig(
    max_raw_image_bytes=MAX_RAW_IMAGE_BYTES_DEFAULT,
    max_images_per_llm_request=MAX_IMAGES_PER_LLM_REQUEST_DEFAULT,
    max_total_raw_image_bytes_per_llm_request=MAX_TOTAL_RAW_IMAGE_BYTES_PER_LLM_REQUEST_DEFAULT,
)


@dataclass(frozen=True)
class ImageInputLimitConfig:
    """Image limits; an unset field takes its ``MAX_*_DEFAULT``. Validation cannot be disabled.

    Each value must be a positive int no larger than its ``MAX_*_ABSOLUTE`` ceiling.

    Attributes:
        max_raw_image_bytes: The largest image, stored or sent. Default: 10 MiB (ceiling
            32 MiB).
        max_images_per_llm_request: Images in one LLM request at most. Default: 100
            (ceiling 512).
        max_total_raw_image_bytes_per_llm_request: Bytes of all images of one LLM
            request at most. Default: 100 MiB (ceiling 256 MiB).

    Raises:
        ArgumentTypeError: A value that is not an int (a ``TypeError``).
        InvalidArgumentError: A value below 1 or above its ceiling (a ``ValueError``).
    """

    max_raw_image_bytes: int | _NotSetMarker = NOT_SET_MARKER
    max_images_per_llm_request: int | _NotSetMarker = NOT_SET_MARKER
    max_total_raw_image_bytes_per_llm_request: int | _NotSetMarker = NOT_SET_MARKER

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if value is NOT_SET_MARKER:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise ArgumentTypeError(f"{item.name} must be an int, got {type(value).__name__}")
            ceiling = getattr(ABSOLUTE_IMAGE_INPUT_LIMIT_CONFIG, item.name)
            if not 1 <= value <= ceiling:
                raise InvalidArgumentError(
                    f"{item.name} must be between 1 and {ceiling}, got {value}")

    def resolved(self) -> _ResolvedImageInputLimitConfig:
        """The limits in force: set values, else the defaults.

        Returns:
            The three limits, each a number.
        """
        return _ResolvedImageInputLimitConfig(**{
            item.name: getattr(_DEFAULTS, item.name) if getattr(self, item.name)
            is NOT_SET_MARKER else getattr(self, item.name)
            for item in fields(self)
        })


def resolve_image_limits(
    config: ImageInputLimitConfig | _ResolvedImageInputLimitConfig | None,
) -> _ResolvedImageInputLimitConfig:
    """The limits in force for ``config`` (None: the defaults)."""
    if config is None:
        return _DEFAULTS
    if isinstance(config, ImageInputLimitConfig):
        return config.resolved()
    if isinstance(config, _ResolvedImageInputLimitConfig):
        return config
    raise ArgumentTypeError(
        f"image limits must be an ImageInputLimitConfig, got {type(config).__name__}")


def validate_image_request(
    messages: Sequence[Message],
    config: _ResolvedImageInputLimitConfig,
) -> None:
    """Check the images of one LLM request against the limits; ValueError naming the limit."""
    limits = resolve_image_limits(config)
    count = 0
    total = 0
    for message in messages:
        if isinstance(message.content, str):
            continue
        for part in message.content:
            if not isinstance(part, ImageContent) or part.bytes is None:
                continue
            size = len(part.bytes)
            if size > limits.max_raw_image_bytes:
                raise InvalidArgumentError(
                    f"an image of {size} bytes is over max_raw_image_bytes "
                    f"({limits.max_raw_image_bytes})"
                )
            count += 1
            total += size
    if count > limits.max_images_per_llm_request:
        raise InvalidArgumentError(
            f"the request has {count} images, over max_images_per_llm_request "
            f"({limits.max_images_per_llm_request})")
    if total > limits.max_total_raw_image_bytes_per_llm_request:
        raise InvalidArgumentError(
            f"the request's images total {total} bytes, over "
            f"max_total_raw_image_bytes_per_llm_request "
            f"({limits.max_total_raw_image_bytes_per_llm_request})"
        )
