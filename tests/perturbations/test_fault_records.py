"""Fault records survive every front that plays episodes: a `rollout run` episode keeps its world
steps' perturbations (`world_turns`) and a remote session of `serve --perturb` keeps what the server
injected, so `agentworld report` reads both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentworld_plugins import World
from agentworld_plugins.backends.openai import OpenAIBackend
from agentworld_plugins.cli import cli
from agentworld_plugins.http_guard import serving
from agentworld_plugins.perturbations.config import perturbations_from_options
from agentworld_plugins.perturbations.proxy import PerturbingBackend
from agentworld_plugins.plugins import get_plugin_manager
from agentworld_plugins.server import create_app

SPEC = "faults:kinds=timeout,at=1"


def _report(path: Path) -> dict:
    from agentworld_plugins.cli import _load_plugin_commands

    _load_plugin_commands()  # as the console script does: `report` is a plugin command
    report = CliRunner().invoke(cli, ["report", str(path), "--json"])
    assert report.exit_code == 0, report.output
    return json.loads(report.output)


def test_rollout_episodes_keep_their_faults_and_report_reads_them(tmp_path: Path) -> None:
    out = tmp_path / "episodes.jsonl"
    args = ["rollout", "run", "--tasks", "bundled", "--agent", "scripted:bundled", "--backend", "offline"]
    ran = CliRunner().invoke(cli, [*args, "--perturb", SPEC, "-o", str(out), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    first_steps = [line["world_turns"][0] for line in lines]
    assert all(json.loads(step["perturbations"])[0]["kind"] == "timeout" for step in first_steps)
    assert all(step["is_error"] and step["turn"] == 1 for step in first_steps)
    card = _report(out)
    assert card["sessions"] == len(lines) and len(card["faults"]) == len(lines)


@pytest.mark.parametrize("transport", ["sdk", "lean"])
def test_a_remote_session_keeps_the_faults_serve_injected(transport: str, tmp_path: Path) -> None:
    world = World(
        backend="offline",
        perturbations=perturbations_from_options((SPEC,), None, get_plugin_manager().registry),
    )
    with serving(create_app(PerturbingBackend(world.backend, world, world.perturbations))) as base:
        remote = OpenAIBackend([base + "/v1"], model="agentworld", max_retries=0, transport=transport)
        session = World(backend=remote).session("terminal")
        faulted = session.step([{"keystrokes": "curl -f http://api.test/x\n"}])
        fine = session.step([{"keystrokes": "pwd\n"}])
    assert "curl: (28)" in faulted.text and faulted.metadata["perturbations"][0]["kind"] == "timeout"
    assert not fine.metadata.get("perturbations")
    path = session.trajectory.to_jsonl(tmp_path / "remote.jsonl")
    assert [f["kind"] for f in _report(path)["faults"]] == ["timeout"]
