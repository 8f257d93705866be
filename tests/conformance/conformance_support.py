"""Helpers of the conformance suite: a cache for throwaway environments, a clean environment, an
app served on 127.0.0.1."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters

from agentworld_plugins.http_guard import serving
from agentworld_plugins.testing import clean_env as clean_env  # re-exported for the suite

#: one tool, as a tools file or a ``tools/list`` result holds it
TOOLS = {
    "tools": [
        {
            "name": "create_ticket",
            "description": "Create a support ticket.",
            "inputSchema": {
                "type": "object",
                "properties": {"title": {"type": "string"}, "urgent": {"type": "boolean"}},
                "required": ["title"],
            },
        }
    ]
}


#: read once at import: the tests clear AGENTWORLD_* settings from the environment
CACHE_ROOT = Path(
    os.environ.get("AGENTWORLD_CONFORMANCE_CACHE") or Path.home() / ".cache" / "agentworld-conformance"
)


def cache_dir(*parts: str) -> Path:
    """Where throwaway environments (a venv, an npm install) live across runs, keyed by version."""
    path = CACHE_ROOT.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextmanager
def cache_entry(name: str) -> Iterator[Path]:
    """``cache_dir(name)``, held under an exclusive lock (a file beside it, which a venv rebuilt with
    ``clear=True`` leaves alone) while the block builds or checks it: the suite's two workers may
    want the same entry at once, and the second waits for the first to finish it."""
    path = cache_dir(name)
    with open(path.parent / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield path


def served(app: Any) -> AbstractContextManager[str]:
    """``app`` on 127.0.0.1 in a thread, as ``agentworld ... serve`` runs it (lifespan on); yields
    ``http://127.0.0.1:<port>``."""
    return serving(app, lifespan="on")


#: the agent side of langchain-mcp-adapters' tests and of examples/worlds: one virtualenv for both
LANGCHAIN_AGENT = (
    "langchain-agent-0.3.2",
    ["langchain-mcp-adapters==0.3.2", "mcp>=1.24,<2", "langchain>=1.0,<2"],
)


def throwaway_python(name: str, requirements: list[str]) -> str:
    """The interpreter of a virtualenv with ``requirements`` (built once under the cache): for
    clients whose pins cannot live beside ours (langchain-mcp-adapters pins mcp 1.x)."""
    import venv

    with cache_entry(name) as home:
        python = home / "bin" / "python"
        ready = home / ".ready"
        if ready.exists() and ready.read_text() == "\n".join(requirements):
            return str(python)
        venv.EnvBuilder(clear=True).create(home)  # no pip of its own (ensurepip takes 4 s): ours installs
        done = subprocess.run(
            [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", *requirements],
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, f"pip could not install {requirements}: {done.stderr[-1000:]}"
        ready.write_text("\n".join(requirements))
    return str(python)


def run_json(argv: list[str], **env: str) -> Any:
    """Run ``argv`` (a client script) in a clean environment; the JSON its last line prints."""
    import json
    import subprocess

    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=clean_env(**env))
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the known-server comparisons -----------------------------------------------------------------


def one_session(run: Any, params: StdioServerParameters, sequences: list[list[Any]]) -> list[list[Any]]:
    """Each sequence's answers from one session of ``params`` (``await run(params, calls)``, the
    sequences in order): for a server that keeps nothing between calls (or whose sequences touch
    disjoint state), what a process per sequence answers, without a server start per sequence."""
    import anyio

    answers = anyio.run(run, params, [call for calls in sequences for call in calls])
    out, at = [], 0
    for calls in sequences:
        out.append(answers[at : at + len(calls)])
        at += len(calls)
    return out


def own_sessions(
    run: Any, servers: list[Any], sequences: list[list[Any]], at_once: int = 8
) -> list[list[Any]]:
    """Each sequence's answers from a session of its own (``await run(servers[i], calls)``), up to
    ``at_once`` of them at a time: a server that outlives its stdin (server-everything once a
    toggle started its timers) costs the SDK's two-second wait on close, which need not add up."""
    import anyio

    answers: list[Any] = [None] * len(sequences)

    async def main() -> None:
        limit = anyio.CapacityLimiter(at_once)

        async def one(index: int) -> None:
            async with limit:
                answers[index] = await run(servers[index], sequences[index])

        async with anyio.create_task_group() as group:
            for index in range(len(sequences)):
                group.start_soon(one, index)

    anyio.run(main)
    return answers


def mirror_snapshot(snapshot: Path, command: list[str], home: Path) -> None:
    """The real server's tools, capabilities and command line into ``snapshot`` (mcp serve --mirror)."""
    done = subprocess.run(
        [sys.executable, "-m", "agentworld_plugins", "mcp", "serve", "--list", "--save-snapshot", str(snapshot),
         "--mirror", "--", *command],
        capture_output=True, text=True, timeout=120, env={**os.environ, "AGENTWORLD_HOME": str(home)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def offline_server(snapshot: Path, home: Path, *extra: str) -> StdioServerParameters:
    """``agentworld mcp serve`` of ``snapshot`` on the offline world, in ``home``."""
    return StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "agentworld_plugins",
            "mcp",
            "serve",
            "--backend",
            "offline",
            "--snapshot",
            str(snapshot),
            *extra,
        ],
        env={"PATH": os.environ["PATH"], "AGENTWORLD_HOME": str(home)},
    )


@contextmanager
def isolating_server(snapshot: Path, home: Path, *extra: str) -> Iterator[str]:
    """``agentworld mcp serve --http --isolate connection`` of ``snapshot`` on the offline world: a
    fresh world per MCP connection, so a comparison whose every sequence wants a fresh server
    starts one process, not one per sequence. Yields the endpoint's URL."""
    from agentworld_plugins.harness import _free_port, start_server, stop_process

    port = _free_port()
    args = ["mcp", "serve", "--backend", "offline", "--snapshot", str(snapshot), "--http", "--port", str(port),
            "--isolate", "connection", *extra]  # fmt: skip
    home.mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ["PATH"], "AGENTWORLD_HOME": str(home)}
    with open(home / f"server-{port}.log", "w+") as log:
        proc = start_server(args, port, env, log)
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            stop_process(proc)


def npm_server(package: str, version: str, bin_name: str) -> list[str]:
    """The command of an npm-published MCP server, installed into the cache (once per version)."""
    npm = shutil.which("npm")
    assert npm and shutil.which("node"), "node and npm are needed for the reference MCP servers"
    with cache_entry(f"{package.rsplit('/', 1)[-1]}-{version}") as home:
        exe = home / "node_modules" / ".bin" / bin_name
        if not exe.exists():
            done = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", f"{package}@{version}"],
                cwd=home, capture_output=True, text=True, timeout=600,
            )  # fmt: skip
            assert done.returncode == 0 and exe.exists(), done.stderr[-1000:]
    return ["node", str(exe)]
