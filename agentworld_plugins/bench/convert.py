"""Bring your own data: recorded sessions -> AgentWorldBench records.

Any adapter records its sessions with ``Trajectory.to_jsonl`` (``agentworld demo --record``, an
MCP or shell session with its recorder on). Recorded against the REAL environment, the
observations are ground truth, and the trajectories become a benchmark of your agent's own
environment: one record per turn, in ``<domain>_test.jsonl`` files ``bench infer`` reads.

>>> convert_trajectories(["sessions.jsonl"], "my-bench/")       # doctest: +SKIP
{'terminal': 42}
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..errors import ConfigError
from ..files import open_private
from ..redaction import redact_record
from .data import FILE_SUFFIX, domain_of, dump_line, record_problem


def convert_trajectories(
    sources: Sequence[str | Path],
    output_dir: str | Path,
    *,
    domain: str | None = None,
    append: bool = False,
) -> tuple[dict[str, int], list[str]]:
    """Write the records of every trajectory in ``sources`` to ``output_dir/<domain>_test.jsonl``.

    ``domain`` names the domain of trajectories that do not say it. Returns (records written per
    domain, problems with the turns left out).
    """
    from ..errors import AgentWorldError
    from ..session import Trajectory

    out = Path(output_dir).expanduser()
    by_domain: dict[str, list[dict]] = {}
    problems: list[str] = []
    for source in sources:
        path = Path(source).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"No trajectory file at {path}",
                hint="record sessions with Trajectory.to_jsonl or `agentworld demo --record FILE`",
            )
        try:
            trajectories = Trajectory.from_jsonl(path)
        except AgentWorldError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ConfigError(
                f"{path} is not a trajectory file ({type(exc).__name__}: {exc})",
                hint="give JSONL written by Trajectory.to_jsonl (records or chat form)",
            ) from None
        for trajectory in trajectories:
            name = domain_of(trajectory.domain) or domain_of(domain)
            if not name:
                problems.append(
                    f"{path.name}: session {trajectory.session_id} names no domain (pass --domain)"
                )
                continue
            for record in trajectory.records():
                record["task"] = name if not domain_of(record.get("task")) else record["task"]
                problem = record_problem(record)
                if problem:
                    problems.append(
                        f"{path.name}: session {trajectory.session_id} turn {record.get('turn_idx')}: {problem}"
                    )
                    continue
                by_domain.setdefault(domain_of(record["task"]), []).append(record)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, int] = {}
    for name, records in by_domain.items():
        with open_private(out / f"{name}{FILE_SUFFIX}", "a" if append else "w") as fh:
            for record in records:
                fh.write(dump_line(redact_record(record)))
        written[name] = len(records)
    return written, problems
