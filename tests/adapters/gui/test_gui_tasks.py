"""Task files: bundled examples, loading and errors, success criteria, and the first screen."""

from __future__ import annotations

import json

import pytest
from agentworld_plugins.adapters.gui.episode import usable_screen
from agentworld_plugins.adapters.gui.task import (
    DOMAINS,
    SuccessCriteria,
    Task,
    bundled_tasks,
    initial_state,
    load_task,
)

from agentworld_plugins import ConfigError, World
from agentworld_plugins.backends.scenario import ScenarioBackend
from agentworld_plugins.domains.formats.web import DEFAULT_WEB_PAGE


def test_every_domain_has_bundled_tasks_that_load() -> None:
    bundled = bundled_tasks()
    assert {key.split("/")[0] for key in bundled} == set(DOMAINS)
    for key in bundled:
        task = load_task(key)
        assert task.domain == key.split("/")[0] and task.id == key.split("/")[1]
        assert task.instruction
        if task.initial_state is not None and task.domain in ("web", "android", "os"):
            assert usable_screen(task.domain, task.initial_state), key


def test_load_from_files_mappings_and_names(tmp_path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"instruction": "Do it", "start_url": "https://x.test/"}), encoding="utf-8")
    task = load_task(path, "web")
    assert (task.id, task.domain, task.start_url) == ("mine", "web", "https://x.test/")
    yaml_path = tmp_path / "other.yaml"
    yaml_path.write_text("instruction: Tap it\nstart_app: Clock\n", encoding="utf-8")
    assert load_task(str(yaml_path), "android").start_app == "Clock"
    assert load_task("clock-set-alarm", "android").id == "clock-set-alarm"
    assert load_task("agentworld.shop-find-mouse").domain == "web"
    assert load_task({"instruction": "x"}).domain is None
    osworld = load_task("os/gedit-write-note")  # an OSWorld task config with our extras
    assert osworld.config and osworld.evaluator["func"] == "check_include_exclude"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ({"instruction": "x", "instrction": "y"}, "instrction"),
        ({"success": {"answer_contains": 3}}, "success.answer_contains"),
        ("no-such-task", "No task file or bundled task named 'no-such-task'"),
        ("android/clock-set-alarm", "is for domain 'android', not 'web'"),
    ],
)
def test_bad_tasks_name_the_problem(source, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        load_task(source, "web")


def test_broken_files(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_task(bad)
    listed = tmp_path / "list.yaml"
    listed.write_text("- a\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a mapping"):
        load_task(listed)


def test_success_criteria() -> None:
    criteria = SuccessCriteria(observation_contains="Saved", answer_contains=["42"])
    assert not criteria.met("saved ok", None)
    assert criteria.met("SAVED ok", "the answer is 42")
    assert not SuccessCriteria().met("anything", "anything")
    assert Task(success={"observation_contains": ["x"]}).criteria.met("x", None)


def test_first_screen_from_the_world_model() -> None:
    generated = DEFAULT_WEB_PAGE.replace("Example Search", "Cooking Club")
    backend = ScenarioBackend(
        {"steps": [{"match": "goto('https://cooking.example.net/')", "observation": generated}]}
    )
    world = World(backend=backend)
    task = load_task("web/recipe-search")
    start = initial_state(world, "web", task, seed=1, valid=lambda t: usable_screen("web", t))
    assert (start.source, start.text, start.error) == ("world_model", generated, None)
    backend.assert_done()


def test_first_screen_falls_back_when_unusable() -> None:
    backend = ScenarioBackend(
        {"steps": [{"match": {"action_type": "open_app"}, "observation": "Opening..."}]}
    )
    task = load_task("android/notes-new-note")
    start = initial_state(
        World(backend=backend), "android", task, valid=lambda t: usable_screen("android", t)
    )
    assert start.source == "offline_default" and "could not be read" in start.error
    assert usable_screen("android", start.text)
    assert initial_state(World(backend="offline"), "mcp", load_task("mcp/notes-create")).text is None


def test_generation_prompt_carries_the_instruction_and_setup() -> None:
    seen = []

    class Recorder(ScenarioBackend):
        def complete(self, messages, sampling):
            seen.append(messages)
            return super().complete(messages, sampling)

    backend = Recorder({"steps": [{"match": "WAIT", "observation": "tag\tname\nlabel\tSettings"}]})
    start = initial_state(World(backend=backend), "os", load_task("os/settings-dark-mode"))
    assert start.source == "world_model"
    system = seen[0][0]["content"]
    assert "## Start of the Episode" in system and "Switch the desktop to the dark style" in system
    assert "gnome-control-center" in system and "The app 'Settings' is open in front." in system
