"""Reports of bench figures: the console table, a markdown report, and comparisons.

>>> board = score_file("judgements.jsonl")                      # doctest: +SKIP
>>> print_scoreboard(board)                                      # doctest: +SKIP
>>> Path("report.md").write_text(markdown_report([board]))       # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .data import domain_order
from .plot import PUBLISHED_OVERALL
from .score import DIMENSIONS, Figures, Scoreboard


def _fmt(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _delta(value: float | None, base: float | None) -> str:
    if value is None or base is None:
        return "n/a"
    return f"{value - base:+.2f}"


def _row(figures: Figures, overall: bool = False) -> list[str]:
    """A table row. Its count is the official printout's: per domain the records not failed
    (``judged``, the header's "valid"), overall those with a counted total (``Valid:``)."""
    return [
        f"{figures.valid if overall else figures.judged}/{figures.count}",
        *[_fmt(figures.dimension(d)) for d in DIMENSIONS],
        _fmt(figures.total),
    ]


def _domains(boards: Sequence[Scoreboard]) -> list[str]:
    return domain_order({d for b in boards for d in b.domains})


# -- console ----------------------------------------------------------------------------------------


def _table(title: str) -> Any:
    """An empty rich Table in the reports' compact style."""
    from rich import box
    from rich.table import Table

    return Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
        show_edge=False,  # all columns fit an 80-column terminal
    )


def scoreboard_table(board: Scoreboard) -> Any:
    """A rich Table: per domain valid/total, the five dimensions and the total; then overall."""
    table = _table(f"AgentWorldBench: {board.label} (normalised 0-100)")
    table.add_column("domain")
    table.add_column("valid/total", justify="right")
    for dim in DIMENSIONS:
        table.add_column(dim, justify="right")
    table.add_column("total", justify="right", style="bold")
    for name, figures in board.domains.items():
        table.add_row(name, *_row(figures))
    table.add_section()
    table.add_row("overall", *_row(board.overall, overall=True), style="bold")
    return table


def comparison_table(boards: Sequence[Scoreboard]) -> Any:
    """A rich Table of totals per domain for several files, with deltas against the first."""
    table = _table(f"AgentWorldBench comparison (normalised total; deltas vs {boards[0].label})")
    table.add_column("domain")
    for board in boards:
        table.add_column(board.label, justify="right")
    for board in boards[1:]:
        table.add_column(f"delta {board.label}", justify="right")
    for name, get in _comparison_rows(boards):
        values = [get(b) for b in boards]
        deltas = [_delta(v, values[0]) for v in values[1:]]
        style = "bold" if name == "overall" else None
        if name == "overall":
            table.add_section()
        table.add_row(name, *[_fmt(v) for v in values], *deltas, style=style)
    return table


def _comparison_rows(boards: Sequence[Scoreboard]) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for name in _domains(boards):
        rows.append((name, lambda b, n=name: b.domains[n].total if n in b.domains else None))
    rows.append(("overall", lambda b: b.overall.total))
    return rows


def print_scoreboard(board: Scoreboard, console: Any = None) -> None:
    from rich.console import Console

    console = console or Console()
    console.print(scoreboard_table(board))
    for line in _notes(board):
        console.print(line, highlight=False)


def print_comparison(boards: Sequence[Scoreboard], console: Any = None) -> None:
    from rich.console import Console

    console = console or Console()
    console.print(comparison_table(boards))


def _parsers(board: Scoreboard) -> str | None:
    if not board.parsers:
        return None
    return "judge answers read by: " + ", ".join(f"{name} parser {n}" for name, n in board.parsers.items())


def _notes(board: Scoreboard) -> list[str]:
    notes = []
    if (parsers := _parsers(board)) is not None:
        notes.append(parsers)
    if board.failures:
        listing = ", ".join(f"{n} {why}" for why, n in board.failures.items())
        notes.append(f"left out of the means: {listing}")
    if board.problems:
        notes.append(f"unreadable lines: {len(board.problems)} (first: {board.problems[0]})")
    return notes


# -- markdown ---------------------------------------------------------------------------------------


def _md_table(header: list[str], rows: list[list[str]], right: Sequence[int] | None = None) -> list[str]:
    """A markdown table; columns in ``right`` (default: all but the first) are right-aligned."""
    right = range(1, len(header)) if right is None else right
    align = ["---:" if i in right else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines


def _one_line(text: Any, limit: int = 160) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def markdown_report(boards: Sequence[Scoreboard], *, plot: str | None = None, reference: bool = True) -> str:
    """A markdown report: figures per domain for each file, a comparison when there are several,
    where the run stands among the published figures, failures, and the lowest-scored records."""
    lines = ["# AgentWorldBench report", ""]
    lines.append(
        "Figures are normalised `(raw - 1) / 4 * 100` from the judge's 1-5 scores; a record's total is"
    )
    lines.append("the mean of its positive scores; failed records are counted and left out of the means;")
    lines.append("overall is the mean over all valid records.")
    lines.append("")
    if plot:
        lines += [f"![AgentWorldBench scores]({plot})", ""]
    if len(boards) > 1:
        base = boards[0]
        header = ["domain", *[b.label for b in boards], *[f"delta {b.label}" for b in boards[1:]]]
        rows = []
        for name, get in _comparison_rows(boards):
            values = [get(b) for b in boards]
            row = [name, *[_fmt(v) for v in values], *[_delta(v, values[0]) for v in values[1:]]]
            rows.append([f"**{c}**" for c in row] if name == "overall" else row)
        lines += ["## Comparison", "", f"Deltas are against `{base.label}`.", ""]
        lines += _md_table(header, rows)
        lines.append("")
    for board in boards:
        lines += [f"## {board.label}", ""]
        if board.models:
            for step, names in board.models.items():
                role = "world model" if step == "infer" else "judge"
                lines.append(f"- {role}: {', '.join(f'`{n}`' for n in names)}")
        lines.append(
            f"- records: {board.overall.count}, valid: {board.overall.valid}, failed: {board.overall.failed}"
        )
        if (parsers := _parsers(board)) is not None:
            lines.append(f"- {parsers}")
        lines.append("")
        header = ["domain", "valid/total", *DIMENSIONS, "total"]
        rows = [[name, *_row(fig)] for name, fig in board.domains.items()]
        rows.append([f"**{c}**" for c in ["overall", *_row(board.overall, overall=True)]])
        lines += _md_table(header, rows)
        lines.append("")
        if board.failures or board.problems:
            lines += ["### Left out of the means", ""]
            lines += [f"- {why}: {n}" for why, n in board.failures.items()]
            if board.problems:
                lines.append(f"- unreadable lines: {len(board.problems)} (first: `{board.problems[0]}`)")
            lines.append("")
        if board.worst and board.worst[0]["total"] < (board.overall.total or 0.0) - 1e-9:  # not all equal
            lines += ["### Lowest-scored records", ""]
            rows = [
                [
                    str(w["domain"]),
                    str(w["id"]),
                    str(w["turn_idx"]),
                    _fmt(w["total"]),
                    _one_line(w.get("weaknesses")),
                ]
                for w in board.worst
            ]
            lines += _md_table(["domain", "id", "turn", "total", "judge's weaknesses"], rows, right=(2, 3))
            lines.append("")
    if reference:
        lines += ["## Among the published figures", ""]
        lines.append(
            "Published overall figures (listed in docs/bench.md), with this run's; scores from another judge or"
        )
        lines.append("other prompts are not strictly comparable.")
        lines.append("")
        entries = [(value, name, False) for name, value in PUBLISHED_OVERALL.items()]
        entries += [(b.overall.total, b.label, True) for b in boards if b.overall.total is not None]
        entries.sort(key=lambda e: -e[0])
        rows = [[f"**{name}** (this run)" if ours else name, _fmt(value)] for value, name, ours in entries]
        lines += _md_table(["model", "overall"], rows)
        lines.append("")
    return "\n".join(lines)
