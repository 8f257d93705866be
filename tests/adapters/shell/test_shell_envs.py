"""The mini-swe-agent Environment and the Harbor-style environment keep their protocols."""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path

import pytest
from agentworld_plugins.adapters.shell import VirtualTerminal
from agentworld_plugins.adapters.shell.envs import MiniSweEnvironment, SimulatedEnvironment, Submitted

from agentworld_plugins import World

DOTTED = "agentworld_plugins.adapters.shell.envs.MiniSweEnvironment"


def load_by_dotted_path(spec: str) -> type:
    """What mini-swe-agent's get_environment_class does with a dotted path."""
    module_name, class_name = spec.rsplit(".", 1)
    return getattr(importlib.import_module(module_name), class_name)  # type: ignore[no-any-return]


def test_mini_swe_agent_protocol(world: World) -> None:
    env_class = load_by_dotted_path(DOTTED)
    config = {"cwd": "/testbed", "env": {"PAGER": "cat"}, "timeout": 60}
    env = env_class(world=world, **config)  # get_environment(config) passes the config as keywords
    assert env.terminal.machine.cwd == "/testbed"
    result = env.execute({"command": "echo hi > a.txt; cat a.txt; echo $PAGER; ls nope"})
    assert set(result) == {"output", "returncode", "exception_info"}
    assert result["output"].startswith("hi\ncat\n") and "nope" in result["output"]
    assert (result["returncode"], result["exception_info"]) == (2, "")
    assert env.execute("cd /tmp && pwd")["output"] == "/tmp\n"  # plain strings, as v1 sends
    assert env.execute({"command": "pwd"}, cwd="/tmp")["output"] == "/tmp\n"
    assert env.execute({"command": "pwd"})["output"] == "/testbed\n"  # every call a fresh shell
    with pytest.raises(Submitted) as done:
        env.execute({"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; cat a.txt"})
    assert done.value.args[0]["extra"]["submission"] == "hi\n"
    template = env.get_template_vars(task="fix it")
    assert template["system"] == "Linux" and template["cwd"] == "/testbed" and template["task"] == "fix it"
    serialized = env.serialize()["info"]["config"]
    assert serialized["environment_type"] == DOTTED and serialized["environment"]["timeout"] == 60


def test_mini_swe_agent_errors_come_back_as_exception_info(world: World) -> None:
    env = MiniSweEnvironment(terminal=VirtualTerminal(world, store=Path("/dev/null/impossible/shell.db")))
    result = env.execute({"command": "ls"})
    assert result["returncode"] == -1 and "Cannot open the session store" in result["exception_info"]


def test_harbor_exec_and_files(world: World, tmp_path: Path) -> None:
    env = SimulatedEnvironment(environment_name="task", session_id="trial-1", terminal=VirtualTerminal(world))
    source = tmp_path / "upload"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "mod.py").write_text("VALUE = 3\n")
    (source / "run.sh").write_text("echo running\n")

    async def scenario() -> list[object]:
        await env.start(force_build=False)
        out = [
            await env.exec("echo out; echo err >&2; exit 3"),
            await env.exec("pwd", cwd="/tmp"),
            await env.exec("echo $A-$B", env={"A": "1", "B": "two words"}),
            await env.exec("ls /missing-dir"),
        ]
        await env.upload_dir(source, "/srv")
        await env.upload_file(source / "run.sh", "/usr/local/bin/run.sh")
        out.append(await env.exec("cat /srv/pkg/mod.py && bash /usr/local/bin/run.sh"))
        out.append(await env.is_dir("/srv/pkg"))
        out.append(await env.is_file("/srv/nothing"))
        await env.download_dir("/srv", tmp_path / "back")
        await env.download_file("/srv/run.sh", tmp_path / "single" / "run.sh")
        await env.stop(delete=True)
        return out

    streams, cwd, env_vars, missing, uploaded, is_dir, is_file = asyncio.run(scenario())
    assert (streams.stdout, streams.stderr, streams.return_code) == ("out\n", "err\n", 3)
    assert cwd.stdout == "/tmp\n" and env_vars.stdout == "1-two words\n"
    assert missing.return_code == 2 and "No such file or directory" in missing.stderr
    assert uploaded.stdout == "VALUE = 3\nrunning\n"
    assert (is_dir, is_file) == (True, False)
    assert (tmp_path / "back" / "pkg" / "mod.py").read_text() == "VALUE = 3\n"
    assert (tmp_path / "single" / "run.sh").read_text() == "echo running\n"
    assert SimulatedEnvironment.type() == "agentworld" and not env.is_mounted


def test_mini_swe_agent_timeouts_are_on_virtual_time_as_local_environment_reports_them(
    world: World, tmp_path: Path
) -> None:
    """``execute(timeout=N)``: a command past N seconds of virtual time ends there at once and
    comes back as mini-swe-agent's own LocalEnvironment reports subprocess's TimeoutExpired."""
    local = pytest.importorskip("minisweagent.environments.local")
    real = local.LocalEnvironment(cwd=str(tmp_path)).execute({"command": "echo partial; sleep 5"}, timeout=1)
    env = MiniSweEnvironment(terminal=VirtualTerminal(world), cwd="/app")
    ours = env.execute({"command": "echo partial; sleep 5"}, timeout=1)
    assert ours == real
    assert ours["returncode"] == -1 and ours["extra"]["exception_type"] == "TimeoutExpired"
    # a busy loop ends when its work reaches the timeout; a command within it is untouched
    assert env.execute({"command": "while :; do :; done"}, timeout=1)["returncode"] == -1
    assert env.execute({"command": "sleep 2; echo ok"}, timeout=3)["output"] == "ok\n"
