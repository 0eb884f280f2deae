"""ImageInputLimitConfig: defaults, ceilings, bad values and the per-request check."""

from __future__ import annotations

import pytest

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.apis.message import ImageContent, ImageMimeType, Message, TextContent
from oracleagentmemory.core import ImageInputLimitConfig, OracleAgentMemory
from oracleagentmemory.core.image_validation import validate_image
from oracleagentmemory.core.imageinputlimitconfig import (
    ABSOLUTE_IMAGE_INPUT_LIMIT_CONFIG,
    validate_image_request,
)
from tests.support.images import PNG

MIB = 1024 * 1024


def image_message(*sizes: int) -> Message:
    parts = [TextContent(text="look")]
    parts += [ImageContent(bytes=b"\0" * size, mime_type=ImageMimeType.PNG) for size in sizes]
    return Message("user", parts)


def test_unset_fields_resolve_to_the_documented_defaults():
    config = ImageInputLimitConfig()
    assert config.max_raw_image_bytes is NOT_SET_MARKER
    resolved = config.resolved()
    assert resolved.max_raw_image_bytes == 10 * MIB
    assert resolved.max_images_per_llm_request == 100
    assert resolved.max_total_raw_image_bytes_per_llm_request == 100 * MIB
    assert ImageInputLimitConfig(max_images_per_llm_request=3).resolved() \
        .max_images_per_llm_request == 3


def test_the_absolute_ceilings():
    assert ABSOLUTE_IMAGE_INPUT_LIMIT_CONFIG.max_raw_image_bytes == 32 * MIB
    assert ABSOLUTE_IMAGE_INPUT_LIMIT_CONFIG.max_images_per_llm_request == 512
    assert ABSOLUTE_IMAGE_INPUT_LIMIT_CONFIG.max_total_raw_image_bytes_per_llm_request == 256 * MIB
    ImageInputLimitConfig(max_raw_image_bytes=32 * MIB)  # the ceiling itself is allowed
    with pytest.raises(ValueError, match="max_raw_image_bytes"):
        ImageInputLimitConfig(max_raw_image_bytes=32 * MIB + 1)
    with pytest.raises(ValueError, match="max_images_per_llm_request"):
        ImageInputLimitConfig(max_images_per_llm_request=513)


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"max_raw_image_bytes": 0}, ValueError),
    ({"max_images_per_llm_request": -1}, ValueError),
    ({"max_total_raw_image_bytes_per_llm_request": 1.5}, TypeError),
    ({"max_images_per_llm_request": True}, TypeError),
])
def test_bad_values_name_the_field(kwargs, error):
    with pytest.raises(error, match=next(iter(kwargs))):
        ImageInputLimitConfig(**kwargs)


def test_the_config_is_frozen():
    with pytest.raises(AttributeError):
        ImageInputLimitConfig().max_raw_image_bytes = 5  # type: ignore[misc]


def test_a_request_within_the_limits_passes():
    config = ImageInputLimitConfig(max_images_per_llm_request=2,
                                   max_total_raw_image_bytes_per_llm_request=300).resolved()
    validate_image_request([image_message(100), image_message(200), Message("user", "hi")],
                           config)


def test_too_many_images_in_one_request():
    config = ImageInputLimitConfig(max_images_per_llm_request=2).resolved()
    with pytest.raises(ValueError, match="3 images.*max_images_per_llm_request"):
        validate_image_request([image_message(1, 1), image_message(1)], config)


def test_too_many_bytes_in_one_request_or_one_image():
    config = ImageInputLimitConfig(max_raw_image_bytes=100,
                                   max_total_raw_image_bytes_per_llm_request=150).resolved()
    with pytest.raises(ValueError, match="160 bytes.*max_total_raw_image_bytes_per_llm_request"):
        validate_image_request([image_message(80, 80)], config)
    with pytest.raises(ValueError, match="101 bytes.*max_raw_image_bytes"):
        validate_image_request([image_message(101)], config)


def test_stored_images_obey_the_raw_size_limit():
    validate_image(PNG, limits=ImageInputLimitConfig(max_raw_image_bytes=len(PNG)))
    with pytest.raises(ValueError, match="over the limit"):
        validate_image(PNG, limits=ImageInputLimitConfig(max_raw_image_bytes=len(PNG) - 1))


def test_a_thread_keeps_its_explicit_limits(embedder):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    try:
        client.create_thread(thread_id="t", user_id="u",
                             image_input_limit_config=ImageInputLimitConfig(
                                 max_raw_image_bytes=len(PNG) - 1))
        thread = client.get_thread("t")
        assert thread.settings.image_input_limit_config.resolved().max_raw_image_bytes == \
            len(PNG) - 1
        with pytest.raises(ValueError, match="over the limit"):
            thread.add_image(PNG)
    finally:
        client.close()
