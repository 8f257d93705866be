"""SWE-ReX's own ``RemoteRuntime`` (the client SWE-agent uses) against ``agentworld shell swerex``."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("swerex", reason="swe-rex is in the dev extra")

from agentworld_plugins.adapters.shell import VirtualTerminal
from agentworld_plugins.adapters.shell.swerex import swerex_app
from conformance_support import served
from swerex.exceptions import CommandTimeoutError, NonZeroExitCodeError, SessionDoesNotExistError
from swerex.runtime.abstract import (
    BashAction,
    BashInterruptAction,
    CloseBashSessionRequest,
    Command,
    CreateBashSessionRequest,
    ReadFileRequest,
    WriteFileRequest,
)
from swerex.runtime.remote import RemoteRuntime

from agentworld_plugins import World


def test_remote_runtime_sessions_files_timeout_and_interrupt(world: World) -> None:
    with served(swerex_app(VirtualTerminal(world), token="s3cret")) as url:
        host, port = url.rsplit(":", 1)
        runtime = RemoteRuntime(host=host, port=int(port), auth_token="s3cret", timeout=60)

        async def episode() -> None:
            assert await runtime.is_alive()
            await runtime.create_session(CreateBashSessionRequest())
            await runtime.run_in_session(BashAction(command="mkdir -p /repo && cd /repo", timeout=10))
            done = await runtime.run_in_session(BashAction(command="pwd", timeout=10, check="silent"))
            assert (done.output.strip(), done.exit_code) == ("/repo", 0)
            with pytest.raises(NonZeroExitCodeError):
                await runtime.run_in_session(BashAction(command="false", timeout=10))
            # SWE-agent's loop: a command past its timeout raises, then the session is interrupted
            with pytest.raises(CommandTimeoutError):
                await runtime.run_in_session(BashAction(command="while true; do :; done", timeout=5))
            stopped = await runtime.run_in_session(BashInterruptAction())
            assert stopped.exit_code == 0
            again = await runtime.run_in_session(BashAction(command="echo alive", timeout=10))
            assert again.output.strip() == "alive"
            with pytest.raises(CommandTimeoutError):
                await runtime.execute(Command(command="while true; do :; done", shell=True, timeout=3))
            await runtime.write_file(WriteFileRequest(path="/repo/a.py", content="A = 1\n"))
            assert (await runtime.read_file(ReadFileRequest(path="/repo/a.py"))).content == "A = 1\n"
            ran = await runtime.execute(Command(command=["echo", "a b"], shell=False))
            assert (ran.stdout, ran.exit_code) == ("a b\n", 0)
            # a program the offline world cannot simulate says so (docs/shell.md), never fakes success
            unknown = await runtime.execute(Command(command=["make", "all"], shell=False))
            assert unknown.exit_code == 126 and "cannot run in the offline world" in unknown.stderr
            await runtime.close_session(CloseBashSessionRequest())
            with pytest.raises(SessionDoesNotExistError):
                await runtime.run_in_session(BashAction(command="ls", timeout=5))
            await runtime.close()

        asyncio.run(episode())
