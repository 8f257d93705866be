"""The terminal domain's offline world: keystrokes in, the visible screen out."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentworld_plugins.domains.terminal import SCREEN_LINES, TerminalAction, TerminalDomain

PROMPT = "root@agentworld:/app#"


@pytest.fixture
def domain() -> TerminalDomain:
    return TerminalDomain()


def step(domain: TerminalDomain, state: dict[str, Any], keys: Any, context: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
    return domain.offline_step(state, domain.validate_action(keys), context or {})


def test_first_command_echoes_runs_and_ends_with_the_prompt(domain: TerminalDomain) -> None:
    state: dict[str, Any] = {}
    result = step(domain, state, [{"keystrokes": "ls\n", "duration": 0.5}])
    assert result.text == f"{PROMPT} ls\nREADME.md  main.py  requirements.txt\n{PROMPT}"
    assert result.metadata["exit_codes"] == [0] and result.metadata["commands"] == ["ls"]
    assert "offline_unknown_effect" not in result.metadata
    assert result.is_error is False
    assert state["screen"][-1] == PROMPT + " " and state["typed"] == ""
    assert state["vm"].cwd == "/app"


def test_action_shapes_accepted_by_validate_action(domain: TerminalDomain) -> None:
    keys = [{"keystrokes": "echo hi\n", "duration": 1}]
    as_model = TerminalAction.model_validate(keys)
    texts = []
    for shape in (keys, json.dumps(keys), as_model):
        state: dict[str, Any] = {}
        texts.append(domain.offline_step(state, domain.validate_action(shape), {}).text)
    assert texts[0] == texts[1] == texts[2] == f"{PROMPT} echo hi\nhi\n{PROMPT}"
    # an empty action list (task done) leaves the screen as it is
    state = {}
    assert step(domain, state, []).text == PROMPT


def test_state_persists_across_turns_and_errors_are_flagged(domain: TerminalDomain) -> None:
    state: dict[str, Any] = {}
    step(domain, state, [{"keystrokes": "mkdir src && cd src\n"}, {"keystrokes": "echo 'x = 1' > a.py\n"}])
    result = step(domain, state, [{"keystrokes": "cat a.py; cat nope\n"}])
    assert result.text.endswith(
        "root@agentworld:/app/src# cat a.py; cat nope\nx = 1\ncat: nope: No such file or directory\n"
        "root@agentworld:/app/src#"
    )
    assert result.metadata["exit_codes"] == [1] and result.is_error is True
    assert domain.is_error(result.text, domain.validate_action([]))


def test_screen_keeps_the_last_forty_lines(domain: TerminalDomain) -> None:
    state: dict[str, Any] = {}
    result = step(domain, state, [{"keystrokes": "seq 100\n"}])
    lines = result.text.split("\n")
    assert len(lines) == SCREEN_LINES == 40
    assert lines[0] == "62" and lines[-2] == "100" and lines[-1] == PROMPT
    assert len(state["screen"]) == 102  # the transcript keeps everything; the view is cut


def test_long_lines_wrap_at_the_pane_width(domain: TerminalDomain) -> None:
    state: dict[str, Any] = {}
    result = step(domain, state, [{"keystrokes": "printf '%0200d\\n' 0\n"}])
    lines = result.text.split("\n")
    assert lines[1] == "0" * 160 and lines[2] == "0" * 40 and lines[-1] == PROMPT


def test_typed_text_without_enter_stays_on_the_prompt_line(domain: TerminalDomain) -> None:
    state: dict[str, Any] = {}
    result = step(domain, state, [{"keystrokes": "echo partial"}])
    assert result.text == f"{PROMPT} echo partial"
    assert result.metadata["commands"] == [] and state["typed"] == "echo partial"
    result = step(domain, state, [{"keystrokes": " done\n"}])
    assert result.text == f"{PROMPT} echo partial done\npartial done\n{PROMPT}"


def test_ctrl_c_prints_caret_c_and_a_fresh_prompt(domain: TerminalDomain) -> None:
    state: dict[str, Any] = {}
    step(domain, state, [{"keystrokes": "sleep 100"}])
    result = step(domain, state, [{"keystrokes": "C-c"}])
    assert result.text == f"{PROMPT} sleep 100^C\n{PROMPT}"
    result = step(
        domain,
        state,
        [{"keystrokes": "cat <<EOF\n"}, {"keystrokes": "half\n\u0003"}, {"keystrokes": "echo $?\n"}],
    )
    assert result.text.endswith(f"{PROMPT} cat <<EOF\n> half\n> ^C\n{PROMPT} echo $?\n130\n{PROMPT}")
    assert result.metadata["commands"] == ["echo $?"]


def test_multi_line_commands_get_continuation_prompts(domain: TerminalDomain) -> None:
    state: dict[str, Any] = {}
    keys = "cat > notes.txt <<'EOF'\nline $HOME\nEOF\ncat notes.txt\n"
    result = step(domain, state, [{"keystrokes": keys}])
    assert result.text.split("\n") == [
        f"{PROMPT} cat > notes.txt <<'EOF'",
        "> line $HOME",
        "> EOF",
        f"{PROMPT} cat notes.txt",
        "line $HOME",
        PROMPT,
    ]
    result = step(domain, state, [{"keystrokes": "for i in 1 2; do\necho $i\ndone\n"}])
    assert result.text.endswith(f"{PROMPT} for i in 1 2; do\n> echo $i\n> done\n1\n2\n{PROMPT}")


def test_clear_empties_the_screen(domain: TerminalDomain) -> None:
    state: dict[str, Any] = {}
    step(domain, state, [{"keystrokes": "echo one\n"}])
    assert step(domain, state, [{"keystrokes": "clear\n"}]).text == PROMPT
    assert step(domain, state, [{"keystrokes": "echo two; clear; echo three\n"}]).text == f"three\n{PROMPT}"


def test_output_without_newline_runs_into_the_prompt(domain: TerminalDomain) -> None:
    state: dict[str, Any] = {}
    assert step(domain, state, [{"keystrokes": "echo -n hi\n"}]).text.endswith(f"echo -n hi\nhi{PROMPT}")


def test_context_seeds_files_cwd_env_and_initial_screen(domain: TerminalDomain, tmp_path) -> None:  # type: ignore[no-untyped-def]
    context = {"files": {"/srv/app/run.py": "print('hi')\n"}, "cwd": "/srv/app", "env": {"STAGE": "test"}}
    state: dict[str, Any] = {}
    result = step(domain, state, [{"keystrokes": "ls; echo $STAGE\n"}], context)
    assert result.text == "root@agentworld:/srv/app# ls; echo $STAGE\nrun.py\ntest\nroot@agentworld:/srv/app#"
    (tmp_path / "seeded.txt").write_text("from a folder\n")
    context = {"files": str(tmp_path), "initial_state": "Welcome!\nroot@ad092d3df69c:/app#"}
    state = {}
    result = step(domain, state, [{"keystrokes": "cat seeded.txt\n"}], context)
    assert result.text == (
        "Welcome!\nroot@ad092d3df69c:/app# cat seeded.txt\nfrom a folder\nroot@ad092d3df69c:/app#"
    )
    state = {}
    assert (
        step(domain, state, [], {"initial_state": "Last login: today"}).text == f"Last login: today\n{PROMPT}"
    )


def test_unknown_effects_are_marked_in_metadata(domain: TerminalDomain) -> None:
    state: dict[str, Any] = {}
    result = step(domain, state, [{"keystrokes": "make\n"}, {"keystrokes": "python3 --version\n"}])
    assert result.metadata["offline_unknown_effect"] is True
    assert result.metadata["unknown_commands"] == ["make"]
    notice = "make: cannot run in the offline world (its effect is not simulated; "
    assert f"{PROMPT} make\n{notice}" in result.text
    assert result.text.endswith(f"{PROMPT} python3 --version\nPython 3.12.0\n{PROMPT}")


def test_same_actions_give_the_same_screens(domain: TerminalDomain) -> None:
    actions = [
        [{"keystrokes": "mkdir -p a/b && touch a/b/c && ls -lR a\n"}],
        [{"keystrokes": "date; echo $RANDOM\n"}],
        [{"keystrokes": "nope\n"}],
    ]
    runs = []
    for _ in range(2):
        state: dict[str, Any] = {}
        runs.append([step(domain, state, a).text for a in actions])
    assert runs[0] == runs[1]
