"""The order of composition: perturbations run in the order given, in every hook."""

from __future__ import annotations

import dataclasses
from collections.abc import Generator
from typing import Any

from agentworld_plugins import World, hookimpl
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.perturbations import Control, Faults, Latency, PromptInjection
from agentworld_plugins.plugins import new_plugin_manager

PING = {"tool_name": "ping", "arguments": {}}


def make_world(backend: FakeBackend | None = None, **kwargs: Any) -> World:
    return World(
        backend=backend or FakeBackend(lambda messages: "obs"),
        plugin_manager=new_plugin_manager(load_entrypoints=False),
        **kwargs,
    )


class Tag:
    """Records, in a shared log, when each of its hooks runs."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log

    @hookimpl
    def prepare_system_prompt(self, prompt: str) -> str:
        self.log.append(f"prompt:{self.name}")
        return prompt

    @hookimpl
    def before_step(self) -> None:
        self.log.append(f"before:{self.name}")

    @hookimpl
    def transform_messages(self) -> None:
        self.log.append(f"messages:{self.name}")

    @hookimpl(wrapper=True)
    def call_backend(self) -> Generator[None, Any, Any]:
        self.log.append(f"call:{self.name}")
        return (yield)

    @hookimpl
    def after_observation(self) -> None:
        self.log.append(f"after:{self.name}")


def test_every_hook_runs_the_perturbations_in_the_order_given() -> None:
    log: list[str] = []
    session = make_world().session("mcp", perturbations=[Tag("a", log), Tag("b", log), Tag("c", log)])
    session.step(PING)
    for hook in ("prompt", "before", "messages", "call", "after"):
        assert [e.split(":")[1] for e in log if e.startswith(hook + ":")] == ["a", "b", "c"], hook


def test_observation_changes_stack_in_order() -> None:
    session = make_world().session(
        "mcp",
        perturbations=[
            PromptInjection(text="FIRST", position="start"),
            PromptInjection(text="SECOND", position="start"),
        ],
    )
    observation = session.step(PING)
    assert observation.text == "SECOND\n\nFIRST\n\nobs"  # the first wrote first, the second wrapped it
    assert [e["text"] for e in observation.metadata["perturbations"]] == ["FIRST", "SECOND"]


def test_the_first_fault_that_fires_answers_the_step() -> None:
    session = make_world().session("mcp", perturbations=[Faults(kinds="timeout"), Faults(kinds="rate_limit")])
    observation = session.step(PING)
    assert "Timed out" in observation.text
    assert [e["kind"] for e in observation.metadata["perturbations"]] == ["timeout"]


def test_a_fault_before_an_injection_gets_the_injection_too() -> None:
    session = make_world().session(
        "mcp", perturbations=[Faults(kinds="not_found"), PromptInjection(text="EVIL", position="end")]
    )
    observation = session.step(PING)
    assert observation.text.startswith("Error executing tool ping: 404") and observation.text.endswith("EVIL")
    assert [e["name"] for e in observation.metadata["perturbations"]] == ["faults", "prompt_injection"]


def test_system_prompt_sections_follow_the_order_given() -> None:
    session = make_world().session(
        "mcp", perturbations=[Control(text="ONE"), "fictional_world:text=TWO", "adversarial:text=THREE"]
    )
    prompt = session.system_prompt
    assert prompt.index("ONE") < prompt.index("## World Bible") < prompt.index("TWO") < prompt.index("THREE")


def test_latency_and_model_level_perturbations_record_in_order() -> None:
    waited: list[float] = []
    session = make_world().session(
        "mcp", perturbations=[Latency(ms=5, sleep=waited.append), Control(text="x")]
    )
    observation = session.step(PING)
    # latency is recorded by the backend call, before any after_observation runs
    assert [e["name"] for e in observation.metadata["perturbations"]] == ["latency", "control"]
    assert waited == [0.005]


def test_session_plugins_still_run_before_world_plugins() -> None:
    class Mark:
        def __init__(self, text: str) -> None:
            self.text = text

        @hookimpl
        def after_observation(self, observation: Any) -> Any:
            return observation.model_copy(update={"text": observation.text + self.text})

    pm = new_plugin_manager(load_entrypoints=False)
    pm.register(Mark(" [world plugin]"))
    world = World(
        backend=FakeBackend(lambda m: "obs"), plugin_manager=pm, perturbations=[Mark(" [world default]")]
    )
    session = world.session("mcp", perturbations=[Mark(" [session]")])
    assert session.step(PING).text == "obs [world default] [session] [world plugin]"


def test_completion_metadata_survives_the_latency_wrapper() -> None:
    from agentworld_plugins.backends.base import Completion

    backend = FakeBackend().enqueue(Completion(text="obs", metadata={"cache_hit": True}))
    session = make_world(backend).session("mcp", perturbations=[Latency(ms=1, sleep=lambda s: None)])
    metadata = session.step(PING).metadata
    assert metadata["cache_hit"] is True and metadata["perturbations"][0]["name"] == "latency"
    assert dataclasses.is_dataclass(Completion)
