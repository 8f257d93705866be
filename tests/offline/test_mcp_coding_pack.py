"""``mcp serve --pack coding-agent``: the coding tools over MCP run on the world's machine, as
the shell fronts do (reads see writes, edit changes the file, run_shell_command runs the offline
shell), and a named world's shell sees what the MCP tools did."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from agentworld_plugins import World


async def _texts(home: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[bool, str]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agentworld_plugins", "mcp", "serve", "--backend", "offline", "--pack", "coding-agent",
              "--world", "dev"],
        env={"PATH": os.environ["PATH"], "AGENTWORLD_HOME": str(home)},
    )  # fmt: skip
    out = []
    async with Client(params) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            out.append((bool(result.is_error), result.content[0].text))  # type: ignore[union-attr]
    return out


def test_the_coding_tools_over_mcp_work_on_the_worlds_machine(tmp_path: Path) -> None:
    answers = anyio.run(
        _texts,
        tmp_path,
        [
            ("write_file", {"file_path": "/app/src/calc.py", "content": "RATE = 1\nprint(RATE)\n"}),
            ("read_file", {"absolute_path": "/app/src/calc.py"}),
            ("edit", {"file_path": "/app/src/calc.py", "old_string": "RATE = 1", "new_string": "RATE = 2"}),
            ("edit", {"file_path": "/app/src/calc.py", "old_string": "absent", "new_string": "x"}),
            ("run_shell_command", {"command": "cat src/calc.py | wc -l; echo made > src/out.txt"}),
            ("glob", {"pattern": "src/*"}),
            ("grep_search", {"pattern": "RATE = [0-9]"}),
            ("read_file", {"absolute_path": "/app/src/nope.py"}),
        ],
    )
    wrote, read, edited, missed, ran, globbed, grepped, absent = answers
    assert wrote == (False, "Successfully created and wrote to new file: /app/src/calc.py.")
    assert read == (False, "RATE = 1\nprint(RATE)\n")
    assert not edited[0] and "1 replacement" in edited[1]
    assert missed[0] and "0 occurrences" in missed[1]
    assert ran[0] is False and "Stdout: 2\n" in ran[1] and "Exit Code: 0" in ran[1]
    assert "/app/src/calc.py" in globbed[1] and "/app/src/out.txt" in globbed[1]
    assert "L1: RATE = 2" in grepped[1]
    assert absent[0] and "/app/src/nope.py" in absent[1]
    with World(backend="offline", name="dev", home=tmp_path) as world:  # the shell front of the world
        shell = world.session("swe", front="shell", tools=[{"name": "run_shell_command"}])
        seen = shell.step(
            {
                "tool_name": "run_shell_command",
                "arguments": {"command": "cat /app/src/calc.py /app/src/out.txt"},
            }
        )
    assert "RATE = 2\nprint(RATE)\nmade" in seen.text
