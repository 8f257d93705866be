"""Testing the agent in ``agent.py``, unchanged, against a simulated world (the ``agent_world``
fixture of agentworld's pytest plugin). Run with ``pytest examples/worlds`` in an environment
that has the agent's own dependencies (langchain, langchain-mcp-adapters); ``AGENT_PYTHON``
names another interpreter to run the agent with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

AGENT = Path(__file__).with_name("agent.py")


def test_the_agent_writes_the_report_through_mcp_and_the_shell(agent_world) -> None:
    files = agent_world.mcp_stdio(pack="filesystem", name="files")
    env = {**agent_world.shell_env(), "MCP_SERVERS": json.dumps({"files": files.langchain()})}
    python = os.environ.get("AGENT_PYTHON") or sys.executable
    done = subprocess.run([python, str(AGENT)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]

    messages = json.loads(done.stdout.strip().splitlines()[-1])
    tool_outputs = [m["content"] for m in messages if m["type"] == "tool"]
    assert "status: done" in tool_outputs[1]  # the shell saw the file MCP wrote
    assert tool_outputs[2] == "# Report\n\nstatus: done\n"  # MCP saw the shell's edit
    # the world after the run: what is on disk, the calls in order, reward checks
    assert agent_world.files()["/app/report.md"].endswith("status: done\n")
    assert [c.tool or "bash" for c in agent_world.calls()] == [
        "write_file",
        "run_shell_command",
        "read_text_file",
    ]
    assert agent_world.check({"type": "file_contains", "path": "/app/report.md", "text": "status: done"})
    assert agent_world.check({"type": "no_errors"})
