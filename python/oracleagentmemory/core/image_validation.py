"""Image bytes: type detection, validation and limits, read from the headers alone.

Only still PNG, JPEG and WebP images are accepted; animated PNG (an ``acTL`` chunk) and
animated WebP (the VP8X animation flag or an ``ANIM`` chunk) are rejected, as are images
whose bytes do not match the declared type, truncated headers, and images over the
configured size limit or the fixed pixel limits below.
"""

from __future__ import annotations

import struct
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.apis.message import ImageMimeType
from oracleagentmemory.core.imageinputlimitconfig import (
    ImageInputLimitConfig,
    resolve_image_limits,
)
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError

MAX_IMAGE_WIDTH = 16_384
MAX_IMAGE_HEIGHT = 16_384
"""Pixel limits (WebP's own maximum side is 16,383): a header claiming more is corrupt or a
decompression bomb for whoever decodes the image later (captioning models, applications)."""
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# JPEG start-of-frame markers carry the dimensions (C4, C8 and CC are other segments).
_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def detect_mime_type(data: bytes) -> ImageMimeType:
    """The image type from its magic bytes; ValueError for anything else."""
    if data.startswith(PNG_SIGNATURE):
        return ImageMimeType.PNG
    if data.startswith(b"\xff\xd8\xff"):
        return ImageMimeType.JPEG
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ImageMimeType.WEBP
    raise InvalidArgumentError("image bytes are not a PNG, JPEG or WebP image")


def validate_image(
    data: Any,
    declared: Any = NOT_SET_MARKER,
    limits: ImageInputLimitConfig | None = None,
) -> ImageMimeType:
    """Check the bytes against the declared type and the limits; returns the type."""
    if not isinstance(data, (bytes, bytearray)):
        raise ArgumentTypeError(f"image must be bytes, got {type(data).__name__}")
    data = bytes(data)
    max_bytes = resolve_image_limits(limits).max_raw_image_bytes
    if not data:
        raise InvalidArgumentError("image is empty")
    if len(data) > max_bytes:
        raise InvalidArgumentError(
            f"image is {len(data)} bytes, over the limit of {max_bytes} bytes")
    detected = detect_mime_type(data)
    if declared is not NOT_SET_MARKER and declared is not None:
        try:
            wanted = ImageMimeType(declared)
        except ValueError:
            raise InvalidArgumentError(
                f"mime_type {declared!r} is not supported; use image/png, image/jpeg "
                "or image/webp"
            ) from None
        if wanted is not detected:
            raise InvalidArgumentError(
                f"mime_type is {wanted.value} but the bytes are a {detected.value} image"
            )
    width, height, animated = _inspect(detected, data)
    if animated:
        raise InvalidArgumentError(f"animated {detected.value} images are not supported")
    if width > MAX_IMAGE_WIDTH or height > MAX_IMAGE_HEIGHT:
        raise InvalidArgumentError(
            f"image is {width}x{height} pixels, over the limit of "
            f"{MAX_IMAGE_WIDTH}x{MAX_IMAGE_HEIGHT}"
        )
    if width < 1 or height < 1:
        raise InvalidArgumentError(f"image has invalid dimensions {width}x{height}")
    return detected


def _inspect(mime: ImageMimeType, data: bytes) -> tuple[int, int, bool]:
    try:
        if mime is ImageMimeType.PNG:
            return _inspect_png(data)
        if mime is ImageMimeType.JPEG:
            return _inspect_jpeg(data)
        return _inspect_webp(data)
    except (struct.error, IndexError):
        raise InvalidArgumentError(f"{mime.value} image is truncated or corrupt") from None


def _inspect_png(data: bytes) -> tuple[int, int, bool]:
    offset = len(PNG_SIGNATURE)
    length, kind = struct.unpack(">I4s", data[offset:offset + 8])
    if kind != b"IHDR" or length != 13:
        raise InvalidArgumentError("image/png image has no IHDR header")
    width, height = struct.unpack(">II", data[offset + 8:offset + 16])
    animated = False
    while offset + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        if kind == b"acTL":
            animated = True
        if kind in (b"IDAT", b"IEND"):
            break
        offset += 12 + length
    else:
        raise InvalidArgumentError("image/png image is truncated or corrupt")
    return width, height, animated


def _inspect_jpeg(data: bytes) -> tuple[int, int, bool]:
    offset = 2
    while offset + 4 <= len(data):
        if data[offset] != 0xFF:
            raise InvalidArgumentError("image/jpeg image is truncated or corrupt")
        marker = data[offset + 1]
        if marker == 0xFF:  # fill byte
            offset += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            offset += 2
            continue
        (length,) = struct.unpack(">H", data[offset + 2:offset + 4])
        if marker in _JPEG_SOF:
            height, width = struct.unpack(">HH", data[offset + 5:offset + 9])
            return width, height, False
        if marker in (0xD9, 0xDA) or length < 2:
            break
        offset += 2 + length
    raise InvalidArgumentError("image/jpeg image is truncated or corrupt")


def _inspect_webp(data: bytes) -> tuple[int, int, bool]:
    chunk = data[12:16]
    body = data[20:]
    if chunk == b"VP8X":
        flags = body[0]
        width = 1 + int.from_bytes(body[4:7], "little")
        height = 1 + int.from_bytes(body[7:10], "little")
        if len(body) < 10:
            raise IndexError
        return width, height, bool(flags & 0x02) or b"ANIM" in data[:4096]
    if chunk == b"VP8 ":
        if body[3:6] != b"\x9d\x01\x2a":
            raise InvalidArgumentError("image/webp image is truncated or corrupt")
        width, height = struct.unpack("<HH", body[6:10])
        return width & 0x3FFF, height & 0x3FFF, False
    if chunk == b"VP8L":
        if body[0] != 0x2F:
            raise InvalidArgumentError("image/webp image is truncated or corrupt")
        bits = int.from_bytes(body[1:5], "little")
        if len(body) < 5:
            raise IndexError
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1, False
    raise InvalidArgumentError("image/webp image is truncated or corrupt")
