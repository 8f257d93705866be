"""Model-level perturbations on the offline world, which reads no prompt: a warning, not 'applied'."""

from __future__ import annotations

from click.testing import CliRunner

from agentworld_plugins import World
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.cli import cli

CONTROL = "control:text=The root filesystem is 100% full."
DF = [{"keystrokes": "df -h\n", "duration": 1}]


def _names(observation) -> list[str]:
    return [p["name"] for p in observation.metadata.get("perturbations", [])]


def test_control_on_the_offline_world_warns_and_is_not_reported_applied() -> None:
    observation = World(backend="offline").session("terminal", perturbations=[CONTROL]).step(DF)
    assert "control" not in _names(observation)
    assert any("needs a world model" in w for w in observation.metadata["warnings"])


def test_control_with_a_model_is_applied() -> None:
    backend = FakeBackend(responder=lambda messages: "root@box:/app# df -h\n/dev/sda1 100%")
    observation = World(backend=backend).session("terminal", perturbations=[CONTROL]).step(DF)
    assert "control" in _names(observation) and "warnings" not in observation.metadata
    assert "100% full" in backend.history[-1][0][0]["content"]


def test_fictional_world_on_offline_search_is_applied() -> None:
    session = World(backend="offline").session(
        "search", perturbations=["fictional_world:text=Thera is a city."]
    )
    observation = session.step({"name": "web_search", "arguments": {"queries": ["Thera"]}})
    assert "fictional_world" in _names(observation) and "warnings" not in observation.metadata


def test_cli_step_prints_the_warning(tmp_path) -> None:
    env = {"AGENTWORLD_HOME": str(tmp_path), "AGENTWORLD_BASE_URL": "", "AGENTWORLD_BACKEND": "offline"}
    result = CliRunner().invoke(
        cli, ["step", "terminal", '[{"keystrokes": "df -h\\n"}]', "--perturb", CONTROL, "--json"], env=env
    )
    assert result.exit_code == 0, result.output
    assert "warning: the control perturbation needs a world model" in result.stderr
