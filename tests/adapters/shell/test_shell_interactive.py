"""``agentworld shell`` and the interactive shim, driven through a pty as a person or a
pexpect-driven agent would."""

from __future__ import annotations

import io

import pexpect
import pytest
from agentworld_plugins.adapters.shell.core import VirtualTerminal
from agentworld_plugins.adapters.shell.interactive import run_shell

from agentworld_plugins import World

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def spawn(command: list[str], env: dict[str, str]) -> pexpect.spawn:
    child = pexpect.spawn(
        command[0], command[1:], env=env, encoding="utf-8", timeout=60, dimensions=(40, 160)
    )
    return child


def test_agentworld_shell_then_the_interactive_shim_share_one_shell(
    shim_env: dict[str, str], agentworld_exe: list[str]
) -> None:
    env = {**shim_env, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
    # readline, whether or not prompt_toolkit is installed: its asynchronous redraws make the
    # pty transcript timing-dependent, and this test is about the shared session
    person = spawn([*agentworld_exe, "shell", "--editor", "readline"], env)
    person.expect_exact("root@agentworld:/app#")
    person.sendline("echo hi > greeting; cat greeting")
    person.expect_exact("hi")
    person.expect_exact("root@agentworld:/app#")
    person.sendline("cd /tmp")
    person.expect_exact("root@agentworld:/tmp#")
    person.send("half a line")
    person.expect_exact("half a line")  # echoed: the line editor is reading, so ^C reaches it
    person.sendcontrol("c")  # drops the line
    person.expect_exact("root@agentworld:/tmp#")
    person.sendcontrol("d")
    person.expect(pexpect.EOF)
    person.close()
    assert person.exitstatus == 0

    agent = spawn(["bash"], env)  # the shim: same session, so the same interactive shell
    agent.expect_exact("root@agentworld:/tmp# ")
    agent.sendline("cat /app/greeting")
    agent.expect_exact("hi\r\n")
    agent.sendline("PS1='AGENT> '")
    agent.expect_exact("AGENT> ")
    agent.sendline("for i in 1 2; do")
    agent.expect_exact("> ")
    agent.sendline("echo n$i; done")
    agent.expect_exact("n1\r\nn2\r\nAGENT> ")
    agent.sendline("exit 3")
    agent.expect(pexpect.EOF)
    agent.close()
    assert agent.exitstatus == 3


def test_run_shell_loop_handles_ctrl_c_and_ctrl_d(world: World) -> None:
    term = VirtualTerminal(world)
    typed = iter(["echo one", "if true; then", KeyboardInterrupt(), "echo two", EOFError()])
    prompts: list[str] = []

    def reader(prompt: str) -> str:
        prompts.append(prompt)
        item = next(typed)
        if isinstance(item, BaseException):
            raise item
        return item

    out = io.StringIO()
    assert run_shell(term, reader=reader, out=out) == 0
    assert out.getvalue() == "one\n^C\ntwo\nexit\n"
    assert prompts == [
        "root@agentworld:/app# ",
        "root@agentworld:/app# ",
        "> ",
        "root@agentworld:/app# ",
        "root@agentworld:/app# ",
    ]
