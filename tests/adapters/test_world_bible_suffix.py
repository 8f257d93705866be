"""Adapters give a session its world bible through ``World.session(system_suffix=...)``: once,
after the plugins, and not twice when a ``fictional_world`` perturbation already added one."""

from __future__ import annotations

from agentworld_plugins.adapters._world import SessionGroup

from agentworld_plugins.session import World


def test_the_world_bible_is_appended_once() -> None:
    group = SessionGroup(World(backend="offline"), world_bible="The capital of Europa is Thera.")
    prompt = group.session("search").system_prompt
    assert prompt.count("## World Bible") == 1 and prompt.rstrip().endswith("Thera.")
    assert group.session("search").trajectory.system_prompt == prompt


def test_a_perturbation_bible_is_not_doubled() -> None:
    group = SessionGroup(
        World(backend="offline"),
        world_bible="The capital of Europa is Thera.",
        perturbations=["fictional_world:text=Europa has two moons."],
    )
    prompt = group.session("search").system_prompt
    assert prompt.count("## World Bible") == 1 and "two moons" in prompt
