"""Images: type detection and validation, the thread image API, images inside messages."""

from __future__ import annotations

import pytest

from oracleagentmemory.apis.message import ImageContent, ImageMimeType, TextContent
from oracleagentmemory.apis.records import ImageRecord
from oracleagentmemory.core import ImageInputLimitConfig, OracleAgentMemory, image_validation
from oracleagentmemory.core.image_validation import detect_mime_type, validate_image
from tests.support.images import JPEG, PNG, WEBP, image_bytes


@pytest.fixture
def thread(embedder):
    client = OracleAgentMemory(connection=":memory:", embedder=embedder)
    yield client.create_thread(thread_id="t", user_id="u", agent_id="a")
    client.close()


@pytest.mark.parametrize(("data", "mime"), [(PNG, ImageMimeType.PNG),
                                            (JPEG, ImageMimeType.JPEG),
                                            (WEBP, ImageMimeType.WEBP)])
def test_type_is_detected_and_declared_type_must_match(data, mime):
    assert detect_mime_type(data) is mime
    assert validate_image(data) is mime
    assert validate_image(data, mime.value) is mime
    other = ImageMimeType.JPEG if mime is not ImageMimeType.JPEG else ImageMimeType.PNG
    with pytest.raises(ValueError, match="mime_type"):
        validate_image(data, other)


@pytest.mark.parametrize("fmt", ["PNG", "WEBP"])
def test_animated_images_are_rejected(fmt):
    with pytest.raises(ValueError, match="animated"):
        validate_image(image_bytes(fmt, frames=3))


def test_lossless_webp_and_sizes_are_read(monkeypatch):
    monkeypatch.setattr(image_validation, "MAX_IMAGE_WIDTH", 10)
    monkeypatch.setattr(image_validation, "MAX_IMAGE_HEIGHT", 10)
    validate_image(image_bytes("WEBP", (10, 10)))
    for fmt in ("PNG", "JPEG", "WEBP"):
        with pytest.raises(ValueError, match="11x10 pixels"):
            validate_image(image_bytes(fmt, (11, 10)))


@pytest.mark.parametrize("data", [PNG[:20], JPEG[:10], WEBP[:18], b"GIF89a" + b"\0" * 20,
                                  b"", b"\x89PNG\r\n\x1a\n"])
def test_corrupt_or_truncated_bytes_are_rejected(data):
    with pytest.raises(ValueError):
        validate_image(data)


def test_size_limit():
    with pytest.raises(ValueError, match="bytes, over the limit"):
        validate_image(PNG, limits=ImageInputLimitConfig(max_raw_image_bytes=len(PNG) - 1))


def test_add_list_update_delete_image(thread):
    image_id = thread.add_image(PNG, description="a red square", metadata={"k": 1},
                                image_id="img-1")
    assert image_id == "img-1"
    [listed] = thread.list_images()
    assert isinstance(listed, ImageRecord)
    assert (listed.content, listed.mime_type, listed.bytes) == ("a red square",
                                                                    "image/png", None)
    assert thread.list_images(image_id="img-1", include_bytes=True)[0].bytes == PNG
    with pytest.raises(ValueError, match="include_bytes"):
        thread.list_images(include_bytes=True)
    assert [r.id for r in thread.search("red square", record_types=["image"])] == ["img-1"]

    assert thread.update_image("img-1", image=JPEG, mime_type="image/jpeg",
                               description="a blue square") == "img-1"
    updated = thread.list_images(image_id="img-1", include_bytes=True)[0]
    assert (updated.bytes, updated.mime_type, updated.content) == (JPEG, "image/jpeg",
                                                                        "a blue square")
    with pytest.raises(ValueError, match="mime_type"):
        thread.update_image("img-1", image=PNG)
    assert thread.delete_image("img-1") == 1
    assert thread.delete_image("img-1") == 0
    assert thread.list_images() == []


def test_image_scope_claims_must_match_the_thread(thread):
    with pytest.raises(ValueError, match="user_id"):
        thread.add_image(PNG, description="x", user_id="someone-else")
    assert thread.add_image(PNG, description="x", user_id="u", thread_id="t")


def test_message_with_image_parts(thread):
    [message_id] = thread.add_messages([{
        "role": "user",
        "content": [{"type": "text", "text": "look at this"},
                    {"type": "image", "bytes": PNG, "description": "a chart", "id": "pic"}],
    }])
    message = thread.get_message(message_id)
    text, image = message.content
    assert isinstance(text, TextContent) and text.text == "look at this"
    assert isinstance(image, ImageContent)
    assert (image.id, image.bytes, image.mime_type, image.description) == (
        "pic", None, ImageMimeType.PNG, "a chart")
    assert thread.get_message(message_id, included_image_ids=["pic"]).content[1].bytes == PNG
    assert thread.get_messages(include_image_bytes=True)[-1].content[1].bytes == PNG
    with pytest.raises(ValueError, match="attached"):
        thread.delete_image("pic")
    with pytest.raises(ValueError, match="update_message"):
        thread.update_image("pic", ttl_days=3)

    thread.update_message(message_id, content=[
        TextContent(text="now a photo"),
        ImageContent(bytes=JPEG, mime_type=ImageMimeType.JPEG, id="photo")])
    assert [img.id for img in thread.list_images()] == ["photo"]
    thread.update_message(message_id, ttl_days=5)
    backend = thread._service.backend
    [photo] = backend.get_records({"record_types": ["image"]})
    [stored] = backend.get_records({"ids": [message_id], "record_types": ["message"]})
    assert photo["expires_at"] == stored["expires_at"] is not None
    assert thread.delete_message(message_id) == 1
    assert thread.list_images() == []


def test_invalid_image_in_a_message_batch_stores_nothing(thread):
    with pytest.raises(ValueError, match="animated"):
        thread.add_messages([
            {"role": "user", "content": "first"},
            {"role": "user", "content": [{"type": "image", "bytes": image_bytes("PNG",
                                                                              frames=2)}]},
        ])
    assert thread.get_messages() == []
