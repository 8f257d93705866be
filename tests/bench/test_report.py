"""Reports: console tables, markdown, comparisons and plots."""

from __future__ import annotations

import struct
import zlib

import pytest
from rich.console import Console

from agentworld_plugins.bench.plot import PUBLISHED_OVERALL, layout, write_plot
from agentworld_plugins.bench.report import markdown_report, print_comparison, print_scoreboard
from agentworld_plugins.bench.score import score_records
from agentworld_plugins.errors import ConfigError


def _line(domain, id_, value, weakness="w"):
    scores = dict.fromkeys(("format", "factuality", "consistency", "realism", "quality"), value)
    return {
        "task": domain,
        "id": id_,
        "turn_idx": 1,
        "judge": {"status": "ok", "scores": scores, "weaknesses": weakness},
    }


@pytest.fixture
def boards():
    a = score_records(
        [_line("terminal", "1", 5), _line("terminal", "2", 3, "wrong exit code"), _line("mcp", "3", 2)],
        "model-a",
    )
    b = score_records(
        [_line("terminal", "1", 4), _line("mcp", "3", 4), {"task": "web", "id": "4", "turn_idx": 1}],
        "model-b",
    )
    return a, b


def _text(renderable_fn, *args) -> str:
    console = Console(record=True, width=160)
    renderable_fn(*args, console)
    return console.export_text()


def test_console_table(boards):
    text = _text(print_scoreboard, boards[0])
    assert "terminal" in text and "mcp" in text and "overall" in text
    assert "2/2" in text and "75.00" in text  # terminal: (5 + 3) / 2 = 4 -> 75
    assert "58.33" in text  # overall: (5 + 3 + 2) / 3 -> 58.33


def test_comparison_has_deltas(boards):
    text = _text(print_comparison, list(boards))
    assert "delta model-b" in text
    assert "+50.00" in text  # mcp: 25 -> 75
    assert "+16.67" in text  # overall: 58.33 -> 75
    assert "-0.00" not in text


def test_markdown_report(boards):
    md = markdown_report(list(boards), plot="scores.png")
    assert md.startswith("# AgentWorldBench report")
    assert "![AgentWorldBench scores](scores.png)" in md
    assert "## Comparison" in md and "| mcp | 25.00 | 75.00 | +50.00 |" in md
    assert "| terminal | 2/2 | 75.00 | 75.00 | 75.00 | 75.00 | 75.00 | 75.00 |" in md
    assert "- not judged: 1" in md  # model-b's web record
    assert "wrong exit code" not in md.split("## model-b")[1]
    assert "### Lowest-scored records" in md and "| mcp | 3 | 1 | 25.00 | w |" in md
    for model, value in PUBLISHED_OVERALL.items():
        assert f"| {model} | {value:.2f} |" in md
    assert "**model-a** (this run)" in md


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    _, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_png_plot_is_a_valid_image(boards, tmp_path):
    path = write_plot(list(boards), tmp_path / "scores.png", reference=True)
    data = path.read_bytes()
    width, height = _png_size(data)
    assert width > 600 and height > 200
    # decode the pixel data and check that bars in both series colours were drawn
    idat = b""
    pos = 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    assert len(raw) == height * (1 + width * 3)
    assert (
        bytes.fromhex("2f6fb3") in raw and bytes.fromhex("e07b24") in raw and bytes.fromhex("a0a4aa") in raw
    )


def test_svg_plot(boards, tmp_path):
    svg = write_plot(list(boards), tmp_path / "scores.svg", reference=True).read_text()
    assert svg.startswith("<svg") and "model-a" in svg and "Qwen-AgentWorld-397B-A17B" in svg
    assert "n/a" in svg  # model-a has no web figure


def test_plot_layout_orders_domains(boards):
    _, _, shapes = layout(list(boards))
    labels = [
        s.text for s in shapes if hasattr(s, "text") and s.text in ("mcp", "terminal", "web", "overall")
    ]
    assert labels == ["mcp", "terminal", "web", "overall"]


def test_plot_needs_a_known_suffix(boards, tmp_path):
    with pytest.raises(ConfigError, match=r"\.png or \.svg"):
        write_plot(list(boards), tmp_path / "scores.pdf")
