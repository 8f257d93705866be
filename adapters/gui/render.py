"""Wireframe screenshots drawn from the screen's text: a web page, a phone screen, a desktop.

The world model answers with text (an accessibility tree, a UI element list, an accessibility
table), never with pixels. Agents that look at screenshots still get one: a plain, readable
wireframe in which every element sits where the text says it is (phone and desktop elements at
their bounding boxes, web nodes in reading order) and shows its label, value and state.

>>> from agentworld_plugins.domains.formats.web import DEFAULT_WEB_PAGE, parse_web_page
>>> image, boxes = render_web_page(parse_web_page(DEFAULT_WEB_PAGE), 1280, 720)  # doctest: +SKIP
>>> image.size                                                                      # doctest: +SKIP
(1280, 720)
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from agentworld_plugins import pyast
from agentworld_plugins.errors import ConfigError

if TYPE_CHECKING:
    from PIL import Image as PILImage
    from PIL import ImageDraw, ImageFont

__all__ = [
    "Box",
    "layout_web_page",
    "png_bytes",
    "render_android_screen",
    "render_os_table",
    "render_web_page",
    "to_rgb_array",
]

_INSTALL_HINT = 'install the GUI extra from the checkout: pip install -e ".[gui]"'


def _pil() -> Any:
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - the gui extra is installed in tests
        raise ConfigError("Wireframe screenshots need Pillow", hint=_INSTALL_HINT) from None
    return Image


@lru_cache(maxsize=32)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # pragma: no cover - Pillow without FreeType
        return ImageFont.load_default()


#: longer texts are measured on a prefix and scaled (Pillow refuses strings past about 1M characters)
_MEASURED_CHARS = 4096


def _text_width(font: Any, text: str) -> float:
    if len(text) > _MEASURED_CHARS:
        return _text_width(font, text[:_MEASURED_CHARS]) * len(text) / _MEASURED_CHARS
    try:
        return float(font.getlength(text))
    except (AttributeError, UnicodeEncodeError):  # pragma: no cover - bitmap font
        return 7.0 * len(text)


def _fit(font: Any, text: str, width: float) -> str:
    """``text`` cut with an ellipsis so that it fits in ``width`` pixels."""
    text = " ".join(text.split())
    if width <= 0:
        return ""
    if _text_width(font, text) <= width:
        return text
    low, high = 0, len(text)
    while low < high:  # the longest prefix that fits together with the ellipsis
        middle = (low + high + 1) // 2
        if _text_width(font, text[:middle] + "…") <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low] + "…" if low else ""


def _draw_text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, font: Any, fill: Any) -> None:
    try:
        draw.text(xy, text, font=font, fill=fill)
    except (UnicodeEncodeError, OSError):  # pragma: no cover - glyphs the font cannot encode
        draw.text(xy, text.encode("ascii", "replace").decode(), font=font, fill=fill)


def png_bytes(image: PILImage.Image) -> bytes:
    """The image as PNG file bytes (fast compression: wireframes are mostly flat colour)."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def to_rgb_array(image: PILImage.Image) -> Any:
    """The image as a ``(height, width, 3)`` ``uint8`` numpy array."""
    import numpy as np

    return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


# -- web ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Box:
    """A rectangle in page (web) or screen (phone, desktop) pixels."""

    x: float
    y: float
    w: float
    h: float

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)


_WEB_FIELDS = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
_WEB_TOGGLES = frozenset({"checkbox", "switch", "menuitemcheckbox"})
_WEB_RADIOS = frozenset({"radio", "menuitemradio"})
_WEB_BUTTONS = frozenset({"button", "tab", "menuitem", "option", "treeitem"})
_WEB_IMAGES = frozenset({"img", "image", "figure"})
_WEB_CONTAINERS = frozenset(
    {
        "navigation",
        "form",
        "list",
        "main",
        "banner",
        "contentinfo",
        "dialog",
        "alertdialog",
        "table",
        "region",
        "article",
        "section",
        "group",
        "complementary",
        "search",
        "toolbar",
        "menu",
        "menubar",
        "tablist",
        "listbox",
        "grid",
        "tree",
    }
)
_HEADING_SIZES = {1: 26, 2: 22, 3: 19, 4: 17, 5: 16, 6: 15}
_BODY = 15
_BLUE = (26, 90, 200)
_INK = (32, 33, 36)
_MUTED = (110, 112, 118)
_LINE = (190, 193, 198)
_FOCUS = (26, 115, 232)


def _props(node: dict[str, Any]) -> dict[str, str | None]:
    return {str(key): value for key, value in node.get("props") or []}


def _prop_value(props: dict[str, str | None], key: str) -> str | None:
    """A property's value as plain text (quotes of a Python literal removed)."""

    if key not in props:
        return None
    raw = props[key]
    if raw is None:
        return "true"
    try:
        value = pyast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return raw
    return str(value)


def _is_true(value: str | None) -> bool:
    return value is not None and value.lower() == "true"


def _heading_level(props: dict[str, str | None]) -> int:
    level = _prop_value(props, "level")
    return int(level) if level is not None and level.isdigit() and 1 <= int(level) <= 6 else 2


def _row_height(role: str, props: dict[str, str | None]) -> int:
    if role == "heading":
        return _HEADING_SIZES[_heading_level(props)] + 14
    if role in _WEB_FIELDS:
        return 34
    if role in _WEB_BUTTONS:
        return 32
    if role in _WEB_IMAGES:
        return 64
    return 24


def _web_label(node: dict[str, Any]) -> str:
    name = node.get("name")
    return "" if name is None else str(name)


def layout_web_page(page: dict[str, Any], width: int = 1280) -> list[Box | None]:
    """The box of every node of a parsed page (see ``parse_web_page``), in page pixels.

    Nodes are laid out in reading order, one row each, indented by depth; a container's box
    spans its subtree. The root (``RootWebArea``) covers the whole page. A node that draws
    nothing (a bare container line) still gets the box of its row.
    """
    nodes: list[dict[str, Any]] = page.get("nodes") or []
    boxes: list[Box | None] = [None] * len(nodes)
    if not nodes:
        return boxes
    base = min(int(node.get("depth", 0)) for node in nodes)
    y = 12.0
    rows: list[tuple[float, float]] = [(0.0, 0.0)] * len(nodes)
    for i, node in enumerate(nodes):
        role = str(node.get("role") or "")
        props = _props(node)
        depth = int(node.get("depth", 0)) - base
        if role == "RootWebArea":
            rows[i] = (y, y)
            continue
        indent = 16.0 + 18.0 * max(0, depth - 1)
        height = _row_height(role, props)
        label = _web_label(node)
        font = _font(_HEADING_SIZES[_heading_level(props)] if role == "heading" else _BODY)
        text_w = _text_width(font, label)
        value = _prop_value(props, "value")
        if role in _WEB_FIELDS:
            w = max(280.0, _text_width(font, value or label) + 24)
        elif role in _WEB_BUTTONS:
            w = text_w + 32
        elif role in _WEB_TOGGLES or role in _WEB_RADIOS:
            w = text_w + 28
        elif role in _WEB_IMAGES:
            w = 96.0
        else:
            w = max(text_w, 8.0)
        w = max(8.0, min(w, width - indent - 16.0))
        boxes[i] = Box(indent, y, w, float(height))
        rows[i] = (y, y + height)
        y += height + 6
    total = y + 12
    for i, node in enumerate(nodes):
        end = i + 1
        while end < len(nodes) and nodes[end].get("depth", 0) > node.get("depth", 0):
            end += 1
        if node.get("role") == "RootWebArea":
            boxes[i] = Box(0.0, 0.0, float(width), total)
        elif end > i + 1 and str(node.get("role")) in _WEB_CONTAINERS:
            own = boxes[i]
            assert own is not None
            bottom = max(rows[j][1] for j in range(i, end))
            boxes[i] = Box(own.x - 6, own.y - 3, width - own.x - 10, bottom - own.y + 6)
    return boxes


def render_web_page(
    page: dict[str, Any], width: int = 1280, height: int = 720, scroll_y: float = 0.0
) -> tuple[PILImage.Image, list[Box | None]]:
    """A wireframe of the viewport showing ``page`` scrolled down by ``scroll_y`` pixels.

    Returns the image and the page-coordinate box of every node (see :func:`layout_web_page`).
    """
    from PIL import ImageDraw

    image = _pil().new("RGB", (int(width), int(height)), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    nodes: list[dict[str, Any]] = page.get("nodes") or []
    boxes = layout_web_page(page, int(width))
    top = float(scroll_y)
    for node, box in zip(nodes, boxes):
        if box is None or node.get("role") == "RootWebArea":
            continue
        if box.y + box.h < top or box.y > top + height:
            continue
        _draw_web_node(draw, node, Box(box.x, box.y - top, box.w, box.h))
    return image, boxes


def _draw_web_node(draw: ImageDraw.ImageDraw, node: dict[str, Any], box: Box) -> None:
    role = str(node.get("role") or "")
    props = _props(node)
    label = _web_label(node)
    disabled = _is_true(_prop_value(props, "disabled"))
    focused = "focused" in props
    ink = _MUTED if disabled else _INK
    font = _font(_BODY)
    x0, y0, x1, y1 = box.x, box.y, box.x + box.w, box.y + box.h
    if role in _WEB_CONTAINERS and box.h > 40:
        draw.rectangle([x0, y0, x1, y1], outline=(225, 227, 231))
        if label:
            _draw_text(
                draw, (x0 + 4, y0 + 2), _fit(_font(11), f"{role}: {label}", box.w - 8), _font(11), _MUTED
            )
        return
    if role == "heading":
        size = _HEADING_SIZES[_heading_level(props)]
        _draw_text(draw, (x0, y0 + 4), _fit(_font(size), label, box.w), _font(size), ink)
        return
    if role in _WEB_FIELDS:
        draw.rectangle(
            [x0, y0, x1, y1],
            fill=(255, 255, 255),
            outline=_FOCUS if focused else _LINE,
            width=2 if focused else 1,
        )
        value = _prop_value(props, "value")
        text, colour = (value, ink) if value else (label, (150, 152, 158))
        _draw_text(draw, (x0 + 8, y0 + 8), _fit(font, text, box.w - 30), font, colour)
        if role == "combobox":
            cx, cy = x1 - 14, y0 + box.h / 2
            draw.polygon([(cx - 5, cy - 3), (cx + 5, cy - 3), (cx, cy + 3)], fill=_MUTED)
        return
    if role in _WEB_TOGGLES or role in _WEB_RADIOS:
        checked = _is_true(_prop_value(props, "checked")) or _is_true(_prop_value(props, "selected"))
        mark = [x0, y0 + 5, x0 + 14, y0 + 19]
        if role in _WEB_RADIOS:
            draw.ellipse(mark, outline=_FOCUS if focused else _MUTED, width=2)
            if checked:
                draw.ellipse([x0 + 4, y0 + 9, x0 + 10, y0 + 15], fill=_BLUE)
        else:
            draw.rectangle(
                mark, outline=_FOCUS if focused else _MUTED, width=2, fill=_BLUE if checked else None
            )
            if checked:
                draw.line(
                    [(x0 + 3, y0 + 12), (x0 + 6, y0 + 16), (x0 + 12, y0 + 8)], fill=(255, 255, 255), width=2
                )
        _draw_text(draw, (x0 + 22, y0 + 4), _fit(font, label, box.w - 22), font, ink)
        return
    if role in _WEB_BUTTONS:
        selected = _is_true(_prop_value(props, "selected"))
        fill = (210, 227, 252) if selected else (241, 243, 244)
        draw.rounded_rectangle([x0, y0, x1, y1], radius=5, fill=fill, outline=_FOCUS if focused else _LINE)
        text = _fit(font, label, box.w - 16)
        _draw_text(draw, (x0 + (box.w - _text_width(font, text)) / 2, y0 + 8), text, font, ink)
        return
    if role in _WEB_IMAGES:
        draw.rectangle([x0, y0, x1, y1], fill=(232, 234, 237), outline=_LINE)
        draw.line([(x0, y0), (x1, y1)], fill=_LINE)
        draw.line([(x0, y1), (x1, y0)], fill=_LINE)
        if label:
            _draw_text(draw, (x0 + 4, y1 - 16), _fit(_font(11), label, box.w - 8), _font(11), _MUTED)
        return
    if role == "link":
        text = _fit(font, label, box.w)
        _draw_text(draw, (x0, y0 + 3), text, font, _MUTED if disabled else _BLUE)
        draw.line([(x0, y0 + 20), (x0 + _text_width(font, text), y0 + 20)], fill=_BLUE)
        return
    if role == "listitem":
        label = "• " + label
    if label:
        _draw_text(draw, (x0, y0 + 3), _fit(font, label, box.w), font, ink)


# -- android --------------------------------------------------------------------------------------


def _android_box(element: dict[str, Any]) -> tuple[float, float, float, float] | None:
    box = element.get("bbox")
    if isinstance(box, (list, tuple)) and len(box) == 4:
        try:
            x0, y0, x1, y1 = (float(v) for v in box)
        except (TypeError, ValueError):
            return None
        return (x0, y0, x1, y1)
    if isinstance(box, dict):
        try:
            return (float(box["x_min"]), float(box["y_min"]), float(box["x_max"]), float(box["y_max"]))
        except (KeyError, TypeError, ValueError):
            return None
    return None


def render_android_screen(
    elements: list[dict[str, Any]], width: int = 1080, height: int = 2400
) -> PILImage.Image:
    """A wireframe of a phone screen: each UI element at its ``bbox`` with its text or description."""
    from PIL import ImageDraw

    image = _pil().new("RGB", (int(width), int(height)), (250, 250, 252))
    draw = ImageDraw.Draw(image)
    scale = width / 1080.0
    font = _font(max(10, int(34 * scale)))
    small = _font(max(9, int(26 * scale)))
    draw.rectangle([0, 0, width, int(110 * scale)], fill=(236, 238, 242))
    for element in elements:
        box = _android_box(element)
        if box is None:
            continue
        x0, y0, x1, y1 = box
        if x1 <= x0 or y1 <= y0:
            continue
        cls = str(element.get("class_name") or "").rsplit(".", 1)[-1]
        text = element.get("text") or element.get("content_description") or ""
        text = str(text)
        focused = element.get("is_focused") is True
        outline = _FOCUS if focused else (205, 208, 214)
        if "EditText" in cls or element.get("is_editable") is True:
            draw.rectangle([x0, y0, x1, y1], fill=(255, 255, 255), outline=outline, width=3 if focused else 2)
            hint = element.get("hint_text")
            colour = _INK if element.get("text") else _MUTED
            shown = text or (str(hint) if hint else "")
            _draw_text(
                draw,
                (x0 + 16 * scale, y0 + (y1 - y0) / 2 - 20 * scale),
                _fit(font, shown, x1 - x0 - 32 * scale),
                font,
                colour,
            )
            continue
        if any(kind in cls for kind in ("Switch", "CheckBox", "ToggleButton", "RadioButton")):
            checked = element.get("is_checked") is True
            knob = [
                x1 - 110 * scale,
                y0 + (y1 - y0) / 2 - 22 * scale,
                x1 - 20 * scale,
                y0 + (y1 - y0) / 2 + 22 * scale,
            ]
            draw.rounded_rectangle(knob, radius=int(22 * scale), fill=_BLUE if checked else (189, 193, 198))
            if text:
                _draw_text(
                    draw,
                    (x0 + 16 * scale, y0 + (y1 - y0) / 2 - 20 * scale),
                    _fit(font, text, x1 - x0 - 140 * scale),
                    font,
                    _INK,
                )
            continue
        if "Image" in cls and not element.get("text"):
            draw.rectangle([x0, y0, x1, y1], fill=(232, 234, 237), outline=(205, 208, 214))
            if text:
                _draw_text(
                    draw,
                    (x0 + 8 * scale, y1 - 34 * scale),
                    _fit(small, text, x1 - x0 - 16 * scale),
                    small,
                    _MUTED,
                )
            continue
        if "Button" in cls or element.get("is_clickable") is True:
            fill = (232, 240, 254) if element.get("is_selected") else None
            draw.rounded_rectangle(
                [x0, y0, x1, y1], radius=int(16 * scale), outline=outline, fill=fill, width=2
            )
        if text:
            cy = y0 + (y1 - y0) / 2 - 20 * scale
            _draw_text(draw, (x0 + 12 * scale, cy), _fit(font, text, x1 - x0 - 24 * scale), font, _INK)
    return image


# -- desktop --------------------------------------------------------------------------------------

_OS_WINDOWS = frozenset({"frame", "window", "dialog", "alert", "file-chooser"})
_OS_FIELDS = frozenset({"entry", "text", "password-text", "spin-button", "paragraph", "document-text"})
_OS_BUTTONS = frozenset(
    {
        "push-button",
        "toggle-button",
        "menu-item",
        "page-tab",
        "combo-box",
        "menu",
        "link",
        "radio-button",
        "check-box",
    }
)


_WINDOW_GLYPHS = {
    "Close": "\u00d7",
    "Minimize": "\u2013",
    "Minimise": "\u2013",
    "Maximize": "\u25a1",
    "Maximise": "\u25a1",
}


def render_os_table(table: dict[str, Any], width: int = 1920, height: int = 1080) -> PILImage.Image:
    """A wireframe of the desktop: every row of the accessibility table (see ``parse_os_table``)
    drawn at its position and size, in table order (the front window last)."""
    from PIL import ImageDraw

    from agentworld_plugins.domains.formats.os import os_cell_text, os_point

    image = _pil().new("RGB", (int(width), int(height)), (48, 10, 36))
    draw = ImageDraw.Draw(image)
    columns = [str(c) for c in table.get("columns") or []]

    def index(name: str) -> int | None:
        for i, column in enumerate(columns):
            if column == name or column.startswith(name + " "):
                return i
        return None

    where = {key: index(key) for key in ("tag", "name", "text", "description", "position", "size")}

    def cell(row: list[str], key: str) -> str:
        i = where[key]
        return row[i] if i is not None and i < len(row) else ""

    font = _font(14)
    mono = _font(13)
    draw.rectangle([0, 0, width, 32], fill=(20, 20, 20))
    rows = table.get("rows") or []
    labels = {cell(row, "name") for row in rows if cell(row, "tag") == "label"}
    for row in rows:
        position, size = os_point(cell(row, "position")), os_point(cell(row, "size"))
        if position is None or size is None or size[0] <= 0 or size[1] <= 0:
            continue
        x0, y0 = position
        x1, y1 = x0 + size[0], y0 + size[1]
        tag, name = cell(row, "tag"), cell(row, "name")
        text = os_cell_text(cell(row, "text"))
        if tag in _OS_WINDOWS:
            draw.rectangle([x0, y0, x1, y1], fill=(246, 245, 244), outline=(120, 120, 120))
            draw.rectangle([x0, y0, x1, min(y1, y0 + 38)], fill=(222, 221, 218))
            if name not in labels:  # GNOME shows the title as a label row of its own
                title = _fit(font, name, size[0] - 90)
                _draw_text(draw, (x0 + (size[0] - _text_width(font, title)) / 2, y0 + 11), title, font, _INK)
        elif tag == "terminal":
            draw.rectangle([x0, y0, x1, y1], fill=(48, 10, 36))
            lines = (text or "").split("\n")
            capacity = max(1, int((size[1] - 8) // 17))
            for n, line in enumerate(lines[-capacity:]):
                _draw_text(
                    draw, (x0 + 6, y0 + 4 + 17 * n), _fit(mono, line, size[0] - 12), mono, (238, 238, 236)
                )
        elif tag in _OS_FIELDS:
            draw.rectangle([x0, y0, x1, y1], fill=(255, 255, 255), outline=(190, 190, 190))
            lines = (text or name).split("\n") if (text or tag in ("entry", "password-text")) else []
            capacity = max(1, int((size[1] - 6) // 18))
            for n, line in enumerate(lines[:capacity]):
                _draw_text(
                    draw,
                    (x0 + 6, y0 + 5 + 18 * n),
                    _fit(font, line, size[0] - 12),
                    font,
                    _INK if text else _MUTED,
                )
        elif tag in _OS_BUTTONS or tag.endswith("button"):
            checked = "checked" in [t.strip() for t in cell(row, "description").split(",")]
            draw.rounded_rectangle(
                [x0, y0, x1, y1],
                radius=4,
                fill=(210, 227, 252) if checked else (237, 237, 235),
                outline=(170, 170, 170),
            )
            glyph = _WINDOW_GLYPHS.get(name) if size[0] < 50 else None
            label = glyph or _fit(font, name or text, size[0] - 8)
            _draw_text(
                draw,
                (x0 + (size[0] - _text_width(font, label)) / 2, y0 + max(2.0, size[1] / 2 - 8)),
                label,
                font,
                _INK,
            )
        elif tag == "icon":
            draw.rectangle(
                [x0 + size[0] * 0.25, y0 + 4, x1 - size[0] * 0.25, y0 + size[1] * 0.6], fill=(200, 200, 200)
            )
            label = _fit(font, name, size[0])
            _draw_text(
                draw,
                (x0 + (size[0] - _text_width(font, label)) / 2, y0 + size[1] * 0.65),
                label,
                font,
                (255, 255, 255),
            )
        else:
            label = _fit(font, name or text, size[0])
            dark = y0 < 32 or x0 < 70
            _draw_text(
                draw, (x0 + 2, y0 + max(0.0, size[1] / 2 - 8)), label, font, (240, 240, 240) if dark else _INK
            )
    return image
