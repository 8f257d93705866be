"""examples/worlds: the test of an unmodified LangChain agent (langchain-mcp-adapters' default
``get_tools()`` plus ``bash -c``) against one named world, run as its README says, with the
agent's own interpreter: a throwaway virtualenv (langchain-mcp-adapters pins mcp 1.x)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conformance_support import LANGCHAIN_AGENT, clean_env, throwaway_python

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def agent_python() -> str:
    return throwaway_python(*LANGCHAIN_AGENT)


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
