"""``agentworld bench``: evaluate a world model on AgentWorldBench.

    agentworld bench infer --data-dir AgentWorldBench/ --output predictions.jsonl --base-url http://localhost:8000/v1
    agentworld bench judge --predictions predictions.jsonl --output judgements.jsonl --base-url http://localhost:8001/v1
    agentworld bench score judgements.jsonl --report report.md --plot scores.png
    agentworld bench run --data-dir AgentWorldBench/ --output-dir results/ --base-url ... --judge-base-url ...

Every step appends results as they come and resumes when rerun with the same arguments.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..bench.defaults import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE
from ..notices import collecting
from .options import (
    BACKEND_HELP,
    endpoint_options,
    guard_option,
    perturb_options,
    ray_option,
    say_ignored_options,
    stack,
)

F = Callable[..., Any]


_run_options = stack(
    click.option(
        "--concurrency",
        type=click.IntRange(min=1),
        default=32,
        show_default=True,
        help="Requests in flight at once.",
    ),
    click.option(
        "--max-retries",
        type=click.IntRange(min=0),
        default=None,
        help="Retries per record for transport errors and unparseable judgements "
        "[default: 3 for inference; 2 for the judge, i.e. 3 attempts in all as the official script].",
    ),
    click.option(
        "--retry-backoff",
        type=click.FloatRange(min=0),
        default=0.5,
        show_default=True,
        help="First retry delay in seconds; doubles each time.",
    ),
    click.option(
        "--request-timeout",
        type=click.FloatRange(min=0, min_open=True),
        default=600.0,
        show_default=True,
        help="Seconds before one request is given up (and retried).",
    ),
    click.option(
        "--progress/--no-progress",
        default=None,
        help="Show a progress bar (default: when stderr is a terminal).",
    ),
    click.option(
        "--redo-failed/--keep-failed",
        default=True,
        show_default=True,
        help="On rerun, try failed records again, or keep their failure.",
    ),
    click.option(
        "--http-client",
        type=click.Choice(["lean", "openai"]),
        default="lean",
        show_default=True,
        help="For OpenAI-compatible servers: the lean asyncio client, or the openai SDK (proxies).",
    ),
)


def _sampling_options(prefix: str = "", who: str = "") -> Callable[[F], F]:
    dash = f"--{prefix}-" if prefix else "--"
    under = f"{prefix}_" if prefix else ""

    return stack(
        click.option(
            f"{dash}temperature",
            f"{under}temperature",
            type=float,
            default=DEFAULT_TEMPERATURE,
            show_default=True,
            help=f"Sampling temperature{who}.",
        ),
        click.option(
            f"{dash}max-tokens",
            f"{under}max_tokens",
            type=click.IntRange(min=1),
            default=DEFAULT_MAX_TOKENS,
            show_default=True,
            help=f"Most tokens to generate{who}.",
        ),
        click.option(
            f"{dash}extra-body",
            f"{under}extra_body",
            help=f"JSON object of server-specific request fields{who} (e.g. chat_template_kwargs).",
        ),
    )


_data_options = stack(
    click.option(
        "--data-dir",
        required=True,
        type=click.Path(path_type=Path),
        help="Folder of <domain>_test.jsonl files (or one such file).",
    ),
    click.option("--domains", multiple=True, help="Only these domains (repeatable or comma separated)."),
    click.option("--limit", type=click.IntRange(min=1), help="Only the first N records of each domain."),
)


_world_options = stack(
    endpoint_options("the world model"),
    guard_option,
    perturb_options("the world model's answers (predictions)"),
)


def _judge_options(prefix: str) -> Callable[[F], F]:
    """The judge's endpoint (``--base-url``... for ``bench judge``, ``--judge-base-url``... for
    ``bench run``; the parameters are ``judge_base_url``... either way) and how it is asked."""
    return stack(
        endpoint_options(
            "the judge",
            flag_prefix=prefix,
            dest_prefix="judge_",
            env_prefix="AGENTWORLD_JUDGE_",
            backend_help="The judge's backend when not openai, e.g. scenario:judge.yaml for offline runs. "
            + BACKEND_HELP,
        ),
        click.option(
            "--prompts-dir",
            envvar="AGENTWORLD_PROMPTS_DIR",
            type=click.Path(file_okay=False, path_type=Path),
            help="Folder of <domain>/judge_system_prompt.txt and judge_user_template.json "
            "(e.g. from `bench import-prompts`).",
        ),
        click.option(
            "--judge-parser",
            type=click.Choice(["official", "lenient"]),
            default="official",
            show_default=True,
            help="Read judge answers by the official rules, or add our recoveries (labelled per line).",
        ),
    )


_report_options = stack(
    click.option(
        "--report",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Write a markdown report here.",
    ),
    click.option(
        "--plot",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Draw per-domain bars here (.png or .svg).",
    ),
    click.option(
        "--reference/--no-reference",
        default=False,
        help="Draw the published overall figures as reference bars.",
    ),
)


# -- helpers ----------------------------------------------------------------------------------------


def _domains(values: tuple[str, ...]) -> list[str] | None:
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    return names or None


def _sampling(temperature: float, max_tokens: int, extra_body: str | None) -> Any:
    from ..bench.infer import default_sampling
    from ..errors import ConfigError

    extra = None
    if extra_body:
        try:
            extra = json.loads(extra_body)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"--extra-body is not JSON ({exc.msg})", hint="e.g. --extra-body '{\"top_k\": 20}'"
            ) from None
        if not isinstance(extra, dict):
            raise ConfigError(
                "--extra-body must be a JSON object", hint="e.g. --extra-body '{\"top_k\": 20}'"
            )
    return default_sampling(temperature=temperature, max_tokens=max_tokens, extra_body=extra)


#: the judge's retries when --max-retries is not given: three attempts in all, as officially
JUDGE_RETRIES = 2


def _options(
    concurrency: int,
    max_retries: int | None,
    retry_backoff: float,
    request_timeout: float,
    progress: bool | None,
    redo_failed: bool,
    http_client: str,
) -> Any:
    from ..bench.runner import RunOptions

    if progress is None:
        progress = sys.stderr.isatty()
    return RunOptions(
        concurrency=concurrency,
        max_retries=3 if max_retries is None else max_retries,
        judge_max_retries=JUDGE_RETRIES if max_retries is None else max_retries,
        retry_backoff=retry_backoff,
        request_timeout=request_timeout,
        progress=progress,
        redo_failed=redo_failed,
        http_client=http_client,
    )


def _judge_args(
    base_url: str | None, model: str | None, api_key: str | None, backend: str | None
) -> dict[str, Any]:
    """The judge's endpoint options as ``bench.endpoints.judge_backend``'s arguments."""
    return {"base_url": base_url, "model": model, "api_key": api_key, "backend": backend}


def _say(message: str) -> None:
    click.echo(message, err=True)


def _load(data_dir: Path, domains: tuple[str, ...], limit: int | None) -> list[dict[str, Any]]:
    from collections import Counter

    from ..bench.data import load_dataset, record_domain
    from ..errors import ConfigError

    dataset = load_dataset(data_dir, _domains(domains), limit)
    if dataset.problems:
        _say(f"data: {len(dataset.problems)} record(s) left out:")
        for problem in dataset.problems[:5]:
            _say(f"  {problem}")
        if len(dataset.problems) > 5:
            _say(f"  ... and {len(dataset.problems) - 5} more")
    if not dataset.records:
        raise ConfigError(
            f"No usable records in {data_dir}",
            hint="see the problems above; each record needs "
            + ", ".join(("task", "id", "prompt", "response", "current_prompt", "system_str", "turn_idx")),
        )
    tally = Counter(record_domain(r) for r in dataset.records)
    counts = ", ".join(f"{d} {tally[d]}" for d in dataset.domains)
    _say(f"data: {len(dataset.records)} records ({counts})")
    return dataset.records


def _report_summary(summary: Any) -> None:
    from ..bench.runner import error_tally
    from ..errors import AgentWorldError

    _say(summary.line())
    tally = error_tally(summary)
    for line in tally:
        _say(f"  {line}")
    if summary.total and not summary.ok and not summary.skipped and summary.stopped is None:
        raise AgentWorldError(
            f"{summary.label}: no record could be used ({summary.failed} failed"
            + (f"; commonest: {tally[0]}" if tally else "")
            + ")",
            hint="see the errors above; rerun the same command once they are fixed",
        )


def _perturbations(perturb: tuple[str, ...], perturb_file: Path | None) -> list[Any]:
    """The world model's perturbations (--perturb-file, --perturb or $AGENTWORLD_PERTURB), built now
    so a bad spec fails before any request."""
    from ..perturbations.config import perturbations_from_options
    from ..plugins import get_plugin_manager

    return perturbations_from_options(perturb, perturb_file, get_plugin_manager().registry)


def _infer(
    records: list[dict[str, Any]],
    output: Path,
    world_args: dict[str, Any],
    sampling: Any,
    options: Any,
    perturbations: list[Any] | None = None,
    ray: str | bool | None = None,
) -> Any:
    from functools import partial

    from ..bench.endpoints import world_backend
    from ..bench.infer import infer_records
    from ..bench.runner import check_stopped, run_sync

    make = partial(
        world_backend,
        **world_args,
        timeout=options.request_timeout,
        concurrency=options.concurrency,
        http_client=options.http_client,
    )
    backend = _on_ray(make(), make, ray, options)
    if perturbations:
        from ..perturbations.proxy import PerturbingBackend
        from ..session import World

        backend = PerturbingBackend(backend, World(backend=backend, perturbations=[]), perturbations)
    _say(f"world model: {backend.describe()}")
    tally: dict[str, int] = {}

    def note(result: Any) -> None:  # what answers could not honour, said once with its count
        infer = result.line.get("infer")
        found = infer.get("warnings") if isinstance(infer, dict) else None
        for warning in found or []:
            tally[warning] = tally.get(warning, 0) + 1

    try:
        with collecting(lambda warning: None):  # said below, once each, with the count of records
            summary = run_sync(
                infer_records(records, backend, output, sampling=sampling, options=options, on_result=note)
            )
    finally:
        backend.close()
    for warning, count in sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))[:5]:
        _say(f"infer: warning ({count} record{'s' if count > 1 else ''}): {warning}")
    _report_summary(summary)
    check_stopped(summary)
    return summary


def _on_ray(backend: Any, make: Callable[[], Any], ray: str | bool | None, options: Any) -> Any:
    """``backend``, or with ``--ray`` the same backend in Ray actors (built there by ``make``)."""
    if not ray:
        return backend
    from ..rollout.ray import RayBackend

    label = backend.describe()
    backend.close()
    return RayBackend(make, ray, options.concurrency, label)


def _judge(
    lines: list[dict[str, Any]],
    output: Path,
    judge_args: dict[str, Any],
    prompts_dir: Path | None,
    sampling: Any,
    options: Any,
    parser: str = "official",
    ray: str | bool | None = None,
) -> Any:
    from dataclasses import replace
    from functools import partial

    from ..bench.endpoints import judge_backend
    from ..bench.judge import JudgePrompts, judge_lines
    from ..bench.runner import check_stopped, run_sync
    from ..errors import ConfigError

    if not lines:
        raise ConfigError(
            "No predictions to judge", hint="give the file `bench infer` (or the official infer) wrote"
        )
    if options.judge_max_retries is not None:  # judge_lines applies it too; shown below
        options = replace(options, max_retries=options.judge_max_retries)
    prompts = JudgePrompts(prompts_dir)

    make = partial(
        judge_backend,
        **judge_args,
        timeout=options.request_timeout,
        concurrency=options.concurrency,
        http_client=options.http_client,
    )
    backend = _on_ray(make(), make, ray, options)
    _say(
        f"judge: {backend.describe()}"
        + (f", prompts from {prompts_dir}" if prompts_dir else "")
        + f", user template: {prompts.template.source}, parser: {parser}, {options.max_retries + 1} attempts"
    )
    if prompts_dir and not prompts.official_template:
        _say(
            f"warning: {prompts_dir} holds no judge_user_template.json and is not the prompts/ folder of "
            "an official checkout: the judge's system prompts are that folder's, its user message is "
            "ours (bundled), so the requests differ from the official script's; for identical ones run "
            "`agentworld bench import-prompts CHECKOUT --to DIR` and pass --prompts-dir DIR"
        )
    try:
        summary = run_sync(
            judge_lines(
                lines, backend, output, prompts=prompts, sampling=sampling, options=options, parser=parser
            )
        )
    finally:
        backend.close()
    _report_summary(summary)
    check_stopped(summary)
    return summary


def _show(
    paths: list[Path],
    report: Path | None,
    plot: Path | None,
    reference: bool,
    as_json: bool,
    labels: tuple[str, ...] = (),
) -> None:
    from rich.console import Console

    from ..bench.plot import write_plot
    from ..bench.report import markdown_report, print_comparison, print_scoreboard
    from ..bench.score import score_file
    from ..errors import ConfigError

    if labels and len(labels) != len(paths):
        raise ConfigError(
            f"{len(labels)} --label for {len(paths)} files", hint="give one --label per file, in order"
        )
    names = list(labels) or _labels(paths)
    boards = [score_file(p, name) for p, name in zip(paths, names)]  # NoFiguresError: exit 1
    if as_json:
        data = [b.as_dict() for b in boards]
        click.echo(json.dumps(data[0] if len(data) == 1 else data, indent=2))
    else:
        console = Console()
        for board in boards:
            print_scoreboard(board, console)
        if len(boards) > 1:
            print_comparison(boards, console)
    if plot:
        write_plot(boards, plot, reference=reference)
        _say(f"plot: {plot}")
    if report:
        shown = os.path.relpath(plot, report.parent) if plot else None
        report.parent.mkdir(parents=True, exist_ok=True)
        from ..files import write_private

        write_private(report, markdown_report(boards, plot=shown))
        _say(f"report: {report}")


def _labels(paths: list[Path]) -> list[str]:
    """File stems, or parent folder names when the stems repeat (run-a/judgements.jsonl, ...)."""
    stems = [p.stem for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    parents = [f"{p.parent.name}/{p.stem}" for p in paths]
    return parents if len(set(parents)) == len(parents) else [str(p) for p in paths]


# -- commands ---------------------------------------------------------------------------------------


@click.group()
def bench() -> None:
    """Evaluate a world model on AgentWorldBench: infer, judge, score (resumable).

    \b
      agentworld bench sample data/ && agentworld bench run --data-dir data/ --output-dir out/ \\
        --backend offline --judge-backend scenario:examples/bench/judge.yaml
    """


@bench.command()
@_data_options
@click.option(
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Predictions JSONL (appended; resumed when rerun).",
)
@_world_options
@_sampling_options()
@_run_options
def infer(
    data_dir: Path,
    domains: tuple[str, ...],
    limit: int | None,
    output: Path,
    base_url: str | None,
    model: str | None,
    api_key: str | None,
    backend: str | None,
    temperature: float,
    max_tokens: int,
    extra_body: str | None,
    perturb: tuple[str, ...],
    perturb_file: Path | None,
    **run: Any,
) -> None:
    """Ask the world model for every record's observation.

    \b
      agentworld bench infer --data-dir AgentWorldBench/ --output predictions.jsonl --base-url http://localhost:8000/v1
      agentworld bench infer --data-dir AgentWorldBench/ --output p.jsonl --backend offline --limit 5
    """
    say_ignored_options(backend)
    perturbations = _perturbations(perturb, perturb_file)
    records = _load(data_dir, domains, limit)
    world = {"base_url": base_url, "model": model, "api_key": api_key, "backend": backend}
    sampling = _sampling(temperature, max_tokens, extra_body)
    _infer(records, output, world, sampling, _options(**run), perturbations)


@bench.command()
@click.option(
    "--predictions",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="What `bench infer` wrote.",
)
@click.option(
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Judgements JSONL (appended; resumed when rerun).",
)
@click.option("--domains", multiple=True, help="Only these domains (repeatable or comma separated).")
@_judge_options("")
@_sampling_options(who=" for the judge")
@_run_options
def judge(
    predictions: Path,
    output: Path,
    domains: tuple[str, ...],
    judge_base_url: str | None,
    judge_model: str | None,
    judge_api_key: str | None,
    judge_backend: str | None,
    prompts_dir: Path | None,
    judge_parser: str,
    temperature: float,
    max_tokens: int,
    extra_body: str | None,
    **run: Any,
) -> None:
    """Score every prediction against the ground truth with an LLM judge (reads ours and the
    official script's predictions).

    \b
      agentworld bench judge --predictions predictions.jsonl --output judgements.jsonl --base-url http://localhost:8001/v1
      agentworld bench judge ... --prompts-dir ~/src/Qwen-AgentWorld/prompts   # the official requests
    """
    from ..bench.data import domain_of, load_results

    lines, problems = load_results(predictions)
    for problem in problems[:5]:
        _say(f"predictions: left out {problem}")
    wanted = _domains(domains)
    if wanted:
        chosen = {domain_of(d) for d in wanted}
        lines = [line for line in lines if domain_of(line.get("task")) in chosen]
    judge_args = _judge_args(judge_base_url, judge_model, judge_api_key, judge_backend)
    _judge(
        lines,
        output,
        judge_args,
        prompts_dir,
        _sampling(temperature, max_tokens, extra_body),
        _options(**run),
        judge_parser,
    )


#: what score and compare take: judgements files and how to show them
_scores_options = stack(
    click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path)),
    _report_options,
    click.option(
        "--label", "labels", multiple=True, help="A name per file for tables and plots (default: file names)."
    ),
    click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON."),
)


@bench.command()
@_scores_options
def score(
    files: tuple[Path, ...],
    report: Path | None,
    plot: Path | None,
    reference: bool,
    labels: tuple[str, ...],
    as_json: bool,
) -> None:
    """Figures per domain and overall from judgements FILES (several: side by side).

    \b
      agentworld bench score judgements.jsonl --report report.md --plot scores.png --reference
    """
    _show(list(files), report, plot, reference, as_json, labels)


@bench.command()
@_scores_options
def compare(
    files: tuple[Path, ...],
    report: Path | None,
    plot: Path | None,
    reference: bool,
    labels: tuple[str, ...],
    as_json: bool,
) -> None:
    """Compare judgements FILES per domain, with deltas against the first.

    \b
      agentworld bench compare base/judgements.jsonl tuned/judgements.jsonl --label base --label tuned
    """
    from ..errors import ConfigError

    if len(files) < 2:
        raise ConfigError(
            "compare needs at least two judgements files", hint="use `agentworld bench score FILE` for one"
        )
    _show(list(files), report, plot, reference, as_json, labels)


@bench.command()
@_data_options
@click.option(
    "--output-dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Where predictions.jsonl and judgements.jsonl go.",
)
@_world_options
@_sampling_options()
@_judge_options("judge")
@_sampling_options("judge", " for the judge")
@_run_options
@_report_options
@ray_option("Infer and judge")
def run(
    data_dir: Path,
    domains: tuple[str, ...],
    limit: int | None,
    output_dir: Path,
    base_url: str | None,
    model: str | None,
    api_key: str | None,
    backend: str | None,
    temperature: float,
    max_tokens: int,
    extra_body: str | None,
    judge_base_url: str | None,
    judge_model: str | None,
    judge_api_key: str | None,
    judge_backend: str | None,
    prompts_dir: Path | None,
    judge_parser: str,
    judge_temperature: float,
    judge_max_tokens: int,
    judge_extra_body: str | None,
    report: Path | None,
    plot: Path | None,
    reference: bool,
    perturb: tuple[str, ...],
    perturb_file: Path | None,
    ray: str | bool | None,
    **run: Any,
) -> None:
    """Infer, judge and score in one go (rerun to resume).

    \b
      agentworld bench run --data-dir AgentWorldBench/ --output-dir results/ \\
        --base-url http://localhost:8000/v1 --judge-base-url http://localhost:8001/v1
    """
    from ..bench.data import load_results, record_key

    say_ignored_options(backend)
    perturbations = _perturbations(perturb, perturb_file)
    options = _options(**run)
    judge_args = _judge_args(judge_base_url, judge_model, judge_api_key, judge_backend)
    # check the judge's settings before spending time on inference
    from ..bench.endpoints import judge_backend as build_judge

    build_judge(**judge_args, http_client=options.http_client).close()
    records = _load(data_dir, domains, limit)
    predictions = output_dir / "predictions.jsonl"
    judgements = output_dir / "judgements.jsonl"
    world = {"base_url": base_url, "model": model, "api_key": api_key, "backend": backend}
    _infer(
        records,
        predictions,
        world,
        _sampling(temperature, max_tokens, extra_body),
        options,
        perturbations,
        ray,
    )
    wanted = {record_key(r) for r in records}
    lines = [line for line in load_results(predictions)[0] if record_key(line) in wanted]
    _judge(
        lines,
        judgements,
        judge_args,
        prompts_dir,
        _sampling(judge_temperature, judge_max_tokens, judge_extra_body),
        options,
        judge_parser,
        ray,
    )
    _show([judgements], report, plot, reference, False, (output_dir.name or "results",))


@bench.command()
@click.argument("trajectories", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--output-dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Where <domain>_test.jsonl files go.",
)
@click.option("--domain", help="The domain of trajectories that do not name one.")
@click.option("--append", is_flag=True, help="Add to existing files instead of replacing them.")
def convert(trajectories: tuple[Path, ...], output_dir: Path, domain: str | None, append: bool) -> None:
    """Turn recorded sessions (TRAJECTORIES: Trajectory JSONL files) into AgentWorldBench records.

    \b
      agentworld bench convert sessions.jsonl --output-dir my-bench/ --domain terminal
    """
    from ..bench.convert import convert_trajectories
    from ..errors import ConfigError

    written, problems = convert_trajectories(list(trajectories), output_dir, domain=domain, append=append)
    for problem in problems[:10]:
        _say(f"left out: {problem}")
    if not written:
        raise ConfigError("No records were written", hint="see the problems above")
    for name, count in written.items():
        click.echo(f"{output_dir / (name + '_test.jsonl')}: {count} records")


@bench.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--episodes", type=click.IntRange(min=1), default=1, show_default=True, help="Episodes per domain."
)
def sample(folder: Path, episodes: int) -> None:
    """Write a tiny synthetic AgentWorldBench (all seven domains) into FOLDER, for trying the commands.

    \b
      agentworld bench sample AgentWorldBench/ --episodes 2
    """
    from ..bench.sample import make_sample_dataset

    for path in make_sample_dataset(folder, episodes).values():
        click.echo(str(path))


from .bench_prompts import import_prompts_command  # noqa: E402  (registers on the group above)

bench.add_command(import_prompts_command)
