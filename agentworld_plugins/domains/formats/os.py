"""The os observation format: the desktop's tab-separated accessibility table."""

from __future__ import annotations

import re
from typing import Any

from .lines import split_lines

#: the accessibility table's columns, in the order the os prompt writes them
OS_COLUMNS = ["tag", "name", "text", "class", "description", "position (top-left x&y)", "size (w&h)"]

#: the table's header line
OS_HEADER = "\t".join(OS_COLUMNS)

DEFAULT_OS_DESKTOP = "\n".join(
    "\t".join(row)
    for row in [
        OS_COLUMNS,
        ["label", "Activities", "", "", "", "(16, 0)", "(90, 32)"],
        ["label", "Jun 3  09:41", "", "", "", "(893, 0)", "(134, 32)"],
        ["push-button", "Google Chrome", "", "", "", "(0, 39)", "(70, 64)"],
        ["push-button", "Files", "", "", "", "(0, 109)", "(70, 64)"],
        ["push-button", "Terminal", "", "", "", "(0, 179)", "(70, 64)"],
        ["push-button", "Text Editor", "", "", "", "(0, 249)", "(70, 64)"],
        ["push-button", "Show Applications", "", "", "", "(0, 1008)", "(70, 64)"],
        ["icon", "Home", "", "", "", "(1820, 50)", "(90, 90)"],
        ["icon", "Trash", "", "", "", "(1820, 150)", "(90, 90)"],
        ["frame", "user@ubuntu: ~", "", "", "", "(90, 60)", "(860, 560)"],
        ["label", "user@ubuntu: ~", "", "", "", "(420, 70)", "(200, 20)"],
        ["push-button", "Close", "", "", "", "(910, 64)", "(34, 34)"],
        ["terminal", "Terminal", '"user@ubuntu:~$ "', "", "", "(90, 106)", "(860, 514)"],
        ["frame", "Untitled Document 1 - Text Editor", "", "", "", "(980, 200)", "(820, 640)"],
        ["push-button", "Open", "", "", "", "(990, 206)", "(80, 34)"],
        ["push-button", "Save", "", "", "", "(1640, 206)", "(70, 34)"],
        ["push-button", "Close", "", "", "", "(1760, 206)", "(34, 34)"],
        ["text", "Untitled Document 1", "", "", "", "(980, 250)", "(820, 590)"],
    ]
)


_POINT = re.compile(r"^\(\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)$")
_UNESCAPE = {"n": "\n", "t": "\t", "\\": "\\"}


def parse_os_table(text: str) -> dict[str, Any]:
    """The accessibility table as ``{columns, rows}``: the header's column names, and each row's
    cells as written (``text`` keeps its quotes; see :func:`os_cell_text`)."""
    lines = [line for line in split_lines(text) if line.strip()]
    if not lines:
        return {"columns": list(OS_COLUMNS), "rows": []}
    columns = lines[0].split("\t")
    rows = []
    for line in lines[1:]:
        cells = line.split("\t")
        cells += [""] * (len(columns) - len(cells))
        rows.append(cells)
    return {"columns": columns, "rows": rows}


def render_os_table(table: dict[str, Any]) -> str:
    """The table as the os prompt writes it: tab-separated, header first."""
    return "\n".join("\t".join(cells) for cells in [table["columns"], *table["rows"]])


def os_cell_text(cell: str) -> str:
    """A ``text`` cell's content: the quotes removed, ``""`` read as ``"``, ``\\n`` as a newline."""
    if not (len(cell) >= 2 and cell[0] == cell[-1] == '"'):
        return cell
    inner, out, i = cell[1:-1], [], 0
    while i < len(inner):
        pair = inner[i : i + 2]
        if pair[:1] == "\\" and pair[1:] in _UNESCAPE:
            out.append(_UNESCAPE[pair[1:]])
            i += 2
        elif pair == '""':
            out.append('"')
            i += 2
        else:
            out.append(inner[i])
            i += 1
    return "".join(out)


def os_text_cell(text: str) -> str:
    """The ``text`` cell for ``text``: in double quotes, empty when there is no text."""
    if not text:
        return ""
    escaped = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace('"', '""')
    return f'"{escaped}"'


def os_point(cell: str) -> tuple[float, float] | None:
    """A ``position`` or ``size`` cell (``(x, y)``) as two numbers; None when it is not one."""
    match = _POINT.match(cell.strip())
    return (float(match.group(1)), float(match.group(2))) if match else None
