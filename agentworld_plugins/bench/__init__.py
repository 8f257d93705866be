"""AgentWorldBench evaluation: infer, judge, score, report; fast, resumable and reproducible.

>>> import asyncio
>>> from agentworld_plugins import bench
>>> data = bench.load_dataset("AgentWorldBench/")                                    # doctest: +SKIP
>>> world = bench.world_backend(base_url="http://localhost:8000/v1")                 # doctest: +SKIP
>>> asyncio.run(bench.infer_records(data.records, world, "predictions.jsonl"))       # doctest: +SKIP
>>> judge = bench.judge_backend(base_url="http://localhost:8001/v1")                 # doctest: +SKIP
>>> lines, _ = bench.load_results("predictions.jsonl")                               # doctest: +SKIP
>>> asyncio.run(bench.judge_lines(lines, judge, "judgements.jsonl"))                 # doctest: +SKIP
>>> bench.print_scoreboard(bench.score_file("judgements.jsonl"))                     # doctest: +SKIP

The command line is ``agentworld bench infer|judge|score|run|compare|convert|sample|import-prompts``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# names -> the module that defines them; imported on first use so `agentworld --help` stays fast
_EXPORTS: dict[str, str] = {
    "convert_trajectories": "convert",
    "DOMAINS": "data",
    "Dataset": "data",
    "domain_of": "data",
    "ground_truth": "data",
    "load_dataset": "data",
    "load_results": "data",
    "record_key": "data",
    "judge_backend": "endpoints",
    "import_prompts": "import_prompts",
    "JudgeTemplate": "judge_template",
    "OutputLock": "lock",
    "extract_prediction": "official",
    "inference_messages": "official",
    "parse_official_judgement": "official",
    "world_backend": "endpoints",
    "DEFAULT_MAX_TOKENS": "infer",
    "DEFAULT_TEMPERATURE": "infer",
    "default_sampling": "infer",
    "infer_record": "infer",
    "infer_records": "infer",
    "JudgePrompts": "judge",
    "Judgement": "judge",
    "judge_lines": "judge",
    "judge_messages": "judge",
    "judge_record": "judge",
    "parse_judgement": "judge",
    "PUBLISHED_OVERALL": "plot",
    "write_plot": "plot",
    "markdown_report": "report",
    "print_comparison": "report",
    "print_scoreboard": "report",
    "JobResult": "runner",
    "RunOptions": "runner",
    "RunSummary": "runner",
    "run_jobs": "runner",
    "make_sample_dataset": "sample",
    "sample_records": "sample",
    "DIMENSIONS": "score",
    "Figures": "score",
    "NoFiguresError": "score",
    "Scoreboard": "score",
    "normalise": "score",
    "record_total": "score",
    "score_file": "score",
    "score_records": "score",
}

if TYPE_CHECKING:
    from .convert import convert_trajectories
    from .data import DOMAINS, Dataset, domain_of, ground_truth, load_dataset, load_results, record_key
    from .endpoints import judge_backend, world_backend
    from .import_prompts import import_prompts
    from .infer import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, default_sampling, infer_record, infer_records
    from .judge import Judgement, JudgePrompts, judge_lines, judge_messages, judge_record, parse_judgement
    from .judge_template import JudgeTemplate
    from .lock import OutputLock
    from .official import extract_prediction, inference_messages, parse_official_judgement
    from .plot import PUBLISHED_OVERALL, write_plot
    from .report import markdown_report, print_comparison, print_scoreboard
    from .runner import JobResult, RunOptions, RunSummary, run_jobs
    from .sample import make_sample_dataset, sample_records
    from .score import (
        DIMENSIONS,
        Figures,
        NoFiguresError,
        Scoreboard,
        normalise,
        record_total,
        score_file,
        score_records,
    )


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_TEMPERATURE",
    "DIMENSIONS",
    "DOMAINS",
    "PUBLISHED_OVERALL",
    "Dataset",
    "Figures",
    "JobResult",
    "JudgePrompts",
    "JudgeTemplate",
    "Judgement",
    "NoFiguresError",
    "OutputLock",
    "RunOptions",
    "RunSummary",
    "Scoreboard",
    "convert_trajectories",
    "default_sampling",
    "domain_of",
    "extract_prediction",
    "ground_truth",
    "import_prompts",
    "infer_record",
    "infer_records",
    "inference_messages",
    "judge_backend",
    "judge_lines",
    "judge_messages",
    "judge_record",
    "load_dataset",
    "load_results",
    "make_sample_dataset",
    "markdown_report",
    "normalise",
    "parse_judgement",
    "parse_official_judgement",
    "print_comparison",
    "print_scoreboard",
    "record_key",
    "record_total",
    "run_jobs",
    "sample_records",
    "score_file",
    "score_records",
    "world_backend",
    "write_plot",
]
