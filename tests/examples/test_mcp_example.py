"""examples/mcp/agent.py: the stdio server it starts gets the world settings it was run with."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agentworld_plugins.fake_server import FakeWorldModelServer
from agentworld_plugins.testing import clean_env

ROOT = Path(__file__).resolve().parents[2]


def test_agent_passes_world_settings_to_the_server(tmp_path: Path) -> None:
    with FakeWorldModelServer() as fake:
        env = clean_env(
            AGENTWORLD_BASE_URL=fake.url, AGENTWORLD_HOME=str(tmp_path), AGENTWORLD_MAX_RETRIES="0"
        )
        proc = subprocess.run(
            [sys.executable, str(ROOT / "examples" / "mcp" / "agent.py")],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        asked = len(fake.chat_requests)
    assert asked > 0, (
        f"the MCP server ran offline instead of asking {fake.url}:\n{proc.stdout}\n{proc.stderr}"
    )
    assert "world: offline" not in proc.stderr
