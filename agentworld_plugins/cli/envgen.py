"""``agentworld envgen``: synthetic MCP environments for out-of-distribution Sim-RL."""

from __future__ import annotations

from pathlib import Path

import click

from .options import ray_option
from .rollout import report_summary


@click.command()
@click.option("--n", "count", type=int, required=True, help="How many environments to generate.")
@click.option(
    "--domain", type=click.Choice(["mcp"]), default="mcp", show_default=True, help="Environment kind."
)
@click.option(
    "--output-dir",
    "-o",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the files go (resumed when it exists).",
)
@click.option(
    "--generator-base-url",
    envvar="AGENTWORLD_GENERATOR_BASE_URL",
    help="A chat model's OpenAI-compatible URL(s), comma separated (default: the offline template generator).",
)
@click.option(
    "--generator-model",
    envvar="AGENTWORLD_GENERATOR_MODEL",
    help="The generator model's name (default: the first model the server lists).",
)
@click.option(
    "--generator-api-key", envvar="AGENTWORLD_GENERATOR_API_KEY", help="API key for the generator's server."
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the environments drawn (same seed, same set).",
)
@click.option(
    "--concurrency",
    "-c",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Environments generated at once.",
)
@click.option(
    "--max-retries",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Times an answer that does not validate is asked again.",
)
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1, min_open=True),
    default=0.8,
    show_default=True,
    help="Similarity (0-1] at which an environment is a near-duplicate.",
)
@ray_option("Generate")
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show a progress bar (default: when stderr is a terminal).",
)
def envgen(
    count: int,
    domain: str,
    output_dir: Path,
    generator_base_url: str | None,
    generator_model: str | None,
    generator_api_key: str | None,
    seed: int,
    concurrency: int,
    max_retries: int,
    threshold: float,
    ray: str | bool | None,
    progress: bool | None,
) -> None:
    """Generate environments (tools, world bible, initial state, tasks with rewards), validate
    them, drop near-duplicates, and write tasks.jsonl (for 'rollout run') and packs/*.json (for
    'mcp serve --tools') under --output-dir."""
    from ..errors import ConfigError
    from ..rollout.envgen import LLMGenerator, OfflineGenerator, generate

    if count < 1:
        raise ConfigError(f"--n {count} must be at least 1", hint="pass --n 1 or more")
    generator: LLMGenerator | OfflineGenerator
    if generator_base_url:
        urls = [u.strip() for u in generator_base_url.split(",") if u.strip()]
        generator = LLMGenerator(
            urls, generator_model or "", generator_api_key, seed=seed, max_retries=max_retries
        )
    else:
        generator = OfflineGenerator(seed)
    summary = generate(
        count, output_dir, generator, concurrency=concurrency, threshold=threshold, progress=progress, ray=ray
    )
    report_summary(summary.run, "environment", summary.line())
    click.echo(f"tasks: {output_dir / 'tasks.jsonl'}  packs: {output_dir / 'packs'}")
