"""Reading the data files users hand the package: JSON/YAML documents and JSONL logs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import AgentWorldError


def parse_data(text: str, name: str | Path) -> Any:
    """Parse ``text`` as YAML when ``name`` ends in .yaml/.yml, else as JSON (errors propagate)."""
    if str(name).lower().endswith((".yaml", ".yml")):
        import yaml

        return yaml.safe_load(text)
    return json.loads(text)


def yaml_problem(exc: Exception) -> str:
    """One line for a YAML parse error: ``not valid YAML at line 3, column 7: <problem>``."""
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
    context, started = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and started is not None:  # where the unclosed thing began, e.g. a flow mapping
        problem += f" ({context} at line {started.line + 1}, column {started.column + 1})"
    return f"not valid YAML{where}: {problem}"


def iter_jsonl(
    path: str | Path, *, hint: str = "each line must be one JSON object"
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line; an unreadable file or a line that is not
    JSON is an :class:`AgentWorldError` naming the file and line."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise AgentWorldError(f"Cannot read {path}: {exc.strerror or exc}", hint="check the path") from None
    except UnicodeDecodeError as exc:
        raise AgentWorldError(
            f"{path} is not a UTF-8 text file (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}), "
            "so not JSONL"
        ) from None
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            raise AgentWorldError(f"{path}:{lineno} is not JSON ({exc.msg})", hint=hint) from None
