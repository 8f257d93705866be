"""``--ray [ADDRESS]`` (rollout run, envgen): no value means a local instance."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from agentworld_plugins.cli.options import ray_option


@click.command()
@ray_option("Run")
@click.option("--other", default="x")
def show(ray: object, other: str) -> None:
    click.echo(repr(ray))


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        ([], "None"),
        (["--ray"], "True"),
        (["--ray", "local"], "True"),
        (["--ray", "head:6379"], "'head:6379'"),
    ],
)
def test_ray_option(args: list[str], shown: str) -> None:
    result = CliRunner().invoke(show, args)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == shown
