"""Real image files made with Pillow, for image tests."""

from __future__ import annotations

import io

from PIL import Image


def image_bytes(fmt: str, size: tuple[int, int] = (4, 3), frames: int = 1) -> bytes:
    colours = ["red", "blue", "green"]
    images = [Image.new("RGB", size, colours[i % 3]) for i in range(frames)]
    out = io.BytesIO()
    if frames > 1:
        images[0].save(out, format=fmt, save_all=True, append_images=images[1:], duration=100,
                       loop=0)
    else:
        images[0].save(out, format=fmt)
    return out.getvalue()


PNG = image_bytes("PNG")
JPEG = image_bytes("JPEG")
WEBP = image_bytes("WEBP")
