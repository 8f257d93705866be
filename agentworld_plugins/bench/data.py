"""AgentWorldBench data: the ``<domain>_test.jsonl`` files, their records, and JSONL helpers.

>>> dataset = load_dataset("AgentWorldBench/", domains=["terminal"], limit=10)   # doctest: +SKIP
>>> dataset.records[0]["turn_idx"], dataset.problems                              # doctest: +SKIP
(1, [])

A record (FORMATS.md): ``task`` (the domain, possibly ``x/domain``), ``id``, ``prompt`` (every turn
prompt), ``response`` (every ground-truth observation), ``current_prompt``, ``system_str``,
``turn_idx`` (1-based turn under test) and ``total_turns``. A record is identified by its domain,
id and turn; that key is what resume skips.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..files import MAX_LINE_CHARS
from ..limits import LimitError, loads_limited

#: the seven domains, in the order the published tables list them
DOMAINS: tuple[str, ...] = ("mcp", "search", "terminal", "swe", "android", "web", "os")
FILE_SUFFIX = "_test.jsonl"
REQUIRED_FIELDS: tuple[str, ...] = ("id", "prompt", "response", "turn_idx")
#: fields a record may lack: no system message is sent without ``system_str`` (as officially),
#: and ``prompt[turn_idx - 1]`` stands for a missing ``current_prompt``
OPTIONAL_FIELDS: tuple[str, ...] = ("current_prompt", "system_str")

Key = tuple[str, str, int]


def domain_of(task: Any) -> str:
    """``"terminal"`` from ``"terminal"`` or ``"AgentWorldBench/terminal"``."""
    return str(task or "").strip().rstrip("/").rsplit("/", 1)[-1].strip()


def record_domain(record: Mapping[str, Any]) -> str:
    return domain_of(record.get("task"))


def record_key(record: Mapping[str, Any]) -> Key:
    """(domain, id, turn_idx): what identifies one benchmark sample, in input and output files."""
    return (record_domain(record), str(record.get("id")), int(record.get("turn_idx") or 0))


def key_text(key: Key) -> str:
    return f"{key[0]}/{key[1]}#{key[2]}"


def domain_order(names: Iterable[str]) -> list[str]:
    """The known domains in their published order, then any others alphabetically."""
    names = set(names)
    return [d for d in DOMAINS if d in names] + sorted(names - set(DOMAINS))


def ground_truth(record: Mapping[str, Any]) -> str:
    """The real observation of the turn under test."""
    return str(record["response"][int(record["turn_idx"]) - 1])


def record_problem(record: Any) -> str | None:
    """Why ``record`` cannot be evaluated, or None when it can (inference and judging)."""
    if not isinstance(record, dict):
        return f"a record must be a JSON object, not {type(record).__name__}"
    missing = [f for f in REQUIRED_FIELDS if f not in record]
    if missing:
        return f"missing field(s) {', '.join(missing)}"
    if not record_domain(record):
        return "no task (the domain) and none could be taken from the file name"
    if not isinstance(record["prompt"], list) or not isinstance(record["response"], list):
        return "prompt and response must be lists (every turn prompt, every observation)"
    try:
        turn = int(record["turn_idx"])
    except (TypeError, ValueError):
        return f"turn_idx {record['turn_idx']!r} is not a number"
    if turn < 1 or turn > len(record["response"]):
        return f"turn_idx {turn} is out of range: the record has {len(record['response'])} responses"
    if turn > len(record["prompt"]) and not isinstance(record.get("current_prompt"), str):
        return f"turn_idx {turn} has no prompt: the record has {len(record['prompt'])} prompts and no current_prompt"
    if "current_prompt" in record and not isinstance(record["current_prompt"], (str, type(None))):
        return "current_prompt must be a string"
    if not isinstance(record.get("system_str") or "", str):
        return "system_str must be a string"
    return None


# -- JSONL ------------------------------------------------------------------------------------------


@dataclass
class JsonlLine:
    """One line of a JSONL file: its number, its text, and the object (None when it is not one)."""

    lineno: int
    text: str
    value: dict[str, Any] | None
    error: str | None = None


def read_jsonl(path: Path) -> Iterator[JsonlLine]:
    """Every non-blank line of ``path``; lines that are not JSON objects come with an ``error``.

    A last line without its newline (a writer killed mid-line) is read like any other, so a torn
    line shows up as an error rather than being silently joined to the next write.
    """
    with Path(path).open(encoding="utf-8", errors="replace") as fh:
        for lineno, text in enumerate(fh, 1):
            stripped = text.strip()
            if not stripped:
                continue
            try:
                value = loads_limited(stripped, max_chars=MAX_LINE_CHARS)
            except json.JSONDecodeError as exc:
                yield JsonlLine(lineno, text, None, f"not JSON ({exc.msg}, column {exc.colno})")
                continue
            except LimitError as exc:
                yield JsonlLine(lineno, text, None, f"too large to read ({exc})")
                continue
            if not isinstance(value, dict):
                yield JsonlLine(lineno, text, None, f"a JSON {type(value).__name__}, not an object")
                continue
            yield JsonlLine(lineno, text, value)


def dump_line(value: Mapping[str, Any]) -> str:
    """One JSONL line (with its newline), the same way everywhere so files compare byte for byte.

    Non-ASCII characters are escaped: the encoder is twice as fast that way, and every JSON
    reader gives the same text back."""
    return json.dumps(value) + "\n"


# -- datasets ---------------------------------------------------------------------------------------


@dataclass
class Dataset:
    """The records to evaluate, in file order, and what was wrong with the ones left out."""

    records: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def domains(self) -> list[str]:
        return domain_order(record_domain(r) for r in self.records)


def data_files(path: Path) -> dict[str, Path]:
    """``{domain: file}`` for a folder of ``<domain>_test.jsonl`` files, or for one such file."""
    path = Path(path).expanduser()
    if path.is_file():
        name = path.name
        domain = name[: -len(FILE_SUFFIX)] if name.endswith(FILE_SUFFIX) else path.stem
        return {domain: path}
    if not path.is_dir():
        raise ConfigError(
            f"No AgentWorldBench data at {path}",
            hint="pass --data-dir, a folder holding <domain>_test.jsonl files (mcp_test.jsonl, ...)",
        )
    found = {p.name[: -len(FILE_SUFFIX)]: p for p in sorted(path.glob(f"*{FILE_SUFFIX}")) if p.is_file()}
    if not found:
        listing = ", ".join(sorted(p.name for p in path.iterdir())[:8]) or "nothing"
        raise ConfigError(
            f"No <domain>_test.jsonl files in {path} (it holds {listing})",
            hint="point --data-dir at the AgentWorldBench folder, or make records with `agentworld bench convert`",
        )
    return {d: found[d] for d in domain_order(found)}


def _wanted_domains(files: Mapping[str, Path], domains: Sequence[str] | None) -> list[str]:
    if not domains:
        return list(files)
    wanted = [domain_of(d) for d in domains]
    unknown = [d for d in wanted if d not in files]
    if unknown:
        raise ConfigError(
            f"No data file for domain(s) {', '.join(unknown)}",
            hint=f"the data holds {', '.join(files) or 'no domain'}",
        )
    return wanted


def load_dataset(path: str | Path, domains: Sequence[str] | None = None, limit: int | None = None) -> Dataset:
    """Read the records of ``path`` (a folder of ``<domain>_test.jsonl`` files, or one file).

    ``domains`` picks files; ``limit`` keeps the first N valid records of each domain. Records
    that cannot be evaluated (bad JSON, missing fields, a turn out of range) and repeated keys are
    left out and described in ``problems`` (``file:line: why``); they never stop the others.
    """
    files = data_files(Path(path))
    dataset = Dataset()
    seen: set[Key] = set()
    for domain in _wanted_domains(files, domains):
        source = files[domain]
        dataset.files[domain] = source
        kept = 0
        for line in read_jsonl(source):
            if limit is not None and kept >= limit:
                break
            where = f"{source.name}:{line.lineno}"
            record = line.value
            if record is None:
                dataset.problems.append(f"{where}: {line.error}")
                continue
            if not record.get("task"):
                record["task"] = domain
            problem = record_problem(record)
            if problem:
                dataset.problems.append(f"{where}: record {record.get('id', '?')!r}: {problem}")
                continue
            key = record_key(record)
            if key in seen:
                dataset.problems.append(
                    f"{where}: {key_text(key)} repeats an earlier record; the first is kept"
                )
                continue
            seen.add(key)
            dataset.records.append(record)
            kept += 1
    return dataset


def load_results(path: str | Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The objects of a predictions or judgements file, and ``file:line`` problems for bad lines."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise ConfigError(
            f"No results file at {path}", hint="give the file `agentworld bench infer/judge` wrote"
        )
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for line in read_jsonl(path):
        if line.value is None:
            problems.append(f"{path.name}:{line.lineno}: {line.error}")
        else:
            rows.append(line.value)
    return rows, problems
