"""Wireframes: a tree, an element list or a table becomes an image of the right size, not blank."""

from __future__ import annotations

import io

import pytest

Image = pytest.importorskip("PIL.Image")
np = pytest.importorskip("numpy")

from agentworld_plugins.adapters.gui.render import (  # noqa: E402
    layout_web_page,
    png_bytes,
    render_android_screen,
    render_os_table,
    render_web_page,
    to_rgb_array,
)
from agentworld_plugins.adapters.gui.task import load_task  # noqa: E402

from agentworld_plugins.domains.formats.android import (  # noqa: E402
    DEFAULT_ANDROID_SCREEN,
    parse_android_screen,
)
from agentworld_plugins.domains.formats.os import DEFAULT_OS_DESKTOP, parse_os_table  # noqa: E402
from agentworld_plugins.domains.formats.web import DEFAULT_WEB_PAGE, parse_web_page  # noqa: E402


def _ink(image) -> int:
    """How many pixels differ from the most common colour (the background)."""
    array = to_rgb_array(image).astype(np.int64)
    packed = (array[..., 0] << 16) | (array[..., 1] << 8) | array[..., 2]
    _, counts = np.unique(packed, return_counts=True)
    return int(packed.size - counts.max())


@pytest.mark.parametrize("size", [(1280, 720), (800, 600), (375, 812)])
def test_web_tree_to_wireframe(size: tuple[int, int]) -> None:
    page = parse_web_page(DEFAULT_WEB_PAGE)
    image, boxes = render_web_page(page, *size)
    assert image.size == size and image.mode == "RGB"
    assert to_rgb_array(image).shape == (size[1], size[0], 3)
    assert _ink(image) > 500
    assert len(boxes) == len(page["nodes"]) and all(box is not None for box in boxes)
    root = boxes[0]
    assert (root.x, root.y, root.w) == (0.0, 0.0, float(size[0]))
    for node, box in zip(page["nodes"][1:], boxes[1:]):
        assert box.x >= 0 and box.x + box.w <= size[0], node


def test_web_layout_follows_reading_order_and_nesting() -> None:
    page = parse_web_page(load_task("web/newsletter-signup").initial_state)
    boxes = layout_web_page(page)
    tops = [b.y for n, b in zip(page["nodes"], boxes) if n["role"] != "RootWebArea"]
    assert tops == sorted(tops)
    form = next(i for i, n in enumerate(page["nodes"]) if n["role"] == "form")
    button = next(
        i for i, n in enumerate(page["nodes"]) if n["name"] == "Subscribe" and n["role"] == "button"
    )
    outer, inner = boxes[form], boxes[button]
    assert outer.y <= inner.y and inner.y + inner.h <= outer.y + outer.h


def test_android_elements_to_wireframe() -> None:
    elements = parse_android_screen(DEFAULT_ANDROID_SCREEN)
    image = render_android_screen(elements, 1080, 2400)
    assert image.size == (1080, 2400) and _ink(image) > 1000
    small = render_android_screen(elements, 540, 1200)
    assert small.size == (540, 1200)
    assert render_android_screen([{"text": "no box"}], 100, 200).size == (100, 200)


def test_os_table_to_png() -> None:
    image = render_os_table(parse_os_table(DEFAULT_OS_DESKTOP), 1920, 1080)
    assert image.size == (1920, 1080) and _ink(image) > 1000
    data = png_bytes(image)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert Image.open(io.BytesIO(data)).size == (1920, 1080)
    odd = parse_os_table("tag\tname\nlabel\tno geometry")
    assert render_os_table(odd, 640, 480).size == (640, 480)


def test_long_and_unusual_text_does_not_break_rendering() -> None:
    page = parse_web_page(
        "URL: u\nTitle: t\n\nRootWebArea 't'\n\t[1] button '"
        + "Ω≈ç√∫ 漢字 🙂 " * 40
        + "'\n\t[2] textbox '', value='\\x00'"
    )
    image, _ = render_web_page(page, 320, 240)
    assert image.size == (320, 240)
