"""Bar charts of bench figures as SVG or PNG, with no plotting library.

One layout (horizontal bars: a row per domain, a bar per results file, the published overall
figures as grey reference bars) drawn by two small renderers: SVG text, and a PNG rasteriser
with a built-in 5x7 bitmap font.

>>> write_plot([score_file("a.jsonl"), score_file("b.jsonl")], "scores.png", reference=True)  # doctest: +SKIP
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

from ..errors import ConfigError
from ..files import write_private

if TYPE_CHECKING:
    from .score import Scoreboard

#: overall figures published for AgentWorldBench (listed in docs/bench.md), normalised 0-100
PUBLISHED_OVERALL: dict[str, float] = {
    "Qwen-AgentWorld-397B-A17B": 58.71,
    "GPT-5.4": 58.25,
    "Claude Opus 4.8": 56.59,
    "Qwen-AgentWorld-35B-A3B": 56.39,
    "Qwen3.5-35B-A3B": 47.73,
}

PALETTE = ["#2f6fb3", "#e07b24", "#3a9a5b", "#c23b3b", "#7d5ab5", "#8c6d3f", "#d45fa8", "#5f6b7a"]
REFERENCE_COLOUR = "#a0a4aa"
TEXT_COLOUR = "#222222"
AXIS_COLOUR = "#888888"
BACKGROUND = "#ffffff"


# -- layout -----------------------------------------------------------------------------------------


@dataclass
class Rect:
    x: int
    y: int
    w: int
    h: int
    colour: str


@dataclass
class Text:
    x: int
    y: int  # top of the text
    text: str
    colour: str
    scale: int = 2
    anchor: str = "start"  # or "end"


CHAR_W, CHAR_H = 6, 9  # a 5x7 glyph (and a descender row) plus spacing, before scaling


def _text_width(text: str, scale: int) -> int:
    return len(text) * CHAR_W * scale


def layout(
    boards: Sequence[Scoreboard], *, reference: bool = False, title: str | None = None
) -> tuple[int, int, list[Rect | Text]]:
    """(width, height, shapes) of the chart: normalised totals per domain and overall."""
    from .data import domain_order

    scale = 2
    bar_h, bar_gap, group_gap = 18, 4, 14
    domains = domain_order({d for b in boards for d in b.domains})
    groups: list[tuple[str, list[tuple[str, float | None, str]]]] = []
    for name in [*domains, "overall"]:
        bars = []
        for i, board in enumerate(boards):
            figures = board.overall if name == "overall" else board.domains.get(name)
            bars.append((board.label, figures.total if figures else None, PALETTE[i % len(PALETTE)]))
        groups.append((name, bars))
    if reference:
        groups.append(
            (
                "published overall",
                [(model, value, REFERENCE_COLOUR) for model, value in PUBLISHED_OVERALL.items()],
            )
        )
    labels = [name for name, _ in groups]
    if reference:
        labels += list(PUBLISHED_OVERALL)
    label_w = max(_text_width(label, scale) for label in labels) + 24
    plot_w = 520
    width = label_w + plot_w + 90
    title = title or "AgentWorldBench, normalised total (0-100)"
    shapes: list[Rect | Text] = [Text(16, 14, title, TEXT_COLOUR, scale)]
    y = 14 + CHAR_H * scale + 18
    top = y
    for name, bars in groups:
        is_reference = name == "published overall"
        if is_reference:
            y += 6
            shapes.append(Text(16, y, name, AXIS_COLOUR, scale))
            y += CHAR_H * scale + 6
        else:
            shapes.append(
                Text(label_w - 12, y + (bar_h - CHAR_H * scale) // 2, name, TEXT_COLOUR, scale, "end")
            )
        for label, value, colour in bars:
            if is_reference:
                shapes.append(
                    Text(label_w - 12, y + (bar_h - CHAR_H * scale) // 2, label, AXIS_COLOUR, scale, "end")
                )
            if value is None:
                shapes.append(Text(label_w + 4, y + (bar_h - CHAR_H * scale) // 2, "n/a", AXIS_COLOUR, scale))
            else:
                length = max(1, round(max(0.0, min(100.0, value)) / 100 * plot_w))
                shapes.append(Rect(label_w, y, length, bar_h, colour))
                shapes.append(
                    Text(
                        label_w + length + 6,
                        y + (bar_h - CHAR_H * scale) // 2,
                        f"{value:.2f}",
                        TEXT_COLOUR,
                        scale,
                    )
                )
            y += bar_h + bar_gap
        y += group_gap
    bottom = y - group_gap
    shapes.append(Rect(label_w - 1, top - 4, 2, bottom - top + 8, AXIS_COLOUR))
    for tick in (0, 25, 50, 75, 100):
        x = label_w + round(tick / 100 * plot_w)
        shapes.append(Rect(x, bottom + 4, 1, 6, AXIS_COLOUR))
        shapes.append(
            Text(x + _text_width(str(tick), scale) // 2, bottom + 14, str(tick), AXIS_COLOUR, scale, "end")
        )
    y = bottom + 14 + CHAR_H * scale + 16
    if len(boards) > 1 or reference:
        x = 16
        for i, board in enumerate(boards):
            shapes.append(Rect(x, y, 14, 14, PALETTE[i % len(PALETTE)]))
            shapes.append(Text(x + 20, y, board.label, TEXT_COLOUR, scale))
            x += 20 + _text_width(board.label, scale) + 24
        y += 14 + 16
    return width, y, shapes


# -- SVG --------------------------------------------------------------------------------------------


def render_svg(width: int, height: int, shapes: Sequence[Rect | Text]) -> str:
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        f'<rect width="{width}" height="{height}" fill="{BACKGROUND}"/>',
    ]
    for shape in shapes:
        if isinstance(shape, Rect):
            out.append(
                f'<rect x="{shape.x}" y="{shape.y}" width="{shape.w}" height="{shape.h}" fill="{shape.colour}"/>'
            )
        else:
            size = CHAR_H * shape.scale
            out.append(
                f'<text x="{shape.x}" y="{shape.y + size - shape.scale}" font-family="DejaVu Sans Mono, monospace" '
                f'font-size="{size}" fill="{shape.colour}" text-anchor="{shape.anchor}">{escape(shape.text)}</text>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- PNG --------------------------------------------------------------------------------------------

# a 5x7 bitmap font: seven rows of five pixels per glyph, an eighth for descenders (g j p q y ,)
_GLYPHS = {
    " ": "00000 00000 00000 00000 00000 00000 00000",
    "0": "01110 10001 10011 10101 11001 10001 01110",
    "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111",
    "3": "11111 00010 00100 00010 00001 10001 01110",
    "4": "00010 00110 01010 10010 11111 00010 00010",
    "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110",
    "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110",
    "9": "01110 10001 10001 01111 00001 00010 01100",
    "A": "01110 10001 10001 11111 10001 10001 10001",
    "B": "11110 10001 10001 11110 10001 10001 11110",
    "C": "01110 10001 10000 10000 10000 10001 01110",
    "D": "11100 10010 10001 10001 10001 10010 11100",
    "E": "11111 10000 10000 11110 10000 10000 11111",
    "F": "11111 10000 10000 11110 10000 10000 10000",
    "G": "01110 10001 10000 10111 10001 10001 01111",
    "H": "10001 10001 10001 11111 10001 10001 10001",
    "I": "01110 00100 00100 00100 00100 00100 01110",
    "J": "00111 00010 00010 00010 00010 10010 01100",
    "K": "10001 10010 10100 11000 10100 10010 10001",
    "L": "10000 10000 10000 10000 10000 10000 11111",
    "M": "10001 11011 10101 10101 10001 10001 10001",
    "N": "10001 10001 11001 10101 10011 10001 10001",
    "O": "01110 10001 10001 10001 10001 10001 01110",
    "P": "11110 10001 10001 11110 10000 10000 10000",
    "Q": "01110 10001 10001 10001 10101 10010 01101",
    "R": "11110 10001 10001 11110 10100 10010 10001",
    "S": "01111 10000 10000 01110 00001 00001 11110",
    "T": "11111 00100 00100 00100 00100 00100 00100",
    "U": "10001 10001 10001 10001 10001 10001 01110",
    "V": "10001 10001 10001 10001 10001 01010 00100",
    "W": "10001 10001 10001 10101 10101 10101 01010",
    "X": "10001 10001 01010 00100 01010 10001 10001",
    "Y": "10001 10001 10001 01010 00100 00100 00100",
    "Z": "11111 00001 00010 00100 01000 10000 11111",
    "a": "00000 00000 01110 00001 01111 10001 01111",
    "b": "10000 10000 10110 11001 10001 10001 11110",
    "c": "00000 00000 01110 10000 10000 10001 01110",
    "d": "00001 00001 01101 10011 10001 10001 01111",
    "e": "00000 00000 01110 10001 11111 10000 01110",
    "f": "00110 01001 01000 11100 01000 01000 01000",
    "g": "00000 00000 01111 10001 10001 01111 00001 01110",
    "h": "10000 10000 10110 11001 10001 10001 10001",
    "i": "00100 00000 01100 00100 00100 00100 01110",
    "j": "00010 00000 00110 00010 00010 00010 10010 01100",
    "k": "10000 10000 10010 10100 11000 10100 10010",
    "l": "01100 00100 00100 00100 00100 00100 01110",
    "m": "00000 00000 11010 10101 10101 10001 10001",
    "n": "00000 00000 10110 11001 10001 10001 10001",
    "o": "00000 00000 01110 10001 10001 10001 01110",
    "p": "00000 00000 11110 10001 10001 11110 10000 10000",
    "q": "00000 00000 01111 10001 10001 01111 00001 00001",
    "r": "00000 00000 10110 11001 10000 10000 10000",
    "s": "00000 00000 01110 10000 01110 00001 11110",
    "t": "01000 01000 11100 01000 01000 01001 00110",
    "u": "00000 00000 10001 10001 10001 10011 01101",
    "v": "00000 00000 10001 10001 10001 01010 00100",
    "w": "00000 00000 10001 10001 10101 10101 01010",
    "x": "00000 00000 10001 01010 00100 01010 10001",
    "y": "00000 00000 10001 10001 10001 01111 00001 01110",
    "z": "00000 00000 11111 00010 00100 01000 11111",
    ".": "00000 00000 00000 00000 00000 01100 01100",
    ",": "00000 00000 00000 00000 00000 01100 00100 01000",
    "-": "00000 00000 00000 11111 00000 00000 00000",
    "+": "00000 00100 00100 11111 00100 00100 00000",
    "%": "11000 11001 00010 00100 01000 10011 00011",
    "(": "00010 00100 01000 01000 01000 00100 00010",
    ")": "01000 00100 00010 00010 00010 00100 01000",
    "/": "00000 00001 00010 00100 01000 10000 00000",
    ":": "00000 01100 01100 00000 01100 01100 00000",
    "_": "00000 00000 00000 00000 00000 00000 11111",
    "'": "00100 00100 01000 00000 00000 00000 00000",
    '"': "01010 01010 01010 00000 00000 00000 00000",
    "=": "00000 00000 11111 00000 11111 00000 00000",
    "#": "01010 01010 11111 01010 11111 01010 01010",
    "<": "00010 00100 01000 10000 01000 00100 00010",
    ">": "01000 00100 00010 00001 00010 00100 01000",
    "!": "00100 00100 00100 00100 00100 00000 00100",
    "?": "01110 10001 00001 00010 00100 00000 00100",
    "[": "01110 01000 01000 01000 01000 01000 01110",
    "]": "01110 00010 00010 00010 00010 00010 01110",
    "*": "00000 00100 10101 01110 10101 00100 00000",
    "&": "01100 10010 10100 01000 10101 10010 01101",
}
_UNKNOWN = "11111 10001 10001 10001 10001 10001 11111"


def _rgb(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


class _Canvas:
    def __init__(self, width: int, height: int, background: str) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(bytes(_rgb(background)) * (width * height))

    def rect(self, x: int, y: int, w: int, h: int, colour: str) -> None:
        rgb = bytes(_rgb(colour))
        x0, x1 = max(0, x), min(self.width, x + w)
        if x1 <= x0:
            return
        row = rgb * (x1 - x0)
        for yy in range(max(0, y), min(self.height, y + h)):
            start = (yy * self.width + x0) * 3
            self.pixels[start : start + len(row)] = row

    def text(self, shape: Text) -> None:
        s = shape.scale
        x = shape.x - (_text_width(shape.text, s) if shape.anchor == "end" else 0)
        for ch in shape.text:
            rows = _GLYPHS.get(ch, _UNKNOWN).split()
            for r, bits in enumerate(rows):
                for c, bit in enumerate(bits):
                    if bit == "1":
                        self.rect(x + c * s, shape.y + r * s, s, s, shape.colour)
            x += CHAR_W * s

    def png(self) -> bytes:
        raw = bytearray()
        stride = self.width * 3
        for y in range(self.height):
            raw.append(0)  # filter: none
            raw += self.pixels[y * stride : (y + 1) * stride]

        def chunk(kind: bytes, data: bytes) -> bytes:
            return (
                struct.pack(">I", len(data))
                + kind
                + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
            )

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes(raw), 9))
            + chunk(b"IEND", b"")
        )


def render_png(width: int, height: int, shapes: Sequence[Rect | Text]) -> bytes:
    canvas = _Canvas(width, height, BACKGROUND)
    for shape in shapes:
        if isinstance(shape, Rect):
            canvas.rect(shape.x, shape.y, shape.w, shape.h, shape.colour)
        else:
            canvas.text(shape)
    return canvas.png()


def write_plot(
    boards: Sequence[Scoreboard], path: str | Path, *, reference: bool = False, title: str | None = None
) -> Path:
    """Draw the boards' per-domain totals side by side into ``path`` (``.png`` or ``.svg``)."""
    image_path(path)
    return save_image(path, *layout(boards, reference=reference, title=title))


def image_path(path: str | Path) -> Path:
    """``path`` checked to name a ``.png`` or ``.svg`` file."""
    path = Path(path).expanduser()
    suffix = path.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ConfigError(
            f"Cannot draw {path.name}: unknown image type {suffix or '(none)'}",
            hint="name the plot file .png or .svg",
        )
    return path


def save_image(path: str | Path, width: int, height: int, shapes: Sequence[Rect | Text]) -> Path:
    """Render ``shapes`` into ``path`` as SVG or PNG, by its suffix."""
    path = image_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".svg":
        write_private(path, render_svg(width, height, shapes))
    else:
        write_private(path, render_png(width, height, shapes))
    return path
