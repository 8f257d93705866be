"""examples/worlds: the test of an unmodified LangChain agent (langchain-mcp-adapters' default
``get_tools()`` plus ``bash -c``) against one named world, run as its README says, with the
agent's own interpreter: a throwaway virtualenv (langchain-mcp-adapters pins mcp 1.x)."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest
from conformance_support import cache_dir, clean_env

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ["langchain-mcp-adapters==0.3.2", "mcp>=1.24,<2", "langchain>=1.0,<2"]


@pytest.fixture(scope="module")
def agent_python() -> str:
    home = cache_dir("langchain-agent-0.3.2")
    python = home / "bin" / "python"
    ready = home / ".ready"
    if not ready.exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(home)
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *REQUIREMENTS],
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, f"pip could not install {REQUIREMENTS}: {done.stderr[-1000:]}"
        ready.write_text("\n".join(REQUIREMENTS))
    return str(python)


def test_the_worlds_example_passes_as_documented(agent_python: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "examples" / "worlds")],
        cwd=tmp_path,
        env=clean_env(AGENT_PYTHON=agent_python),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout
