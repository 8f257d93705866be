"""Perturbations from text: specs, YAML files, the environment, and the CLI options."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from agentworld_plugins import ConfigError, UnknownNameError, World
from agentworld_plugins import perturbations as builtin
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.cli import cli
from agentworld_plugins.perturbations import (
    Control,
    Faults,
    Latency,
    parse_spec,
    perturbations_from_options,
    resolve,
)
from agentworld_plugins.perturbations.config import load_file, specs_from_env
from agentworld_plugins.plugins import new_plugin_manager


@pytest.fixture
def registry():
    return new_plugin_manager(load_entrypoints=False).registry


@pytest.fixture(autouse=True)
def _no_env_perturbations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTWORLD_PERTURB", raising=False)
    monkeypatch.delenv("AGENTWORLD_PERTURB_FILE", raising=False)
    for name in ("AGENTWORLD_BASE_URL", "AGENTWORLD_BACKEND", "AGENTWORLD_MODEL"):
        monkeypatch.delenv(name, raising=False)


# --- specs ----------------------------------------------------------------------------------------


def test_parse_spec() -> None:
    assert parse_spec("faults") == ("faults", {})
    assert parse_spec(" faults : rate = 0.3 , kinds=a+b,tools=write_*") == (
        "faults",
        {"rate": "0.3", "kinds": "a+b", "tools": "write_*"},
    )
    # commas inside free text stay, unless followed by key=
    assert parse_spec("control:text=Slow, flaky, and rude.,placement=turn") == (
        "control",
        {"text": "Slow, flaky, and rude.", "placement": "turn"},
    )
    assert parse_spec("faults:retry-after=5")[1] == {"retry_after": "5"}
    assert parse_spec("faults:match=a=b")[1] == {"match": "a=b"}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (":rate=1", "has no name"),
        ("faults:0.3", "'0.3' in 'faults:0.3' is not key=value"),
        ("faults:rate=0.1,rate=0.2", "'rate' is given twice"),
    ],
)
def test_malformed_specs_say_how_to_write_them(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_spec(spec)
    assert "e.g." in (caught.value.hint or "") or "once" in (caught.value.hint or "")


def test_strings_build_the_same_options_as_python_values() -> None:
    from_text = Faults(rate="0.3", kinds="timeout+rate_limit", tools="write_*", at=None)
    from_python = Faults(rate=0.3, kinds=["timeout", "rate_limit"], tools=["write_*"])
    assert from_text.options == from_python.options
    assert from_text.spec() == "faults:tools=write_*,rate=0.3,kinds=timeout+rate_limit"
    assert Faults(kinds="all").options.kinds == list(builtin.KINDS)


@pytest.mark.parametrize(
    ("spec", "message", "hint"),
    [
        ("faults:rat=0.3", "Unknown option 'rat' for perturbation 'faults'", "did you mean 'rate'?"),
        ("faults:rate=1.5", "rate='1.5': Input should be less than or equal to 1", "probability"),
        ("faults:rate=-0.1", "rate='-0.1'", "probability"),
        ("faults:kinds=timeout+meltdown", "kinds='meltdown'", "permission_denied"),
        ("faults:match=([", "match='([' is not a valid regular expression", "regular expression"),
        ("faults:turns=9-3", "turns='9-3' is empty", "3-10"),
        ("faults:at=0+2", "turn numbers count from 1", "2+5+9"),
        ("faults:rate=0.2,first=3", "rate and first are both schedules", "faults takes"),
        ("latency:distribution=uniform", "needs min_ms and max_ms", "latency takes"),
        ("control:placement=turn", "exactly one", "control takes"),
    ],
)
def test_bad_options_name_the_key_the_value_and_the_fix(registry, spec: str, message: str, hint: str) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve(spec, registry)
    assert message in caught.value.message
    assert hint in (caught.value.hint or "")


def test_unknown_perturbation_lists_the_registered_ones_with_options(registry) -> None:
    with pytest.raises(UnknownNameError) as caught:
        resolve("fault:rate=0.3", registry)
    text = str(caught.value)
    assert "Unknown perturbation 'fault'" in text and "did you mean 'faults'?" in text
    for name in ("faults", "latency", "prompt_injection", "control", "fictional_world", "adversarial"):
        assert name in text
    assert "kinds, retry_after" in text and "distribution, ms" in text


def test_third_party_factories_get_a_clear_error_for_unknown_options(registry) -> None:
    class Plain:
        def __init__(self, level: str = "1") -> None:
            self.level = level

    registry.perturbations["plain"] = Plain
    with pytest.raises(ConfigError, match="does not take these options"):
        resolve("plain:colour=red", registry)
    assert resolve("plain:level=3", registry).level == "3"


# --- files and the environment --------------------------------------------------------------------


def test_yaml_file_entries_in_every_form(tmp_path: Path, registry) -> None:
    path = tmp_path / "chaos.yaml"
    path.write_text(
        "perturbations:\n"
        "  - faults: {rate: 0.25, kinds: [timeout, rate_limit], tools: ['write_*']}\n"
        "  - name: control\n"
        "    text: 'Slow, but steady.'\n"
        "  - 'latency:ms=20'\n"
        "  - prompt_injection:\n",
        encoding="utf-8",
    )
    built = [resolve(item, registry) for item in load_file(path)]
    assert [type(p).__name__ for p in built] == ["Faults", "Control", "Latency", "PromptInjection"]
    assert built[0].options.kinds == ["timeout", "rate_limit"] and built[0].options.rate == 0.25
    assert built[1].body() == "Slow, but steady."


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("perturbations: {faults: 1}", "must hold a list"),
        ("- faults: 0.3", "the options of 'faults' must be a mapping"),
        ("- 42", "is not a perturbation"),
        ("- [unclosed", "not valid YAML"),
    ],
)
def test_bad_files_are_refused_with_the_place(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_file(path)


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Cannot read perturbation file"):
        load_file(tmp_path / "nope.yaml")


def test_file_first_then_specs_and_the_environment_when_no_spec(
    tmp_path: Path, registry, monkeypatch
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("- control:\n    text: from the file\n", encoding="utf-8")
    built = perturbations_from_options(["latency:ms=1"], path, registry)
    assert [type(p) for p in built] == [Control, Latency]
    monkeypatch.setenv("AGENTWORLD_PERTURB", "faults:rate=0.5 ; latency:ms=3\ncontrol:text=x")
    assert specs_from_env() == ["faults:rate=0.5", "latency:ms=3", "control:text=x"]
    assert [type(p) for p in perturbations_from_options([], None, registry)] == [Faults, Latency, Control]
    assert [type(p) for p in perturbations_from_options(["latency"], None, registry)] == [Latency]


def test_world_default_perturbations_come_before_the_sessions_own() -> None:
    backend = FakeBackend()
    world = World(
        backend=backend,
        plugin_manager=new_plugin_manager(load_entrypoints=False),
        perturbations=["control:text=FIRST"],
    )
    prompt = world.session("mcp", perturbations=["control:text=SECOND"]).system_prompt
    assert prompt.index("FIRST") < prompt.index("SECOND")
    assert "SECOND" not in world.session("mcp").system_prompt


# --- the command line -----------------------------------------------------------------------------


def test_step_with_perturb_shows_the_injected_fault() -> None:
    action = json.dumps({"tool_name": "write_file", "arguments": {"path": "/data/a.txt"}})
    args = [
        "step",
        "mcp",
        action,
        "--backend",
        "offline",
        "--perturb",
        "faults:kinds=permission_denied,tools=write_*",
    ]
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 2, result.output  # an error observation, as in text mode
    observation = json.loads(result.stdout)
    assert observation["is_error"] is True
    assert (
        observation["text"] == "Error executing tool write_file: [Errno 13] Permission denied: '/data/a.txt'"
    )
    assert observation["metadata"]["perturbations"][0]["kind"] == "permission_denied"
    plain = CliRunner().invoke(cli, args)
    assert plain.exit_code == 2 and "Permission denied" in plain.stdout


def test_step_with_a_perturbation_that_does_not_fire() -> None:
    action = json.dumps({"tool_name": "list_notes", "arguments": {}})
    result = CliRunner().invoke(
        cli, ["step", "mcp", action, "--backend", "offline", "--perturb", "faults:tools=write_*", "--json"]
    )
    assert result.exit_code == 0 and "perturbations" not in json.loads(result.stdout)["metadata"]


def test_step_with_a_perturb_file_and_the_environment(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("- faults: {kinds: [rate_limit]}\n", encoding="utf-8")
    action = json.dumps({"tool_name": "ping", "arguments": {}})
    result = CliRunner().invoke(
        cli, ["step", "mcp", action, "--backend", "offline", "--perturb-file", str(path)]
    )
    assert result.exit_code == 2 and "429 Too Many Requests" in result.stdout
    monkeypatch.setenv("AGENTWORLD_PERTURB", "faults:kinds=server_error")
    result = CliRunner().invoke(cli, ["step", "mcp", action, "--backend", "offline"])
    assert result.exit_code == 2 and "500 Internal Server Error" in result.stdout


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            "faults:rat=0.3",
            ["Error: Unknown option 'rat' for perturbation 'faults'", "Hint: did you mean 'rate'?"],
        ),
        (
            "faults:rate=3",
            ["Error: Invalid option for perturbation 'faults': rate='3'", "less than or equal to 1"],
        ),
        ("chaos", ["Error: Unknown perturbation 'chaos'", "registered perturbations: adversarial"]),
        ("fictional_world:file=/no/such/bible.md", ["file='/no/such/bible.md' cannot be read"]),
    ],
)
def test_cli_errors_are_one_line_naming_the_key_and_the_fix(spec: str, expected: list[str]) -> None:
    result = CliRunner().invoke(cli, ["step", "mcp", "{}", "--backend", "offline", "--perturb", spec])
    assert result.exit_code == 1
    for text in expected:
        assert text in result.output
    assert "Traceback" not in result.output


def test_demo_takes_perturb() -> None:
    result = CliRunner().invoke(
        cli, ["demo", "--domain", "mcp", "--backend", "offline", "--perturb", "faults:at=2,kinds=rate_limit"]
    )
    assert result.exit_code == 0, result.output
    assert "429 Too Many Requests" in result.output


def test_perturbations_command_lists_names_options_and_examples() -> None:
    group = click.Group()
    builtin.register_commands(cli=group)
    result = CliRunner().invoke(group, ["perturbations", "--json"])
    rows = {row["name"]: row for row in json.loads(result.output)}
    assert {"faults", "latency", "prompt_injection", "control", "fictional_world", "adversarial"} <= set(rows)
    assert "kinds" in rows["faults"]["options"] and rows["faults"]["example"].startswith("faults:")
    text = CliRunner().invoke(group, ["perturbations"]).output
    assert "faults: Injects realistic failures" in text and "--perturb 'faults:rate=0.3" in text


def test_a_malformed_perturb_file_is_one_line_with_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("perturbations:\n  - faults: {rate: 0.3\n  - latency\n", encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["step", "mcp", "{}", "--backend", "offline", "--perturb-file", str(path)]
    )
    assert result.exit_code == 1 and "Traceback" not in result.output
    error, hint = result.output.strip().splitlines()
    assert error.startswith(f"Error: Perturbation file {path} is not valid YAML at line 4, column 1: ")
    assert "flow mapping at line 2, column 13" in error and hint == "Hint: fix the YAML syntax"
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe- faults\n")
    result = CliRunner().invoke(
        cli, ["step", "mcp", "{}", "--backend", "offline", "--perturb-file", str(binary)]
    )
    assert result.exit_code == 1 and "is not a UTF-8 text file" in result.output


def test_step_state_from_a_missing_file_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    result = CliRunner().invoke(
        cli, ["step", "terminal", "[]", "--backend", "offline", "--state", f"@{missing}"]
    )
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: Cannot read --state @{missing}: No such file or directory "
        "(give @FILE of a readable text file, or the state itself)"
    ]


def test_step_exits_2_on_an_error_observation_in_text_and_json_alike() -> None:
    action = json.dumps({"tool_name": "ping", "arguments": {}})
    base = ["step", "mcp", action, "--backend", "offline", "--perturb", "faults:kinds=timeout"]
    text = CliRunner().invoke(cli, base)
    as_json = CliRunner().invoke(cli, [*base, "--json"])
    assert text.exit_code == as_json.exit_code == 2
    assert json.loads(as_json.stdout)["is_error"] is True
    fine = CliRunner().invoke(cli, ["step", "mcp", action, "--backend", "offline", "--json"])
    assert fine.exit_code == 0 and json.loads(fine.stdout)["is_error"] is False


@pytest.mark.parametrize("option", ["tools", "domains", "commands", "at"])
def test_an_empty_target_list_is_an_error_not_everything(option: str) -> None:
    from agentworld_plugins.perturbations.config import perturbations_from_options
    from agentworld_plugins.plugins import get_plugin_manager

    with pytest.raises(ConfigError, match=f"{option}= names nothing"):
        perturbations_from_options((f"faults:{option}=",), None, get_plugin_manager().registry)
