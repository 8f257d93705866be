"""``bench score``: the published arithmetic over judged records.

- a record's total is the mean of its positive dimension scores (a dimension the judge left out,
  or scored 0, does not count);
- a record without a usable judgement (inference failed, an empty generation, the judge never
  gave scores) is counted as failed and left out of every mean: it is not a zero;
- as in the official script, a dimension's mean takes every value that is not 0 (a -1 the
  official parser let through counts), and the total's mean every total that is not 0;
- a figure is normalised ``(raw - 1) / 4 * 100``, so 1 -> 0 and 5 -> 100;
- per domain, the mean over that domain's valid records; overall, the mean over ALL valid records
  (not the mean of the domain figures);
- means are ``statistics.mean`` (exact, then rounded once), as officially, so figures printed
  with two decimals match the official script's to the last digit, ties included.

The counts follow the official printout: a domain's ``judged`` records (``failed`` 0) are its
"valid" in the official header, the overall ``valid`` (records with a non-zero total) its
``Valid:`` line.

>>> board = score_file("judgements.jsonl")         # doctest: +SKIP
>>> round(board.overall.total, 2)                   # doctest: +SKIP
58.71
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any

from ..errors import AgentWorldError
from .data import domain_order, load_results, record_domain

DIMENSIONS: tuple[str, ...] = ("format", "factuality", "consistency", "realism", "quality")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def record_total(scores: Mapping[str, Any] | None) -> float | None:
    """The mean of the positive scores among the five dimensions; None when there is none."""
    if not isinstance(scores, Mapping):
        return None
    values = [v for v in (_number(scores.get(d)) for d in DIMENSIONS) if v is not None and v > 0]
    return sum(values) / len(values) if values else None


def normalise(raw: float | None) -> float | None:
    """A 1-5 mean as a 0-100 figure: ``(raw - 1) / 4 * 100``."""
    return None if raw is None else (raw - 1.0) / 4.0 * 100.0


def judged_result(line: Mapping[str, Any]) -> tuple[dict[str, Any], float] | None:
    """(dimension scores, total) of a judged line whose judgement is usable, else None.

    Reads our ``judge`` section; else the official script's fields (``failed`` 0 marks a usable
    judgement, then the five dimensions and ``total_score`` at the top level); else a top-level
    ``scores`` object (other tools' files).
    """
    judge = line.get("judge")
    if isinstance(judge, Mapping):
        if judge.get("status") != "ok" or not isinstance(judge.get("scores"), Mapping):
            return None
        total = _number(judge.get("total"))
        if total is None:
            total = record_total(judge["scores"])
        return dict(judge["scores"]), total if total is not None else 0.0
    if "failed" in line:
        if line.get("failed") != 0:
            return None
        total = _number(line.get("total_score"))
        return {d: line.get(d, 0) for d in DIMENSIONS}, total if total is not None else 0.0
    scores = line.get("scores")
    if isinstance(scores, Mapping):
        total = record_total(scores)
        return dict(scores), total if total is not None else 0.0
    return None


def judged_scores(line: Mapping[str, Any]) -> dict[str, Any] | None:
    """The dimension scores of a judged line with a usable judgement, else None."""
    found = judged_result(line)
    return found[0] if found is not None and found[1] else None


@dataclass
class Figures:
    """The means of one group of records (a domain, or all), raw on the 1-5 scale."""

    name: str
    count: int = 0  # records in the file
    valid: int = 0  # records counted in the means (a usable judgement with a non-zero total)
    judged: int = 0  # records the official script counts as not failed (its per-domain "valid")
    raw: dict[str, float | None] = field(default_factory=dict)  # per dimension
    raw_total: float | None = None
    _sums: dict[str, list[float]] = field(default_factory=dict, repr=False)
    _totals: list[float] = field(default_factory=list, repr=False)

    @property
    def failed(self) -> int:
        return self.count - self.valid

    @property
    def total(self) -> float | None:
        """The normalised total (0-100), the published figure."""
        return normalise(self.raw_total)

    def dimension(self, name: str) -> float | None:
        """The normalised figure of one dimension."""
        return normalise(self.raw.get(name))

    def add(self, scores: Mapping[str, Any] | None, total: float | None = None) -> None:
        """Count one record, with the official arithmetic: a failed record (``scores`` None) is
        in no mean; of the others, a dimension counts when it is not 0 (so a -1 does) and the
        total when it is not 0."""
        self.count += 1
        if scores is None:
            return
        self.judged += 1
        if total is None:
            total = record_total(scores) or 0.0
        for dim in DIMENSIONS:
            value = _number(scores.get(dim, 0))
            if value is not None and value != 0:
                self._sums.setdefault(dim, []).append(value)
        if total != 0:
            self.valid += 1
            self._totals.append(total)

    def close(self) -> Figures:
        # statistics.mean, as officially: exact, so a tie (35.625) rounds as the official script's
        self.raw = {d: (mean(v) if (v := self._sums.get(d)) else None) for d in DIMENSIONS}
        self.raw_total = mean(self._totals) if self._totals else None
        return self

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "count": self.count,
            "valid": self.valid,
            "judged": self.judged,
            "failed": self.failed,
            "total": self.total,
            "raw_total": self.raw_total,
            "dimensions": {d: self.dimension(d) for d in DIMENSIONS},
            "raw_dimensions": dict(self.raw),
        }


@dataclass
class Scoreboard:
    """Per-domain and overall figures of one judged file, with what it was made from."""

    label: str
    domains: dict[str, Figures]
    overall: Figures
    models: dict[str, list[str]] = field(default_factory=dict)  # "infer"/"judge" -> model names
    failures: dict[str, int] = field(default_factory=dict)  # reason -> count
    parsers: dict[str, int] = field(default_factory=dict)  # judge-answer parser -> usable judgements
    problems: list[str] = field(default_factory=list)  # unreadable lines
    worst: list[dict[str, Any]] = field(default_factory=list)  # lowest totals, for reports

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "overall": self.overall.as_dict(),
            "domains": {name: fig.as_dict() for name, fig in self.domains.items()},
            "models": self.models,
            "failures": self.failures,
            "parsers": self.parsers,
            "problems": self.problems,
        }


def _failure_reason(line: Mapping[str, Any]) -> str:
    infer, judge = line.get("infer"), line.get("judge")
    if isinstance(infer, Mapping) and infer.get("status") not in (None, "ok"):
        return "inference failed"
    if not isinstance(judge, Mapping):
        if "failed" in line:
            return str(line.get("error_message") or "judge failed")
        return "not judged" if "scores" not in line else "no usable scores"
    if judge.get("status") != "ok":
        return "judge failed"
    return "no usable scores"


def score_records(lines: Iterable[Mapping[str, Any]], label: str = "results", worst: int = 5) -> Scoreboard:
    """Figures per domain and overall for judged result lines (see the module docs)."""
    groups: dict[str, Figures] = {}
    overall = Figures("overall")
    models: dict[str, set[str]] = {"infer": set(), "judge": set()}
    failures: dict[str, int] = {}
    parsers: dict[str, int] = {}
    ranked: list[tuple[float, dict[str, Any]]] = []
    for line in lines:
        domain = record_domain(line) or "?"
        figures = groups.setdefault(domain, Figures(domain))
        found = judged_result(line)
        scores, total = found if found is not None else (None, None)
        figures.add(scores, total)
        overall.add(scores, total)
        if scores is not None:
            judge = line.get("judge")
            used = judge.get("parser") if isinstance(judge, Mapping) else None
            name = str(used or ("official" if "failed" in line else "unknown"))
            parsers[name] = parsers.get(name, 0) + 1
        for step in ("infer", "judge"):
            part = line.get(step)
            if isinstance(part, Mapping) and isinstance(part.get("model"), str):
                models[step].add(part["model"])
        if scores is None or not total:
            reason = _failure_reason(line) if scores is None else "no positive score"
            failures[reason] = failures.get(reason, 0) + 1
        else:
            judge = line.get("judge") if isinstance(line.get("judge"), Mapping) else {}
            ranked.append(
                (
                    total,
                    {
                        "domain": domain,
                        "id": line.get("id"),
                        "turn_idx": line.get("turn_idx"),
                        "total": normalise(total),
                        "weaknesses": judge.get("weaknesses") if isinstance(judge, Mapping) else None,
                    },
                )
            )
    ranked.sort(
        key=lambda pair: (pair[0], str(pair[1]["domain"]), str(pair[1]["id"]), str(pair[1]["turn_idx"]))
    )
    return Scoreboard(
        label=label,
        domains={name: groups[name].close() for name in domain_order(groups)},
        overall=overall.close(),
        models={k: sorted(v) for k, v in models.items() if v},
        failures=dict(sorted(failures.items())),
        parsers=dict(sorted(parsers.items())),
        worst=[row for _, row in ranked[:worst]],
    )


class NoFiguresWarning(UserWarning):
    """A judged file gave no figure: no line holds a usable judgement (``score_file(...,
    allow_empty=True)``)."""


class NoFiguresError(AgentWorldError):
    """A judged file gives no figure: no line holds a usable judgement. ``board`` is the
    scoreboard all the same (every figure None, ``failures`` saying why)."""

    def __init__(self, message: str, board: Scoreboard) -> None:
        super().__init__(
            message,
            hint='a judged line needs judge.status "ok" with judge.scores (ours), or failed: 0 with '
            "total_score and format/factuality/consistency/realism/quality (the official script's); "
            "rerun `bench judge` on the failed lines, or pass allow_empty=True to get the empty board",
        )
        self.board = board


def score_file(path: str | Path, label: str | None = None, *, allow_empty: bool = False) -> Scoreboard:
    """The scoreboard of a judgements file; unreadable lines are listed in ``problems``.

    A file with no usable judgement (every judgement failed) raises :class:`NoFiguresError`
    naming the reasons, so a script never prints a bare ``None`` and exits 0; with
    ``allow_empty=True`` it gives the scoreboard, every figure None, and a
    :class:`NoFiguresWarning`."""
    rows, problems = load_results(path)
    board = score_records(rows, label or Path(path).stem)
    board.problems = problems
    if board.overall.valid == 0:
        why = ", ".join(f"{n} {reason}" for reason, n in board.failures.items()) or "no lines"
        message = (
            f"{path}: no usable judgement in {board.overall.count} line(s) ({why}): every figure is None"
        )
        if not allow_empty:
            raise NoFiguresError(message, board)
        warnings.warn(message, NoFiguresWarning, stacklevel=2)
    return board
