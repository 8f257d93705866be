"""mini-swe-agent's own ``DefaultAgent`` and ``DeterministicModel`` with our environment class,
picked by dotted path as a user's config does (``environment_class: ...MiniSweEnvironment``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytest.importorskip("minisweagent", reason="mini-swe-agent is in the dev extra")

import minisweagent
from minisweagent.agents.default import DefaultAgent
from minisweagent.environments import get_environment
from minisweagent.models.test_models import DeterministicModel, make_output

ENV_CLASS = "agentworld_plugins.adapters.shell.envs.MiniSweEnvironment"


def _agent_config() -> dict:
    config = yaml.safe_load((Path(minisweagent.__file__).parent / "config" / "default.yaml").read_text())
    return config["agent"]


def test_default_agent_submits_through_our_environment(tmp_path: Path) -> None:
    model = DeterministicModel(
        outputs=[
            make_output(
                "Make the file.", [{"command": "mkdir -p /repo && printf 'x = 1\\n' > /repo/fix.py"}]
            ),
            make_output("Check it.", [{"command": "cat /repo/fix.py"}]),
            make_output("A bad command.", [{"command": "ls /does/not/exist"}]),
            make_output(
                "Done.", [{"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat /repo/fix.py"}]
            ),
        ]
    )
    env = get_environment({"environment_class": ENV_CLASS, "cwd": "/repo"})
    agent = DefaultAgent(model, env, **_agent_config(), output_path=tmp_path / "traj.json")
    result = agent.run("Add fix.py")
    assert result["exit_status"] == "Submitted"
    assert result["submission"] == "x = 1\n"
    observations = [m["content"] for m in agent.messages if m.get("role") == "user"][1:]
    assert "x = 1" in observations[1]
    assert "<returncode>2</returncode>" in observations[2]
    assert (tmp_path / "traj.json").exists()
    info = agent.serialize()["info"]["config"]
    assert info["environment_type"].endswith("MiniSweEnvironment")
